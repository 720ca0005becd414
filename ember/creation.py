"""Tensor creation: tensor(), factories, *_like, random sampling and Generator objects."""
import numbers
import pickle

import numpy as np

from . import dtypes as D
from .autograd.grad_mode import STATE
from .dtypes import type_name
from .ops.shape import size_args
from .tensor import Tensor, device as _device, wrap, wrap as _w


def _finish(arr, requires_grad):
    t = wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _check_device(device):
    if device is not None:
        _device(device)


def _infer(data, exact=False):
    """NumPy array for nested Python data, with torch's dtype inference. exact: keep Python
    floats and complexes in double precision (a dtype was given: convert once, to it)."""
    if isinstance(data, Tensor):
        return data._data.copy()
    if isinstance(data, np.ndarray):
        D.from_numpy_dtype(data.dtype)
        return data.copy()
    if isinstance(data, np.generic):
        return np.array(data)
    if isinstance(data, (list, tuple)):
        _check_ragged(data, 0)
        if _contains_tensor(data):
            arr = np.array([_infer(d, exact) for d in data])
        else:
            arr = _python_array(data)
    elif isinstance(data, (bool, numbers.Number)):
        arr = _python_array(data)
    else:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if exact and arr.dtype.kind in "fc":
        return arr
    if arr.dtype == np.float64 and not _has_np_float64(data):
        arr = arr.astype(D.get_default_dtype().np)
    elif arr.dtype == np.complex128:
        arr = arr.astype(D.DEFAULT.complex.np)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "U" or arr.dtype.kind == "O" and not all(
            isinstance(v, int) for v in arr.reshape(-1)):
        raise TypeError(f"Could not infer dtype of {type(_first_leaf(data)).__name__}")
    return arr


def _python_array(data):
    """np.array of Python numbers; Python ints beyond int64 stay exact (as objects)."""
    try:
        return np.array(data)
    except OverflowError:
        return np.array(data, dtype=object)


def _contains_tensor(data):
    return any(isinstance(d, Tensor) or (isinstance(d, (list, tuple)) and _contains_tensor(d))
               for d in data)


def _has_np_float64(data):
    if isinstance(data, np.float64) or (isinstance(data, np.ndarray) and data.dtype == np.float64):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_np_float64(d) for d in data[:1])
    return False


def _first_leaf(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _check_ragged(data, dim):
    """torch's error for nested sequences of unequal lengths."""
    lists = [isinstance(d, (list, tuple)) for d in data]
    if not any(lists):
        return
    if not all(lists):
        raise TypeError("not a sequence")
    n = len(data[0])
    for d in data:
        if len(d) != n:
            raise ValueError(f"expected sequence of length {n} at dim {dim + 1} (got {len(d)})")
    for d in data:
        _check_ragged(d, dim + 1)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _check_device(device)
    dtype = D.as_dtype(dtype, "tensor")
    python = not isinstance(data, (Tensor, np.ndarray, np.generic))
    arr = _infer(data, exact=python and dtype is not None)
    if python:
        arr = _from_python(arr, dtype)
    elif dtype is not None:
        arr = _cast(arr, dtype)
    return _finish(arr, requires_grad)


def _cast(arr, dtype):
    if arr.dtype.kind == "c" and dtype.category < D.COMPLEX:
        arr = arr.real
    return arr.astype(dtype.np, copy=False)


def _from_python(arr, dtype):
    """Python numbers (as inferred, in double precision when a dtype is given) converted to
    dtype with torch's checks: no complex into a real dtype, no integer overflow."""
    kind = arr.dtype.kind
    big = kind == "O" or kind == "u" and arr.dtype.itemsize == 8   # ints beyond int64
    if big and (dtype is None or dtype.np.kind not in "fc"):
        raise ValueError("Overflow when unpacking long long")
    if dtype is None:
        return arr
    target = dtype.np
    if kind == "c" and target.kind != "c":
        raise TypeError("must be real number, not complex")
    if target.kind in "iu" and kind in "fO" + ("iu" if kind != target.kind or
                                               arr.dtype.itemsize > target.itemsize else ""):
        info = np.iinfo(target)
        lo, hi = (info.min, info.max) if target.kind == "i" or kind in "fO" else \
            (-info.max, info.max)           # torch wraps ints in (-256, 256) into uint8
        if kind == "f":
            lo = 0 if target.kind == "u" else lo
            bad = ~np.isfinite(arr) | (arr < lo) | (arr > hi)
        else:
            bad = (arr < lo) | (arr > hi)
        if np.any(bad):
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without "
                               f"overflow")
    if big:
        arr = arr.astype(np.float64)
    return arr.astype(target)


def as_tensor(data, dtype=None, device=None):
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        return t if dtype is None or dtype.np == data.dtype else wrap(_cast(data, dtype))
    return tensor(data, dtype=dtype)


asarray = as_tensor


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    return wrap(ndarray)


def _dtype(dtype, fill=None, fn="tensor"):
    if dtype is not None:
        return D.as_dtype(dtype, fn)
    if fill is None:
        return D.get_default_dtype()
    if isinstance(fill, Tensor):
        return fill.dtype if fill.ndim else D.result_type(fill.item())
    return D.result_type(fill)


def _shape(size, fn):
    """A factory's size argument: torch's errors for a bad or negative size."""
    if len(size) == 1 and size[0] is None:
        raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"NoneType")
    shape = size_args(size, fn)
    for d in shape:
        if d < 0:
            if fn == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: "
                               f"{list(shape)}")
    return shape


def _empty(shape, np_dtype):
    """np.empty with torch's error when the memory cannot be had."""
    try:
        return np.empty(shape, np_dtype)
    except MemoryError:
        n = np.dtype(np_dtype).itemsize
        for d in shape:
            n *= d
        raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. "
                           f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{n} bytes. Error code 12 (Cannot allocate memory)") from None


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    _check_device(device)
    arr = _empty(_shape(size, "zeros"), _dtype(dtype, fn="zeros").np)
    arr.fill(0)
    return _finish(arr, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    if device is not None:
        _device(device)
    if dtype is None and len(size) == 1 and type(size[0]) is int and size[0] >= 0:
        arr = np.empty(size, D.get_default_dtype().np)      # (the common call, quickly)
    else:
        arr = _empty(_shape(size, "ones"), _dtype(dtype, fn="ones").np)
    arr.fill(1)             # np.ones does the same behind a Python layer (1.4 us vs 0.6 us)
    return _finish(arr, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    _check_device(device)
    # zero-filled: uninitialised memory would make results depend on allocator history
    arr = _empty(_shape(size, "empty"), _dtype(dtype, fn="empty").np)
    arr.fill(0)
    return _finish(arr, requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    _check_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    elif not isinstance(fill_value, (bool, int, float, complex, np.generic)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    dt = _dtype(dtype, fill_value, "full")
    arr = _empty(_shape((size,), "full"), dt.np)
    arr.fill(fill_value)
    return _finish(arr, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    _check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _finish(np.eye(n, n if m is None else m, dtype=_dtype(dtype).np), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    _check_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in vals) else D.int64
    if dtype is D.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    n = int(np.ceil((end - start) / step))
    # torch computes start + i * step in double (or int64) precision, then casts
    if dtype.category <= D.INT and all(isinstance(v, int) for v in vals):
        arr = start + np.arange(n, dtype=np.int64) * step
    else:
        arr = start + np.arange(n, dtype=np.float64) * step
    return _finish(arr.astype(dtype.np), requires_grad)


def range_(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    n = int(np.floor((end - start) / step)) + 1
    arr = start + np.arange(n, dtype=np.float64) * step
    return _finish(arr.astype(_dtype(dtype).np), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    _check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dtype(dtype)
    if dt is D.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if dt.category <= D.INT:
        arr = np.linspace(start, end, steps).astype(dt.np)
        return _finish(arr, requires_grad)
    # torch fills the first half forwards from start and the second half backwards from end
    ft = dt.np
    if steps == 1:
        return _finish(np.full(1, start, ft), requires_grad)
    step = (ft.type(end) - ft.type(start)) / ft.type(steps - 1) if steps > 1 else ft.type(0)
    i = np.arange(steps)
    half = steps // 2
    arr = np.where(i < half, ft.type(start) + step * i.astype(ft),
                   ft.type(end) - step * (steps - 1 - i).astype(ft)).astype(ft)
    return _finish(arr, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    lin = linspace(start, end, steps, dtype=D.float64)
    arr = np.power(base, lin._data).astype(_dtype(dtype).np)
    return _finish(arr, requires_grad)


# ---------------------------------------------------------------- random

class Generator:
    """A seedable random source (NumPy's PCG64 underneath; values differ from torch's)."""

    def __init__(self, device="cpu"):
        _check_device(device)
        self._seed = 67280421310721
        self._np = None

    @property
    def _rng(self):
        """The NumPy generator, made at the first draw: numpy.random costs ~7 MB and ~20 ms to
        import, which a program that never samples should not pay."""
        if self._np is None:
            self._np = np.random.Generator(np.random.PCG64(self._seed & ((1 << 64) - 1)))
        return self._np

    @property
    def device(self):
        return _device("cpu")

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._np = None
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return _w(np.frombuffer(pickle.dumps(self._rng.bit_generator.state), np.uint8).copy())

    def set_state(self, state):
        self._rng.bit_generator.state = pickle.loads(state._data.tobytes())
        return self


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def _rng(generator):
    return (generator or default_generator)._rng


def _float_dtype(dtype, name):
    dt = _dtype(dtype)
    if dt.category < D.FLOAT:
        raise RuntimeError(f"\"{name}\" not implemented for '{_long_name(dt)}'")
    return dt


def _long_name(dt):
    return type_name(dt.np)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    _check_device(device)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    shape = size_args(size)
    if dt.is_complex:
        r = _rng(generator)
        real = dt.to_real().np
        arr = (r.random(shape, dtype=np.float64).astype(real) +
               1j * r.random(shape, dtype=np.float64).astype(real)).astype(dt.np)
    else:
        arr = _rng(generator).random(shape, dtype=np.float64).astype(dt.np)
    return _finish(arr, requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    _check_device(device)
    dt = _dtype(dtype)
    if dt.category < D.FLOAT:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_long_name(dt)}'")
    shape = size_args(size)
    r = _rng(generator)
    if dt.is_complex:
        real = dt.to_real().np
        s = np.sqrt(0.5)
        arr = (r.standard_normal(shape) * s + 1j * r.standard_normal(shape) * s).astype(dt.np)
    else:
        arr = r.standard_normal(shape).astype(dt.np)
    return _finish(arr, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    _check_device(device)
    if high is None or (size is None and isinstance(high, (tuple, list))):
        low, high, size = 0, low, high if size is None else size
    if size is None:
        raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    dt = dtype or D.int64
    arr = _rng(generator).integers(low, high, size_args((size,))).astype(dt.np)
    return _finish(arr, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    dt = dtype or D.int64
    return _finish(_rng(generator).permutation(n).astype(dt.np), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None,
           layout=None, device=None, requires_grad=False, pin_memory=False):
    r = _rng(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mt or st:
        m = mean._data if mt else mean
        s = std._data if st else std
        if np.any(np.asarray(s) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        ref = mean if mt else std
        arr = (m + s * r.standard_normal(shape)).astype(ref._data.dtype)
        return wrap(arr)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    arr = (mean + std * r.standard_normal(size_args((size,)))).astype(dt.np)
    return _finish(arr, requires_grad)


# ---------------------------------------------------------------- *_like and new_*

def _like(factory):
    def like(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, **kwargs):
        return factory(input._data.shape, *args, dtype=dtype or input.dtype,
                       requires_grad=requires_grad, **kwargs)
    like.__name__ = factory.__name__ + "_like"
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
rand_like, randn_like = _like(rand), _like(randn)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    return full(input._data.shape, fill_value, dtype=dtype or input.dtype,
                requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype,
                   generator=generator, requires_grad=requires_grad)


def _new(factory):
    def new(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        return factory(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)
    new.__name__ = "new_" + factory.__name__
    return new


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def legacy_init(self, *args, **kwargs):
    """torch.Tensor(...) legacy constructor: data or sizes, default dtype."""
    if kwargs.pop("device", None) not in (None, "cpu"):
        raise RuntimeError("ember runs on the CPU only")
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray, Tensor)) and not \
            (isinstance(args[0], tuple) and all(isinstance(a, int) for a in args[0])
             and type(args[0]) is not tuple):
        arr = _infer(args[0])
        arr = arr.astype(D.get_default_dtype().np) if arr.dtype.kind != "c" else arr
    else:
        arr = np.zeros(size_args(args), D.get_default_dtype().np)
    self._data = arr
    self._requires_grad = False
    self._grad_fn = None
    self._grad = None
    self._acc = None
    self._x = None


new_zeros, new_ones, new_empty = _new(zeros), _new(ones), _new(empty)
