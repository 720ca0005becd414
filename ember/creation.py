"""Tensor creation: tensor(), factories, *_like (the random ones are in ember/random.py)."""
import builtins
import math
import os
import numbers
import pickle
import warnings

import numpy as np

from . import _libm, dtypes as D
from .ops._args import memory_error as _memory_error, no_memory as _no_memory
from .ops._args import not_tensor as _not_tensor, torch_layout as _torch_layout, in_format
from .ops._args import checked_half as _checked_half
from .ops._args import check_args as _check_args
from .ops._args import invalid_args as _invalid_args, args_fit as _args_fit, OMITTED as _OMITTED
from .autograd.grad_mode import STATE
from .dtypes import C_NAMES, type_name
from .ops._views import mark_written
from .ops.special import i0_kernel
from .ops.shape import size_args
from .runtime import SETTINGS, factory_device, get_num_threads
from .tensor import Tensor, check_device, device as _device, preserve_format, wrap, wrap as _w
from .tensor import contiguous_format
from .tensor import layout as _layout_cls, memory_format as _memory_format_cls


def _finish(arr, requires_grad):
    t = wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _check_device(device, factory=True):
    """A factory's device argument (else the default device): the CPU or torch's error."""
    if device is not None or SETTINGS.device is not None:
        check_device(factory_device(device), factory)


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
    if hasattr(data, "_as_array"):          # a storage (ember/storage.py): its elements
        return data._as_array()
    if isinstance(data, (list, tuple)):
        _check_ragged(data, 0)
        if _contains_tensor(data):
            arr = np.array([_infer(d, exact) for d in data])
        else:
            arr = _python_array(data)
    elif isinstance(data, (bool, numbers.Number)):
        arr = _python_array(data)
    else:
        raise _infer_error(data)
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
        raise _infer_error(data)
    return arr


def _infer_error(data):
    """torch's error for data holding something that is not a number: a string on the path of
    first elements (which torch reads as one more dimension) is a ValueError, a string elsewhere
    a TypeError, anything else a RuntimeError."""
    first = _first_leaf(data)
    if isinstance(first, (str, bytes)) and first is not data:
        return ValueError(f"too many dimensions '{type(first).__name__}'")
    bad = next((v for v in _leaves(data) if not isinstance(v, (bool, numbers.Number))), first)
    if isinstance(bad, (str, bytes)):
        return TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    return RuntimeError(f"Could not infer dtype of {type(bad).__name__}")


def _leaves(data):
    if isinstance(data, (list, tuple)):
        for d in data:
            yield from _leaves(d)
    else:
        yield data


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
    _check_device(device, False)
    dtype = D.as_dtype(dtype, "tensor")
    if not isinstance(requires_grad, bool):
        raise TypeError(f"tensor(): argument 'requires_grad' must be bool, not "
                        f"{type(requires_grad).__name__}")
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
    return D.cast(arr, dtype.np, copy=False)


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
    return D.cast(arr, target)


def as_tensor(data, *, dtype=None, device=None):
    D.as_dtype(dtype, "as_tensor")
    _check_device(device, False)
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


def _out_dtype(out, dtype, fn):
    """A factory given out= computes in out's dtype; a different dtype= is torch's error."""
    if dtype is not None:
        dt = D.as_dtype(dtype, fn)
        if dt != out.dtype:
            raise RuntimeError(f"dtype {type_name(dt.np)} does not match dtype of out parameter "
                               f"({type_name(out._data.dtype)})")
    return out.dtype


def _into(res, out, fn, requires_grad=False):
    """A factory's out=: the values written into out (resized when its shape differs), out
    returned."""
    if STATE.enabled and out._requires_grad:
        raise RuntimeError(f"aten::{fn}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, out._data.dtype)
    if requires_grad and out._data.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    np.copyto(out._data, res._data)
    mark_written(out)
    if requires_grad:
        out._requires_grad = True
    return out


_NO_SIZE = object()
builtins_range = builtins.range    # (this module defines torch.range)


def _sizes(sizes, size, fn):
    """A factory's sizes given as varargs, or as the keyword size= (a tuple or list)."""
    if size is _NO_SIZE:
        return sizes
    if sizes:
        raise TypeError(f"{fn}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not "
                        f"{type(size).__name__}")
    return (size,)


def _shape(size, fn):
    """A factory's size argument: torch's errors for a bad or negative size."""
    if len(size) == 1 and size[0] is None:
        raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"NoneType")
    shape = size_args(size, fn)
    for i, d in enumerate(shape):
        if d > 2**63 - 1:
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"Overflow when unpacking long long")
        if d < 0:
            if fn == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: "
                               f"{list(shape)}")
    return shape


def _empty(size, np_dtype, fn):
    """np.empty of a factory's size argument (varargs or one sequence), with torch's errors
    for a bad or negative size and for memory that cannot be had."""
    arg = size[0] if len(size) == 1 and not isinstance(size[0], int) else size
    try:
        return np.empty(arg, np_dtype)          # the usual case: ints, at NumPy's speed
    except (TypeError, ValueError, MemoryError):
        pass
    shape = _shape(size, fn)
    try:
        return np.empty(shape, np_dtype)
    except (MemoryError, ValueError):        # ValueError: NumPy's "array is too big"
        raise _no_memory(shape, np_dtype) from None


def zeros(*sizes, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    if out is not None:
        return _into(zeros(*sizes, size=size, dtype=_out_dtype(out, dtype, "zeros"),
                           device=device), out, "zeros", requires_grad)
    size = _sizes(sizes, size, "zeros")
    _check_device(device)
    arr = _empty(size, _dtype(dtype, fn="zeros").np, "zeros")
    arr.fill(0)
    return _finish(arr, requires_grad)


def ones(*sizes, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    if out is not None:
        return _into(ones(*sizes, size=size, dtype=_out_dtype(out, dtype, "ones"),
                          device=device), out, "ones", requires_grad)
    size = _sizes(sizes, size, "ones")
    if device is not None or SETTINGS.device is not None:
        _check_device(device)
    arr = _empty(size, D.get_default_dtype().np if dtype is None else
                 _dtype(dtype, fn="ones").np, "ones")
    arr.fill(1)             # np.ones does the same behind a Python layer (1.4 us vs 0.6 us)
    return _finish(arr, requires_grad)


def empty(*sizes, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, memory_format=None):
    if out is not None:
        return _into(empty(*sizes, size=size, dtype=_out_dtype(out, dtype, "empty"),
                           device=device), out, "empty", requires_grad)
    size = _sizes(sizes, size, "empty")
    _check_device(device)
    # zero-filled: uninitialised memory would make results depend on allocator history
    arr = _empty(size, _dtype(dtype, fn="empty").np, "empty")
    arr.fill(0)
    if memory_format is not None and memory_format is not contiguous_format:
        if not isinstance(memory_format, _memory_format_cls):
            raise TypeError(f"empty(): argument 'memory_format' must be torch.memory_format, "
                            f"not {type(memory_format).__name__}")
        if memory_format is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        arr = in_format(arr, memory_format)         # (Note [Channels last])
    return _finish(arr, requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    if out is not None:
        return _into(full(size, fill_value, dtype=_out_dtype(out, dtype, "full"), device=device),
                     out, "full", requires_grad)
    _check_device(device)
    _check_args("full", ("size", 1, "tuple of ints", size))
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    elif not isinstance(fill_value, (bool, int, float, complex, np.generic)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    dt = _dtype(dtype, fill_value, "full")
    if dt is D.float16 and type(fill_value) in (int, float):
        fill_value = _checked_half(fill_value)     # (Note [Scalar operands])
    arr = _empty((size,), dt.np, "full")
    arr.fill(fill_value)
    return _finish(arr, requires_grad)


def eye(n, m=_OMITTED, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    if m is None:                       # torch's overloads take no None
        raise _invalid_args("eye", (n, m))
    if out is not None:
        return _into(eye(n, m, dtype=_out_dtype(out, dtype, "eye"), device=device), out, "eye",
                     requires_grad)
    _check_device(device)
    m = None if m is _OMITTED else m
    if m is not None and not _args_fit(("int", n), ("int", m)):
        raise _invalid_args("eye", (n, m))
    _check_args("eye", ("n", 1, "int", n))
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    try:
        arr = np.eye(n, n if m is None else m, dtype=_dtype(dtype).np)
    except MemoryError as e:
        raise _memory_error(e) from None
    return _finish(arr, requires_grad)


# Note [Range values]: torch's float ranges are exact functions of (start, step, index) that
# its CPU kernels evaluate with fused multiply-adds (one rounding each), found by experiment:
# - linspace: step = (end - start) / (steps - 1) in the output dtype; the first steps // 2
#   values are fma(step, i, start), the rest fma(-step, steps - 1 - i, end) (filled from both
#   ends), computed in the output dtype;
# - arange: in double precision, by vectors of W = 32 bytes / itemsize elements, two vectors a
#   loop step: a vector's first value is fma(step, p, start) rounded to the output dtype, its
#   others fma(step, lane, first); the elements after the last whole pair of vectors are
#   fma(step, i, start). Above 32768 elements torch splits the range between its threads, each
#   part vectorised from its own start; ember splits it as torch does at get_num_threads()
#   threads;
# - logspace: base ** (start + step * i) from both ends as linspace but without fusing, in
#   double precision (exact for float64; torch's float32 kernel rounds its power differently,
#   by a few ulps).
# NumPy has no fma: _fma emulates one exactly with Dekker's product and Knuth's sum.

_SPLIT = 134217729.0        # 2**27 + 1: splits a double into two 26-bit halves


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma(x, y, z):
    """x * y + z with one rounding, for float64 arrays (error-free transformations)."""
    p = x * y
    c = _SPLIT * x
    xh = c - (c - x)
    c = _SPLIT * y
    yh = c - (c - y)
    xl, yl = x - xh, y - yh
    pe = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    s, se = _two_sum(p, z)
    with np.errstate(all="ignore"):
        r = s + (se + pe)
    return np.where(np.isfinite(p) & np.isfinite(s), r, x * y + z)


def _fma32(x, y, z):
    """x * y + z with one rounding to float32, for float32 arrays: the product is exact in
    double; the double sum's error decides the rounding where the sum is a float32 tie."""
    p = x.astype(np.float64) * y.astype(np.float64)
    s, e = _two_sum(p, z.astype(np.float64))
    r = s.astype(np.float32)
    with np.errstate(all="ignore"):
        back = r.astype(np.float64)
        other = np.nextafter(r, np.where(s > back, np.float32(np.inf), np.float32(-np.inf)))
        tie = (s == (back + other.astype(np.float64)) / 2) & (e != 0)
    return np.where(tie & ((e > 0) == (other > r)), other, r)


def fused(a, b, c):
    """a * b + c with one rounding, as torch's vectorised kernels compute it (add's alpha,
    lerp, addcmul), for floating arrays or numbers of one real dtype, broadcast: float16 in
    float32 (its products are exact there), then rounded once."""
    dt = np.result_type(a, b, c)
    wide = np.float32 if dt == np.float16 else dt
    a, b, c = (np.asarray(v, wide) for v in (a, b, c))
    if wide == np.float64 and not a.shape == b.shape == c.shape:
        a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(all="ignore"):
        if wide == np.float64:
            # (Dekker's split overflows beyond 2**995: there the plain sum stands in)
            big = (np.abs(a) > 2.0 ** 995) | (np.abs(b) > 2.0 ** 995)
            r = _fma(a, b, c) if not big.any() else np.where(big, a * b + c, _fma(a, b, c))
            plain = a * b + c
            # inf and NaN as the plain sum's; so is an exact zero's sign (-0.0 * 1.1 + -0.0)
            r = np.where(np.isfinite(plain) & ((r != 0) | (plain != 0)), r, plain)
        else:
            # float32: the product is exact in double and the double sum rounds once; its
            # rounding to float32 is a second one only where the double sits on a float32
            # tie (low 29 bits 1000...0) or in float32's subnormals: those take _fma32
            s = np.asarray(a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64))
            r = s.astype(np.float32)
            odd = (s.view(np.uint64) & 0x1FFFFFFF) == 0x10000000
            odd |= np.abs(s) < 2.0 ** -125
            if odd.any():
                a, b, c = (np.broadcast_to(v, s.shape)[odd] for v in (a, b, c))
                r[odd] = _fma32(a, b, c)
    return r.astype(dt, copy=False)


def _g(v):
    """A number as torch's messages print it (C++ stream: 0, 1.5, inf, nan)."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _arange_resize_warning(out, n, stacklevel):
    """torch's warning when arange's out= (of another, nonzero number of elements) is resized
    to the n computed; stacklevel counted from this function."""
    warnings.warn(f"The number of elements in the out tensor of shape {list(out._data.shape)} "
                  f"is {out._data.size} which does not match the computed number of elements "
                  f"{n}. Note that this may occur as a result of rounding error. The out tensor "
                  f"will be resized to a tensor of shape ({n},).", stacklevel=stacklevel)


def arange(start, end=_OMITTED, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    if end is None or step is None:     # torch's overloads take no None
        shown = (start, end) if step == 1 and type(step) is int else (start, end, step)
        raise _invalid_args("arange", [v for v in shown if v is not _OMITTED])
    if out is not None:
        res = arange(start, end, step, dtype=_out_dtype(out, dtype, "arange"), device=device)
        n, m = res._data.size, out._data.size
        if m and m != n:
            _arange_resize_warning(out, n, 3)
        elif m:                 # (the same number of elements: out keeps its shape, as torch)
            res = wrap(res._data.reshape(out._data.shape))
        return _into(res, out, "arange", requires_grad)
    _check_device(device)
    end = None if end is _OMITTED else end
    given = (start,) if end is None else (start, end, step)
    if not all(_args_fit(("Number", v)) for v in given):
        if len(given) == 1:
            _check_args("arange", ("end", 1, "Number", start))
        raise _invalid_args("arange", given if step != 1 else given[:2])
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if not all(isinstance(v, numbers.Number) for v in vals):
        if len(given) == 1:
            raise TypeError(f"arange(): argument 'end' (position 1) must be Number, not "
                            f"{type(end).__name__}")
        raise TypeError(f"arange() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in given)}), but expected one of:")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_g(start)} -> {_g(end)}")
    if dtype is None:
        dtype = D.get_default_dtype() if any(isinstance(v, float) for v in vals) else D.int64
    else:
        dtype = D.as_dtype(dtype, "arange")
    if dtype is D.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if dtype.category <= D.INT and not all(isinstance(v, int) for v in (start, step)):
        # torch converts start and step to the integer dtype (the size from the originals)
        n = int(np.ceil((end - start) / step)) if step else 0
        start, step = int(start), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    elif step == 0:
        raise RuntimeError("step must be nonzero")
    else:
        n = None
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if n is None:
        n = int(np.ceil((end - start) / step))
    try:
        if dtype.category <= D.INT:
            arr = (start + np.arange(n, dtype=np.int64) * step).astype(dtype.np)
        else:
            arr = _arange_float(float(start), float(step), n, dtype.np)
    except MemoryError:
        raise _no_memory((n,), dtype.np) from None
    return _finish(arr, requires_grad)


def _arange_float(start, step, n, np_dtype):
    """torch's arange values in a float dtype (Note [Range values])."""
    out = np.empty(n, np_dtype)
    parts = 1
    if n > 32768:
        parts = max(1, min(get_num_threads(), -(-n // 32768)))
    size = -(-n // parts) if parts else n
    width = max(1, 32 // np.dtype(np_dtype).itemsize)
    for begin in builtins_range(0, n, max(size, 1)):
        stop = min(n, begin + size)
        i = np.arange(begin, stop)
        rel = i - begin
        lane = rel % width
        first = _fma(np.full(i.size, step), (i - lane).astype(np.float64),
                     np.full(i.size, start)).astype(np_dtype).astype(np.float64)
        vals = _fma(np.full(i.size, step), lane.astype(np.float64), first)
        tail = begin + (rel.size // (2 * width)) * (2 * width)
        t = i >= tail
        vals[t] = _fma(np.full(t.sum(), step), i[t].astype(np.float64),
                       np.full(t.sum(), start))
        out[begin:stop] = vals.astype(np_dtype)
    return out


def _steps(fn, start, end, steps):
    """linspace/logspace's steps as an int: a Python or NumPy int, or a 0-d integer tensor
    (torch's parser refuses anything else, floats and bools included)."""
    if isinstance(steps, Tensor) and not steps._data.ndim and steps._data.dtype.kind in "iu":
        return int(steps._data)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        f"({type(start).__name__}, {type(end).__name__}, "
                        f"{type(steps).__name__}), but expected one of:")
    return int(steps)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    if out is not None:
        return _into(linspace(start, end, steps, dtype=_out_dtype(out, dtype, "linspace"),
                              device=device), out, "linspace", requires_grad)
    _check_device(device)
    steps = _steps("linspace", start, end, steps)
    start, end = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dtype(dtype, fn="linspace")
    if dt is D.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if dt.category <= D.INT:
        arr = np.linspace(start, end, steps).astype(dt.np)
        return _finish(arr, requires_grad)
    ft = dt.np
    if steps == 1:
        return _finish(np.full(1, start, ft), requires_grad)
    if ft.kind == "c" or ft == np.float16:
        return _finish(_linspace_plain(start, end, steps, ft), requires_grad)
    # torch fills the first half forwards from start and the second half backwards from end
    # (Note [Range values])
    t = ft.type
    step = (t(end) - t(start)) / t(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    fma = _fma if ft == np.float64 else _fma32
    k = np.where(i < half, i, steps - 1 - i).astype(ft)
    sgn = np.where(i < half, step, -step).astype(ft)
    origin = np.where(i < half, t(start), t(end)).astype(ft)
    return _finish(fma(sgn, k, origin).astype(ft), requires_grad)


def _linspace_plain(start, end, steps, ft):
    """linspace from both ends without fused rounding (logspace's exponents; complex and half
    linspaces)."""
    t = ft.type
    if steps == 1:
        return np.full(1, start, ft)
    step = (t(end) - t(start)) / t(steps - 1)
    i = np.arange(steps)
    return np.where(i < steps // 2, t(start) + step * i.astype(ft),
                    t(end) - step * (steps - 1 - i).astype(ft)).astype(ft)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    if out is not None:
        return _into(logspace(start, end, steps, base, dtype=_out_dtype(out, dtype, "logspace"),
                              device=device), out, "logspace", requires_grad)
    _check_device(device)
    steps = _steps("logspace", start, end, steps)
    start, end = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    lin = _linspace_plain(start, end, steps, np.dtype(np.float64)) if steps else np.zeros(0)
    with np.errstate(all="ignore"):
        arr = _libm.power(base, lin).astype(_dtype(dtype, fn="logspace").np)
    return _finish(arr, requires_grad)


# ---------------------------------------------------------------- *_like and new_*

def _keep_layout(res, input, memory_format):
    """res, a *_like result, in input's layout as preserve_format (the default) keeps it:
    torch lays it out as an elementwise result of input (Note [Elementwise layout])."""
    x = input._data
    if memory_format is None or memory_format is preserve_format:
        if not x.flags.c_contiguous:
            res._data = _torch_layout(res._data, x)
    elif memory_format is not contiguous_format:
        res._data = in_format(res._data, memory_format)     # (Note [Channels last])
    return res


def _like_options(name, dtype, layout, device, requires_grad, memory_format):
    """torch's TypeErrors for a *_like factory's keyword arguments of the wrong type."""
    D.as_dtype(dtype, name)
    for arg, v, cls in (("layout", layout, _layout_cls), ("memory_format", memory_format,
                                                          _memory_format_cls)):
        if v is not None and not isinstance(v, cls):
            raise TypeError(f"{name}(): argument '{arg}' must be torch.{arg}, not "
                            f"{type(v).__name__}")
    if not isinstance(requires_grad, bool):
        raise TypeError(f"{name}(): argument 'requires_grad' must be bool, not "
                        f"{type(requires_grad).__name__}")
    _check_device(device)


def _like(factory):
    name = factory.__name__ + "_like"

    def like(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, **kwargs):
        _like_options(name, dtype, layout, device, requires_grad, memory_format)
        try:
            res = factory(input._data.shape, *args, dtype=dtype or input.dtype,
                          requires_grad=requires_grad, **kwargs)
        except AttributeError as e:
            raise _not_tensor(e) from None
        return _keep_layout(res, input, memory_format)
    like.__name__ = factory.__name__ + "_like"
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    if isinstance(input, Tensor):
        _check_args("full_like", ("fill_value", 2, "Number", fill_value))
    try:
        res = full(input._data.shape, fill_value, dtype=dtype or input.dtype,
                   requires_grad=requires_grad)
    except AttributeError as e:
        raise _not_tensor(e) from None
    return _keep_layout(res, input, memory_format)


def _new(factory):
    def new(self, *sizes, size=_NO_SIZE, dtype=None, device=None, requires_grad=False,
            **kwargs):
        size = _sizes(sizes, size, "new_" + factory.__name__)
        for k in kwargs:
            if k not in ("layout", "pin_memory"):
                raise TypeError(f"new_{factory.__name__}() got an unexpected keyword argument "
                                f"'{k}'")
        _check_device(device)
        return factory(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)
    new.__name__ = "new_" + factory.__name__
    return new


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


new_zeros, new_ones, new_empty = _new(zeros), _new(ones), _new(empty)


# ================================================================ surface factories (issue 14):
# window functions, scalar_tensor, empty_strided, frombuffer, range

def _window_length(name, window_length, dtype):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dt = _dtype(dtype, fn=name)
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{C_NAMES[dt.name]}, device=cpu, layout=Strided (default), "
                           f"requires_grad=false (default), pinned_memory=false, "
                           f"memory_format=(nullopt))")
    return dt.np


def _cos_rounded(x):
    """cos of a float array, rounded once to its dtype (torch's float32 cos is accurate to
    within an ulp; NumPy's own float32 cos is less so)."""
    return np.cos(x.astype(np.float64)).astype(x.dtype)


def _window(name, window_length, periodic, dtype, device, requires_grad, fill):
    """A window of window_length points: fill(M, n, ft) gives the symmetric window of M
    points; a periodic window is the symmetric one of window_length + 1 points, cut."""
    _check_device(device)
    if periodic is not True and not _args_fit(("int", window_length), ("bool", periodic)):
        raise _invalid_args(name, (window_length, periodic))
    _check_args(name, ("window_length", 1, "int", window_length))
    ft = _window_length(name, window_length, dtype)
    if window_length <= 1:
        return _finish(np.ones(window_length, ft), requires_grad)
    m = window_length + 1 if periodic else window_length
    n = np.arange(m, dtype=ft)
    return _finish(np.ascontiguousarray(fill(m, n, ft.type)[:window_length]), requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    def fill(m, n, ft):
        return ft(alpha) - ft(beta) * _cos_rounded(n * ft(2 * np.pi / (m - 1)))
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   fill)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    def fill(m, n, ft):
        return ft(0.5) - ft(0.5) * _cos_rounded(n * ft(2 * np.pi / (m - 1)))
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, fill)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    def fill(m, n, ft):
        w = n * ft(np.pi / (m - 1))
        return ft(0.08) * _cos_rounded(w * ft(4)) - ft(0.5) * _cos_rounded(w * ft(2)) + ft(0.42)
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   fill)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    def fill(m, n, ft):
        w = n * ft(2.0 / (m - 1))
        first = (m - 1) // 2 + 1
        w[first:] = ft(2) - w[first:]
        return w
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   fill)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    def fill(m, n, ft):
        alpha = (m - 1) / 2.0
        r = (n.astype(np.float64) - alpha) / alpha
        w = i0_kernel(beta * np.sqrt(np.maximum(1.0 - r * r, 0.0))) / i0_kernel(np.float64(beta))
        return w.astype(n.dtype)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, fill)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    _check_device(device)
    if isinstance(s, Tensor):
        s = s.item()
    elif isinstance(s, np.generic):
        s = s.item()
    if not isinstance(s, (bool, int, float, complex)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    dt = _dtype(dtype, fn="scalar_tensor")
    if isinstance(s, complex) and not dt.is_complex:
        raise RuntimeError(f"value cannot be converted to type {C_NAMES[dt.name]} without "
                           f"overflow")
    return _finish(np.array(s, dt.np), requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False):
    _check_device(device)
    shape = _shape((size,), "empty_strided")
    strides = size_args((stride,), "empty_strided", "stride")
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(strides)}")
    dt = _dtype(dtype, fn="empty_strided").np
    n = 0 if 0 in shape else 1 + sum((d - 1) * s for d, s in zip(shape, strides))
    # zero-filled, as empty(): results must not depend on allocator history
    buf = np.zeros(n, dt)
    arr = np.ndarray(shape, dt, buffer=buf, strides=tuple(s * dt.itemsize for s in strides))
    return _finish(arr, requires_grad)


_READONLY_BUFFER_WARNED = []


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    mem = memoryview(buffer)
    n = mem.nbytes
    dt = D.as_dtype(dtype, "frombuffer").np
    if n == 0 and count == -1 or count == 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if offset < 0 or offset >= n:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({n} bytes) minus 1")
    if count < 0:
        if (n - offset) % dt.itemsize:
            raise ValueError(f"buffer length ({n - offset} bytes) after offset ({offset} bytes) "
                             f"must be a multiple of element size ({dt.itemsize})")
        count = (n - offset) // dt.itemsize
    elif count * dt.itemsize > n - offset:
        raise ValueError(f"requested buffer length ({count} * {dt.itemsize} bytes) after "
                         f"offset ({offset} bytes) must not be greater than actual buffer "
                         f"length ({n} bytes)")
    arr = np.frombuffer(mem.cast("B") if mem.format != "B" or mem.ndim != 1 else mem,
                        dtype=dt, count=count, offset=offset)
    if not arr.flags.writeable:
        if not _READONLY_BUFFER_WARNED:
            _READONLY_BUFFER_WARNED.append(True)
            warnings.warn("The given buffer is not writable, and PyTorch does not support "
                          "non-writable tensors. This means you can write to the underlying "
                          "(supposedly non-writable) buffer using the tensor. You may want to "
                          "copy the buffer to protect its data or make it writable before "
                          "converting it to a tensor. This type of warning will be suppressed "
                          "for the rest of this program.", UserWarning, stacklevel=2)
        arr = arr.copy()        # ember never writes into memory its owner marked read-only
    return _finish(arr, requires_grad)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """torch.range (deprecated): like arange, but the end is included."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    _check_device(device)
    _check_args("range", ("start", 1, "Number", start), ("end", 2, "Number", end),
                ("step", 3, "Number", step))
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dt = _dtype(dtype if out is None else _out_dtype(out, dtype, "range"), fn="range")
    n = int(np.floor((end - start) / step)) + 1
    arr = start + np.arange(n, dtype=np.float64) * step
    if out is not None:
        return _into(wrap(arr.astype(dt.np)), out, "range", requires_grad)
    return _finish(arr.astype(dt.np), requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad=False, pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device,
                         requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An (zero-filled) tensor of `size` whose memory holds its dims in physical_layout order."""
    _check_device(device)
    shape = _shape((size,), "empty_permuted")
    perm = tuple(physical_layout)
    if sorted(perm) != list(builtins_range(len(shape))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; expected {len(shape)} dims, but got "
                           f"{list(perm)}")
    phys = np.zeros([shape[p] for p in perm], _dtype(dtype, fn="empty_permuted").np)
    return _finish(phys.transpose(np.argsort(perm)), requires_grad)


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of any object with the DLPack protocol (NumPy arrays,
    torch tensors, ember tensors)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules "
                           "can be consumed only once, so you might have already constructed a "
                           "tensor from it once.")
    arr = np.from_dlpack(ext_tensor)
    D.from_numpy_dtype(arr.dtype)
    return wrap(arr)


def to_dlpack(tensor):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor._data.__dlpack__()


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """size elements of `dtype` read from a file: a memory map of it when shared (writes go
    to the file), else a copy."""

    _check_device(device)
    dt = _dtype(dtype, fn="from_file").np
    need = size * dt.itemsize
    have = os.path.getsize(filename)
    if have < need:
        raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required "
                           f"mapping size <{need}>")
    if shared:
        return wrap(np.memmap(filename, dt, mode="r+", shape=(size,)))
    return wrap(np.fromfile(filename, dt, count=size))
