"""Helpers shared by the op families: operand preparation with torch's promotion, in-place
writes, dim normalisation. Kept small: every op's hot path calls into here at most once."""

import warnings

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual, set_tangent
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap

_FLOAT_KINDS = "fc"
_INT_RANGE = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
              for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)}


def operands(input, other):
    """NumPy operands of a binary op, cast to torch's result dtype (Python scalars stay
    weak: NumPy 2 keeps the array's dtype for them, as torch does)."""
    x = input._data
    if isinstance(other, Tensor):
        y = other._data
        if x.dtype is not y.dtype and x.dtype != y.dtype:
            rt = D.result_type(input, other).np
            if x.dtype != rt:
                x = x.astype(rt)
            if y.dtype != rt:
                y = y.astype(rt)
        return x, y
    k = type(other)
    if k is float:
        if x.dtype.kind in _FLOAT_KINDS:
            return x, other
    elif k is int:
        kind = x.dtype.kind
        if kind in _FLOAT_KINDS:
            return x, other
        if kind != "b":
            lo, hi = _INT_RANGE[x.dtype]
            # torch wraps an out-of-range Python int into the tensor's dtype; NumPy raises
            return x, (other if lo <= other <= hi else np.array(other).astype(x.dtype))
    elif k is bool:
        return x, other
    elif isinstance(other, np.generic):
        return operands(input, other.item())
    elif isinstance(other, np.ndarray):
        return operands(input, wrap(other))
    elif not isinstance(other, (int, float, complex)):
        raise TypeError(f"unsupported operand type: '{type(other).__name__}'")
    rt = D.result_type(input, other).np
    return (x if x.dtype == rt else x.astype(rt)), other


def expand_scalar(a, shape):
    """A read-only broadcast view of a 0-dim (or 1-element) array: np.broadcast_to's result
    built directly (its Python layer costs ~8x the view itself)."""
    a = np.asarray(a)
    if a.size != 1:
        return np.broadcast_to(a, shape)
    v = np.ndarray(shape, a.dtype, a if a.flags.c_contiguous else a.copy(), 0,
                   (0,) * len(shape))
    v.flags.writeable = False
    return v


def fill_scalar(a, shape):
    """A fresh array of `shape` holding the one value of `a` (np.empty + fill: cheaper than
    np.full's Python layer)."""
    out = np.empty(shape, a.dtype)
    out.fill(a)
    return out


_SCALARS = {}


def scalar_array(v, dtype):
    """A Python number as a 0-dim array of `dtype`, cached. NumPy converts a Python number
    to the array's dtype before computing anyway, but its path for Python scalars costs
    ~0.4 us more per op than a 0-dim operand. Zeros are not cached: 0.0 == -0.0."""
    key = (v, dtype)
    a = _SCALARS.get(key)
    if a is None:
        a = np.array(v, dtype)
        if v:
            if len(_SCALARS) > 512:
                _SCALARS.clear()
            _SCALARS[key] = a
    return a


def plain_operand(v, g):
    """v as a NumPy operand for arithmetic with array g that gives exactly what the ember op
    would (a number as a 0-dim array of g's dtype, or an array of g's real floating dtype);
    None otherwise."""
    if type(v) is float or type(v) is int:
        return scalar_array(v, g.dtype) if g.dtype.kind == "f" else v
    if isinstance(v, Tensor):
        d = v._data
        if d.dtype is g.dtype and g.dtype.kind == "f":
            return d
    return None


def needs(node, i):
    """Whether input i of node receives a gradient (torch's output_mask)."""
    return node.next_functions[i][0] is not None


def requires(*ts):
    """Whether an op on these arguments must record a node (or give its output a tangent:
    Note [Forward AD])."""
    if STATE.enabled:
        for t in ts:
            if isinstance(t, Tensor) and t._requires_grad:
                return True
    return bool(LEVELS) and dual(*ts)


def can_cast(src, dst):
    """torch's in-place rule: the result's category may not exceed the output's."""
    cat = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return cat[src.kind] <= cat[dst.kind]


def wrap_dim(dim, ndim):
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim


def wrap_dims(dim, ndim):
    """A tuple of normalised dims from an int, a list/tuple, or None (all dims)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (wrap_dim(int(dim), ndim),)
    out = tuple(wrap_dim(int(d), ndim) for d in dim)
    if len(set(out)) != len(out):
        d = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def broadcast_error(a, b):
    """torch's message for shapes that do not broadcast."""
    sa = getattr(a, "shape", ())
    sb = getattr(b, "shape", ())
    for i in range(1, max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                f"({y}) at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast")


def saved_output(node, saved, nr=0):
    """Saved output `nr` of `node`: plain when not recording, else reconnected to the node
    that made it (an output is saved detached so that it does not keep its own node alive in
    a cycle), so that double backward sees its dependence on the input."""
    if not STATE.enabled or saved is None:
        return saved
    t = wrap(saved._data)
    t._requires_grad = True
    t._grad_fn = node
    t._output_nr = nr
    x = saved._x
    if x and "fw" in x:             # its tangents (forward-over-reverse; forward.py)
        for lv, tan in x["fw"].items():
            set_tangent(t, lv, tan)
    return t


def conj_if_complex(t):
    """Complex formulas use the conjugate (torch's convention); real ones are unchanged."""
    if isinstance(t, Tensor):
        return t.conj() if t._data.dtype.kind == "c" else t
    return t.conjugate() if isinstance(t, complex) else t


def floating(x):
    """Integer and bool inputs of float-valued ops compute in the default float dtype."""
    return x if x.dtype.kind in "fc" else x.astype(D.get_default_dtype().np)


def scalar_tensor(value, like=None):
    """A Python scalar argument as a 0-dim tensor of its own default dtype."""
    return wrap(np.asarray(value, dtype=D.result_type(value).np))


def write_out(res, out):
    """Support for the out= argument: copy the result into `out` (resizing if empty)."""
    if out is None:
        return res
    if STATE.enabled and (res._requires_grad or out._requires_grad):
        raise RuntimeError("functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if not can_cast(res._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {D.type_name(res._data.dtype)} can't be cast to the "
                           f"desired output type {D.type_name(out._data.dtype)}")
    if out._data.shape != res._data.shape:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(res._data.shape)}. This behavior is deprecated, and in a "
                          f"future PyTorch release outputs will not be resized unless they have "
                          f"zero elements. You can explicitly reuse an out tensor t by resizing "
                          f"it, inplace, to zero elements with t.resize_(0).", stacklevel=3)
        out._data = np.empty(res._data.shape, out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    return out


def _tensor_args(name, input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
