"""Sliding windows shared by convolution, pooling and fold/unfold: the strided view of every
window of an array (im2col without a copy), its adjoint (col2im: one whole-array add per
kernel offset), and torch's parsing of size arguments (an int or a tuple of ints)."""
from itertools import product

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..tensor import Tensor


def windows(a, first, kernel, stride, dilation, out):
    """A read-only view of every window of `a`, whose spatial axes are first..first+n-1
    (n = len(kernel)): the spatial axes are replaced by the kernel axes then the output axes,
    shape a.shape[:first] + kernel + out + a.shape[first+n:]."""
    n = len(kernel)
    st = a.strides
    sp = st[first:first + n]
    shape = a.shape[:first] + tuple(kernel) + tuple(out) + a.shape[first + n:]
    strides = (st[:first] + tuple(s * d for s, d in zip(sp, dilation)) +
               tuple(s * k for s, k in zip(sp, stride)) + st[first + n:])
    return as_strided(a, shape, strides, writeable=False)


def offsets(kernel, stride, dilation, out):
    """For each kernel offset (in C order): the tuple of slices that select, along the
    spatial axes, the input elements that offset reads for every output position."""
    for k in product(*map(range, kernel)):
        yield k, tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                       for i, d, s, o in zip(k, dilation, stride, out))


def add_windows(cols, shape, first, kernel, stride, dilation, out):
    """The adjoint of `windows`: cols has the windows' shape; the result (zeros of `shape`,
    cols' dtype) receives each window element added back where it was read, one
    whole-array add per kernel offset."""
    res = np.zeros(shape, cols.dtype)
    pre = (slice(None),) * first
    for k, sl in offsets(kernel, stride, dilation, out):
        res[pre + sl] += cols[pre + k]
    return res


def int_tuple(value, n, fn, arg, pos=None):
    """torch's parsing of an `int[n]` argument: an int is repeated n times, a one-element
    sequence too; anything but ints is a TypeError with torch's text."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    where = f"{fn}(): argument '{arg}'" + (f" (position {pos})" if pos else "")
    if isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu":
        return (int(value._data),) * n
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where} must be tuple of ints, not {type(value).__name__}")
    for i, v in enumerate(value):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{where} must be tuple of ints, but found element of type "
                            f"{type(v).__name__} at pos {i}")
    value = tuple(int(v) for v in value)
    return value * n if len(value) == 1 else value


def type_names(args, kwargs):
    """The `got (...)` part of torch's "invalid combination of arguments" message."""
    def name(v):
        if isinstance(v, Tensor):
            return "Tensor"
        t = type(v)
        return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
    parts = [name(a) for a in args] + [f"{k}={name(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def invalid_arguments(fn, args, kwargs):
    return TypeError(f"{fn}() received an invalid combination of arguments - got "
                     f"{type_names(args, kwargs)}, but expected one of:")


def check_tensor(value, fn, arg, pos):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def take_adjoint(g, idx, n, axis):
    """The adjoint of np.take(x, idx, axis) for an x of length n along axis: every slice of
    g added to the slice of x it was read from. Sorted by source (stable), so each source's
    slices are summed by one np.add.reduceat in the order they were read."""
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    if np.any(order != np.arange(len(order))):
        g = np.take(g, order, axis)
    if not len(sidx):
        shape = list(g.shape)
        shape[axis] = n
        return np.zeros(shape, g.dtype)
    first = np.flatnonzero(np.concatenate(([True], sidx[1:] != sidx[:-1])))
    sums = np.add.reduceat(g, first, axis=axis)
    if len(first) == n:                   # every source read (sorted, so sidx[first] is 0..n-1)
        return sums
    shape = list(g.shape)
    shape[axis] = n
    out = np.zeros(shape, g.dtype)
    out[(slice(None),) * (axis % g.ndim) + (sidx[first],)] = sums
    return out
