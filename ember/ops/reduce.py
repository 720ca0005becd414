"""Reductions: each op's forward, node class and derivative in one place."""
__all__ = ["sum", "mean", "norm", "all", "any"]

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import wrap_dims, type_name
from ._common import write_out


def _unsqueeze_dims(grad, dims, keepdim):
    """Put back the reduced dims (size 1) so the gradient broadcasts against the input."""
    if keepdim:
        return grad
    for d in sorted(dims):
        grad = grad.unsqueeze(d)
    return grad


class SumBackward0(Node):                    # derivatives.yaml: sum
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.expand(self._saved_self_sym_sizes),


class SumBackward1(Node):                    # derivatives.yaml: sum.dim_IntList
    __slots__ = ("_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes")

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._saved_dim, self._saved_keepdim)
        return g.expand(self._saved_self_sym_sizes),


def _sum_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input._data
    if dim is None:
        res = wrap(np.sum(x, dtype=_sum_dtype(x, dtype)))
        if STATE.enabled and input._requires_grad:
            node = SumBackward0()
            node._saved_self_sym_sizes = x.shape
            link(res, node, input)
        return write_out(res, out)
    dims = wrap_dims(dim, x.ndim) if not (isinstance(dim, (list, tuple)) and len(dim) == 0) \
        else tuple(range(x.ndim))
    axis = tuple(d for d in dims if x.ndim) if x.ndim else None
    res = wrap(np.sum(x, axis=axis, dtype=_sum_dtype(x, dtype), keepdims=keepdim))
    if STATE.enabled and input._requires_grad:
        node = SumBackward1()
        node._saved_dim = dims if x.ndim else ()
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)


class MeanBackward0(Node):                   # derivatives.yaml: mean
    __slots__ = ("_saved_self_sym_sizes", "_saved_self_sym_numel")

    def apply(self, grad):
        return grad.expand(self._saved_self_sym_sizes) / self._saved_self_sym_numel,


class MeanBackward1(Node):                   # derivatives.yaml: mean.dim
    __slots__ = ("_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes", "_count")

    def apply(self, grad):
        g = _unsqueeze_dims(grad, self._saved_dim, self._saved_keepdim)
        return g.expand(self._saved_self_sym_sizes) / self._count,


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in "fc":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {type_name(x.dtype)}")
    if dim is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            res = wrap(np.mean(x) if x.size else np.asarray(np.nan, x.dtype))
        if STATE.enabled and input._requires_grad:
            node = MeanBackward0()
            node._saved_self_sym_sizes = x.shape
            node._saved_self_sym_numel = x.size
            link(res, node, input)
        return write_out(res, out)
    dims = wrap_dims(dim, x.ndim) if not (isinstance(dim, (list, tuple)) and len(dim) == 0) \
        else tuple(range(x.ndim))
    axis = dims if x.ndim else None
    with np.errstate(invalid="ignore", divide="ignore"):
        res = wrap(np.mean(x, axis=axis, keepdims=keepdim).astype(x.dtype, copy=False))
    if STATE.enabled and input._requires_grad:
        node = MeanBackward1()
        node._saved_dim = dims if x.ndim else ()
        node._saved_keepdim = keepdim
        node._saved_self_sym_sizes = x.shape
        count = 1
        for d in node._saved_dim:
            count *= x.shape[d]
        node._count = count
        link(res, node, input)
    return write_out(res, out)


class LinalgVectorNormBackward0(Node):      # derivatives.yaml: linalg_vector_norm
    __slots__ = ("_saved_self", "_saved_ord", "_saved_dim", "_saved_keepdim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        from .pointwise import where
        from ._common import saved_output
        s, p = self._saved_self, self._saved_ord
        r = saved_output(self, self._saved_result)
        dims = self._saved_dim
        grad = _unsqueeze_dims(grad, dims, self._saved_keepdim)
        r = _unsqueeze_dims(r, dims, self._saved_keepdim)
        if p == 0:
            return grad * 0 * s,
        if p == 1:
            return s.sgn() * grad,
        if p == 2:
            return s * where(r == 0, 0.0, grad / r),
        if p in (float("inf"), -float("inf")):
            mask = (s.abs() == r)
            count = mask.sum(dims, keepdim=True)
            return s.sgn() * mask * (grad / count),
        a = s.abs()
        scale = where(r == 0, 0.0, grad / r ** (p - 1))
        return s.sgn() * a ** (p - 1) * scale,


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np)
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {type_name(x.dtype)}")
    dims = wrap_dims(dim, x.ndim) if dim is not None and not (
        isinstance(dim, (list, tuple)) and len(dim) == 0) else tuple(range(x.ndim))
    axis = dims if x.ndim else None
    a = np.abs(x)
    p = float(ord)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if p == 2:
            r = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
        elif p == float("inf"):
            r = np.max(a, axis=axis, keepdims=keepdim)
        elif p == -float("inf"):
            r = np.min(a, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(a != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
        elif p == 1:
            r = np.sum(a, axis=axis, keepdims=keepdim)
        else:
            r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    res = wrap(np.asarray(r, dtype=a.dtype))
    if STATE.enabled and input._requires_grad:
        node = LinalgVectorNormBackward0()
        node._saved_self = input if dtype is None else input.to(dtype)
        node._saved_ord = p
        node._saved_dim = dims if x.ndim else ()
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


def all(input, dim=None, keepdim=False, *, out=None):
    x = input._data
    axis = None if dim is None else wrap_dims(dim, x.ndim)
    if x.ndim == 0:
        axis = None
    r = np.all(x, axis=axis, keepdims=keepdim and axis is not None)
    return write_out(wrap(r if x.dtype != np.uint8 else r.astype(np.uint8)), out)


def any(input, dim=None, keepdim=False, *, out=None):
    x = input._data
    axis = None if dim is None else wrap_dims(dim, x.ndim)
    if x.ndim == 0:
        axis = None
    r = np.any(x, axis=axis, keepdims=keepdim and axis is not None)
    return write_out(wrap(r if x.dtype != np.uint8 else r.astype(np.uint8)), out)


def _bind():
    T = Tensor
    T.sum, T.mean, T.norm, T.all, T.any = sum, mean, norm, all, any


_bind()
