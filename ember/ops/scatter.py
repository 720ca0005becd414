"""Scatter-style index ops: gather, scatter, scatter_add, scatter_reduce, index_add/copy/fill/
reduce, masked_fill, masked_scatter, put, and their in-place forms (forward, node,
derivative)."""
__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
           "index_fill", "index_reduce", "masked_fill", "masked_scatter", "take_along_dim", "put"]

import builtins
import warnings

import numpy as np

from ..autograd.forward import LEVELS, NOT_IMPLEMENTED, dual, jvp_not_implemented
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, NotImplementedBackward, saved_arg, user_stacklevel
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, saved_output, wrap_dim, broadcast_error, write_out
from ._args import not_tensor, checked_half
from ._views import (OVERLAP, _expanded, check_inplace, check_overlap, inplace, inplace_source,
                     masked, writable)
from .index import (SCALAR_NAMES, _as1d, _check_index, _flat_index, _get, _grid, _mask, _parse,
                    _scatter_checks, _src_grad, _src_part, index_select, take, _Shape, _expand_error)
from .logical import where

# ---------------------------------------------------------------- gather / scatter


class GatherBackward0(Node):                 # derivatives.yaml: gather
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_self_sym_sizes", "_saved_sparse_grad",
                 "_saved_self")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index", "_saved_self")     # (self: saved as torch saves it)

    def apply(self, grad):
        z = grad.new_zeros(self._self_sym_sizes)   # (a batched grad has no _data)
        return scatter_add(z, self._dim, self._saved_index, grad),

    def jvp(self, ts, xs, out):
        return gather(ts[0], self._dim, self._saved_index)


def gather(input, dim, index, *, sparse_grad=False, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _check_index(index, "gather")
    xv, iv = _as1d(x), _as1d(i)
    _scatter_checks(xv, d, iv, None, "gather")
    res = wrap(xv[_grid(iv, d)].reshape(i.shape))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = GatherBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_index, node._saved_self = index, input
        node._self_sym_sizes = x.shape
        node._saved_sparse_grad = sparse_grad
        link(res, node, input)
    return write_out(res, out)


class ScatterBackward0(Node):                # derivatives.yaml: scatter.src
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_src_shape")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        d, i = self._dim, self._saved_index
        return (scatter(grad, d, i, 0) if needs(self, 0) else None,
                _src_grad(gather(grad, d, i), self._src_shape) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return scatter(ts[0], self._dim, self._saved_index, ts[1])


class ScatterBackward1(Node):                # derivatives.yaml: scatter.value
    __slots__ = ("_dim", "_dim_arg", "_saved_index")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        return scatter(grad, self._dim, self._saved_index, 0),

    def jvp(self, ts, xs, out):
        return scatter(ts[0], self._dim, self._saved_index, 0)


_REDUCE_AT = {"add": np.add, "multiply": np.multiply}


def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    if src is None:
        src = value
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _check_index(index, "scatter")
    st = src if isinstance(src, Tensor) else None
    if st is not None and st._data.dtype != x.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    xv, iv = _as1d(x), _as1d(i)
    sv = _as1d(st._data) if st is not None else None
    _scatter_checks(xv, d, iv, sv, "scatter")
    if reduce is not None and reduce not in _REDUCE_AT:
        raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce is not None and st is not None:
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=2)
    r = x.copy()
    if i.size:
        loc = _grid(iv, d)
        v = _src_part(sv, iv) if sv is not None else np.asarray(src, x.dtype)
        if reduce is None:
            _as1d(r)[loc] = v
        else:
            _REDUCE_AT[reduce].at(_as1d(r), loc, np.broadcast_to(v, iv.shape))
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or (st is not None and st._requires_grad)) or \
            LEVELS and dual(input, st):
        if reduce is not None:
            node = NotImplementedBackward()
            node._op = "scatter"
            link(res, node, input, st)
        else:
            node = ScatterBackward0() if st is not None else ScatterBackward1()
            node._dim, node._dim_arg = d, dim
            node._saved_index = index
            if st is not None:
                node._src_shape = st._data.shape
                link(res, node, input, st)
            else:
                link(res, node, input)
    return write_out(res, out)


class ScatterAddBackward0(Node):             # derivatives.yaml: scatter_add
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_src_shape")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        return (grad if needs(self, 0) else None,
                _src_grad(gather(grad, self._dim, self._saved_index), self._src_shape)
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return scatter_add(ts[0], self._dim, self._saved_index, ts[1])


def scatter_add(input, dim, index, src, *, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _check_index(index, "scatter_add")
    if src._data.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    iv = _as1d(i)
    sv = _as1d(src._data)
    _scatter_checks(_as1d(x), d, iv, sv, "scatter_add")
    r = x.copy()
    if i.size:
        np.add.at(_as1d(r), _grid(iv, d), _src_part(sv, iv))
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or src._requires_grad) or \
            LEVELS and dual(input, src):
        node = ScatterAddBackward0()
        node._dim, node._dim_arg = d, dim
        # (read by src's gradient and by the tangent only: torch saves it for src's)
        node._saved_index = index if STATE.enabled and src._requires_grad or \
            LEVELS and dual(input, src) else None
        node._src_shape = src._data.shape
        link(res, node, input, src)
    return write_out(res, out)


class ScatterReduceBackward0(Node):          # derivatives.yaml: scatter_reduce.two
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_saved_self", "_saved_src", "_saved_reduce",
                 "_saved_include_self", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index", "_saved_self", "_saved_src", "_saved_result")

    def apply(self, grad):
        src_shape = self._saved_src._data.shape
        gs, gsrc = _scatter_reduce_grads(grad, self._dim, self._saved_index,
                                         self._saved_reduce, self._saved_self, self._saved_src,
                                         saved_output(self, self._saved_result),
                                         self._saved_include_self)
        return (gs if needs(self, 0) else None,
                _src_grad(gsrc, src_shape) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        d, index, red, inc = (self._dim, self._saved_index, self._saved_reduce,
                              self._saved_include_self)
        if red in ("sum", "mean"):              # linear in self and src
            return scatter_reduce(ts[0], d, index, ts[1], red, include_self=inc)
        if red == "prod":                       # torch gives a prod no tangent (2.13)
            return None
        # each element of self reaches one output, and so does each element of src: the
        # derivatives apply gives for a gradient of ones, times the tangents
        ones = wrap(np.ones(out._data.shape, out._data.dtype))
        gs, gsrc = _scatter_reduce_grads(ones, d, index, red, xs[0], xs[1], out, inc)
        st = ts[1]
        if st._data.shape != index._data.shape:
            st = _get(st, _parse(st._data.shape, tuple(slice(0, n) for n in index._data.shape)))
        return gs * ts[0] + scatter_add(out.new_zeros(out._data.shape), d, index, gsrc * st)


def _scatter_reduce_grads(grad, d, index, red, x, src, result, inc, unreduced=None):
    """scatter_reduce's derivatives: (self's gradient, src's at index's shape). unreduced(gs):
    self's gradient zeroed where the reduction replaced self (include_self=False; by default
    scatter of zeros at index)."""
    src_shape = src._data.shape
    if src_shape != index._data.shape:
        src = _get(src, _parse(src_shape, tuple(slice(0, n) for n in index._data.shape)))
    if red == "sum":
        gs = grad
        gsrc = gather(grad, d, index)
    elif red == "mean":
        n = wrap(np.ones_like(grad._data) if inc else np.zeros_like(grad._data))
        n = scatter_add(n, d, index, wrap(np.ones_like(src._data)))
        n = n.masked_fill(n == 0, 1)
        gs = grad / n
        gsrc = gather(grad, d, index) / gather(n, d, index)
    elif red == "prod":
        # zeros in self/src: the product of the others (torch's masked formulas)
        mself = x.masked_fill(x == 0, 1)
        mres = scatter_reduce(mself, d, index, src, "prod", include_self=inc)
        gs = grad * mres / mself
        szero = src == 0
        nz = scatter_add(wrap(np.zeros(x.shape, x._data.dtype)), d, index,
                         szero.to(x.dtype))
        nz = gather(nz, d, index)
        single = szero & (nz == 1)
        msrc = src.masked_fill(single, 1)
        msrc_res = scatter_reduce(x, d, index, msrc, "prod", include_self=inc)
        gsrc = where(single, gather(grad * msrc_res, d, index),
                     gather(grad * result, d, index) / src.masked_fill(szero, 1))
    else:  # amax / amin: the gradient is shared evenly among the tied winners
        value = gather(result, d, index)
        self_is = (x == result).to(x.dtype)
        src_is = (src == value).to(x.dtype)
        count = scatter_add(self_is, d, index, src_is)
        share = grad / count
        gs = self_is * share
        gsrc = src_is * gather(share, d, index)
    if not inc:
        gs = scatter(gs, d, index, 0) if unreduced is None else unreduced(gs)
    return gs, gsrc


_REDUCE_INIT = {"sum": 0, "mean": 0, "prod": 1}


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _check_index(index, "scatter_reduce")
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if src._data.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    iv = _as1d(i)
    sv = _as1d(src._data)
    _scatter_checks(_as1d(x), d, iv, sv, "scatter_reduce")
    r = x.copy()
    if i.size:
        rv = _as1d(r)
        loc = _grid(iv, d)
        s = _src_part(sv, iv)
        if not include_self:
            if reduce in _REDUCE_INIT:
                rv[loc] = _REDUCE_INIT[reduce]
            elif reduce == "amax":
                rv[loc] = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
            else:
                rv[loc] = np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max
        ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                 "amin": np.minimum}[reduce]
        ufunc.at(rv, loc, s)
        if reduce == "mean":
            cnt = np.ones(rv.shape, np.int64) if include_self else np.zeros(rv.shape, np.int64)
            np.add.at(cnt, loc, 1)
            cnt = np.maximum(cnt, 1)
            if x.dtype.kind in "fc":
                r = (rv / cnt).astype(x.dtype).reshape(x.shape)
            else:
                r = (rv // cnt).reshape(x.shape)
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or src._requires_grad) or \
            LEVELS and dual(input, src):
        node = ScatterReduceBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_index = index
        # (saved undetached: prod's double backward reads them, and the result through them;
        # saved for every mode, as torch saves them, though only prod, amax and amin read them)
        node._saved_self = input
        node._saved_src = src
        node._saved_reduce = reduce
        node._saved_include_self = include_self
        node._saved_result = res.detach()
        link(res, node, input, src)
    return write_out(res, out)


class IndexReduceBackward0(Node):            # derivatives.yaml: index_reduce
    """index_reduce is scatter_reduce with the index vector spread over source's shape
    (_spread), and so is its derivative, but for self's gradient without include_self, which
    is zeroed at the index with index_fill, as torch's formula does."""
    __slots__ = ("_dim", "_dim_arg", "_spread", "_saved_index", "_saved_self", "_saved_source",
                 "_saved_reduce", "_saved_include_self", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_spread", "_saved_index", "_saved_self", "_saved_source", "_saved_result")

    def apply(self, grad):
        d, index = self._dim, self._saved_index
        src = self._saved_source
        gs, gsrc = _scatter_reduce_grads(grad, d, self._spread, self._saved_reduce,
                                         self._saved_self, src,
                                         saved_output(self, self._saved_result),
                                         self._saved_include_self,
                                         lambda gs: gs.index_fill(d, index, 0))
        return (gs if needs(self, 0) else None,
                _src_grad(gsrc, src._data.shape) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):                 # torch has no forward rule for it
        raise jvp_not_implemented(self)


_INDEX_REDUCE_WARNED = [False]


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if not isinstance(index, Tensor):
        raise TypeError(f"index_reduce(): argument 'index' must be Tensor, not "
                        f"{type(index).__name__}")
    _source(source, "index_reduce")
    if not _INDEX_REDUCE_WARNED[0]:
        _INDEX_REDUCE_WARNED[0] = True
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=2)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    i = index._data
    if i.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    if i.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    i = i.reshape(-1)
    s = source._data
    ns = s.shape[d] if s.ndim else 1
    if i.size != ns:
        raise RuntimeError(f"index_reduce_(): Number of indices ({i.size}) should be equal to "
                           f"source.size(dim): ({ns}), for dim: {d}")
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_reduce_(): self ({type_name(x.dtype)}) and source "
                           f"({type_name(s.dtype)}) must have the same scalar type")
    size = x.shape[d] if x.ndim else 1
    if i.size and (i.max() >= size or i.min() < 0):
        raise IndexError("index out of range in self")
    shape = [1] * s.ndim
    if s.ndim:
        shape[d] = i.size
    if LEVELS and dual(input, source):        # torch has no forward rule for it
        raise NotImplementedError(NOT_IMPLEMENTED.format("index_reduce"))
    spread = wrap(np.array(np.broadcast_to(i.reshape(shape), s.shape), np.int64, order="C"))
    res = scatter_reduce(input, d, spread, source, reduce, include_self=include_self)
    if res._grad_fn is not None:
        node = IndexReduceBackward0()
        node._dim, node._dim_arg, node._spread = d, dim, spread
        node._saved_index, node._saved_self, node._saved_source = index, input, source
        node._saved_reduce, node._saved_include_self = reduce, include_self
        node._saved_result = res._grad_fn._saved_result
        link(res, node, input, source)
    return write_out(res, out)

# ---------------------------------------------------------------- index_add / copy / fill


def _dim_index(x, d, index, op, negative=False, error=IndexError, prefix=""):
    """The index of index_add/copy/fill: a vector; negative entries wrap only for
    index_fill; the error type and message prefix differ per op, as in torch."""
    i = index._data if isinstance(index, Tensor) else None
    if i is None:
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if i.dtype not in (np.int64, np.int32):
        raise IndexError(f"{op}(): Expected dtype int32/int64 for index")
    if i.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    i = i.reshape(-1)
    size = x.shape[d] if x.ndim else 1
    lo = -size if negative else 0
    if i.size and (i.max() >= size or i.min() < lo):
        bad = i[(i >= size) | (i < lo)].flat[0]
        raise error(f"{prefix}index {bad} is out of bounds for dimension {d} with size {size}")
    return i


def _vector_index(index, op):
    """index_add_/index_copy_'s checks of the index (type, dtype, dims), in torch's words;
    the index as a vector."""
    i = index._data if isinstance(index, Tensor) else None
    if i is None:
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if op == "index_copy_":
        if i.ndim > 1:
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {i.ndim})")
        if i.dtype != np.int64:
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{type_name(i.dtype)}")
    else:
        if i.dtype not in (np.int64, np.int32):
            raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: "
                               f"{type_name(i.dtype)}")
        if i.ndim > 1:
            raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {i.ndim} "
                             f"with type: {type_name(i.dtype)} and size: {list(i.shape)}")
    return i.reshape(-1)


def _in_bounds(x, d, i, error, prefix=""):
    size = x.shape[d] if x.ndim else 1
    if i.size and (i.max() >= size or i.min() < 0):
        bad = i[(i >= size) | (i < 0)].flat[0]
        raise error(f"{prefix}index {bad} is out of bounds for dimension {d} with size {size}")


def _source(source, op):
    if not isinstance(source, Tensor):
        raise TypeError(f"{op}(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    return source._data


def _dim_loc(x, d, i):
    return (slice(None),) * d + (i,) if x.ndim else (i * 0,)


def _expand_as_source(g, shape):
    return g.reshape(()) if not shape else g.expand(shape)


class IndexAddBackward0(Node):               # derivatives.yaml: index_add
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_saved_alpha", "_source_shape", "_index",
                 "_saved_source")
    # (torch saves source where source requires grad, and its number of dims)
    _saved_source_dim = property(lambda self: len(self._source_shape))
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index", "_saved_source")

    def apply(self, grad):
        gsrc = None
        if needs(self, 1):
            gsrc = _expand_as_source(index_select(grad, self._dim, self._saved_index),
                                     self._source_shape)
            if self._saved_alpha != 1:
                gsrc = gsrc * self._saved_alpha
        return (grad if needs(self, 0) else None), gsrc

    def jvp(self, ts, xs, out):
        return index_add(ts[0], self._dim, self._index, ts[1], alpha=self._saved_alpha)


def index_add(input, dim, index, source, *, alpha=1, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _vector_index(index, "index_add_")
    s = _source(source, "index_add_")
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_add_(): self ({type_name(x.dtype)}) and source "
                           f"({type_name(s.dtype)}) must have the same scalar type")
    if d >= builtins.max(s.ndim, 1):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {s.ndim}")
    if not s.ndim and i.size != 1:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    ns = s.shape[d] if s.ndim else 1
    if i.size != ns:
        raise RuntimeError(f"index_add_(): Number of indices ({i.size}) should be equal to "
                           f"source.size(dim): ({ns}), for dim: {d}")
    if s.ndim != x.ndim or builtins.any(a != b for k, (a, b) in enumerate(zip(x.shape, s.shape))
                                        if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(s.shape)}")
    if x.size:          # (an empty self runs no kernel: its index goes unchecked)
        _in_bounds(x, d, i, RuntimeError)
    r = x.copy()
    if i.size and x.size:
        v = s if alpha == 1 else s * alpha
        if x.ndim == 0:
            r += v.reshape(())
        else:
            np.add.at(r, _dim_loc(x, d, i), v.reshape(s.shape) if s.ndim else v)
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or source._requires_grad) or \
            LEVELS and dual(input, source):
        node = IndexAddBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_index = index if source._requires_grad else None     # (as torch saves)
        node._saved_source = source if source._requires_grad else None
        node._saved_alpha = alpha
        node._source_shape = s.shape
        node._index = index                     # for jvp (torch's result: reads index)
        link(res, node, input, source)
    return write_out(res, out)


class IndexCopyBackward0(Node):              # derivatives.yaml: index_copy
    __slots__ = ("_saved_dim", "_saved_index", "_source_shape", "_saved_source")
    _saved_names = ("_saved_index", "_saved_source")
    # (torch saves source where source requires grad, and its number of dims)
    _saved_source_dim = property(lambda self: len(self._source_shape))

    def apply(self, grad):
        d, i = self._saved_dim, self._saved_index
        gsrc = None
        if needs(self, 1):
            gsrc = _expand_as_source(index_select(grad, d, i), self._source_shape)
        return (index_fill(grad, d, i, 0) if needs(self, 0) else None), gsrc

    def jvp(self, ts, xs, out):
        return index_copy(ts[0], self._saved_dim, self._saved_index, ts[1])


def index_copy(input, dim, index, source, *, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _vector_index(index, "index_copy_")
    s = _source(source, "index_copy_")
    # torch's order: the source's rank, the dtypes, the slice shapes, the number of indices
    if not s.ndim:
        if i.size != 1:
            raise IndexError(f"index_copy_(): When source is scalar, index should have one "
                             f"element (got {i.size})")
    elif x.ndim and s.ndim != x.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({s.ndim}), "
                         f"destination dimensionality ({x.ndim})")
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {type_name(x.dtype)} and (source) "
                           f"{type_name(s.dtype)}")
    xs = [str(n) for k, n in enumerate(x.shape) if k != d]
    ss = [str(n) for k, n in enumerate(s.shape) if k != d]
    if xs != ss:        # (torch's message names dimension 0 for the source)
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(xs)} at dimension {d} "
                           f"and source slice shape: {' '.join(ss)} at dimension 0.")
    if s.ndim and i.size != s.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({i.size}) should be equal to "
                         f"source.size(dim) ({s.shape[d]})")
    if not x.size:
        # (torch checks no index into an empty tensor: an empty source is copied, nothing)
        if i.size and s.size:
            raise RuntimeError(f"index_copy_(): index {i[0]} is out of bounds for dimension "
                               f"{d} with size 0")
    else:
        _in_bounds(x, d, i, IndexError, "index_copy_(): ")
    r = x.copy()
    if i.size and x.size:
        if x.ndim == 0:
            r[...] = s.reshape(())
        else:
            r[_dim_loc(x, d, i)] = s
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or source._requires_grad) or \
            LEVELS and dual(input, source):
        node = IndexCopyBackward0()
        node._saved_dim = d
        node._saved_index = index
        node._saved_source = source if source._requires_grad else None
        node._source_shape = s.shape
        link(res, node, input, source)
    return write_out(res, out)


class IndexFillBackward0(Node):              # derivatives.yaml: index_fill.int_Scalar
    __slots__ = ("_dim", "_dim_arg", "_saved_index")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        return index_fill(grad, self._dim, self._saved_index, 0),

    def jvp(self, ts, xs, out):
        return index_fill(ts[0], self._dim, self._saved_index, 0)


class IndexFillBackward1(Node):              # derivatives.yaml: index_fill.int_Tensor
    __slots__ = ("_dim", "_dim_arg", "_saved_index")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        d, i = self._dim, self._saved_index
        # each filled slice counts once, however often the index repeats it
        return (index_fill(grad, d, i, 0) if needs(self, 0) else None,
                index_select(grad, d, wrap(np.unique(i._data))).sum()
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return index_fill(ts[0], self._dim, self._saved_index, ts[1])


def index_fill(input, dim, index, value):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    i = _dim_index(x, d, index, "index_fill_", negative=True)
    vt = value if isinstance(value, Tensor) else None
    if vt is not None and vt._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {vt._data.ndim} dimension(s).")
    r = x.copy()
    if i.size:
        v = vt._data if vt is not None else value
        if x.ndim == 0:
            r[...] = v
        else:
            r[_dim_loc(x, d, i)] = v
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or (vt is not None and vt._requires_grad)) or \
            LEVELS and dual(input, vt):
        node = IndexFillBackward1() if vt is not None else IndexFillBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_index = index
        if vt is not None:
            link(res, node, input, vt)
        else:
            link(res, node, input)
    return res


class MaskedFillBackward0(Node):             # derivatives.yaml: masked_fill.Scalar
    __slots__ = ("_saved_mask",)
    _saved_names = ("_saved_mask",)

    def apply(self, grad):
        return grad.masked_fill(self._saved_mask, 0),

    def jvp(self, ts, xs, out):
        return ts[0].masked_fill(self._saved_mask, 0)


class MaskedFillBackward1(Node):             # derivatives.yaml: masked_fill.Tensor
    __slots__ = ("_saved_mask",)
    _saved_names = ("_saved_mask",)

    def apply(self, grad):
        m = self._saved_mask
        return (grad.masked_fill(m, 0) if needs(self, 0) else None,
                where(m, grad, wrap(np.zeros((), grad._data.dtype))).sum()
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return masked_fill(ts[0], self._saved_mask, ts[1])


def masked_fill(input, mask, value):
    x = input._data
    m = _mask(mask, "masked_fill_")
    vt = value if isinstance(value, Tensor) else None
    if vt is not None:
        if vt._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {vt._data.ndim} dimension(s).")
        v = vt._data.astype(x.dtype)
    else:
        if isinstance(value, complex) and x.dtype.kind != "c":
            raise RuntimeError("value cannot be converted to type "
                               f"{SCALAR_NAMES[x.dtype.name]} without overflow")
        if x.dtype.char == "e" and type(value) in (int, float):
            value = checked_half(value)      # (Note [Scalar operands])
        v = np.asarray(value).astype(x.dtype)
    try:
        r = np.where(m, v, x)
    except ValueError:
        raise broadcast_error(m, x) from None
    res = wrap(np.asarray(r, order="C"))     # (torch's result: C order, whatever the layouts)
    if STATE.enabled and (input._requires_grad or (vt is not None and vt._requires_grad)) or \
            LEVELS and dual(input, vt):
        node = MaskedFillBackward1() if vt is not None else MaskedFillBackward0()
        node._saved_mask = mask
        if vt is not None:
            link(res, node, input, vt)
        else:
            link(res, node, input)
    return res


class MaskedScatterBackward0(Node):          # derivatives.yaml: masked_scatter
    __slots__ = ("_saved_mask", "_source_sym_sizes")
    _saved_names = ("_saved_mask",)
    _saved_source_sym_sizes = property(lambda self: tuple(self._source_sym_sizes))

    def apply(self, grad):
        m = self._saved_mask
        gs = gsrc = None
        if needs(self, 0):
            gs = grad.masked_fill(m, 0)
        if needs(self, 1):
            gsrc = _masked_scatter_backward(grad, m, self._source_sym_sizes)
        return gs, gsrc

    def jvp(self, ts, xs, out):
        return masked_scatter(ts[0], self._saved_mask, ts[1])


class MaskedScatterBackwardBackward0(Node):  # derivatives.yaml: masked_scatter_backward
    __slots__ = ("_saved_mask", "_grad_shape")
    _saved_names = ("_saved_mask",)

    def apply(self, grad):
        m = self._saved_mask._data
        if m.shape != self._grad_shape:
            m = np.broadcast_to(m, self._grad_shape)
        return masked_scatter(wrap(np.zeros(self._grad_shape, grad._data.dtype)), wrap(m),
                              grad),

    def jvp(self, ts, xs, out):
        return _masked_scatter_backward(ts[0], self._saved_mask, out._data.shape)


def _masked_scatter_backward(grad, mask, shape):
    """The source's gradient: the masked elements of grad in order, zero-padded to the
    source's size."""
    g = grad._data
    m = mask._data
    if m.shape != g.shape:
        m = np.broadcast_to(m, g.shape)
    n = int(np.prod(shape))
    flat = np.zeros(n, g.dtype)
    sel = g[m]
    flat[:sel.size] = sel
    res = wrap(flat.reshape(shape))
    if STATE.enabled and grad._requires_grad or LEVELS and dual(grad):
        node = MaskedScatterBackwardBackward0()
        node._saved_mask = mask
        node._grad_shape = g.shape
        link(res, node, grad)
    return res


SHORT_SOURCE = "Number of elements of source < number of ones in mask"


def _scatter_mask(mask):
    """masked_scatter's mask check: its message names the dtype as torch's ScalarType (its
    masked_fill's names the C++ type), after a deprecation warning for uint8."""
    if isinstance(mask, Tensor) and mask._data.dtype == np.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is "
                      "now deprecated,please use a mask with dtype torch.bool instead.",
                      UserWarning, stacklevel=user_stacklevel())
    if isinstance(mask, Tensor) and mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {type_name(mask._data.dtype)}")
    return _mask(mask, "masked_scatter_")


def masked_scatter(input, mask, source):
    x = input._data
    m = _scatter_mask(mask)
    s = source._data
    if s.dtype != x.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{type_name(x.dtype)} and {type_name(s.dtype)}")
    try:
        shape = np.broadcast_shapes(x.shape, m.shape)
    except ValueError:
        raise broadcast_error(x, m) from None
    r = np.broadcast_to(x, shape).copy()
    mb = np.broadcast_to(m, shape)
    n = int(mb.sum())
    if n > s.size:
        raise RuntimeError(SHORT_SOURCE)
    r[mb] = s.reshape(-1)[:n]
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or source._requires_grad) or \
            LEVELS and dual(input, source):
        node = MaskedScatterBackward0()
        node._saved_mask = mask
        node._source_sym_sizes = s.shape
        link(res, node, input, source)
    return res


class PutBackward0(Node):                    # derivatives.yaml: put
    __slots__ = ("_saved_index", "_saved_accumulate", "_source_sym_sizes", "_saved_source")
    _saved_names = ("_saved_index", "_saved_source")   # (source: where it requires grad)

    def apply(self, grad):
        i = self._saved_index
        gs = gsrc = None
        if needs(self, 0):
            gs = grad if self._saved_accumulate else \
                put(grad, i, wrap(np.zeros(self._source_sym_sizes, grad._data.dtype)))
        if needs(self, 1):
            gsrc = take(grad, i).reshape(self._source_sym_sizes)
        return gs, gsrc

    def jvp(self, ts, xs, out):
        return put(ts[0], self._saved_index, ts[1], self._saved_accumulate)


def put(input, index, source, accumulate=False):
    x = input._data
    i = _flat_index(index, x.size, "put_")
    s = source._data
    if s.dtype != x.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {type_name(x.dtype)} and source.dtype = "
                           f"{type_name(s.dtype)}")
    if s.size != i.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {s.size}, index.numel() = "
                           f"{i.size}")
    r = x.copy()
    flat = r.reshape(-1)
    if accumulate:
        np.add.at(flat, i.reshape(-1), s.reshape(-1))
    else:
        flat[i.reshape(-1)] = s.reshape(-1)
    res = wrap(flat.reshape(x.shape))
    if STATE.enabled and (input._requires_grad or source._requires_grad) or \
            LEVELS and dual(input, source):
        node = PutBackward0()
        node._saved_index = index
        node._saved_source = source if source._requires_grad else None
        node._saved_accumulate = accumulate
        node._source_sym_sizes = s.shape
        link(res, node, input, source)
    return res

# ---------------------------------------------------------------- in-place forms


def _inplace_op(fn, name, src=None, internal=False):
    """fn's in-place form; src: (position, keyword) of the source tensor argument, which torch
    refuses where it overlaps self at all; internal: torch refuses an expanded self (elements
    sharing memory) before it reads the other arguments (index_copy_)."""
    def op_(self, *args, **kwargs):
        if src is not None:
            if src[0] == 2 and isinstance(self, Tensor):    # (torch checks the dim first,
                if STATE.enabled and self._requires_grad:   # after autograd's refusals)
                    check_inplace(self, True, write=False)
                dim = args[0] if args else kwargs.get("dim")
                if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
                    raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                                    f"{type(dim).__name__}")
                wrap_dim(int(dim), self._data.ndim)
            source = args[src[0]] if len(args) > src[0] else kwargs.get(src[1])
            if internal and isinstance(source, Tensor) and _expanded(self._data):
                raise RuntimeError(OVERLAP)
            check_overlap(self, source, full=True)
        return inplace(self, fn(inplace_source(self), *args, **kwargs))
    op_.__name__ = name
    return op_


scatter_ = _inplace_op(scatter, "scatter_", (2, "src"))
scatter_add_ = _inplace_op(scatter_add, "scatter_add_", (2, "src"))
scatter_reduce_ = _inplace_op(scatter_reduce, "scatter_reduce_", (2, "src"))
index_add_ = _inplace_op(index_add, "index_add_", (2, "source"))
index_reduce_ = _inplace_op(index_reduce, "index_reduce_", (2, "source"))
index_copy_ = _inplace_op(index_copy, "index_copy_", (2, "source"), internal=True)


def index_fill_(self, dim, index, value):
    # (into an expanded tensor too, as in torch, which warns)
    return inplace(self, index_fill(inplace_source(self), dim, index, value),
                   written=masked(lambda: index_fill(wrap(np.zeros(self._data.shape, np.bool_)),
                                                     dim, index, True)._data), warn="index_fill_")


def masked_scatter_(self, mask, source):
    src = inplace_source(self)
    if isinstance(mask, Tensor) and isinstance(source, Tensor) and \
            mask._data.dtype == np.bool_ and source._data.dtype == src._data.dtype:
        # (torch expands the mask to self's shape, after the dtype checks)
        ms, xs = mask._data.shape, src._data.shape
        if len(ms) > len(xs):
            raise RuntimeError(f"expand(CPUBoolType{{{list(ms)}}}, size={list(xs)}): the "
                               f"number of sizes provided ({len(xs)}) must be greater or "
                               f"equal to the number of dimensions in the tensor ({len(ms)})")
        if any(a != b and a != 1 for a, b in zip(ms[::-1], xs[::-1])):
            raise _expand_error(list(ms), list(xs))
    try:
        res = masked_scatter(src, mask, source)
    except RuntimeError as e:
        if str(e) != SHORT_SOURCE or not isinstance(self, Tensor):
            raise
        # torch's kernel writes the source's elements into the masked positions in order
        # (self's logical order) until they run out, then raises: what it wrote stays, with
        # no version bump and no history
        x = self._data
        if _expanded(x):
            raise RuntimeError(OVERLAP) from None
        try:
            m = np.broadcast_to(mask._data, x.shape)
        except ValueError:
            raise e from None       # (the out-of-place form's broadcast: below)
        s = source._data.reshape(-1)
        where = tuple(i[:s.size] for i in np.nonzero(m))
        writable(x)[where] = s
        raise
    return inplace(self, res)
put_ = _inplace_op(put, "put_", (1, "source"))


def masked_fill_(self, mask, value):
    m = _mask(mask, "masked_fill_")
    if m.shape != self._data.shape:
        try:
            np.broadcast_shapes(m.shape, self._data.shape)
        except ValueError:
            raise broadcast_error(self._data, m) from None
    if m.shape != self._data.shape and \
            np.broadcast_shapes(m.shape, self._data.shape) != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the "
                           f"broadcast shape "
                           f"{list(np.broadcast_shapes(m.shape, self._data.shape))}")
    # (into an expanded tensor too, as in torch, which warns: each masked element is written,
    # so memory shared by any masked element takes the value)
    return inplace(self, masked_fill(inplace_source(self), mask, value), written=masked(lambda: m),
                   warn="masked_fill_")


def take_along_dim(input, indices, dim=None, *, out=None):
    try:
        if indices._data.dtype != np.int64:
            raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                               f"{type_name(indices._data.dtype)}")
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None:
        return write_out(gather(input.reshape(-1), 0, indices.reshape(-1)), out)
    x, i = input._data, indices._data
    if x.ndim != i.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {x.ndim} dimensions for input, and "
                           f"{i.ndim} dimensions for indices")
    d = wrap_dim(dim, x.ndim)
    xs = x.shape[:d] + (1,) + x.shape[d + 1:]
    ishape = i.shape[:d] + (1,) + i.shape[d + 1:]
    try:
        b = list(np.broadcast_shapes(xs, ishape))
    except ValueError:
        raise broadcast_error(_Shape(xs), _Shape(ishape)) from None
    bi, bx = list(b), list(b)
    bi[d], bx[d] = i.shape[d], x.shape[d]
    if tuple(bx) != x.shape:
        input = input.expand(bx)
    if tuple(bi) != i.shape:
        indices = indices.expand(bi)
    return write_out(gather(input, d, indices), out)


# ================================================================ surface ops (issue 14):
# fill_diagonal_ (a fill of the strided diagonal view, so its history is torch's CopySlices)
def fill_diagonal_(self, fill_value, wrap=False):
    x = self._data
    if x.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    isz = x.itemsize
    step = sum(s // isz for s in x.strides)
    n = min(x.shape)
    if wrap and x.ndim == 2 and x.shape[0] > x.shape[1] + 1 and x.flags.c_contiguous:
        # torch wraps the diagonal after each block of cols + 1 rows (one row skipped)
        n = (x.size + x.shape[1]) // (x.shape[1] + 1)
    if n == 0:
        return self
    self.as_strided((n,), (step,)).fill_(fill_value)   # from self's own offset
    return self
