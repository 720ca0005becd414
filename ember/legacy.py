"""torch's legacy tensor API still found in tutorials: the typed constructors (FloatTensor,
LongTensor, ... also usable in isinstance checks), torch.Tensor(...) and Tensor.new(...),
Tensor.type() with and without a type name, set_default_tensor_type, typename."""
import numbers
import warnings

import numpy as np

from . import dtypes as D
from .creation import tensor
from .ops.convert import _to_dtype
from .ops.shape import alias  # torch's AliasBackward0 view (not public in torch)
from .tensor import Tensor, Size, device, wrap

_OPTION_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                 "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                 "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n"
               " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")


class _LegacyType(type):
    """The metaclass of torch.FloatTensor and friends: calling the class builds a Tensor of
    its dtype; isinstance(t, FloatTensor) asks whether t is a float32 CPU tensor."""

    def __instancecheck__(cls, obj):
        return not cls.is_cuda and isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __call__(cls, *args, **kwargs):
        if cls.is_cuda:
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not "
                            f"compiled with CUDA enabled.")
        return legacy_new(cls.dtype, args, kwargs, check_dtype=True)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _legacy_type(name, dtype, cuda=False):
    cls = _LegacyType(name, (), {"dtype": dtype, "is_cuda": cuda, "is_sparse": False})
    cls.__module__ = "torch.cuda" if cuda else "torch"
    return cls


_TYPES = (("FloatTensor", D.float32), ("DoubleTensor", D.float64), ("HalfTensor", D.float16),
          ("LongTensor", D.int64), ("IntTensor", D.int32), ("ShortTensor", D.int16),
          ("CharTensor", D.int8), ("ByteTensor", D.uint8), ("BoolTensor", D.bool_))
FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor, \
    ByteTensor, BoolTensor = [_legacy_type(n, d) for n, d in _TYPES]
CUDA_TYPES = {n: _legacy_type(n, d, cuda=True) for n, d in _TYPES}
# Tensor.type()'s names, complex included (torch has no constructor classes for those)
TYPE_NAMES = dict([(d, n) for n, d in _TYPES] + [(D.complex64, "ComplexFloatTensor"),
                                                 (D.complex128, "ComplexDoubleTensor")])
_BY_NAME = {n: d for d, n in TYPE_NAMES.items()}


# ---------------------------------------------------------------- legacy construction

def _type_label(v):
    if isinstance(v, (D.dtype, device)):
        return f"torch.{type(v).__name__}"
    return type(v).__name__


def _bad_combination(args, kwargs):
    parts = [_type_label(a) for a in args] + [f"{k}={_type_label(v)}" for k, v in kwargs.items()]
    got = ", ".join(parts) + (", " if kwargs and not args else "")
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n{_SIGNATURES}")


def _is_int(a):
    return isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, (bool, np.bool_))


def legacy_new(dtype, args, kwargs, check_dtype=False, alias_any=False):
    """The legacy constructor: no argument, sizes, a sequence of data, a tensor (aliased: it
    must have `dtype` when check_dtype) or a storage; `device=` must name the CPU."""
    dev = kwargs.pop("device", None) if "device" in kwargs else None
    if dev is not None and device(dev).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{device(dev).type} was passed")
    if "size" in kwargs and not args and len(kwargs) == 1 and \
            isinstance(kwargs["size"], (tuple, list)):
        args = tuple(kwargs.pop("size"))
    elif "data" in kwargs and not args and len(kwargs) == 1:
        return _from_data(kwargs.pop("data"), dtype)
    if kwargs:
        raise _bad_combination(args, kwargs)
    if not args:
        return wrap(np.empty(0, dtype.np))
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            if not alias_any and a.dtype is not dtype:
                raise TypeError(f"expected TensorOptions(dtype={_OPTION_NAMES[dtype.name]}, "
                                f"device=cpu, layout=Strided, requires_grad=false (default), "
                                f"pinned_memory=false (default), memory_format=(nullopt)) (got "
                                f"TensorOptions(dtype={_OPTION_NAMES[a.dtype.name]}, device=cpu,"
                                f" layout=Strided, requires_grad=false (default), pinned_memory="
                                f"false (default), memory_format=(nullopt)))")
            return alias(a)
        if isinstance(a, Size):
            return _sized(tuple(a), dtype)
        if _is_int(a):
            return _sized((int(a),), dtype)
        if hasattr(a, "_legacy_tensor"):          # a storage (ember/storage.py)
            return a._legacy_tensor(dtype)
        return _from_data(a, dtype)
    if all(_is_int(a) for a in args):
        return _sized(tuple(int(a) for a in args), dtype)
    if _is_int(args[0]):
        i, bad = next((i, a) for i, a in enumerate(args) if not _is_int(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} "
                        f"with error \"type must be tuple of ints,but got {type(bad).__name__}\"")
    raise _bad_combination(args, kwargs)


def _sized(shape, dtype):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    # zero-filled: uninitialised memory would make results depend on allocator history
    return wrap(np.zeros(shape, dtype.np))


def _from_data(data, dtype):
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, range):
        data = list(data)
    if not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {_qualified(data)})")
    if dtype.category < D.COMPLEX and _has_complex(data):
        raise TypeError("must be real number, not complex")
    return tensor(data, dtype=dtype)


def _qualified(v):
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _has_complex(data):
    if isinstance(data, np.ndarray):
        return data.dtype.kind == "c"
    if isinstance(data, (list, tuple)):
        return any(_has_complex(d) for d in data)
    return isinstance(data, (complex, np.complexfloating))


def tensor_new(cls, *args, **kwargs):
    """torch.Tensor(...): the legacy constructor with the default dtype; a tensor argument is
    aliased whatever its dtype. A subclass (nn.Parameter) gets the same fields and then sets
    its own."""
    t = legacy_new(D.get_default_dtype(), args, kwargs, alias_any=True)
    if cls is Tensor:
        return t
    out = object.__new__(cls)
    for name in ("_data", "_requires_grad", "_grad_fn", "_grad", "_acc", "_x"):
        setattr(out, name, getattr(t, name))
    if t._grad_fn is not None:
        out._output_nr = t._output_nr
    return out


def tensor_init(self, *args, **kwargs):
    pass            # the work is done in tensor_new


def new(self, *args, **kwargs):
    """Tensor.new(...): the legacy constructor with self's dtype."""
    return legacy_new(self.dtype, args, kwargs, check_dtype=True)


# ---------------------------------------------------------------- type names

def _parse_type(name):
    """A legacy type name ('torch.FloatTensor') as a dtype; torch's errors otherwise."""
    if name.startswith("torch.cuda."):
        raise RuntimeError("Cannot initialize CUDA without ATen_cuda library. PyTorch splits "
                           "its backend into two shared libraries: a CPU library and a CUDA "
                           "library; this error has occurred because you are trying to use "
                           "some CUDA functionality, but the CUDA library has not been loaded "
                           "by the dynamic linker for some reason.  The CUDA library MUST be "
                           "loaded, EVEN IF you don't directly use any symbols from the CUDA "
                           "library! One common culprit is a lack of -Wl,--no-as-needed in your "
                           "link arguments; many dynamic linkers will delete dynamic library "
                           "dependencies if you don't depend on any of their symbols.  You can "
                           "check if this has occurred by using ldd on your binary to see if "
                           "there is a dependency on *_cuda.so library.")
    if name.startswith("torch.") and name[6:] in _BY_NAME:
        return _BY_NAME[name[6:]]
    raise ValueError(f"invalid type: '{name}'")


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """Tensor.type(): the legacy type name; Tensor.type(t): a copy cast to t (a dtype, a type
    name or a legacy type class)."""
    for k in kwargs:
        if k not in ("memory_format", "async"):
            raise TypeError(f"type() got an unexpected keyword argument '{k}'")
    if dtype is None:
        return "torch." + TYPE_NAMES[self.dtype]
    if isinstance(dtype, str):
        dtype = _parse_type(dtype)
    elif isinstance(dtype, _LegacyType):
        if dtype.is_cuda:
            _parse_type("torch.cuda." + dtype.__name__)
        dtype = dtype.dtype
    elif not isinstance(dtype, D.dtype):
        raise TypeError(f"type() received an invalid combination of arguments - got "
                        f"({type(dtype).__name__}), but expected one of:\n"
                        f" * (torch.dtype dtype = None, bool non_blocking = False, *, "
                        f"torch.memory_format memory_format = torch.preserve_format)\n"
                        f" * (str dtype = None, bool non_blocking = False, *, "
                        f"torch.memory_format memory_format = torch.preserve_format)\n")
    return _to_dtype(self, dtype)


def typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + TYPE_NAMES[obj.dtype]
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        t = type(obj)
        module, name = t.__module__, t.__qualname__
    if module in ("", "builtins"):
        return name
    return f"{module}.{name}"


_WARNED = []


def set_default_tensor_type(t):
    if not _WARNED:                 # torch warns once per process
        _WARNED.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                      UserWarning, stacklevel=2)
    if isinstance(t, str):
        if t.startswith("torch.cuda."):
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if not (t.startswith("torch.") and t[6:] in _BY_NAME):
            raise TypeError(f"invalid type: '{t}'")
        dtype = _BY_NAME[t[6:]]
    elif isinstance(t, _LegacyType):
        if t.is_cuda:
            raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled "
                            f"with CUDA enabled.")
        dtype = t.dtype
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dtype)


def as_subclass(self, cls):
    """self's values (and history, through an alias) as an instance of a Tensor subclass."""
    t = alias(self)
    out = object.__new__(cls)
    for name in ("_data", "_requires_grad", "_grad_fn", "_grad", "_acc", "_x"):
        setattr(out, name, getattr(t, name))
    if t._grad_fn is not None:
        out._output_nr = t._output_nr
        t._grad_fn = None                   # the subclass instance is the node's output now
    return out
