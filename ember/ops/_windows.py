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
    g added to the slice of x it was read from, as whole-array adds of strided slices.

    The positions are grouped by rank (a source's first reader, its second, ...): within a
    rank each source is read once, so its slices can be added without collisions, in the
    order they were read. Each rank splits into runs where positions and sources both step
    evenly (a run is one strided slice of g added to one of x): few runs for the maps of
    pads and interpolation. Irregular maps (many runs) fall back to indexed adds."""
    axis %= g.ndim
    pre = (slice(None),) * axis
    shape = list(g.shape)
    shape[axis] = n
    m = len(idx)
    if not m:
        return np.zeros(shape, g.dtype)
    order = np.argsort(idx, kind="stable")
    s = idx[order]
    new = np.concatenate(([True], s[1:] != s[:-1]))
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m) - np.maximum.accumulate(np.where(new, np.arange(m), 0))
    out = None
    for t in range(int(rank.max()) + 1):
        pos = np.flatnonzero(rank == t)
        src = idx[pos]
        runs = _runs(pos, src)
        if out is None:
            if len(runs) == 1 and len(src) == n and src[0] == 0 and src[-1] == n - 1:
                out = np.array(g[pre + (runs[0][0],)])      # rank 0 covers x in order
                continue
            out = np.zeros(shape, g.dtype)
        if len(runs) <= _MAX_RUNS:
            for ps, ss in runs:
                out[pre + (ss,)] += g[pre + (ps,)]
        else:
            out[pre + (src,)] += np.take(g, pos, axis)
    return out


_MAX_RUNS = 16


def _runs(pos, src):
    """pos (ascending) and src split into runs that step evenly in both: (slice of positions,
    slice of sources) pairs; more than _MAX_RUNS runs are not listed (an irregular map)."""
    out, i, m = [], 0, len(pos)
    while i < m:
        if len(out) == _MAX_RUNS:
            return out + [None]
        e = i + 1
        if e < m:
            dp, ds = pos[e] - pos[i], src[e] - src[i]
            while e + 1 < m and pos[e + 1] - pos[e] == dp and src[e + 1] - src[e] == ds:
                e += 1
            e += 1
        else:
            dp = ds = 1
        out.append((_slice(pos[i], pos[e - 1], dp), _slice(src[i], src[e - 1], ds)))
        i = e
    return out


def _slice(first, last, step):
    stop = int(last + step)
    return slice(int(first), stop if stop >= 0 else None, int(step))
