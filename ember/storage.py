"""Storages: the memory under a tensor, as torch exposes it (UntypedStorage: bytes;
TypedStorage and the legacy FloatStorage, ...: elements of one dtype), and the tensor methods
that read or replace a tensor's storage: untyped_storage, storage, storage_offset, set_,
resize_, resize_as_, is_set_to, share_memory_/is_shared.

A tensor's storage is the NumPy array that owns its memory (every view of it shares that
owner), seen as bytes. A storage object is made on each call; two made from views of one
tensor have the same data_ptr and see each other's writes, as in torch."""
import warnings
import weakref

import numpy as np

from . import dtypes as D
from .autograd.grad_mode import STATE
from .ops._views import _c_strides, _memory, check_inplace, mark_written
from .tensor import NO_ACCELERATOR, Tensor, device as _device, wrap

_CPU = _device("cpu")
_SHARED = weakref.WeakValueDictionary()      # id(owner array) -> owner, after share_memory_
_TYPED_WARNED = []


def _is_shared(arr):
    return id(_memory(arr)) in _SHARED


def _share(arr):
    """Mark the memory under arr as shared (share_memory_ of a storage or a tensor)."""
    mem = _memory(arr)
    _SHARED[id(mem)] = mem


def _warn_typed():
    if not _TYPED_WARNED:
        _TYPED_WARNED.append(True)
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


def _ptr(arr):
    return arr.__array_interface__["data"][0]


def _owner_bytes(arr):
    """The bytes of the memory arr lives in (the owning array's buffer), as a uint8 array."""
    mem = _memory(arr)
    if mem.flags.c_contiguous or mem.flags.f_contiguous:
        return np.ndarray((mem.nbytes,), np.uint8, buffer=mem, order="A")
    # an owner with gaps (a strided view of a foreign buffer): a copy of its bytes (the one
    # case where a storage does not share the tensor's memory)
    return np.frombuffer(np.ascontiguousarray(mem).tobytes(), np.uint8).copy()


def _format(values, body):
    lines = "".join(f" {v}\n" for v in values) if values else " \n"
    return f"{lines}[{body}]"


class _OnCPU:
    """What a storage of either kind answers about its device (it is on the CPU), and its
    iteration (over tolist())."""
    __slots__ = ()

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def __iter__(self):
        return iter(self.tolist())


class StorageBase:
    """torch.StorageBase: the base class of UntypedStorage (isinstance checks use it); it is
    only constructed through a subclass."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        if cls is StorageBase:
            raise RuntimeError("Cannot directly construct StorageBase; subclass it and then "
                               "construct that")
        return super().__new__(cls)


class UntypedStorage(_OnCPU, StorageBase):
    """torch.UntypedStorage: bytes on the CPU."""
    __slots__ = ("_bytes", "__weakref__")

    def __init__(self, *args, device=None):
        if device is not None and _CPU != _device(device):
            raise RuntimeError(NO_ACCELERATOR)
        if not args:
            self._bytes = np.zeros(0, np.uint8)
        elif len(args) == 1 and isinstance(args[0], (int, np.integer)):
            self._bytes = np.zeros(int(args[0]), np.uint8)       # zeroed, not uninitialised
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            self._bytes = np.array([int(v) % 256 for v in args[0]], np.uint8)
        else:
            raise TypeError("UntypedStorage(): expected a size or a sequence of bytes")

    @classmethod
    def _over(cls, byte_array):
        s = object.__new__(cls)
        s._bytes = byte_array
        return s

    def nbytes(self):
        return self._bytes.size

    size = nbytes

    def __len__(self):
        return self._bytes.size

    def element_size(self):
        return 1

    def data_ptr(self):
        return _ptr(self._bytes)

    def is_shared(self):
        return _is_shared(self._bytes)

    def share_memory_(self):
        _share(self._bytes)
        return self

    def type(self, dtype=None, non_blocking=False):
        return "torch.storage.UntypedStorage"

    def tolist(self):
        return self._bytes.tolist()

    def __getitem__(self, i):
        if isinstance(i, slice):
            return UntypedStorage._over(self._bytes[i])
        return int(self._bytes[i])

    def __setitem__(self, i, value):
        self._bytes[i] = value

    def clone(self):
        return UntypedStorage._over(self._bytes.copy())

    def copy_(self, source, non_blocking=None):
        src = source._bytes if isinstance(source, UntypedStorage) else \
            source.untyped()._bytes
        if src.size != self._bytes.size:
            raise RuntimeError(f"size mismatch: {src.size} vs {self._bytes.size}")
        self._bytes[...] = src
        return self

    def fill_(self, value):
        self._bytes.fill(value)
        return self

    def untyped(self):
        return self

    def resize_(self, size):
        raise RuntimeError("Trying to resize storage that is not resizable")

    def _typed(self, dtype):
        """Each byte converted to `dtype` (torch's UntypedStorage.float() etc.)."""
        return TypedStorage._over(self._bytes.astype(dtype.np).view(np.uint8), dtype)

    def __repr__(self):
        return _format(self.tolist(), f"torch.storage.UntypedStorage(device=cpu) of size "
                                      f"{self._bytes.size}")

    def _as_array(self):
        """A copy of the bytes (torch.tensor(storage))."""
        return self._bytes.copy()

    def _legacy_tensor(self, dtype):
        """A tensor of `dtype` over this storage (torch.Tensor(storage))."""
        return wrap(self._bytes[: self._bytes.size - self._bytes.size % dtype.itemsize]
                    .view(dtype.np))


class TypedStorage(_OnCPU):
    """torch.TypedStorage: the same bytes read as elements of one dtype (deprecated in torch,
    which warns once)."""
    __slots__ = ("_untyped", "dtype", "__weakref__")

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        _warn_typed()
        dtype = dtype or type(self).__dict__.get("_default_dtype") or D.get_default_dtype()
        if wrap_storage is not None:
            self._untyped, self.dtype = wrap_storage, dtype
            return
        if not args:
            arr = np.zeros(0, dtype.np)
        elif len(args) == 1 and isinstance(args[0], (int, np.integer)):
            arr = np.zeros(int(args[0]), dtype.np)
        else:
            arr = np.array(args[0], dtype.np).reshape(-1)
        self._untyped = UntypedStorage._over(arr.view(np.uint8))
        self.dtype = dtype

    @classmethod
    def _over(cls, byte_array, dtype):
        s = object.__new__(TypedStorage)
        s._untyped = UntypedStorage._over(byte_array)
        s.dtype = dtype
        return s

    def _values(self):
        b = self._untyped._bytes
        return b[: b.size - b.size % self.dtype.itemsize].view(self.dtype.np)

    def size(self):
        return self._untyped._bytes.size // self.dtype.itemsize

    __len__ = size

    def nbytes(self):
        return self._untyped._bytes.size

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    def is_shared(self):
        return self._untyped.is_shared()

    def share_memory_(self):
        self._untyped.share_memory_()
        return self

    def untyped(self):
        return self._untyped

    def type(self, dtype=None, non_blocking=False):
        return f"torch.{_STORAGE_NAMES[self.dtype]}"

    def tolist(self):
        return self._values().tolist()

    def __getitem__(self, i):
        v = self._values()[i]
        if isinstance(i, slice):
            return TypedStorage._over(np.ascontiguousarray(v).view(np.uint8), self.dtype)
        return v.item()

    def __setitem__(self, i, value):
        self._values()[i] = value

    def clone(self):
        return TypedStorage._over(self._untyped._bytes.copy(), self.dtype)

    def copy_(self, source, non_blocking=None):
        vals = source._values() if isinstance(source, TypedStorage) else \
            np.asarray(source.tolist())
        self._values()[...] = vals
        return self

    def fill_(self, value):
        self._values().fill(value)
        return self

    def _to(self, dtype):
        return TypedStorage._over(self._values().astype(dtype.np).view(np.uint8), dtype)

    def __repr__(self):
        return _format(self.tolist(), f"torch.storage.TypedStorage(dtype=torch.{self.dtype.name},"
                                      f" device=cpu) of size {self.size()}")

    def _as_array(self):
        """A copy of the elements (torch.tensor(storage): only of the default dtype)."""
        want = D.get_default_dtype()
        if self.dtype is not want:
            raise RuntimeError(f"Expected a Storage of type {D.type_name(want.np)} or an "
                               f"UntypedStorage, but got {D.type_name(self.dtype.np)}")
        return self._values().copy()

    def _legacy_tensor(self, dtype):
        return wrap(self._values())


for _name, _dt in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                   ("long", D.int64), ("int", D.int32), ("short", D.int16), ("char", D.int8),
                   ("byte", D.uint8), ("bool", D.bool_), ("cfloat", D.complex64),
                   ("cdouble", D.complex128)):
    setattr(UntypedStorage, _name, lambda self, _dt=_dt: self._typed(_dt))
    setattr(TypedStorage, _name, lambda self, _dt=_dt: self._to(_dt))
del _name, _dt


class _LegacyStorageType(type):
    """torch.FloatStorage and friends: constructors of TypedStorage of one dtype, and
    isinstance checks on the dtype."""

    def __call__(cls, *args, **kwargs):
        return TypedStorage(*args, dtype=cls.dtype, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


_STORAGE_NAMES = {D.float32: "FloatStorage", D.float64: "DoubleStorage",
                  D.float16: "HalfStorage", D.int64: "LongStorage", D.int32: "IntStorage",
                  D.int16: "ShortStorage", D.int8: "CharStorage", D.uint8: "ByteStorage",
                  D.bool_: "BoolStorage", D.complex64: "ComplexFloatStorage",
                  D.complex128: "ComplexDoubleStorage"}
_LEGACY = {dt: _LegacyStorageType(n, (), {"dtype": dt}) for dt, n in _STORAGE_NAMES.items()}
FloatStorage, DoubleStorage, HalfStorage, LongStorage, IntStorage, ShortStorage, CharStorage, \
    ByteStorage, BoolStorage, ComplexFloatStorage, ComplexDoubleStorage = _LEGACY.values()


def is_storage(obj):
    return isinstance(obj, (UntypedStorage, TypedStorage))


# ---------------------------------------------------------------- tensor methods

def untyped_storage(self):
    return UntypedStorage._over(_owner_bytes(self._data))


def storage(self):
    _warn_typed()
    return TypedStorage._over(_owner_bytes(self._data), self.dtype)


def storage_type(self):
    return _LEGACY[self.dtype]


def storage_offset(self):
    d = self._data
    return (_ptr(d) - _ptr(_memory(d))) // d.itemsize


def is_set_to(self, tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    a, b = self._data, tensor._data
    return _memory(a) is _memory(b) and _ptr(a) == _ptr(b) and a.shape == b.shape and \
        a.strides == b.strides and a.dtype == b.dtype


def is_shared(self):
    return _is_shared(self._data)


def share_memory_(self):
    _share(self._data)
    return self


def _replace(self, arr):
    """self now views `arr` (an in-place change of its storage or geometry)."""
    check_inplace(self, STATE.enabled and self._requires_grad)
    self._data = arr
    mark_written(self)
    return self


def _view_bytes(byte_array, dtype, offset, size, stride):
    """An array of `dtype` over byte_array at element offset, size and stride (its base is the
    memory's owner, so it is a view like any other)."""
    isz = np.dtype(dtype).itemsize
    return np.ndarray(tuple(size), dtype, buffer=byte_array, offset=offset * isz,
                      strides=tuple(s * isz for s in stride))


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    if source is None:
        return _replace(self, np.zeros(0, self._data.dtype))
    dt = self._data.dtype
    if isinstance(source, Tensor):
        if source._data.dtype != dt:
            raise RuntimeError(f"Could not set tensor of type "
                               f"{D.C_NAMES[source._data.dtype.name]} to a tensor of type "
                               f"{D.C_NAMES[dt.name]}")
        return _replace(self, source._data.view())
    if isinstance(source, TypedStorage):
        source = source.untyped()
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    b = source._bytes
    if size is None:
        size = (b.size // dt.itemsize - storage_offset,)
    size = tuple(size)
    stride = _c_strides(size) if stride is None else tuple(stride)
    _strided_check(b, dt, storage_offset, size, stride, "setStorage")
    return _replace(self, _view_bytes(b, dt, storage_offset, size, stride))


def _strided_check(b, dt, offset, size, stride, what):
    isz = dt.itemsize
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    need = 0 if 0 in size else (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)))
    if need * isz > b.size:
        raise RuntimeError(f"{what}: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {isz} requiring a storage size of "
                           f"{need * isz} are out of bounds for storage of size {b.size}")


def resize_(self, *sizes, memory_format=None):
    if not sizes:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    single = len(sizes) == 1
    if single and isinstance(sizes[0], (tuple, list)):
        sizes, single = tuple(sizes[0]), False
    for i, n in enumerate(sizes):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            kind = type(n).__name__
            raise TypeError("resize_(): argument 'size' (position 1) must be tuple of ints, "
                            + (f"not {kind}" if single else
                               f"but found element of type {kind} at pos {i}"))
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(sizes)}")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    d = self._data
    if d.shape == tuple(sizes) and d.flags.c_contiguous:
        return self
    n = int(np.prod(sizes, dtype=np.int64))
    b = _owner_bytes(d)
    off = storage_offset(self)
    if (off + n) * d.itemsize > b.size:
        # the storage grows: new memory holding the old bytes first (torch reallocates)
        grown = np.zeros((off + n) * d.itemsize, np.uint8)
        grown[: b.size] = b
        b = grown
    return _replace(self, _view_bytes(b, d.dtype, off, tuple(sizes), _c_strides(sizes)))


def resize_as_(self, the_template, *, memory_format=None):
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return resize_(self, the_template.shape)


def resize(self, *sizes):
    """Tensor.resize (deprecated): a resized copy of a contiguous tensor's values."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return self.contiguous().view(sizes)


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"resize_as(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return self.contiguous().view(tensor.shape)
