"""Reductions, scans, sorting and selection: each op's forward, node class and derivative in
one place. Value-selecting ops (max with dim, sort, topk, ...) scatter their gradient to the
selected indices; whole-tensor max/min/median and amax/amin share it evenly among ties."""
__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax",
           "argmin", "var", "std", "var_mean", "std_mean", "norm", "logsumexp",
           "softmax", "log_softmax", "cumsum", "cumprod", "cummax", "cummin",
           "logcumsumexp", "all", "any",
           "median", "nanmedian", "mode", "topk", "sort", "argsort", "msort", "kthvalue",
           "count_nonzero", "dist", "nansum", "nanmean", "return_types"]

import builtins
import sys
import types
import warnings

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link, link_multi
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import (spread_scalar, scalar_array, wrap_dim, wrap_dims, type_name, write_out,
                      saved_output, needs, conj_if_complex)

_pymax, _pymin, _pyany = builtins.max, builtins.min, builtins.any


# ---------------------------------------------------------------- return types

def _structseq(name, fields):
    """A torch.return_types.<name>: a tuple with named fields that prints like torch's."""
    def __new__(cls, seq):
        seq = tuple(seq)
        if len(seq) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    ns = {"__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": (),
          "__reduce__": __reduce__, "n_fields": len(fields), "n_sequence_fields": len(fields),
          "n_unnamed_fields": 0, "_fields": fields, "__module__": "ember.return_types",
          "__qualname__": name}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (tuple,), ns)


return_types = types.ModuleType("ember.return_types", "Named-tuple results of reductions.")
for _n in ("max", "min", "median", "nanmedian", "mode", "topk", "sort", "kthvalue", "cummax",
           "cummin"):
    setattr(return_types, _n, _structseq(_n, ("values", "indices")))
return_types.aminmax = _structseq("aminmax", ("min", "max"))
del _n
_RT = return_types
sys.modules.setdefault("ember.return_types", return_types)   # importable, picklable


# ---------------------------------------------------------------- helpers

def _required_dim(op, dim, axis=None):
    """dim (or NumPy's axis=) for ops where torch requires it, with torch's error if absent."""
    if axis is not None:
        dim = axis
    if dim is None:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return dim


def _np_aliases(dim, keepdim, axis, keepdims):
    """torch accepts NumPy's names axis= and keepdims= for dim= and keepdim=."""
    return (dim if axis is None else axis), (keepdim if keepdims is None else keepdims)


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


def _index_grid(index, axis):
    """Advanced-index tuple addressing `index` positions along `axis` (others: broadcast)."""
    idx = []
    for d, n in enumerate(index.shape):
        if d == axis:
            idx.append(index)
        else:
            sh = [1] * index.ndim
            sh[d] = n
            idx.append(np.arange(n).reshape(sh))
    return tuple(idx)


class GatherBackward0(Node):                 # gather(self, dim, index)
    __slots__ = ("_saved_dim", "_saved_index", "_saved_self_sym_sizes")

    def apply(self, grad):
        return _scatter_add(grad, self._saved_dim, self._saved_index,
                            self._saved_self_sym_sizes, unique=False),


def _gather(input, dim, index):
    """Differentiable take_along_axis (the double backward of value-selecting reductions)."""
    x = input._data
    res = wrap(np.take_along_axis(x, index, dim) if x.ndim else x.copy())
    if STATE.enabled and input._requires_grad:
        node = GatherBackward0()
        node._saved_dim, node._saved_index, node._saved_self_sym_sizes = dim, index, x.shape
        link(res, node, input)
    return res


class ScatterAddBackward0(Node):             # zeros(sizes).scatter_add(dim, index, src)
    __slots__ = ("_saved_dim", "_saved_index")

    def apply(self, grad):
        return _gather(grad, self._saved_dim, self._saved_index),


def _scatter_add(src, dim, index, shape, unique=True):
    """zeros(shape) with src added at `index` along `dim` (src.shape == index.shape);
    unique: no index repeats within a slice, so a plain put suffices."""
    s = src._data
    if s.shape != index.shape:
        s = np.broadcast_to(s, index.shape)
    out = np.zeros(shape, dtype=s.dtype)
    if len(shape) == 0:
        out[...] = s
    elif unique:
        np.put_along_axis(out, index, s, dim)
    else:
        np.add.at(out, _index_grid(index, dim), s)
    res = wrap(out)
    if STATE.enabled and src._requires_grad:
        node = ScatterAddBackward0()
        node._saved_dim, node._saved_index = dim, index
        link(res, node, src)
    return res


def _select_backward(grad, dim, indices, keepdim, shape):
    """Gradient of a value-selecting reduction: grad scattered to `indices` along dim."""
    if len(shape) == 0:
        return grad
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = np.expand_dims(indices, dim)
    return _scatter_add(grad, dim, indices, shape)


def _even_backward(grad, x, result, dims, keepdim, nan_match=False):
    """grad shared evenly among the elements equal to the (broadcast) result (amax/amin:
    NaN equals nothing; whole-tensor max/min/median: NaN matches a NaN result)."""
    r = result._data
    if not keepdim:
        r = np.expand_dims(r, sorted(dims)) if dims else r
    xa = x._data
    mask = xa == r
    if nan_match and xa.dtype.kind in "fc":
        mask |= np.isnan(xa) & np.isnan(r)
    count = mask.sum(axis=dims if x._data.ndim else None, keepdims=True)
    g = _unsqueeze_dims(grad, dims, keepdim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return g * _const(mask / count, g)


def _kernel_check(input, kernel, kinds="c"):
    """torch's dispatch error for a dtype its CPU kernel lacks (complex; bool too for some)."""
    k = input._data.dtype.kind
    if k in kinds:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{type_name(input._data.dtype)}'")


def _complex_check(input, msg):
    if input._data.dtype.kind == "c":
        raise RuntimeError(msg)


def _float_check(x, name):
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {type_name(x.dtype)}")


# ---------------------------------------------------------------- sum / mean / nansum

class SumBackward0(Node):                    # derivatives.yaml: sum
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.expand(self._saved_self_sym_sizes),

    def np_apply(self, g):                  # the scalar gradient, spread
        return spread_scalar(g, self._saved_self_sym_sizes),


class SumBackward1(Node):                    # derivatives.yaml: sum.dim_IntList
    __slots__ = ("_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes")

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._saved_dim, self._saved_keepdim)
        return g.expand(self._saved_self_sym_sizes),


def _sum_dtype(x, dtype, input=None):
    if dtype is not None:
        if input is not None and dtype.np.kind not in "fc" and input._requires_grad and \
                STATE.enabled:
            raise RuntimeError(f"Autograd not support dtype: {type_name(dtype.np)}")
        return dtype.np
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    if dim is None and not keepdim:
        # np.sum's arithmetic (add.reduce over everything) without its Python wrapper
        res = wrap(np.add.reduce(x, axis=None, dtype=_sum_dtype(x, dtype, input)))
        if STATE.enabled and input._requires_grad:
            node = SumBackward0()
            node._saved_self_sym_sizes = x.shape
            link(res, node, input)
        return write_out(res, out)
    dims, axis = _red_dims(dim, x.ndim)
    res = wrap(np.sum(x, axis=axis, dtype=_sum_dtype(x, dtype, input), keepdims=keepdim))
    if STATE.enabled and input._requires_grad:
        node = SumBackward1()
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)


class NansumBackward0(Node):                 # derivatives.yaml: nansum
    __slots__ = ("_saved_self", "_saved_dim", "_saved_keepdim")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        g = _unsqueeze_dims(grad, self._saved_dim, self._saved_keepdim)
        return g * _const(~np.isnan(s._data), g),


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    dims, axis = _red_dims(dim, x.ndim)
    if x.dtype.kind in "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    res = wrap(np.asarray(np.nansum(x, axis=axis, dtype=_sum_dtype(x, dtype, input),
                                    keepdims=keepdim and x.ndim > 0)))
    if STATE.enabled and input._requires_grad:
        node = NansumBackward0()
        node._saved_self = input
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        link(res, node, input)
    return write_out(res, out)


class MeanBackward0(Node):                   # derivatives.yaml: mean
    __slots__ = ("_saved_self_sym_sizes", "_saved_self_sym_numel")

    def apply(self, grad):
        return grad.expand(self._saved_self_sym_sizes) / self._saved_self_sym_numel,

    def np_apply(self, g):
        n = self._saved_self_sym_numel
        if n and g.dtype.kind == "f" and not g.ndim:
            # divide the scalar once, then spread it (the same value per element)
            return spread_scalar(g / scalar_array(n, g.dtype), self._saved_self_sym_sizes),
        return Node.np_apply(self, g)


class MeanBackward1(Node):                   # derivatives.yaml: mean.dim
    __slots__ = ("_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes", "_count")

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._saved_dim, self._saved_keepdim)
        return g.expand(self._saved_self_sym_sizes) / self._count,


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
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
        if STATE.enabled and input._requires_grad:
            node = MeanBackward0()
            node._saved_self_sym_sizes = x.shape
            node._saved_self_sym_numel = x.size
            link(res, node, input)
        return write_out(res, out)
    dims, axis = _red_dims(dim, x.ndim)
    if x.size == 0:
        res = wrap(np.full(np.sum(x, axis=axis, keepdims=keepdim).shape, np.nan, x.dtype))
    else:
        res = wrap(np.asarray(np.mean(x, axis=axis, keepdims=keepdim)).astype(x.dtype,
                                                                             copy=False))
    if STATE.enabled and input._requires_grad:
        node = MeanBackward1()
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        count = 1
        for d in dims:
            count *= x.shape[d]
        node._count = count
        link(res, node, input)
    return write_out(res, out)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    xd = x if dtype is None else x.astype(dtype.np)
    if xd.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex "
                           f"dtype but got {type_name(xd.dtype)}")
    dims, axis = _red_dims(dim, x.ndim)
    count = np.sum(~np.isnan(x), axis=axis, keepdims=keepdim and x.ndim > 0)
    res = nansum(input, dim, keepdim, dtype=dtype) / wrap(np.asarray(count, np.int64))
    return write_out(res, out)


# ---------------------------------------------------------------- prod

def _prod_others(x, axis):
    """For each element, the product of the other elements of its slice along axis
    (exact with zeros: products of exclusive prefix and suffix)."""
    n = x.shape[axis]
    ones = np.ones_like(np.take(x, [0], axis))
    pre = np.concatenate([ones, np.cumprod(np.take(x, range(n - 1), axis), axis)], axis)
    rx = np.flip(x, axis)
    suf = np.concatenate([ones, np.cumprod(np.take(rx, range(n - 1), axis), axis)], axis)
    return pre * np.flip(suf, axis)


def _prod_others_t(s, d):
    """_prod_others with ember ops (exclusive prefix times exclusive suffix cumprods), so
    that double backward through prod's gradient at zeros is exact too."""
    from .join import cat
    n = s._data.shape[d]
    shape = list(s._data.shape)
    shape[d] = 1
    ones = wrap(np.ones(shape, s._data.dtype))
    left = cat([ones, s.narrow(d, 0, n - 1)], d).cumprod(d)
    right = cat([ones, s.flip(d).narrow(d, 0, n - 1)], d).cumprod(d).flip(d)
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
        if zeros > 1:
            return grad.expand(x.shape) * 0,
        if STATE.enabled:                    # building a graph: differentiable form
            return grad * conj_if_complex(_prod_others_t(s.reshape(-1), 0).reshape(x.shape)),
        others = _prod_others(x.reshape(-1), 0).reshape(x.shape)
        return grad * _const(others.conj(), grad),


class ProdBackward1(Node):                   # derivatives.yaml: prod.dim_int
    __slots__ = ("_saved_self", "_saved_result", "_saved_dim", "_saved_keepdim")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        x = s._data
        if x.ndim == 0:
            return grad,
        d = self._saved_dim
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


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    if dtype is not None and input._requires_grad and dtype.np != input._data.dtype:
        _sum_dtype(input._data, dtype, input)
        input = input.to(dtype)              # torch computes (and differentiates) in dtype
    x = input._data
    rd = _sum_dtype(x, dtype, input)
    if dim is None:
        res = wrap(np.prod(x, dtype=rd))
        if STATE.enabled and input._requires_grad:
            node = ProdBackward0()
            node._saved_self = input
            node._saved_result = res.detach()
            link(res, node, input)
        return write_out(res, out)
    if isinstance(dim, (list, tuple)):
        raise TypeError("prod() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:")
    d = wrap_dim(dim, x.ndim)
    res = wrap(np.prod(x, axis=d if x.ndim else None, dtype=rd,
                       keepdims=keepdim and x.ndim > 0))
    if STATE.enabled and input._requires_grad:
        node = ProdBackward1()
        node._saved_self = input
        node._saved_result = res.detach()
        node._saved_dim = d
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


class MinBackward1(MaxBackward1):            # derivatives.yaml: min (whole tensor)
    __slots__ = ()


class MaxBackward0(Node):                    # derivatives.yaml: max.dim
    __slots__ = ("_saved_dim", "_saved_keepdim", "_saved_indices", "_saved_self_sym_sizes")

    def apply(self, grad):
        return _select_backward(grad, self._saved_dim, self._saved_indices,
                                self._saved_keepdim, self._saved_self_sym_sizes),


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
    x = input._data
    if dim is None:
        _kernel_check(input, f"{name}_all")
        if x.size == 0:
            raise _reduce_empty_error(name, x)
        res = wrap(np.asarray(np.max(x) if largest else np.min(x)))
        if STATE.enabled and input._requires_grad:
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
    if STATE.enabled and input._requires_grad:
        node = MaxBackward0() if largest else MinBackward0()
        node._saved_dim, node._saved_keepdim = d, keepdim
        node._saved_indices = indices._data
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    if out is not None:
        write_out(values, out[0])
        write_out(indices, out[1])
        values, indices = out
    return (_RT.max if largest else _RT.min)((values, indices))


def max(input, dim=None, keepdim=False, *, out=None, other=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    if other is not None:
        dim = other
    if isinstance(dim, Tensor):
        from .pointwise import maximum
        return maximum(input, dim, out=out)
    return _minmax(input, dim, keepdim, True, out)


def min(input, dim=None, keepdim=False, *, out=None, other=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    if other is not None:
        dim = other
    if isinstance(dim, Tensor):
        from .pointwise import minimum
        return minimum(input, dim, out=out)
    return _minmax(input, dim, keepdim, False, out)


class AmaxBackward0(Node):                   # derivatives.yaml: amax
    __slots__ = ("_saved_self", "_saved_result", "_saved_dim", "_saved_keepdim")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        return _even_backward(grad, self._saved_self, self._saved_result, self._saved_dim,
                              self._saved_keepdim),


class AminBackward0(AmaxBackward0):          # derivatives.yaml: amin
    __slots__ = ()


def _amaxmin(input, dim, keepdim, largest, out):
    name = "amax" if largest else "amin"
    _kernel_check(input, "max_values_cpu" if largest else "min_values_cpu")
    x = input._data
    dims, axis = _red_dims(dim if dim is not None else (), x.ndim)
    for d in dims:
        if x.shape[d] == 0:
            raise _reduce_empty_error(name, x, d)
    if x.size == 0 and x.ndim == 0:
        raise _reduce_empty_error(name, x)
    f = np.max if largest else np.min
    res = wrap(np.asarray(f(x, axis=axis, keepdims=keepdim and x.ndim > 0)))
    if STATE.enabled and input._requires_grad:
        node = AmaxBackward0() if largest else AminBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        node._saved_dim = dims
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
    __slots__ = ("_saved_self", "_saved_min", "_saved_max", "_saved_dim", "_saved_keepdim")
    _saved_names = ("_saved_self", "_saved_min", "_saved_max")
    _n_outputs = 2

    def apply(self, grads):
        gmin, gmax = grads
        s, dims, k = self._saved_self, self._saved_dim, self._saved_keepdim
        out = None
        if gmin is not None:
            out = _even_backward(gmin, s, self._saved_min, dims, k)
        if gmax is not None:
            g = _even_backward(gmax, s, self._saved_max, dims, k)
            out = g if out is None else out + g
        return out,


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
    if STATE.enabled and input._requires_grad:
        node = AminmaxBackward0()
        node._saved_self = input
        node._saved_min, node._saved_max = mn.detach(), mx.detach()
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        link_multi([mn, mx], node, input)
    if out is not None:
        write_out(mn, out[0])
        write_out(mx, out[1])
        mn, mx = out
    return _RT.aminmax((mn, mx))


def _argext(input, dim, keepdim, largest):
    name = "argmax" if largest else "argmin"
    x = input._data
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


# ---------------------------------------------------------------- var / std

def _var_args(dim, unbiased, correction, name):
    if isinstance(dim, bool):                # legacy var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var_forward(input, dim, correction, keepdim, name, stacklevel=3):
    x = input._data
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes"
                           if name.endswith("_mean") else
                           "std and var only support floating point and complex dtypes")
    dims, axis = _red_dims(dim, x.ndim)
    n = 1
    for d in dims:
        n *= x.shape[d]
    dof = _pymax(0, n - correction)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=stacklevel)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.mean(x, axis=axis, keepdims=True) if x.size else \
            np.full(np.sum(x, axis=axis, keepdims=True).shape, np.nan, x.dtype)
        dev = x - m
        sq = (dev * dev.conj()).real if x.dtype.kind == "c" else dev * dev
        v = np.asarray(np.sum(sq, axis=axis, keepdims=keepdim) / dof,
                       dtype=sq.dtype)
        if not keepdim and x.ndim:
            m = m.reshape(v.shape)
    return dims, v, np.asarray(m, x.dtype)


def _var_node(node, input, dim, dims, correction, keepdim):
    """Fill a var/std node's attributes (what torch's var_backward reads)."""
    node._saved_self = input
    node._saved_dim, node._saved_correction, node._saved_keepdim = dims, correction, keepdim
    node._all = dim is None or input._data.ndim == 0
    n = 1
    if not (isinstance(dim, (list, tuple)) and len(dim) == 0):
        for d in dims:
            n *= input._data.shape[d]
    node._n = n


def _var_backward(grad, s, dims, keepdim, n, correction, all_dims):
    """torch's var_backward: over all elements (dim=None), a non-positive dof gives
    grad * (nan where x == mean else inf); with dims, the factor 2 / (n - correction) is not
    clamped (n counts the listed dims, so 1 for an explicit dim=[])."""
    g = _unsqueeze_dims(grad, dims, keepdim)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if all_dims:
            dof = s._data.size - correction
            if dof <= 0:
                x = s._data
                return g * _const(np.where(x == x.mean(), np.nan, np.inf), g)
            return g * (2.0 / dof) * (s - s.mean())
        dof = n - correction
        factor = 2.0 / dof if dof else float("inf")
        return g * factor * (s - s.mean(dims, keepdim=True))


class VarBackward0(Node):                    # derivatives.yaml: var.correction
    __slots__ = ("_saved_self", "_saved_dim", "_saved_correction", "_saved_keepdim", "_n",
                 "_all")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return _var_backward(grad, self._saved_self, self._saved_dim, self._saved_keepdim,
                             self._n, self._saved_correction, self._all),


def _std_grad(grad, result):
    """grad / (2 * std), zero where std == 0 (torch's masked_fill)."""
    from .pointwise import where
    with np.errstate(divide="ignore", invalid="ignore"):
        return where(wrap(result._data == 0), 0.0, grad / (result * 2))


class StdBackward0(Node):                    # derivatives.yaml: std.correction
    __slots__ = ("_saved_self", "_saved_result", "_saved_dim", "_saved_correction",
                 "_saved_keepdim", "_n", "_all")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        gv = _std_grad(grad, saved_output(self, self._saved_result))
        return _var_backward(gv, self._saved_self, self._saved_dim, self._saved_keepdim,
                             self._n, self._saved_correction, self._all),


def var(input, dim=None, unbiased=None, keepdim=False, *,
        correction=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim, c = _var_args(dim, unbiased, correction, "var")
    dims, v, _ = _var_forward(input, dim, c, keepdim, "var")
    res = wrap(v)
    if STATE.enabled and input._requires_grad:
        node = VarBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        link(res, node, input)
    return write_out(res, out)


def std(input, dim=None, unbiased=None, keepdim=False, *,
        correction=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim, c = _var_args(dim, unbiased, correction, "std")
    dims, v, _ = _var_forward(input, dim, c, keepdim, "std")
    res = wrap(np.sqrt(v))
    if STATE.enabled and input._requires_grad:
        node = StdBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class VarMeanBackward0(Node):                # derivatives.yaml: var_mean.correction
    __slots__ = ("_saved_self", "_saved_dim", "_saved_correction", "_saved_keepdim", "_n",
                 "_all", "_count")
    _saved_names = ("_saved_self",)
    _n_outputs = 2

    def apply(self, grads):
        gv, gm = grads
        s, dims, k = self._saved_self, self._saved_dim, self._saved_keepdim
        out = None
        if gv is not None:
            out = _var_backward(gv, s, dims, k, self._n, self._saved_correction, self._all)
        if gm is not None:
            g = _expand_to(_unsqueeze_dims(gm, dims, k), s._data.shape) / self._count
            out = g if out is None else out + g
        return out,


class StdMeanBackward0(Node):                # derivatives.yaml: std_mean.correction
    __slots__ = ("_saved_self", "_saved_result0", "_saved_dim", "_saved_correction",
                 "_saved_keepdim", "_n", "_all", "_count")
    _saved_names = ("_saved_self", "_saved_result0")
    _n_outputs = 2

    def apply(self, grads):
        gs, gm = grads
        s, dims, k = self._saved_self, self._saved_dim, self._saved_keepdim
        out = None
        if gs is not None:
            r = self._saved_result0
            if STATE.enabled:
                r = wrap(r._data)
                r._requires_grad, r._grad_fn, r._output_nr = True, self, 0
            out = _var_backward(_std_grad(gs, r), s, dims, k, self._n,
                                self._saved_correction, self._all)
        if gm is not None:
            g = _expand_to(_unsqueeze_dims(gm, dims, k), s._data.shape) / self._count
            out = g if out is None else out + g
        return out,


def _var_mean(input, dim, unbiased, keepdim, correction, name):
    dim, c = _var_args(dim, unbiased, correction, name)
    dims, v, m = _var_forward(input, dim, c, keepdim, name, 4)
    is_std = name == "std_mean"
    first = wrap(np.sqrt(v) if is_std else v)
    mres = wrap(m)
    if STATE.enabled and input._requires_grad:
        node = StdMeanBackward0() if is_std else VarMeanBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        if is_std:
            node._saved_result0 = first.detach()
        count = 1
        for d in dims:
            count *= input._data.shape[d]
        node._count = count
        link_multi([first, mres], node, input)
    return first, mres


def var_mean(input, dim=None, unbiased=None, keepdim=False, *,
             correction=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "var_mean")


def std_mean(input, dim=None, unbiased=None, keepdim=False, *,
             correction=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "std_mean")


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
    from .pointwise import where
    grad = _unsqueeze_dims(grad, dims, keepdim)
    r = _unsqueeze_dims(r, dims, keepdim)
    if p == 0:
        return None                          # torch: no gradient for the 0-"norm"
    if p == 1:
        return _sign(s) * grad
    if p == 2:
        return s * where(wrap(r._data == 0), 0.0, grad / r)
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


class LinalgVectorNormBackward0(Node):      # derivatives.yaml: linalg_vector_norm
    __slots__ = ("_saved_self", "_saved_ord", "_saved_dim", "_saved_keepdim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return _norm_backward(grad, self._saved_self, r, self._saved_ord, self._saved_dim,
                              self._saved_keepdim),


def _norm_values(x, p, axis, keepdim):
    a = np.abs(x)
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
    return np.asarray(r, dtype=a.dtype)


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input._data
    _float_check(x, "linalg.vector_norm")
    if dtype is not None:
        x = x.astype(dtype.np)
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    dims, axis = _red_dims(dim, x.ndim)
    p = float(ord)
    if x.size == 0 and p < 0 or (p == float("inf") and _pyany(x.shape[d] == 0 for d in dims)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                           "tensor because the operation does not have an identity")
    res = wrap(_norm_values(x, p, axis, keepdim and x.ndim > 0))
    if STATE.enabled and input._requires_grad:
        node = LinalgVectorNormBackward0()
        node._saved_self = input if dtype is None else input.to(dtype)
        node._saved_ord = p
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype, out=out)
        from .. import linalg
        return linalg.matrix_norm(input, p, dim if dim is not None else (-2, -1), keepdim,
                                  dtype=dtype)
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype, out=out)


class DistBackward0(Node):                   # derivatives.yaml: dist
    __slots__ = ("_saved_self", "_saved_other", "_saved_p", "_saved_result")
    _saved_names = ("_saved_self", "_saved_other", "_saved_result")

    def apply(self, grad):
        diff = self._saved_self - self._saved_other
        nd = diff._data.ndim
        g = _norm_backward(grad, diff, saved_output(self, self._saved_result),
                           self._saved_p, tuple(range(nd)), False)
        if g is None:
            return None, None
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)


def dist(input, other, p=2):
    x, y = input._data, other._data
    if x.dtype.kind == "b" and y.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if x.dtype != y.dtype:
        rt = D.promote_types(input.dtype, other.dtype).np
        x, y = x.astype(rt), y.astype(rt)
    try:
        diff = x - y
    except ValueError:
        from ._common import broadcast_error
        raise broadcast_error(x, y) from None
    if diff.dtype.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {type_name(diff.dtype)} instead.")
    p = float(p)
    res = wrap(_norm_values(diff, p, None, False))
    if STATE.enabled and (input._requires_grad or other._requires_grad):
        node = DistBackward0()
        node._saved_self, node._saved_other = input, other
        node._saved_p = p
        node._saved_result = res.detach()
        link(res, node, input, other)
    return res


def count_nonzero(input, dim=None, *, axis=None):
    if axis is not None:
        dim = axis
    x = input._data
    if dim is None:
        return wrap(np.asarray(np.count_nonzero(x), np.int64))
    dims, axis = _red_dims(dim, x.ndim)
    return wrap(np.asarray(np.count_nonzero(x, axis=axis), np.int64))


# ---------------------------------------------------------------- logsumexp / softmax

class LogsumexpBackward0(Node):              # derivatives.yaml: logsumexp
    __slots__ = ("_saved_self", "_saved_dim", "_saved_keepdim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        dims, k = self._saved_dim, self._saved_keepdim
        r = _unsqueeze_dims(saved_output(self, self._saved_result), dims, k)
        g = _unsqueeze_dims(grad, dims, k)
        with np.errstate(invalid="ignore"):          # inf - inf where the result is inf
            return g * conj_if_complex((self._saved_self - r).exp()),


def logsumexp(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim = _required_dim("logsumexp", dim)
    x = input._data
    if x.dtype.kind not in "fc":
        x = x.astype(D.get_default_dtype().np)
        input = wrap(x)
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
    if STATE.enabled and input._requires_grad:
        node = LogsumexpBackward0()
        node._saved_self = input
        node._saved_dim, node._saved_keepdim = dims, keepdim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


def _softmax_input(input, dim, dtype, name):
    if dtype is not None:
        input = input.to(dtype)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.dtype.kind != "f":
        kernel = "lastdim_kernel_impl" if d >= x.ndim - 1 else "kernel_impl"
        raise NotImplementedError(f'"{name}_{kernel}" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    return input, x, d


class SoftmaxBackward0(Node):                # derivatives.yaml: _softmax
    __slots__ = ("_saved_dim", "_saved_result")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        y = saved_output(self, self._saved_result)
        d = self._saved_dim
        gy = grad * y
        return gy - y * gy.sum(d, keepdim=True),

    def np_apply(self, g):
        y = self._saved_result._data
        if y.dtype is not g.dtype or y.shape != g.shape or not y.ndim:
            return Node.np_apply(self, g)
        gy = g * y
        r = y * np.add.reduce(gy, axis=self._saved_dim, keepdims=True)
        return np.subtract(gy, r, out=r),


def softmax(input, dim=None, dtype=None, *, _stacklevel=3, axis=None):
    dim = _required_dim("softmax", dim, axis)
    input, x, d = _softmax_input(input, dim, dtype, "softmax")
    ax = d if x.ndim else None
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(x, axis=ax, keepdims=True) if x.size else 0
        e = np.exp(x - m)
        y = e / np.sum(e, axis=ax, keepdims=True)
    res = wrap(np.asarray(y, x.dtype))
    if STATE.enabled and input._requires_grad:
        node = SoftmaxBackward0()
        node._saved_dim = d if x.ndim else None
        node._saved_result = res.detach()
        link(res, node, input)
    return res


class LogSoftmaxBackward0(Node):             # derivatives.yaml: _log_softmax
    __slots__ = ("_saved_dim", "_saved_result")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        y = saved_output(self, self._saved_result)
        return grad - y.exp() * grad.sum(self._saved_dim, keepdim=True),

    def np_apply(self, g):
        y = self._saved_result._data
        if y.dtype is not g.dtype or y.shape != g.shape or not y.ndim:
            return Node.np_apply(self, g)
        r = np.exp(y)
        r *= np.add.reduce(g, axis=self._saved_dim, keepdims=True)
        return np.subtract(g, r, out=r),


def log_softmax(input, dim=None, dtype=None, *, _stacklevel=3, axis=None):
    dim = _required_dim("log_softmax", dim, axis)
    input, x, d = _softmax_input(input, dim, dtype, "log_softmax")
    ax = d if x.ndim else None
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.maximum.reduce(x, axis=ax, keepdims=True) if x.size else 0
        sh = x - m
        y = sh - np.log(np.add.reduce(np.exp(sh), axis=ax, keepdims=True))
    res = wrap(np.asarray(y, x.dtype))
    if STATE.enabled and input._requires_grad:
        node = LogSoftmaxBackward0()
        node._saved_dim = d if x.ndim else None
        node._saved_result = res.detach()
        link(res, node, input)
    return res


# ---------------------------------------------------------------- scans

class _RevCumsumBackward(Node):              # grad of cumsum: reversed cumulative sum
    __slots__ = ("_saved_dim",)

    def apply(self, grad):
        return cumsum(grad, self._saved_dim),


def _rev_cumsum(input, dim):
    x = input._data
    if x.ndim == 0:
        res = wrap(x.copy())
    else:
        res = wrap(np.flip(np.cumsum(np.flip(x, dim), dim), dim).copy())
    if STATE.enabled and input._requires_grad:
        node = _RevCumsumBackward()
        node._saved_dim = dim
        link(res, node, input)
    return res


class CumsumBackward0(Node):                 # derivatives.yaml: cumsum
    __slots__ = ("_saved_dim",)

    def apply(self, grad):
        return _rev_cumsum(grad, self._saved_dim),


def cumsum(input, dim=None, *, dtype=None, out=None, axis=None):
    dim = _required_dim("cumsum", dim, axis)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    rd = _sum_dtype(x, dtype, input)
    res = wrap(np.cumsum(x, axis=d, dtype=rd) if x.ndim else x.astype(rd))
    if STATE.enabled and input._requires_grad:
        node = CumsumBackward0()
        node._saved_dim = d
        link(res, node, input)
    return write_out(res, out)


def _cumprod_grad_zeros(x, g, out, d):
    """cumprod's gradient when some slice holds a zero, as torch computes it: before a slice's
    first zero z, the reversed cumsum of g * out divided by x; at z, the product of the
    elements before z times sum_{z<=j<z2} g_j prod_{z<m<=j} x_m (z2: the next zero); after z,
    zero."""
    rows_x, rows_g, rows_o = _rows(x, d), _rows(g, d), _rows(out, d)
    n = rows_x.shape[1]
    res = np.zeros(rows_x.shape, np.result_type(rows_x, rows_g))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for r in range(rows_x.shape[0]):
            xr, gr, orow = rows_x[r], rows_g[r], rows_o[r].conj()
            zs = np.flatnonzero(xr == 0)
            z = zs[0] if len(zs) else n
            if z:
                res[r, :z] = np.cumsum((gr * orow)[:z][::-1])[::-1] / xr[:z].conj()
            if z < n:                # terms from a second zero on vanish
                end = zs[1] if len(zs) > 1 else n
                before = orow[z - 1] if z else 1
                w = np.concatenate([[1], np.cumprod(xr[z + 1:end])]).conj()
                res[r, z] = before * np.sum(gr[z:end] * w)
    return _unrows(res, x, d, n)


class CumprodBackward0(Node):                # derivatives.yaml: cumprod
    __slots__ = ("_saved_self", "_saved_dim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        x = s._data
        d = self._saved_dim
        if x.ndim == 0 or x.size == 0 or x.shape[d] == 1:
            return grad,
        if not (x == 0).any():
            r = saved_output(self, self._saved_result)
            return _rev_cumsum(grad * conj_if_complex(r), d) / conj_if_complex(s),
        if STATE.enabled:                    # building a graph: differentiable O(n^2) form
            return _cumprod_grad_graph(grad.expand(x.shape), s, d),
        g = np.broadcast_to(grad._data, x.shape)
        res = _cumprod_grad_zeros(x, g, self._saved_result._data, d)
        return wrap(res.astype(grad._data.dtype, copy=False)),


def _cumprod_grad_graph(g, s, d):
    """grad_k = prod_{i<k} x_i * sum_{j>=k} g_j prod_{k<m<=j} x_m, with ember ops."""
    from .join import cat
    n = s._data.shape[d]
    shape = list(s._data.shape)
    shape[d] = 1
    ones = wrap(np.ones(shape, s._data.dtype))
    sc = conj_if_complex(s)
    before = cat([ones, sc.narrow(d, 0, n - 1)], d).cumprod(d)
    parts = []
    for k in range(n):
        w = ones if k == n - 1 else cat([ones, sc.narrow(d, k + 1, n - k - 1).cumprod(d)], d)
        parts.append(before.narrow(d, k, 1) * (g.narrow(d, k, n - k) * w).sum(d, keepdim=True))
    return cat(parts, d)


def cumprod(input, dim=None, *, dtype=None, out=None, axis=None):
    dim = _required_dim("cumprod", dim, axis)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    rd = _sum_dtype(x, dtype, input)
    res = wrap(np.cumprod(x, axis=d, dtype=rd) if x.ndim else x.astype(rd))
    if STATE.enabled and input._requires_grad:
        node = CumprodBackward0()
        node._saved_self = input if dtype is None else input.to(dtype)
        node._saved_dim = d
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class LogcumsumexpBackward0(Node):           # derivatives.yaml: logcumsumexp
    __slots__ = ("_saved_self", "_saved_dim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        # the sum_{j>=k} g_j exp(x_k - out_j) in log space, positive and negative parts apart
        from .pointwise import where
        d, s = self._saved_dim, self._saved_self
        r = saved_output(self, self._saved_result)
        if s._data.ndim == 0:
            return grad,
        lowest = float(np.finfo(grad._data.dtype).min)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_abs = grad.abs().log()
            pos = where(grad > 0, log_abs, lowest) - r
            neg = where(grad < 0, log_abs, lowest) - r
            rev = lambda t: logcumsumexp(t.flip(d), d).flip(d)  # noqa: E731
            return (rev(pos) + s).exp() - (rev(neg) + s).exp(),


def logcumsumexp(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("logcumsumexp", dim, axis)
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError('"logcumsumexp_out_cpu" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    d = wrap_dim(dim, x.ndim)
    with np.errstate(invalid="ignore"):
        res = wrap(np.logaddexp.accumulate(x, axis=d) if x.ndim else x.copy())
    if STATE.enabled and input._requires_grad:
        node = LogcumsumexpBackward0()
        node._saved_self, node._saved_dim = input, d
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class CummaxBackward0(Node):                 # derivatives.yaml: cummax
    __slots__ = ("_saved_dim", "_saved_indices", "_saved_self_sym_sizes")

    def apply(self, grad):
        if not self._saved_self_sym_sizes:
            return grad,
        return _scatter_add(grad, self._saved_dim, self._saved_indices,
                            self._saved_self_sym_sizes, unique=False),


class CumminBackward0(CummaxBackward0):      # derivatives.yaml: cummin
    __slots__ = ()


def _cumext(input, dim, largest):
    _kernel_check(input, "cummax_cpu" if largest else "cummin_cpu")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        xm = np.moveaxis(x, d, -1)
        vals = np.empty_like(xm)
        idx = np.zeros(xm.shape, np.int64)
        if xm.shape[-1]:
            cur = xm[..., 0].copy()
            ci = np.zeros(cur.shape, np.int64)
            isf = xm.dtype.kind in "fc"
            for i in range(xm.shape[-1]):
                v = xm[..., i]
                take = (v >= cur) if largest else (v <= cur)
                if isf:
                    take = (take & ~np.isnan(cur)) | np.isnan(v)
                cur = np.where(take, v, cur)
                ci = np.where(take, i, ci)
                vals[..., i], idx[..., i] = cur, ci
        vals, idx = np.moveaxis(vals, -1, d), np.moveaxis(idx, -1, d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad:
        node = CummaxBackward0() if largest else CumminBackward0()
        node._saved_dim, node._saved_indices = d, idx
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    return (_RT.cummax if largest else _RT.cummin)((values, indices))


def cummax(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("cummax", dim, axis)
    return _cumext(input, dim, True)


def cummin(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("cummin", dim, axis)
    return _cumext(input, dim, False)


# ---------------------------------------------------------------- all / any

def all(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    axis = None if dim is None else wrap_dims(dim, x.ndim)
    if x.ndim == 0:
        axis = None
    r = np.all(x, axis=axis, keepdims=keepdim and axis is not None)
    return write_out(wrap(r if x.dtype != np.uint8 else r.astype(np.uint8)), out)


def any(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    axis = None if dim is None else wrap_dims(dim, x.ndim)
    if x.ndim == 0:
        axis = None
    r = np.any(x, axis=axis, keepdims=keepdim and axis is not None)
    return write_out(wrap(r if x.dtype != np.uint8 else r.astype(np.uint8)), out)



# ---------------------------------------------------------------- tie order of torch's CPU kernels
# Which of several equal elements topk / kthvalue report depends on the selection algorithm
# torch's CPU kernels run (libstdc++ nth_element / partial_sort / sort for topk, a
# median-of-three quickselect for kthvalue). Rows without relevant ties take the fast NumPy
# path; rows with ties replay those algorithms on (value, index) pairs.

# Replays run in Python: beyond this many elements per call, ties keep NumPy's stable order.
_REPLAY_LIMIT = 1 << 16


def _cmp_top(largest):
    if largest:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _lg(n):
    return n.bit_length() - 1


def _move_median_to_first(v, result, a, b, c, comp):
    if comp(v[a], v[b]):
        if comp(v[b], v[c]):
            v[result], v[b] = v[b], v[result]
        elif comp(v[a], v[c]):
            v[result], v[c] = v[c], v[result]
        else:
            v[result], v[a] = v[a], v[result]
    elif comp(v[a], v[c]):
        v[result], v[a] = v[a], v[result]
    elif comp(v[b], v[c]):
        v[result], v[c] = v[c], v[result]
    else:
        v[result], v[b] = v[b], v[result]


def _partition_pivot(v, first, last, comp):
    _move_median_to_first(v, first, first + 1, first + (last - first) // 2, last - 1, comp)
    lo, hi, piv = first + 1, last, v[first]
    while True:
        while comp(v[lo], piv):
            lo += 1
        hi -= 1
        while comp(piv, v[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _insertion_sort(v, first, last, comp):
    for i in range(first + 1, last):
        val = v[i]
        if comp(val, v[first]):
            v[first + 1:i + 1] = v[first:i]
            v[first] = val
        else:
            j = i
            while comp(val, v[j - 1]):
                v[j] = v[j - 1]
                j -= 1
            v[j] = val


def _adjust_heap(v, first, hole, n, value, comp):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if comp(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value


def _make_heap(v, first, last, comp):
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(v, first, parent, n, v[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(v, first, last, result, comp):
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, comp)


def _partial_sort(v, first, middle, last, comp):
    _make_heap(v, first, middle, comp)
    for i in range(middle, last):
        if comp(v[i], v[first]):
            _pop_heap(v, first, middle, i, comp)
    while middle - first > 1:
        middle -= 1
        _pop_heap(v, first, middle, middle, comp)


def _nth_element(v, nth, comp):
    first, last = 0, len(v)
    if nth == last:
        return
    depth = 2 * _lg(last)
    while last - first > 3:
        if depth == 0:
            _partial_sort(v, first, nth + 1, last, comp)   # heap_select + sort
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, comp)


def _introsort(v, first, last, depth, comp):
    while last - first > 16:
        if depth == 0:
            _partial_sort(v, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        _introsort(v, cut, last, depth, comp)
        last = cut


def _std_sort(v, first, last, comp):
    if last - first > 1:
        _introsort(v, first, last, 2 * _lg(last - first), comp)
        _insertion_sort(v, first, last, comp)


def _topk_row(row, k, largest, sorted_):
    comp = _cmp_top(largest)
    v = [(float(a) if row.dtype.kind == "f" else a, i) for i, a in enumerate(row.tolist())]
    n = len(v)
    if k * 64 <= n:
        _partial_sort(v, 0, k, n, comp)
    else:
        _nth_element(v, k - 1, comp)
        if sorted_:
            _std_sort(v, 0, k - 1, comp)
    return [i for _, i in v[:k]]


def _quickselect_row(row, k):
    """torch's quick_select_template (median-of-three, NaN as largest): index of the k-th
    smallest (0-based)."""
    v = [(a, i) for i, a in enumerate(row.tolist())]
    gt = lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]  # noqa: E731
    lo, hi = 0, len(v) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if gt(v[lo], v[hi]):
                v[lo], v[hi] = v[hi], v[lo]
            break
        p = lo + (hi - lo) // 2
        v[p], v[lo + 1] = v[lo + 1], v[p]
        if gt(v[lo + 1], v[hi]):
            v[lo + 1], v[hi] = v[hi], v[lo + 1]
        if gt(v[lo], v[hi]):
            v[lo], v[hi] = v[hi], v[lo]
        if gt(v[lo + 1], v[lo]):
            v[lo + 1], v[lo] = v[lo], v[lo + 1]
        i, j, piv = lo + 1, hi, v[lo]
        while True:
            i += 1
            while gt(piv, v[i]):
                i += 1
            j -= 1
            while gt(v[j], piv):
                j -= 1
            if j < i:
                break
            v[i], v[j] = v[j], v[i]
        v[lo], v[j] = v[j], v[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return v[k][1]


def _rows(x, d):
    """x with dim d moved last, as a 2-D array of rows."""
    xm = np.moveaxis(x, d, -1)
    return xm.reshape(-1, xm.shape[-1]) if xm.shape[-1] else xm.reshape(-1, 0)


def _unrows(r, x, d, n):
    xm_shape = np.moveaxis(x, d, -1).shape[:-1] + (n,)
    return np.moveaxis(r.reshape(xm_shape), -1, d)


def _eq_adjacent(sv):
    """Per row: whether sorted values sv (rows x m) hold equal neighbours (NaN == NaN)."""
    if sv.shape[1] < 2:
        return np.zeros(sv.shape[0], bool)
    a, b = sv[:, 1:], sv[:, :-1]
    eq = a == b
    if sv.dtype.kind in "fc":
        eq |= np.isnan(a) & np.isnan(b)
    return eq.any(axis=1)


# ---------------------------------------------------------------- sorting and selection

def _stable_order(x, axis, descending):
    """Stable argsort along axis with NaN as the largest value (torch's order)."""
    if x.dtype.kind in "fc":
        nan = np.isnan(x)
        if descending:
            return np.lexsort((-np.where(nan, 0, x), ~nan), axis=axis) if x.ndim else \
                np.zeros((), np.int64)
        return np.argsort(x, axis=axis, kind="stable")
    if descending:
        if x.dtype.kind == "b":
            key = ~x
        elif x.dtype.kind == "u":
            key = np.iinfo(x.dtype).max - x
        else:
            key = ~x
        return np.argsort(key, axis=axis, kind="stable")
    return np.argsort(x, axis=axis, kind="stable")


class SortBackward0(Node):                   # derivatives.yaml: sort.stable
    __slots__ = ("_saved_dim", "_saved_indices", "_saved_self_sym_sizes")

    def apply(self, grad):
        if not self._saved_self_sym_sizes:
            return grad,
        return _scatter_add(grad, self._saved_dim, self._saved_indices,
                            self._saved_self_sym_sizes),


class SortBackward1(SortBackward0):          # derivatives.yaml: sort.stable (stable= given)
    __slots__ = ()


class TopkBackward0(SortBackward0):          # derivatives.yaml: topk
    __slots__ = ()


def _sort_order(x, d, descending, stable):
    """torch's CPU sort order: stable for stable=True and short rows (insertion sort);
    otherwise libstdc++'s introsort, replayed on rows whose values hold ties."""
    idx = _stable_order(x, d, descending).astype(np.int64)
    n = x.shape[d]
    if stable or n <= 16:
        return idx
    if x.ndim == 1 and x.dtype.kind in "iu" and not descending and n >= 32768:
        return idx                           # torch radix-sorts long 1-D integer input
    tied = np.nonzero(_eq_adjacent(_rows(np.take_along_axis(x, idx, d), d)))[0]
    if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
        rows, ir = _rows(x, d), _rows(idx, d).copy()
        comp = _cmp_top(descending)
        for r in tied:
            row = rows[r]
            v = [(a, i) for i, a in enumerate(row.tolist())]
            _std_sort(v, 0, n, comp)
            ir[r] = [i for _, i in v]
        idx = _unrows(ir, x, d, n)
    return idx


def sort(input, dim=-1, descending=False, stable=None, *, out=None, axis=None):
    if axis is not None:
        dim = axis
    if isinstance(dim, bool):
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    _complex_check(input, " Sort does not support complex dtypes on CPU")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        idx = _sort_order(x, d, descending, stable)
        vals = np.take_along_axis(x, idx, d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad:
        node = SortBackward0() if stable is None else SortBackward1()
        node._saved_dim, node._saved_indices = d, idx
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    if out is not None:
        write_out(values, out[0])
        write_out(indices, out[1])
        values, indices = out
    return _RT.sort((values, indices))


def argsort(input, dim=-1, descending=False, stable=False, *, axis=None):
    if axis is not None:
        dim = axis
    _complex_check(input, " Sort does not support complex dtypes on CPU")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return wrap(np.zeros((), np.int64))
    return wrap(_sort_order(x, d, descending, stable))


def msort(input):
    return sort(input, 0)[0]


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    x = input._data
    if x.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _complex_check(input, " topk does not support complex dtypes on CPU")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        order = _stable_order(x, d, largest).astype(np.int64)
        idx = np.take(order, range(k), axis=d)
        if k:
            # rows where ties touch the first k+1 sorted values: replay torch's algorithm
            top = _rows(np.take_along_axis(x, np.take(order, range(_pymin(k + 1, n)), axis=d),
                                           d), d)
            # sorted=False: torch returns nth_element's arrangement, so replay every row
            tied = np.nonzero(_eq_adjacent(top) | (not sorted and k * 64 > n))[0]
            if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
                rows, ir = _rows(x, d), _rows(idx, d).copy()
                for r in tied:
                    ir[r] = _topk_row(rows[r], k, largest, sorted)
                idx = _unrows(ir, x, d, k)
        vals = np.take_along_axis(x, idx, d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad:
        node = TopkBackward0()
        node._saved_dim, node._saved_indices = d, idx
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    if out is not None:
        write_out(values, out[0])
        write_out(indices, out[1])
        values, indices = out
    return _RT.topk((values, indices))


class KthvalueBackward0(MaxBackward0):       # derivatives.yaml: kthvalue
    __slots__ = ()


class MedianBackward1(MaxBackward0):         # derivatives.yaml: median.dim
    __slots__ = ()


class NanmedianBackward1(MaxBackward0):      # derivatives.yaml: nanmedian.dim
    __slots__ = ()


class ModeBackward0(MaxBackward0):           # derivatives.yaml: mode
    __slots__ = ()


def _select_kth(input, dim, keepdim, pos_fn, node_cls, rt, name):
    """values/indices of the element at sorted position pos_fn(x_sorted, n) along dim."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        pos_fn(None, 1)
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        order = _stable_order(x, d, False).astype(np.int64)
        sx = np.take_along_axis(x, order, d)
        pos = pos_fn(sx, n, d)
        idx = np.take_along_axis(order, pos, d)
        if node_cls is KthvalueBackward0:
            kv = np.take_along_axis(sx, pos, d)
            eq = (x == kv) | (np.isnan(x) & np.isnan(kv)) if x.dtype.kind == "f" else x == kv
            tied = np.nonzero(_rows(eq, d).sum(axis=1) > 1)[0]
            if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
                rows, ir = _rows(x, d), _rows(idx, d).copy()
                kk = int(pos.reshape(-1)[0])
                for r in tied:
                    ir[r] = _quickselect_row(rows[r], kk)
                idx = _unrows(ir, x, d, 1)
        elif node_cls is NanmedianBackward1 and x.dtype.kind == "f":
            # an all-NaN slice: torch's nth_element over equivalent elements picks this one
            allnan = np.isnan(x).all(axis=d, keepdims=True)
            if allnan.any():
                v = [(0, i) for i in range(n)]
                _nth_element(v, 0, lambda a, b: False)
                idx = np.where(allnan, v[0][1], idx)
        vals = np.take_along_axis(x, idx, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad:
        node = node_cls()
        node._saved_dim, node._saved_keepdim = d, keepdim
        node._saved_indices = idx
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    return rt((values, indices))


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "kthvalue_cpu", "bc")
    def pos(sx, n, d=None):
        if not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}"
                               if d is not None else "kthvalue(): selected number k out of "
                               "range for dimension 0")
        if sx is None:
            return None
        shape = list(sx.shape)
        shape[d] = 1
        return np.full(shape, k - 1, np.int64)
    return _select_kth(input, dim, keepdim, pos, KthvalueBackward0, _RT.kthvalue, "kthvalue")


def _median_pos(ignore_nan):
    def pos(sx, n, d=None):
        if sx is None:
            return None
        shape = list(sx.shape)
        shape[d] = 1
        if sx.dtype.kind in "fc":
            valid = np.sum(~np.isnan(sx), axis=d, keepdims=True)
            if ignore_nan:
                return np.maximum((valid - 1) // 2, 0).astype(np.int64)
            return np.where(valid < n, valid, (n - 1) // 2).astype(np.int64)
        return np.full(shape, (n - 1) // 2, np.int64)
    return pos


class MedianBackward0(MaxBackward1):         # derivatives.yaml: median (whole tensor)
    __slots__ = ()


class NanmedianBackward0(MaxBackward1):      # derivatives.yaml: nanmedian (whole tensor)
    __slots__ = ()


def _median_all(input, ignore_nan):
    x = input._data
    name = "nanmedian" if ignore_nan else "median"
    if x.size == 0:
        v = np.asarray(np.nan, x.dtype) if x.dtype.kind in "fc" else None
        if v is None:
            raise IndexError(f"{name}(): Expected reduction dim 0 to have non-zero size.")
    else:
        flat = x.reshape(-1)
        if x.dtype.kind in "fc" and np.isnan(flat).any():
            if not ignore_nan:
                v = np.asarray(np.nan, x.dtype)
            else:
                valid = np.sort(flat[~np.isnan(flat)])
                v = np.asarray(valid[(valid.size - 1) // 2] if valid.size else np.nan, x.dtype)
        else:
            v = np.asarray(np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])
    res = wrap(v)
    if STATE.enabled and input._requires_grad:
        node = NanmedianBackward0() if ignore_nan else MedianBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        link(res, node, input)
    return res


def median(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "median_cpu" if dim is None else "median_out", "bc")
    if dim is None:
        return _median_all(input, False)
    return _select_kth(input, dim, keepdim, _median_pos(False), MedianBackward1, _RT.median,
                       "median")


def nanmedian(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "median_cpu" if dim is None else "median_out", "bc")
    if dim is None:
        return _median_all(input, True)
    return _select_kth(input, dim, keepdim, _median_pos(True), NanmedianBackward1,
                       _RT.nanmedian, "nanmedian")


def _mode_row(row):
    """torch's mode kernel: std::sort (value, index) pairs by value, take the first longest
    run; its index is that of the run's last element."""
    v = [(a, i) for i, a in enumerate(row.tolist())]
    _std_sort(v, 0, len(v), lambda a, b: a[0] < b[0])
    best = run = 0
    val, idx = v[0]
    for i in range(len(v)):
        run += 1
        if i == len(v) - 1 or v[i][0] != v[i + 1][0]:
            if run > best:
                best, val, idx = run, v[i][0], v[i][1]
            run = 0
    return val, idx


def mode(input, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "mode_cpu")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
        xm = np.moveaxis(x, d, -1)
        rows = xm.reshape(-1, n)
        v = np.empty(rows.shape[0], x.dtype)
        ix = np.empty(rows.shape[0], np.int64)
        replay = rows.size <= _REPLAY_LIMIT
        for i, row in enumerate(rows):
            if not replay or n <= 16 and not (row != row).any():  # stable order suffices
                u, c = np.unique(row, return_counts=True)
                val = u[np.argmax(c)]
                v[i] = val
                ix[i] = n - 1 - np.argmax(row[::-1] == val)
            else:
                v[i], ix[i] = _mode_row(row)
        vals = np.moveaxis(v.reshape(xm.shape[:-1] + (1,)), -1, d)
        idx = np.moveaxis(ix.reshape(xm.shape[:-1] + (1,)), -1, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad:
        node = ModeBackward0()
        node._saved_dim, node._saved_keepdim = d, keepdim
        node._saved_indices = idx
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    return _RT.mode((values, indices))


def _bind():
    T = Tensor
    T.sum, T.mean, T.norm, T.all, T.any = sum, mean, norm, all, any
    T.nansum, T.nanmean, T.prod = nansum, nanmean, prod
    T.max, T.min, T.amax, T.amin, T.aminmax = max, min, amax, amin, aminmax
    T.argmax, T.argmin = argmax, argmin
    T.var, T.std = var, std
    T.logsumexp, T.softmax, T.log_softmax = logsumexp, softmax, log_softmax
    T.cumsum, T.cumprod, T.cummax, T.cummin = cumsum, cumprod, cummax, cummin
    T.logcumsumexp = logcumsumexp
    T.cumsum_ = lambda self, dim, *, dtype=None: _inplace(self, cumsum(
        _src(self), dim, dtype=dtype))
    T.cumprod_ = lambda self, dim, *, dtype=None: _inplace(self, cumprod(
        _src(self), dim, dtype=dtype))
    T.median, T.nanmedian, T.mode, T.kthvalue = median, nanmedian, mode, kthvalue
    T.sort, T.argsort, T.msort, T.topk = sort, argsort, msort, topk
    T.count_nonzero, T.dist = count_nonzero, dist


def _inplace(self, result):
    from ._common import inplace
    return inplace(self, result)


def _src(self):
    from ._common import inplace_source
    return inplace_source(self)


_bind()
