"""Distances: cosine_similarity and pairwise_distance (composed as torch composes them: the norm
inside pairwise_distance is torch's internal norm.ScalarOpt_dim, NormBackward1), pdist and cdist
(their own nodes, PdistBackward0 and CdistBackward0, whose derivatives torch does not
differentiate again)."""
__all__ = ["cosine_similarity", "pairwise_distance", "pdist", "cdist"]

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import Node, link
from ..dtypes import result_type, type_name
from ..tensor import wrap
from ._args import broadcast_error, needs, saved_output, wrap_dim, check_args
from ._args import not_tensor
from .arith import scalar_op, AddBackward1
from .reduce import vector_norm, _norm_backward
from .logical import where


def _norm_np(d, p, axis, keepdim):
    """The p-norm of array d along axis (p: a float, 0 and inf included)."""
    a = np.abs(d)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if p == 2:
            r = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
        elif p == 1:
            r = np.sum(a, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(a != 0, axis=axis, keepdims=keepdim)
        elif p == np.inf:
            r = np.max(a, axis=axis, keepdims=keepdim, initial=0)
        else:
            r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r, d.dtype)


# ---------------------------------------------------------------- cosine_similarity

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) over dim: the norms are clamped without
    recording the clamp (torch clamps a clone of each norm in place under no_grad)."""
    try:
        a, b = x1._data, x2._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.dtype.kind != "f" and b.dtype.kind != "f":
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{type_name(np.result_type(a, b))}")
    if a.dtype != b.dtype:
        rt = result_type(x1, x2)
        x1 = x1 if a.dtype == rt.np else x1.to(rt)
        x2 = x2 if b.dtype == rt.np else x2.to(rt)
    if x1._data.shape != x2._data.shape:
        # torch expands both operands (an ExpandBackward0 on each) when their shapes differ
        try:
            shape = np.broadcast_shapes(x1._data.shape, x2._data.shape)
        except ValueError:
            raise broadcast_error(x1._data, x2._data) from None
        x1, x2 = x1.expand(shape), x2.expand(shape)
    d = wrap_dim(dim, x1._data.ndim)
    n1 = vector_norm(x1, 2, d, True).clone()
    n2 = vector_norm(x2, 2, d, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(d)


# ---------------------------------------------------------------- pairwise_distance

class NormBackward1(Node):                   # derivatives.yaml: norm.ScalarOpt_dim
    __slots__ = ("_saved_self", "_saved_p", "_saved_dim", "_saved_keepdim", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return _norm_backward(grad, self._saved_self, r, self._saved_p, self._saved_dim,
                              self._saved_keepdim),


def _norm_dim(input, p, dim, keepdim):
    """at::norm(input, p, dim, keepdim) over one dim, recorded as NormBackward1."""
    x = input._data
    p = float(p)
    if x.ndim == 0:
        r = _norm_np(x.reshape(1), p, 0, False).reshape(())
        dims = ()
    else:
        r = _norm_np(x, p, dim, keepdim)
        dims = (dim,)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NormBackward1()
        node._saved_self = input
        node._saved_p = p
        node._saved_dim = dims
        node._saved_keepdim = keepdim
        node._saved_result = res.detach()
        link(res, node, input)
    return res


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    try:
        nd = max(x1._data.ndim, x2._data.ndim)
    except AttributeError as e:
        raise not_tensor(e) from None
    return _norm_dim(scalar_op(x1 - x2, eps, AddBackward1), p, nd - 1, keepdim)


# ---------------------------------------------------------------- pdist / cdist

def _no_double_backward(name):
    """A node for a derivative that torch does not differentiate: it raises torch's error
    when a create_graph gradient made by it is differentiated again."""
    class _Node(Node):
        __slots__ = ()

        def apply(self, grad):
            raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return _Node


class PdistBackwardBackward0(_no_double_backward("_pdist_backward")):
    __slots__ = ()


class CdistBackwardBackward0(_no_double_backward("_cdist_backward")):
    __slots__ = ()


def _recorded_grad(arr, node_cls, *inputs):
    """A gradient computed in NumPy; when recording (create_graph), linked to a node that
    refuses to be differentiated, as torch's is."""
    g = wrap(arr)
    if STATE.enabled and any(t is not None and t._requires_grad for t in inputs):
        link(g, node_cls(), *inputs)
    return g


class PdistBackward0(Node):                  # derivatives.yaml: _pdist_forward
    __slots__ = ("_saved_self", "_saved_p", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        x = self._saved_self._data
        n = x.shape[0]
        i, j = np.triu_indices(n, 1)
        diff = wrap(x[i] - x[j])
        with no_grad():
            gd = _norm_backward(wrap(grad._data), diff, self._saved_result, self._saved_p, (1,),
                                False)
        out = np.zeros_like(x)
        if gd is not None:
            np.add.at(out, i, gd._data)
            np.subtract.at(out, j, gd._data)
        return _recorded_grad(out, PdistBackwardBackward0, grad, self._saved_self),


def pdist(input, p=2):
    check_args("pdist", ("p", 2, "float", p))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(x.shape[0], 1)
    res = wrap(_norm_np(x[i] - x[j], float(p), 1, False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = PdistBackward0()
        node._saved_self = input
        node._saved_p = float(p)
        node._saved_result = res.detach()
        link(res, node, input)
    return res


class CdistBackward0(Node):                  # derivatives.yaml: _cdist_forward
    __slots__ = ("_saved_x1", "_saved_x2", "_saved_p", "_saved_result")
    _saved_names = ("_saved_x1", "_saved_x2", "_saved_result")

    def apply(self, grad):
        a, b = self._saved_x1._data, self._saved_x2._data
        r, p, g = self._saved_result._data, self._saved_p, grad._data
        a, b = _cdist_operands(a, b)
        if p == 2:
            with np.errstate(divide="ignore", invalid="ignore"):
                w = np.where(r == 0, 0, g / r)            # (..., P, R)
            ga = w.sum(-1)[..., None] * a - w @ b
            gb = w.swapaxes(-1, -2).sum(-1)[..., None] * b - w.swapaxes(-1, -2) @ a
        else:
            diff = wrap(a[..., :, None, :] - b[..., None, :, :])
            with no_grad():
                gd = _norm_backward(wrap(g), diff, wrap(r), p, (diff._data.ndim - 1,), False)
            if gd is None:
                gd = wrap(np.zeros(diff._data.shape, diff._data.dtype))
            ga, gb = gd._data.sum(-2), -gd._data.sum(-3)
        x1, x2 = self._saved_x1, self._saved_x2
        return (_recorded_grad(_sum_to(ga, x1._data.shape), CdistBackwardBackward0, grad, x1)
                if needs(self, 0) else None,
                _recorded_grad(_sum_to(gb, x2._data.shape), CdistBackwardBackward0, grad, x2)
                if needs(self, 1) else None)


class EuclideanDistBackward0(Node):          # derivatives.yaml: _euclidean_dist
    __slots__ = ("_saved_x1", "_saved_x2", "_saved_result")
    _saved_names = ("_saved_x1", "_saved_x2", "_saved_result")

    def apply(self, grad):
        x1, x2 = self._saved_x1, self._saved_x2
        r = saved_output(self, self._saved_result)
        ratio = where(wrap(r._data == 0), 0.0, grad / r)
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2) if needs(self, 0) else None
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-1, -2).matmul(x1) \
            if needs(self, 1) else None
        return g1, g2


def _euclidean_dist(x1, x2, a, b):
    """torch's matrix-product form of the euclidean cdist: sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)),
    its own node (differentiable twice, unlike CdistBackward0)."""
    an = (a * a).sum(-1, keepdims=True)
    bn = (b * b).sum(-1, keepdims=True)
    a_ = np.concatenate([-2 * a, an, np.ones_like(an)], -1)
    b_ = np.concatenate([b, np.ones_like(bn), bn], -1)
    res = wrap(np.sqrt(np.maximum(a_ @ b_.swapaxes(-1, -2), 0)).astype(a.dtype, copy=False))
    if STATE.enabled and (x1._requires_grad or x2._requires_grad) or LEVELS and dual(x1, x2):
        node = EuclideanDistBackward0()
        node._saved_x1 = x1
        node._saved_x2 = x2
        node._saved_result = res.detach()
        link(res, node, x1, x2)
    return res


def _sum_to(g, shape):
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    keep = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(keep, keepdims=True) if keep else g


def _cdist_operands(a, b):
    """x1 (..., P, M) and x2 (..., R, M) with their batch dims broadcast to each other."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))


def cdist(x1, x2, p=2.0, compute_mode=None):
    try:
        a, b = x1._data, x2._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D")
    if a.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{type_name(a.dtype)}")
    if b.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: "
                           f"{type_name(b.dtype)}")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                           f"X2: {b.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a, b = _cdist_operands(a, b)
    p = float(p)
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or compute_mode in modes[:2]
                         and (a.shape[-2] > 25 or b.shape[-2] > 25))
    if use_mm:
        res = _euclidean_dist(x1, x2, a, b)
        return res.view(res._data.shape)
    r = _norm_np(a[..., :, None, :] - b[..., None, :, :], p, -1, False)
    res = wrap(np.asarray(r, a.dtype))
    if STATE.enabled and (x1._requires_grad or x2._requires_grad) or LEVELS and dual(x1, x2):
        node = CdistBackward0()
        node._saved_x1 = x1
        node._saved_x2 = x2
        node._saved_p = p
        node._saved_result = res.detach()
        link(res, node, x1, x2)
    return res
