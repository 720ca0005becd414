"""Tensor creation: tensor(), factories, *_like (the random ones are in ember/random.py)."""
import numbers

import numpy as np

from . import dtypes as D
from .ops.shape import size_args
from .tensor import Tensor, device as _device, wrap


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


def _infer(data):
    """NumPy array for nested Python data, with torch's dtype inference."""
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
            arr = np.array([_infer(d) for d in data])
        else:
            arr = np.array(data)
    elif isinstance(data, (bool, numbers.Number)):
        arr = np.array(data)
    else:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if arr.dtype == np.float64 and not _has_np_float64(data):
        arr = arr.astype(D.get_default_dtype().np)
    elif arr.dtype == np.complex128:
        arr = arr.astype(D.DEFAULT.complex.np)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "O" or arr.dtype.kind == "U":
        raise TypeError(f"Could not infer dtype of {type(_first_leaf(data)).__name__}")
    return arr


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
    arr = _infer(data)
    if dtype is not None:
        arr = _cast(arr, dtype)
    return _finish(arr, requires_grad)


def _cast(arr, dtype):
    if arr.dtype.kind == "c" and dtype.category < D.COMPLEX:
        arr = arr.real
    return arr.astype(dtype.np, copy=False)


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


def _dtype(dtype, fill=None):
    if dtype is not None:
        return dtype
    if fill is None:
        return D.get_default_dtype()
    if isinstance(fill, Tensor):
        return fill.dtype if fill.ndim else D.result_type(fill.item())
    return D.result_type(fill)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    _check_device(device)
    return _finish(np.zeros(size_args(size), _dtype(dtype).np), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    if device is not None:
        _device(device)
    arr = np.empty(size_args(size), (dtype or D.get_default_dtype()).np)
    arr.fill(1)             # np.ones does the same behind a Python layer (1.4 us vs 0.6 us)
    return _finish(arr, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    # zero-filled: uninitialised memory would make results depend on allocator history
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    _check_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = _dtype(dtype, fill_value)
    return _finish(np.full(size_args((size,)), fill_value, dt.np), requires_grad)


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


# ---------------------------------------------------------------- *_like and new_*

def _like(factory):
    def like(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, **kwargs):
        return factory(input._data.shape, *args, dtype=dtype or input.dtype,
                       requires_grad=requires_grad, **kwargs)
    like.__name__ = factory.__name__ + "_like"
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    return full(input._data.shape, fill_value, dtype=dtype or input.dtype,
                requires_grad=requires_grad)


def _new(factory):
    def new(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        return factory(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)
    new.__name__ = "new_" + factory.__name__
    return new


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _legacy_new(self, args, kwargs):
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


def _zero_(self):
    return _fill_(self, 0)


def _fill_(self, value):
    from .ops._common import inplace, inplace_source, mark_written
    from .autograd.grad_mode import STATE
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        if STATE.enabled and (value._requires_grad or self._requires_grad):
            src = inplace_source(self)
            return inplace(self, src * 0 + value.expand(self._data.shape))
        value = value.item()
    if STATE.enabled and self._requires_grad:
        src = inplace_source(self)
        return inplace(self, src * 0 + value)
    np.copyto(self._data, value, casting="unsafe")
    mark_written(self)
    return self


def _bind():
    T = Tensor
    T.new_zeros, T.new_ones, T.new_empty = _new(zeros), _new(ones), _new(empty)
    T.new_full, T.new_tensor = _new_full, _new_tensor
    T.zero_, T.fill_ = _zero_, _fill_


_bind()
