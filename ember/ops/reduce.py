"""Reductions: sum, mean, prod, max/min/amax/amin/aminmax, argmax/argmin, all/any, norms,
logsumexp and the softmax family. Each op's forward, node class and derivative in one place;
value-selecting reductions scatter their gradient to the selected indices, whole-tensor
max/min and amax/amin share it evenly among ties."""
__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin",
           "logsumexp", "softmax", "log_softmax", "all", "any", "count_nonzero", "dist",
           "nansum", "nanmean"]

import builtins

import numpy as np

from .. import dtypes as D, return_types as _RT
from .._amp_state import AUTOCAST, fp32
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import (Node, link, link_multi, saved_alias, saved_arg, saved_dims,
                              saved_given)
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import (expand_scalar, fill_scalar, scalar_array, wrap_dim, wrap_dims, write_out, saved_output,
                    needs, requires, conj_if_complex, broadcast_error)
from ._args import floating, not_tensor, wrong_type, invalid_args, OMITTED, out_tuple
from .arith import _zeros, scalar_op, AddBackward1, DivBackward1, MulBackward1
from ._views import inplace, inplace_source
from .shape import size_args
from .scatter import masked_fill
from .binary import maximum, minimum
from .join import cat
from .logical import where

_pymax, _pymin, _pyany = builtins.max, builtins.min, builtins.any

# ---------------------------------------------------------------- helpers


def _required_dim(op, dim, axis=None):
    """dim (or NumPy's axis=) for ops where torch requires it, with torch's error if absent."""
    if axis is not None:
        dim = axis
    if dim is None:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return dim


def _np_aliases(dim, keepdim, axis, keepdims):
    """torch accepts NumPy's names axis= and keepdims= for dim= and keepdim=; keepdim must
    be a bool (Note [Argument types])."""
    if keepdims is not None:
        keepdim = keepdims
    if keepdim is not False and keepdim is not True:
        raise wrong_type(keepdim, "bool")
    return (dim if axis is None else axis), keepdim


def _unsqueeze_dims(grad, dims, keepdim):
    """Put back the reduced dims (size 1) so the gradient broadcasts against the input."""
    if keepdim:
        return grad
    for d in sorted(dims):
        grad = grad.unsqueeze(d)
    return grad


def _red_dims(dim, ndim):
    """(dims, numpy axis) for a reduction over `dim` (None or () = all dims)."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        dims = tuple(range(ndim))
    else:
        dims = wrap_dims(dim, ndim)
    return (dims, dims) if ndim else ((), None)


def _const(arr, like):
    """A constant (no-grad) tensor of `like`'s dtype."""
    return wrap(np.asarray(arr, dtype=like._data.dtype))


def _expand_to(grad, shape):
    return grad if tuple(grad.shape) == tuple(shape) else grad.expand(shape)


def _scatter_add(src, dim, index, shape, unique=True):
    """zeros(shape) with src put at `index` (a NumPy array) along `dim`: torch's scatter for
    the gradient of a value-selecting reduction (unique: no index repeats along dim), else
    scatter_add."""
    idx = wrap(index)
    if src._data.shape != index.shape:
        src = src.expand(index.shape)
    zeros = src.new_zeros(shape)
    return zeros.scatter(dim, idx, src) if unique else zeros.scatter_add(dim, idx, src)


def _select_backward(grad, dim, indices, keepdim, shape):
    """Gradient of a value-selecting reduction: grad scattered to `indices` along dim."""
    if len(shape) == 0:
        return grad
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = np.expand_dims(indices, dim)
    return _scatter_add(grad, dim, indices, shape)


def _matches(x, result, dims, keepdim, nan_match):
    """Where x equals the (broadcast) result (amax/amin: NaN equals nothing; whole-tensor
    max/min/median: NaN matches a NaN result)."""
    r = result._data
    if not keepdim:
        r = np.expand_dims(r, sorted(dims)) if dims else r
    xa = x._data
    mask = xa == r
    if nan_match and xa.dtype.kind in "fc":
        mask |= np.isnan(xa) & np.isnan(r)
    return mask


def _even_backward(grad, x, result, dims, keepdim, nan_match=False):
    """grad shared evenly among the elements equal to the result (_matches)."""
    mask = _matches(x, result, dims, keepdim, nan_match)
    if nan_match:
        # whole tensor (evenly_distribute_backward): zeros.masked_fill_(mask, grad /
        # mask.sum()); a NaN gradient reaches only the selected elements
        zeros = wrap(np.zeros(x._data.shape, grad._data.dtype))
        return masked_fill(zeros, wrap(mask), grad / wrap(np.asarray(mask.sum())))
    count = mask.sum(axis=dims if x._data.ndim else None, keepdims=True)
    g = _unsqueeze_dims(grad, dims, keepdim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return g * _const(mask / count, g)


def _even_jvp(t, x, result, dims, keepdim, nan_match=False):
    """Forward form of _even_backward: the mean of t over the elements equal to the result."""
    mask = _matches(x, result, dims, keepdim, nan_match)
    xa = x._data
    axis = dims if xa.ndim else None
    count = mask.sum(axis=axis, keepdims=True)
    if not keepdim and xa.ndim:
        count = count.squeeze(axis)
    return where(wrap(mask), t, 0.0).sum(dims, keepdim=keepdim) / _const(count, t)


def _kernel_check(input, kernel, kinds="c"):
    """torch's dispatch error for a dtype its CPU kernel lacks (complex; bool too for some)."""
    try:
        k = input._data.dtype.kind
    except AttributeError as e:
        raise not_tensor(e) from None
    if k in kinds:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{type_name(input._data.dtype)}'")


def _complex_check(input, msg):
    try:
        if input._data.dtype.kind == "c":
            raise RuntimeError(msg)
    except AttributeError as e:
        raise not_tensor(e) from None


def _float_check(x, name):
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {type_name(x.dtype)}")

# ---------------------------------------------------------------- sum / mean / nansum


class SumBackward0(Node):                    # derivatives.yaml: sum
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.expand(self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):
        return ts[0].sum()

    def np_apply(self, g):
        # the scalar gradient as a zero-stride view, the same array expand gives apply (a
        # node downstream may round differently on another memory layout)
        return expand_scalar(g, self._saved_self_sym_sizes),


class SumBackward1(Node):                    # derivatives.yaml: sum.dim_IntList
    __slots__ = ("_dim", "_dim_arg", "_saved_keepdim", "_saved_self_sym_sizes")
    _saved_dim = saved_dims("_dim", "_dim_arg")

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._dim, self._saved_keepdim)
        return g.expand(self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):
        return ts[0].sum(self._dim, keepdim=self._saved_keepdim)


def _sum_dtype(x, dtype, input=None):
    if dtype is not None:
        dtype = D.as_dtype(dtype, "sum")
        if input is not None and dtype.np.kind not in "fc" and input._requires_grad and \
                STATE.enabled:
            raise RuntimeError(f"Autograd not support dtype: {type_name(dtype.np)}")
        return dtype.np
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None and not keepdim:
        # np.sum's arithmetic (add.reduce over everything) without its Python wrapper
        res = wrap(np.add.reduce(x, axis=None, dtype=_sum_dtype(x, dtype, input)))
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = SumBackward0()
            node._saved_self_sym_sizes = x.shape
            link(res, node, input)
        return write_out(res, out)
    dims, axis = _red_dims(dim, x.ndim)
    # (np.add.reduce, not np.sum: see prod)
    r = np.add.reduce(x, axis=axis, dtype=_sum_dtype(x, dtype, input), keepdims=keepdim)
    if not r.flags.c_contiguous:
        # torch's reductions write a contiguous result; NumPy's follow the input's layout
        r = np.ascontiguousarray(r)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SumBackward1()
        node._dim = dims
        node._dim_arg = dim
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)


class NansumBackward0(Node):                 # derivatives.yaml: nansum
    __slots__ = ("_saved_self", "_dim", "_dim_arg", "_saved_keepdim")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        g = _unsqueeze_dims(grad, self._dim, self._saved_keepdim)
        return g * _const(~np.isnan(s._data), g),

    def jvp(self, ts, xs, out):
        return where(xs[0].isnan(), 0.0, ts[0]).sum(self._dim,
                                                    keepdim=self._saved_keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    dims, axis = _red_dims(dim, x.ndim)
    if x.dtype.kind in "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    # (ufunc.reduce from here, not np.nansum: its RuntimeWarnings, inf + -inf, would come
    # from a NumPy module, past ember's warning filter)
    xz = np.where(np.isnan(x), 0, x) if x.dtype.kind == "f" else x
    res = wrap(np.asarray(np.add.reduce(xz, axis=axis, dtype=_sum_dtype(x, dtype, input),
                                        keepdims=keepdim and x.ndim > 0)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NansumBackward0()
        node._saved_self = input
        node._dim_arg = dim
        node._dim = dims
        node._saved_keepdim = keepdim
        link(res, node, input)
    return write_out(res, out)


class MeanBackward0(Node):                   # derivatives.yaml: mean
    __slots__ = ("_saved_self_sym_sizes", "_saved_self_sym_numel")

    def apply(self, grad):
        # grad.expand(sizes) / numel: a div.Scalar node
        return scalar_op(grad.expand(self._saved_self_sym_sizes), self._saved_self_sym_numel,
                         DivBackward1),

    def jvp(self, ts, xs, out):
        return ts[0].sum() / self._saved_self_sym_numel

    def np_apply(self, g):
        n = self._saved_self_sym_numel
        if n and g.dtype.kind == "f" and not g.ndim:
            # divide the scalar once, then fill (the same values as apply's quotient)
            return fill_scalar(g / scalar_array(n, g.dtype), self._saved_self_sym_sizes),
        return Node.np_apply(self, g)


class MeanBackward1(Node):                   # derivatives.yaml: mean.dim
    __slots__ = ("_dim", "_dim_arg", "_saved_keepdim", "_saved_self_sym_sizes", "_count")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_self_sym_numel = property(lambda self: int(np.prod(self._saved_self_sym_sizes,
                                                               dtype=np.int64)))

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._dim, self._saved_keepdim)
        return scalar_op(g.expand(self._saved_self_sym_sizes), self._count, DivBackward1),

    def jvp(self, ts, xs, out):
        return ts[0].sum(self._dim, keepdim=self._saved_keepdim) / self._count


def _mean_args(name, input, dim, keepdim, dtype, axis, keepdims):
    """mean's and nanmean's arguments: (input's array, dtype, dim, keepdim), NumPy's
    axis/keepdims aliases resolved."""
    dtype = D.as_dtype(dtype, name)
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    try:
        return input._data, dtype, dim, keepdim
    except AttributeError as e:
        raise not_tensor(e) from None


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    x, dtype, dim, keepdim = _mean_args("mean", input, dim, keepdim, dtype, axis, keepdims)
    if dtype is not None:
        if dtype.np.kind not in "fc":
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{type_name(dtype.np)}")
        x = x.astype(dtype.np)
    if x.dtype.kind not in "fc":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {type_name(x.dtype)}")
    if dim is None and not keepdim:
        if x.size and (x.dtype.kind == "f" and x.dtype.itemsize >= 4):
            # np.mean's own arithmetic (pairwise add.reduce, then one division), minus
            # its Python layer
            res = wrap(np.add.reduce(x, axis=None) / x.dtype.type(x.size))
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                res = wrap(np.mean(x) if x.size else np.asarray(np.nan, x.dtype))
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = MeanBackward0()
            node._saved_self_sym_sizes = x.shape
            node._saved_self_sym_numel = x.size
            link(res, node, input)
        return write_out(res, out)
    dims, axis = _red_dims(dim, x.ndim)
    if x.size == 0:
        res = wrap(np.full(np.sum(x, axis=axis, keepdims=keepdim).shape, np.nan, x.dtype))
    elif x.dtype.itemsize >= 4:
        # np.mean's arithmetic (add.reduce, then one division) called from here, so that a
        # NumPy warning (inf - inf in the sum) is attributed to ember and filtered
        count = 1
        for d in dims:
            count *= x.shape[d]
        res = wrap(np.asarray(np.add.reduce(x, axis=axis, keepdims=keepdim)
                              / x.dtype.type(count)))
    else:                                 # float16: np.mean accumulates in float32
        with np.errstate(invalid="ignore", over="ignore"):
            res = wrap(np.asarray(np.mean(x, axis=axis, keepdims=keepdim)).astype(
                x.dtype, copy=False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MeanBackward1()
        node._dim = dims
        node._dim_arg = dim
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        count = 1
        for d in dims:
            count *= x.shape[d]
        node._count = count
        link(res, node, input)
    return write_out(res, out)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    x, dtype, dim, keepdim = _mean_args("nanmean", input, dim, keepdim, dtype, axis, keepdims)
    xd = x if dtype is None else x.astype(dtype.np)
    if xd.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex "
                           f"dtype but got {type_name(xd.dtype)}")
    dims, axis = _red_dims(dim, x.ndim)
    count = np.sum(~np.isnan(x), axis=axis, keepdims=keepdim and x.ndim > 0)
    res = nansum(input, dim, keepdim, dtype=dtype) / wrap(np.asarray(count, np.int64))
    return write_out(res, out, "nansum")

# ---------------------------------------------------------------- prod


def _prod_others(x, axis):
    """For each element, the product of the other elements of its slice along axis
    (exact with zeros: products of exclusive prefix and suffix)."""
    n = x.shape[axis]
    ones = np.ones_like(np.take(x, [0], axis))
    pre = np.concatenate([ones, np.multiply.accumulate(np.take(x, range(n - 1), axis), axis)], axis)
    rx = np.flip(x, axis)
    suf = np.concatenate([ones, np.multiply.accumulate(np.take(rx, range(n - 1), axis), axis)], axis)
    return pre * np.flip(suf, axis)


def _prod_others_t(s, d):
    """_prod_others with ember ops (exclusive prefix times exclusive suffix cumprods), so
    that double backward through prod's gradient at zeros is exact too."""
    n = s._data.shape[d]
    shape = list(s._data.shape)
    shape[d] = 1
    ones = wrap(np.ones(shape, s._data.dtype))
    left = cat([ones, s.narrow(d, 0, n - 1)], d).cumprod(d)
    right = cat([ones, s.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
    return left * right


class ProdBackward0(Node):                   # derivatives.yaml: prod
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        x = s._data
        if x.ndim == 0:
            return grad,
        zeros = np.count_nonzero(x == 0)
        if zeros == 0:
            return grad * conj_if_complex(saved_output(self, self._saved_result) / s),
        if STATE.enabled:       # building a graph: prod_safe_zeros_backward, then view_as
            return (grad * conj_if_complex(_prod_others_t(s.reshape(-1), 0))).view(x.shape),
        if zeros > 1:
            # torch's zeros (not grad times 0: an infinite or NaN grad gives 0, as in torch;
            # the dim form and the recorded formula above multiply, and give NaN there)
            return wrap(np.zeros(x.shape, grad._data.dtype)),
        others = _prod_others(x.reshape(-1), 0).reshape(x.shape)
        return grad * _const(others.conj(), grad),

    def jvp(self, ts, xs, out):                 # sum of t times the product of the others
        s, t = xs[0], ts[0]
        if s._data.ndim == 0:
            return t.clone()
        return (t.reshape(-1) * _prod_others_t(s.reshape(-1), 0)).sum()


class ProdBackward1(Node):                   # derivatives.yaml: prod.dim_int
    __slots__ = ("_saved_self", "_saved_result", "_dim", "_dim_arg", "_saved_keepdim")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        x = s._data
        if x.ndim == 0:
            return grad,
        d = self._dim
        g = _unsqueeze_dims(grad, (d,), self._saved_keepdim)
        if not (x == 0).any():
            r = _unsqueeze_dims(saved_output(self, self._saved_result), (d,),
                                self._saved_keepdim)
            return g * conj_if_complex(r / s),
        if x.shape[d] == 0:
            return g.expand(x.shape) * 0,
        if STATE.enabled:
            return g * conj_if_complex(_prod_others_t(s, d)),
        return g * _const(_prod_others(x, d).conj(), g),

    def jvp(self, ts, xs, out):
        s, t, d = xs[0], ts[0], self._dim
        if s._data.ndim == 0:
            return t.clone()
        if s._data.shape[d] == 0:
            return _zeros(out)
        return (t * _prod_others_t(s, d)).sum(d, keepdim=self._saved_keepdim)


def prod(input, dim=OMITTED, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    if dim is None:
        raise invalid_args("prod", (input, dim))
    if AUTOCAST.cpu and out is None:    # Note [Autocast hook]: a float32 op
        input, = fp32(input)
    dtype = D.as_dtype(dtype, "prod")
    dim, keepdim = _np_aliases(None if dim is OMITTED else dim, keepdim, axis, keepdims)
    if dtype is not None and input._requires_grad and dtype.np != input._data.dtype:
        _sum_dtype(input._data, dtype, input)
        input = input.to(dtype)              # torch computes (and differentiates) in dtype
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    rd = _sum_dtype(x, dtype, input)
    # (ufunc.reduce called from here, not np.prod: NumPy's RuntimeWarnings are then raised
    # from an ember module, where ember's warning filter keeps them from the user)
    if dim is None:
        res = wrap(np.multiply.reduce(x, axis=None, dtype=rd))
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = ProdBackward0()
            node._saved_self = input
            node._saved_result = res.detach()
            link(res, node, input)
        return write_out(res, out)
    if isinstance(dim, (list, tuple)):
        raise TypeError("prod() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:")
    d = wrap_dim(dim, x.ndim)
    res = wrap(np.multiply.reduce(x, axis=d if x.ndim else None, dtype=rd,
                                  keepdims=keepdim and x.ndim > 0))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ProdBackward1()
        node._saved_self = input
        node._saved_result = res.detach()
        node._dim, node._dim_arg = d, dim
        node._saved_keepdim = keepdim
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- max / min / amax / amin


def _nan_arg(x, axis, largest):
    """torch's argmax/argmin: first extreme, NaN counting as the extreme."""
    return np.argmax(x, axis=axis) if largest else np.argmin(x, axis=axis)


class MaxBackward1(Node):                    # derivatives.yaml: max (whole tensor)
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        return _even_backward(grad, s, self._saved_result, tuple(range(s._data.ndim)), False,
                              True),

    def jvp(self, ts, xs, out):                 # result: evenly_read_jvp
        # (no NaN matching here, unlike the backward: a NaN result gets a NaN tangent)
        s = xs[0]
        return _even_jvp(ts[0], s, out, tuple(range(s._data.ndim)), False)


class MinBackward1(MaxBackward1):            # derivatives.yaml: min (whole tensor)
    __slots__ = ()


class MaxBackward0(Node):                    # derivatives.yaml: max.dim
    __slots__ = ("_idx", "_indices", "_dim", "_dim_arg", "_saved_keepdim", "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    # _indices: the indices output, saved as torch saves it (a later in-place write to it,
    # or a second backward, is refused: Note [Versions]); the formula reads _idx (its
    # array); _saved_indices / _raw_saved_indices read _indices
    _saved_names = ("_indices",)
    _saved_indices, _raw_saved_indices = saved_alias("_indices")

    def apply(self, grad):
        return _select_backward(grad, self._dim, self._idx,
                                self._saved_keepdim, self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):                 # the tangent at the selected index
        t = ts[0]
        if t._data.ndim == 0:
            return t.clone()
        d, idx = self._dim, self._idx
        if not self._saved_keepdim:
            return t.gather(d, wrap(np.expand_dims(idx, d))).squeeze(d)
        return t.gather(d, wrap(idx))


class MinBackward0(MaxBackward0):            # derivatives.yaml: min.dim
    __slots__ = ()


def _reduce_empty_error(name, x, d=None):
    if d is None:
        return RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                            "input.numel() == 0. Specify the reduction dim with the 'dim' "
                            "argument.")
    return IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _minmax(input, dim, keepdim, largest, out):
    name = "max" if largest else "min"
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None:
        _kernel_check(input, f"{name}_all")
        if x.size == 0:
            raise _reduce_empty_error(name, x)
        res = wrap(np.asarray(np.max(x) if largest else np.min(x)))
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = MaxBackward1() if largest else MinBackward1()
            node._saved_self = input
            node._saved_result = res.detach()
            link(res, node, input)
        return write_out(res, out)
    _complex_check(input, f"{name}(): does not support complex input")
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        if x.shape[d] == 0:
            raise _reduce_empty_error(name, x, d)
        idx = np.expand_dims(_nan_arg(x, d, largest), d)
        vals = np.take_along_axis(x, idx, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    values, indices = wrap(vals), wrap(idx.astype(np.int64))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MaxBackward0() if largest else MinBackward0()
        node._dim, node._saved_keepdim = d, keepdim
        node._dim_arg = dim
        node._idx, node._indices = indices._data, indices
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    if out is not None:
        out_tuple(out, 2)
        write_out(values, out[0])
        write_out(indices, out[1])
        return (_RT.max_out if largest else _RT.min_out)(out)
    return (_RT.max if largest else _RT.min)((values, indices))


def max(input, dim=OMITTED, keepdim=False, *, out=None, other=None, axis=None, keepdims=None):
    if dim is None:
        raise invalid_args("max", (input, dim))
    dim, keepdim = _np_aliases(None if dim is OMITTED else dim, keepdim, axis, keepdims)
    if other is not None:
        dim = other
    if isinstance(dim, Tensor):
        return maximum(input, dim, out=out)
    return _minmax(input, dim, keepdim, True, out)


def min(input, dim=OMITTED, keepdim=False, *, out=None, other=None, axis=None, keepdims=None):
    if dim is None:
        raise invalid_args("min", (input, dim))
    dim, keepdim = _np_aliases(None if dim is OMITTED else dim, keepdim, axis, keepdims)
    if other is not None:
        dim = other
    if isinstance(dim, Tensor):
        return minimum(input, dim, out=out)
    return _minmax(input, dim, keepdim, False, out)


class AmaxBackward0(Node):                   # derivatives.yaml: amax
    __slots__ = ("_saved_self", "_saved_result", "_dim", "_dim_arg", "_saved_keepdim")
    _saved_dim = saved_dims("_dim", "_dim_arg", ())
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        return _even_backward(grad, self._saved_self, self._saved_result, self._dim,
                              self._saved_keepdim),

    def jvp(self, ts, xs, out):
        return _even_jvp(ts[0], xs[0], out, self._dim, self._saved_keepdim)


class AminBackward0(AmaxBackward0):          # derivatives.yaml: amin
    __slots__ = ()


def _amaxmin(input, dim, keepdim, largest, out):
    name = "amax" if largest else "amin"
    _kernel_check(input, "max_values_cpu" if largest else "min_values_cpu")
    x = input._data
    every = dim is None or isinstance(dim, (tuple, list)) and len(dim) == 0
    if x.size == 0 and every:
        raise _reduce_empty_error(name, x)
    if x.size == 0:     # torch: each dim, as given, before a repeated one is refused
        given = dim if isinstance(dim, (tuple, list)) else (dim,)
        for g in given:
            if x.shape[wrap_dim(g, x.ndim)] == 0:
                raise _reduce_empty_error(name, x, g)
    dims, axis = _red_dims(dim if dim is not None else (), x.ndim)
    if x.size == 0 and x.ndim == 0:
        raise _reduce_empty_error(name, x)
    f = np.max if largest else np.min
    res = wrap(np.asarray(f(x, axis=axis, keepdims=keepdim and x.ndim > 0)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = AmaxBackward0() if largest else AminBackward0()
        node._dim_arg = dim
        node._saved_self = input
        node._saved_result = res.detach()
        node._dim = dims
        node._saved_keepdim = keepdim
        link(res, node, input)
    return write_out(res, out)


def amax(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _amaxmin(input, dim, keepdim, True, out)


def amin(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _amaxmin(input, dim, keepdim, False, out)


class AminmaxBackward0(Node):                # derivatives.yaml: aminmax
    __slots__ = ("_saved_self", "_saved_min", "_saved_max", "_dim", "_dim_arg", "_saved_keepdim")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_min", "_saved_max")
    _n_outputs = 2

    def apply(self, grads):
        gmin, gmax = grads
        s, dims, k = self._saved_self, self._dim, self._saved_keepdim
        out = None
        if gmin is not None:
            out = _even_backward(gmin, s, self._saved_min, dims, k)
        if gmax is not None:
            g = _even_backward(gmax, s, self._saved_max, dims, k)
            out = g if out is None else out + g
        return out,

    def jvp(self, ts, xs, out):
        dims, k = self._dim, self._saved_keepdim
        return [_even_jvp(ts[0], xs[0], out[0], dims, k), _even_jvp(ts[0], xs[0], out[1], dims, k)]


def aminmax(input, *, dim=None, keepdim=False, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "aminmax_cpu")
    x = input._data
    if dim is None:
        if x.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims, axis = tuple(range(x.ndim)), None
        kd = keepdim and x.ndim > 0
    else:
        d = wrap_dim(dim, x.ndim)
        if x.ndim and x.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims, axis = ((d,), d) if x.ndim else ((), None)
        kd = keepdim and x.ndim > 0
    mn = wrap(np.asarray(np.min(x, axis=axis, keepdims=kd)))
    mx = wrap(np.asarray(np.max(x, axis=axis, keepdims=kd)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = AminmaxBackward0()
        node._saved_self = input
        node._saved_min, node._saved_max = mn.detach(), mx.detach()
        node._dim, node._dim_arg = dims, dim       # (torch's: the dim as given, or None)
        node._saved_keepdim = keepdim
        link_multi([mn, mx], node, input)
    if out is not None:
        out_tuple(out, 2)
        write_out(mn, out[0])
        write_out(mx, out[1])
        return _RT.aminmax_out(out)
    return _RT.aminmax((mn, mx))


def _argext(input, dim, keepdim, largest):
    name = "argmax" if largest else "argmin"
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    _complex_check(input, f"{name}(): does not support complex input")
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        r = np.asarray(_nan_arg(x.reshape(-1), 0, largest), np.int64)
        if keepdim:
            r = r.reshape((1,) * x.ndim)
        return wrap(r)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return wrap(np.zeros((), np.int64))
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    r = _nan_arg(x, d, largest).astype(np.int64)
    return wrap(np.expand_dims(r, d) if keepdim else r)


def argmax(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return write_out(_argext(input, dim, keepdim, True), out)


def argmin(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return write_out(_argext(input, dim, keepdim, False), out)

# ---------------------------------------------------------------- norms


def _sign(s):
    """sgn(s) as a constant; torch's sign of a real NaN is 0."""
    x = s._data
    sg = np.sign(x)
    if x.dtype.kind == "f":
        sg = np.where(np.isnan(x), 0, sg)
    return _const(sg, s)


def _norm_backward(grad, s, r, p, dims, keepdim):
    """linalg_vector_norm's derivative (torch's choices at 0 and among ties)."""
    grad = _unsqueeze_dims(grad, dims, keepdim)
    r = _unsqueeze_dims(r, dims, keepdim)
    if p == 0:
        return None                          # torch: no gradient for the 0-"norm"
    if p == 1:
        return _sign(s) * grad
    if p == 2:     # (torch's order: s / r masked to 0 where r == 0, then times grad)
        return where(wrap(r._data == 0), 0.0, s / r) * grad
    if p in (float("inf"), -float("inf")):
        a = np.abs(s._data)
        mask = a == r._data
        count = mask.sum(axis=dims if s._data.ndim else None, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(mask, 1.0 / count, 0.0)
        return _sign(s) * _const(w, s) * grad
    sign = _sign(s)
    a = s.abs() if s._data.dtype.kind == "c" else s * sign   # |s|, differentiable
    if p < 1:                                # |s|^(p-1) is infinite at 0: masked to 0
        zero = wrap(s._data == 0)
        scaled = sign * where(zero, 0.0, where(zero, 1.0, a) ** (p - 1))
        return scaled * grad * r ** (1 - p)
    if p < 2:
        scale = where(wrap(r._data == 0), 0.0, grad / r ** (p - 1))
        return sign * a ** (p - 1) * scale
    scale = where(wrap(r._data == 0), 0.0, grad / r ** (p - 1))
    return s * a ** (p - 2) * scale


def _norm_jvp(t, s, r, p, dims, keepdim):
    """linalg_vector_norm's tangent: its gradient (_norm_backward) read against t."""
    g = _norm_backward(wrap(np.ones(r._data.shape, r._data.dtype)), s, r, p, dims, keepdim)
    if g is None:
        return _zeros(r)
    gt = g.conj() * t if g._data.dtype.kind == "c" else g * t
    if gt._data.dtype.kind == "c":
        gt = gt.real
    return gt.sum(dims, keepdim=keepdim)


class LinalgVectorNormBackward0(Node):      # derivatives.yaml: linalg_vector_norm
    __slots__ = ("_saved_self", "_ord", "_ord_arg", "_dim", "_dim_arg", "_saved_keepdim",
                 "_saved_result")
    _saved_ord = saved_given("_ord", "_ord_arg")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return _norm_backward(grad, self._saved_self, r, self._ord, self._dim,
                              self._saved_keepdim),

    def jvp(self, ts, xs, out):
        s = xs[0]
        if s._data.dtype.kind == out._data.dtype.kind and s._data.dtype != out._data.dtype:
            s = s.to(out.dtype)             # a dtype= norm: computed in the result's dtype
        return _norm_jvp(ts[0], s, out, self._ord, self._dim, self._saved_keepdim)


def _norm_values(x, p, axis, keepdim):
    a = np.abs(x)
    dt = a.dtype
    if dt == np.float16:        # torch computes a Half norm in float and rounds once
        a = a.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if p == 2:
            r = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
        elif p == float("inf"):
            r = np.max(a, axis=axis, keepdims=keepdim) if a.size else \
                np.zeros(np.sum(a, axis=axis, keepdims=keepdim).shape, a.dtype)
        elif p == -float("inf"):
            r = np.min(a, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(a != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
        elif p == 1:
            r = np.sum(a, axis=axis, keepdims=keepdim)
        else:
            r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r, dtype=dt)


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    dtype = D.as_dtype(dtype, "linalg_vector_norm")
    if keepdim is not False and keepdim is not True:
        raise TypeError(f"linalg_vector_norm(): argument 'keepdim' must be bool, not "
                        f"{type(keepdim).__name__}")
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_check(x, "linalg.vector_norm")
    if dtype is not None:
        x = x.astype(dtype.np)
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    try:
        p = float(ord)
    except (TypeError, ValueError):
        raise wrong_type(ord, "Number") from None
    if x.size == 0 and (p < 0 or p == float("inf")):     # no identity to start from
        shown = int(p) if p.is_integer() else p       # torch prints -1.0 as -1
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an "
                               "empty tensor because the operation does not have an identity")
        for d in dim:               # in order, each wrapped then checked; named as given
            if x.shape[wrap_dim(d, x.ndim)] == 0:   # (torch's text lacks the space before
                raise RuntimeError(                 # "because")
                    f"linalg.vector_norm cannot compute the {shown} norm on the dimension "
                    f"{d}because this dimension is empty and the operation does not have an "
                    "identity")
    dims, axis = _red_dims(dim, x.ndim)
    res = wrap(_norm_values(x, p, axis, keepdim and x.ndim > 0))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = LinalgVectorNormBackward0()
        node._saved_self = input if dtype is None else input.to(dtype)
        node._ord, node._ord_arg = p, ord
        node._dim = dims
        node._dim_arg = dim
        node._saved_keepdim = keepdim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out, "linalg_vector_norm")


class DistBackward0(Node):                   # derivatives.yaml: dist
    __slots__ = ("_saved_self", "_saved_other", "_p", "_p_arg", "_saved_result")
    _saved_p = saved_given("_p", "_p_arg")
    _saved_names = ("_saved_self", "_saved_other", "_saved_result")

    def apply(self, grad):
        diff = self._saved_self - self._saved_other
        nd = diff._data.ndim
        g = _norm_backward(grad, diff, saved_output(self, self._saved_result),
                           self._p, tuple(range(nd)), False)
        if g is None:
            return None, None
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        diff = xs[0] - xs[1]
        return _norm_jvp(ts[0] - ts[1], diff, out, self._p,
                         tuple(range(diff._data.ndim)), False)


def dist(input, other, p=2):
    try:
        x, y = input._data, other._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "b" and y.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if x.dtype != y.dtype:
        rt = D.promote_types(input.dtype, other.dtype).np
        x, y = x.astype(rt), y.astype(rt)
    try:
        diff = x - y
    except ValueError:
        raise broadcast_error(x, y) from None
    if diff.dtype.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {type_name(diff.dtype)} instead.")
    given, p = p, float(p)
    res = wrap(_norm_values(diff, p, None, False))
    if STATE.enabled and (input._requires_grad or other._requires_grad) or \
            LEVELS and dual(input, other):
        node = DistBackward0()
        node._saved_self, node._saved_other = input, other
        node._p, node._p_arg = p, given
        node._saved_result = res.detach()
        link(res, node, input, other)
    return res


def count_nonzero(input, dim=None, *, axis=None):
    if axis is not None:
        dim = axis
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None:
        return wrap(np.asarray(np.count_nonzero(x), np.int64))
    dims, axis = _red_dims(dim, x.ndim)
    return wrap(np.asarray(np.count_nonzero(x, axis=axis), np.int64))

# ---------------------------------------------------------------- logsumexp / softmax


class LogsumexpBackward0(Node):              # derivatives.yaml: logsumexp
    __slots__ = ("_saved_self", "_dim", "_dim_arg", "_saved_keepdim", "_saved_result")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        dims, k = self._dim, self._saved_keepdim
        r = _unsqueeze_dims(saved_output(self, self._saved_result), dims, k)
        g = _unsqueeze_dims(grad, dims, k)
        with np.errstate(invalid="ignore"):          # inf - inf where the result is inf
            return g * conj_if_complex((self._saved_self - r).exp()),

    def jvp(self, ts, xs, out):
        dims, k = self._dim, self._saved_keepdim
        r = _unsqueeze_dims(out, dims, k)
        with np.errstate(invalid="ignore"):
            return (ts[0] * (xs[0] - r).exp()).sum(dims, keepdim=k)


def logsumexp(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim = _required_dim("logsumexp", dim)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    x = floating(x)         # (an integer input has no gradient and no tangent to link)
    dims, axis = _red_dims(dim, x.ndim)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if x.size:
            m = np.max(x, axis=axis, keepdims=True)
            m = np.where(np.isinf(m), 0, m)
            r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        else:
            r = np.log(np.sum(np.exp(x), axis=axis, keepdims=True))
        if not keepdim and x.ndim:
            r = r.squeeze(axis)
    res = wrap(np.asarray(r, x.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = LogsumexpBackward0()
        node._saved_self = input
        node._dim, node._saved_keepdim = dims, keepdim
        node._dim_arg = dim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


def _softmax_input(input, dim, dtype, name):
    if dtype is not None:
        input = input.to(dtype)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, x.ndim)
    if x.dtype.kind != "f" and x.size:      # (an empty input runs no kernel in torch)
        kernel = "lastdim_kernel_impl" if d >= x.ndim - 1 else "kernel_impl"
        raise NotImplementedError(f'"{name}_{kernel}" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    return input, x, d


class SoftmaxBackward0(Node):                # derivatives.yaml: _softmax
    __slots__ = ("_dim", "_dim_arg", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return _softmax_backward_data(grad, saved_output(self, self._saved_result),
                                      self._dim),

    def jvp(self, ts, xs, out):                 # result: y * (t - sum(y * t))
        t, d = ts[0].to(out.dtype), self._dim
        if d is None:                       # a 0-d input: 0, or NaN for a NaN one
            return out * (t - out * t)
        return out * (t - (out * t).sum(d, keepdim=True))

    def np_apply(self, g):
        y = self._saved_result._data
        if y.dtype is not g.dtype or y.shape != g.shape or not y.ndim:
            return Node.np_apply(self, g)
        gy = g * y
        r = y * np.add.reduce(gy, axis=self._dim, keepdims=True)
        return np.subtract(gy, r, out=r),


class SoftmaxBackwardDataBackward0(Node):    # derivatives.yaml: _softmax_backward_data
    __slots__ = ("_saved_dim", "_saved_grad_output", "_saved_output")
    _saved_names = ("_saved_grad_output", "_saved_output")

    def apply(self, grad):      # f(g, y) = y * (g - sum(y * g)); grad is f's upstream G
        g, y, d = self._saved_grad_output, self._saved_output, self._saved_dim
        grad_g = grad_y = None
        if needs(self, 0):      # d/dg: y * (G - sum(y * G)), the same op again
            grad_g = _softmax_backward_data(grad, y, d)
        if needs(self, 1):      # d/dy: G * (g - sum(y * g)) - g * sum(G * y)
            grad_y = grad * (g - _sum_keep(y * g, d)) - g * _sum_keep(grad * y, d)
        return grad_g, grad_y

    def jvp(self, ts, xs, out):
        (tg, ty), (g, y), d = ts, xs, self._saved_dim
        return (ty * (g - _sum_keep(y * g, d))
                + y * (tg - _sum_keep(ty * g + y * tg, d)))


def _sum_keep(t, d):
    """t summed over the softmax dim, kept (a 0-d softmax's dim is None: nothing to sum)."""
    return t if d is None else t.sum(d, keepdim=True)


def _softmax_backward_data(grad_output, output, dim):
    """softmax's gradient y * (g - sum(y * g)) as an op of (grad_output, output): torch's
    _softmax_backward_data, whose node SoftmaxBackwardDataBackward0 records it under
    create_graph (dim None: a 0-d softmax)."""
    g, y = grad_output._data, output._data
    gy = g * y
    r = gy - y * (gy if dim is None else np.add.reduce(gy, axis=dim, keepdims=True))
    return _backward_data(r, SoftmaxBackwardDataBackward0, grad_output, output, dim)


def _backward_data(r, node_cls, grad_output, output, dim):
    """r, the NumPy value of a _*softmax_backward_data op, as its result: linked to its node
    (edges grad_output, output) when either requires grad."""
    res = wrap(np.asarray(r, output._data.dtype, order="C"))    # (torch's kernels: C order)
    if requires(grad_output, output):
        node = node_cls()
        node._saved_dim = dim
        node._saved_grad_output, node._saved_output = grad_output, output
        link(res, node, grad_output, output)
    return res


def _softmax_result(y, x, input, d, node_cls, out, dim):
    """y, the NumPy value of (log_)softmax of x (input's array) over dim d, as its result:
    linked to node_cls (which saves the result) when input requires grad. C-contiguous
    whatever the input's layout, as torch's kernels write it (and so is the gradient)."""
    res = wrap(np.asarray(y, x.dtype, order="C"))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        node._dim, node._dim_arg = d if x.ndim else None, dim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


def softmax(input, dim=None, dtype=None, *, _stacklevel=3, axis=None, out=None):
    dim = _required_dim("softmax", dim, axis)
    input, x, d = _softmax_input(input, dim, dtype, "softmax")
    ax = d if x.ndim else None
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(x, axis=ax, keepdims=True) if x.size else 0
        e = np.exp(x - m)
        y = e / np.sum(e, axis=ax, keepdims=True)
    return _softmax_result(y, x, input, d, SoftmaxBackward0, out, dim)


class LogSoftmaxBackward0(Node):             # derivatives.yaml: _log_softmax
    __slots__ = ("_dim", "_dim_arg", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return _log_softmax_backward_data(grad, saved_output(self, self._saved_result),
                                          self._dim),

    def jvp(self, ts, xs, out):
        t, d = ts[0].to(out.dtype), self._dim
        if d is None:
            return t - out.exp() * t
        return t - (out.exp() * t).sum(d, keepdim=True)

    def np_apply(self, g):
        y = self._saved_result._data
        if y.dtype is not g.dtype or y.shape != g.shape or not y.ndim:
            return Node.np_apply(self, g)
        r = np.exp(y)
        r *= np.add.reduce(g, axis=self._dim, keepdims=True)
        return np.subtract(g, r, out=r),


class LogSoftmaxBackwardDataBackward0(Node):   # derivatives.yaml: _log_softmax_backward_data
    __slots__ = ("_saved_dim", "_saved_grad_output", "_saved_output")
    _saved_names = ("_saved_grad_output", "_saved_output")

    def apply(self, grad):      # f(g, y) = g - exp(y) * sum(g); grad is f's upstream G
        g, y, d = self._saved_grad_output, self._saved_output, self._saved_dim
        grad_g = grad_y = None
        if needs(self, 0):      # d/dg: G - sum(G * exp(y))
            grad_g = grad - _sum_keep(grad * y.exp(), d)
        if needs(self, 1):      # d/dy: -sum(g) * exp(y) * G
            grad_y = -_sum_keep(g, d) * y.exp() * grad
        return grad_g, grad_y

    def jvp(self, ts, xs, out):
        (tg, ty), (g, y), d = ts, xs, self._saved_dim
        e = y.exp()
        return tg - e * (ty * _sum_keep(g, d) + _sum_keep(tg, d))


def _log_softmax_backward_data(grad_output, output, dim):
    """log_softmax's gradient g - exp(y) * sum(g) as an op of (grad_output, output): torch's
    _log_softmax_backward_data, whose node LogSoftmaxBackwardDataBackward0 records it under
    create_graph (dim None: a 0-d log_softmax)."""
    g, y = grad_output._data, output._data
    with np.errstate(over="ignore", invalid="ignore"):
        r = g - np.exp(y) * (g if dim is None else np.add.reduce(g, axis=dim, keepdims=True))
    return _backward_data(r, LogSoftmaxBackwardDataBackward0, grad_output, output, dim)


def log_softmax(input, dim=None, dtype=None, *, _stacklevel=3, axis=None, out=None):
    dim = _required_dim("log_softmax", dim, axis)
    input, x, d = _softmax_input(input, dim, dtype, "log_softmax")
    ax = d if x.ndim else None
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.maximum.reduce(x, axis=ax, keepdims=True) if x.size else 0
        sh = x - m
        y = sh - np.log(np.add.reduce(np.exp(sh), axis=ax, keepdims=True))
    return _softmax_result(y, x, input, d, LogSoftmaxBackward0, out, dim)

# ---------------------------------------------------------------- all / any


def all(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    return _all_any(np.all, input, dim, keepdim, out, axis, keepdims)


def any(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    return _all_any(np.any, input, dim, keepdim, out, axis, keepdims)


def _all_any(reduce, input, dim, keepdim, out, axis, keepdims):
    """all/any: bool results (uint8 for a uint8 input, as torch keeps it); no history."""
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    axis = None if dim is None else wrap_dims(dim, x.ndim)
    if x.ndim == 0:
        axis = None
    r = reduce(x, axis=axis, keepdims=keepdim and axis is not None)
    return write_out(wrap(r if x.dtype != np.uint8 else r.astype(np.uint8)), out)


# ================================================================ surface ops (issue 14): renorm
__all__ += ["renorm"]

_RENORM_EPS = 1e-7      # torch divides by (norm + 1e-7)


class RenormBackward0(Node):                 # derivatives.yaml: renorm
    __slots__ = ("_saved_self", "_saved_p", "_saved_dim", "_saved_maxnorm")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        # renorm_backward: nb = norm_backward(sum(self.conj() * grad)) over each slice,
        # invnorm = (norm + 1e-7).reciprocal(); where(norm > maxnorm, invnorm * maxnorm *
        # (grad - invnorm * nb), grad)
        x, p, maxnorm = self._saved_self, self._saved_p, self._saved_maxnorm
        dims = tuple(d for d in range(x.ndim) if d != self._saved_dim)
        norm = vector_norm(x, p, dims, keepdim=True)
        go = x.conj() * grad
        if go._data.dtype.kind == "c":
            go = go.real
        nb = _norm_backward(go.sum(dims, keepdim=True), x, norm, p, dims, True)
        invnorm = scalar_op(norm, _RENORM_EPS, AddBackward1).reciprocal()
        factor = scalar_op(invnorm, maxnorm, MulBackward1)
        return where(norm > maxnorm, factor * (grad - invnorm * nb), grad),


def renorm(input, p, dim, maxnorm, *, out=None):
    x = input._data
    if x.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {type_name(x.dtype)}")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = wrap_dim(dim, x.ndim)
    dims = tuple(i for i in range(x.ndim) if i != d)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        if p == float("inf"):
            norm = a.max(axis=dims, keepdims=True)
        else:
            norm = (a ** p).sum(axis=dims, keepdims=True) ** (1.0 / p)
        scale = np.where(norm > maxnorm, maxnorm / (norm + _RENORM_EPS), 1.0)
    res = wrap((x * scale.astype(a.dtype)).astype(x.dtype, copy=False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = RenormBackward0()
        node._saved_self, node._saved_p, node._saved_dim = input, p, d
        node._saved_maxnorm = maxnorm
        link(res, node, input)
    return write_out(res, out)


def renorm_(self, p, dim, maxnorm):
    return inplace(self, renorm(inplace_source(self), p, dim, maxnorm))


# ---- sum_to_size: the sum of a broadcast back to `size` (torch: sum, then view)


def sum_to_size(self, *size):
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = size_args(size, "sum_to_size")
    shape = self._data.shape
    lead = len(shape) - len(size)
    ok = lead >= 0 and builtins.all(s == d or s == 1 for s, d in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if tuple(size) == shape:
        return self
    dims = tuple(range(lead)) + tuple(lead + i for i, (s, d) in enumerate(zip(size, shape[lead:]))
                                      if s == 1 and d != 1)
    return self.sum(dims, keepdim=True).view(size) if dims else self.view(size)
