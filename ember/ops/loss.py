"""Loss functions. Where torch has a node of its own (NllLossBackward0, MseLossBackward0,
SmoothL1LossBackward0, BinaryCrossEntropyBackward0, CtcLossBackward0, ...) the loss is a forward
in NumPy plus that node; where torch composes the loss from smaller ops (l1_loss, kl_div,
cosine_embedding_loss, triplet_margin_loss, ...) it is composed from the same ember ops, so the
grad_fn chains match torch's. `reduction` is 'none', 'mean' or 'sum' (the nn.functional front
end validates it and turns the legacy size_average/reduce arguments into it)."""
__all__ = ["nll_loss", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]

import math

import numpy as np

from .._amp_state import AUTOCAST, fp32
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import Node, link, saved_alias, saved_unsigned
from ..dtypes import promote_types, type_name
from ..tensor import Tensor, wrap
from ._args import broadcast_error, needs
from ._args import not_tensor, check_args
from .activation import logsigmoid
from .arith import (scalar_op, AddBackward1, SubBackward1, MulBackward1, DivBackward1,
                    NotImplementedBackward)
from .binary import xlogy
from .distance import pairwise_distance
from .logical import where
from .reduce import log_softmax
from .shape import broadcast_tensors


def _reduce(loss, reduction):
    """The 'none' / 'mean' / 'sum' reduction of a composed loss."""
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def _reduce_np(loss, reduction):
    """The same reduction of a NumPy loss array (0-dim results as arrays of its dtype)."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum(), loss.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(loss.mean() if loss.size else np.nan, loss.dtype)


def _grad_scale(grad, reduction, n):
    """The incoming gradient of a reduced loss, spread over its elements (mean: / n)."""
    if reduction == "mean":
        return grad / n
    return grad


def _const(value, like):
    """A number as a 0-dim tensor of like's dtype (no autograd state)."""
    return wrap(np.asarray(value, like._data.dtype))


def _not_differentiable(fn, arg, t):
    try:
        if t is not None and STATE.enabled and t._requires_grad:
            raise RuntimeError(f"The function '{fn}' is not differentiable with respect to "
                               f"argument '{arg}'. This input cannot have requires_grad True.")
    except AttributeError as e:
        raise not_tensor(e) from None


def _float_kernel(x, kernel):
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(x.dtype)}'")


def _into_input_dtype(input, x):
    """huber/soft margin write into a result of input's dtype: a promoted float result cannot
    go into an integral input's (torch's error)."""
    if input._data.dtype.kind in "iub" and x.dtype.kind in "fc":
        raise RuntimeError(f"result type {type_name(x.dtype)} can't be cast to the desired "
                           f"output type {type_name(input._data.dtype)}")


def _promoted(input, target):
    """The two arrays at their common dtype (torch's type promotion for the loss kernels)."""
    try:
        x, y = input._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype != y.dtype:
        rt = promote_types(input.dtype, target.dtype).np     # (torch's rules: f32 + i64 is f32)
        x, y = x.astype(rt), y.astype(rt)
    return x, y


# ---------------------------------------------------------------- nll_loss

# grad_fn._saved_reduction reads the string the node keeps in _reduction as torch's enum
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_REDUCTION_ENUM = property(lambda self: _REDUCTIONS.get(self._reduction, self._reduction))


def _as_tensor(v, node):
    return wrap(v)


def _total_tensor(v, node):
    return wrap(np.asarray(0 if node._reduction == "none" else v, node._shape_dtype[1]))


class NllLossBackward0(Node):                # derivatives.yaml: nll_loss_forward
    # target, weight and total_weight are constants (no gradient), kept as NumPy arrays;
    # _shape_dtype: the input's shape and dtype, from which the gradient is built
    # _saved_self: the input, only for the create_graph gradient's edge (torch saves it too)
    # (torch's _saved_target, _saved_weight, _saved_total_weight: tensors made from them when
    # read; torch computes no total weight without a reduction: 0 then)
    __slots__ = ("_target", "_weight", "_ignore_index", "_reduction",
                 "_total_weight", "_shape_dtype", "_saved_self")
    _saved_ignore_index = saved_unsigned("_ignore_index")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_target", "_weight", "_total_weight")
    _saved_target, _raw_saved_target = saved_alias("_target", _as_tensor)
    _saved_weight, _raw_saved_weight = saved_alias("_weight", _as_tensor)
    _saved_total_weight, _raw_saved_total_weight = saved_alias("_total_weight", _total_tensor)

    def apply(self, grad):
        coef = self._coefficients()
        g = grad.unsqueeze(1) if self._reduction == "none" and coef.ndim > 1 else grad
        if not STATE.enabled:
            return g * wrap(coef),
        # torch's nll_loss_backward: a node of its own, linked to the incoming gradient and
        # the input (whose derivative is zero), so the gradient requires grad as in torch
        s = self._saved_self
        res = wrap((g._data * coef).astype(coef.dtype, copy=False))
        if grad._requires_grad or s._requires_grad:
            node = (NllLoss2DBackwardBackward0 if type(self) is NllLoss2DBackward0
                    else NllLossBackwardBackward0)()
            node._coef, node._grad_ndim, node._self_meta = coef, grad._data.ndim, \
                (s._data.shape, s._data.dtype)
            link(res, node, grad, s)
        return res,

    def np_apply(self, g):
        coef = self._coefficients()
        if self._reduction == "none" and coef.ndim > 1:
            g = g[:, None]
        coef *= g         # (coef is fresh: the product in its buffer, as grad * coef)
        return coef,

    def _coefficients(self):
        """d loss / d input before the incoming gradient: -weight[target] / total_weight at
        each sample's target (0 elsewhere and for ignored samples; no division unless the
        reduction is the mean)."""
        shape, dtype = self._shape_dtype
        t, w = self._target, self._weight
        if w is None and len(shape) == 2 and self._ignore_index not in t:
            coef = np.zeros(shape, dtype)     # the common case: no weights, none ignored
            coef[np.arange(shape[0]), t] = -1
        else:
            coef = _nll_coefficients(shape, dtype, t, w, self._ignore_index)
        if self._reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                coef /= self._total_weight
        return coef


class NllLoss2DBackward0(NllLossBackward0):  # derivatives.yaml: nll_loss2d_forward
    __slots__ = ()


class NllLossBackwardBackward0(Node):        # derivatives.yaml: nll_loss_backward
    """The gradient of nll_loss's gradient: linear in the incoming gradient (the same
    coefficients, summed back to its shape), zero in the input."""
    __slots__ = ("_coef", "_grad_ndim", "_self_meta")

    def apply(self, gg):
        g = None
        if needs(self, 0):
            g = gg * wrap(self._coef)
            g = g.sum() if self._grad_ndim == 0 else g.sum(1)
        zeros = wrap(np.zeros(*self._self_meta)) if needs(self, 1) else None
        return g, zeros


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):  # nll_loss2d_backward
    __slots__ = ()


def _nll_coefficients(shape, dtype, target, weight, ignore_index):
    """d loss_i / d input: -weight[target_i] at (i, target_i), 0 elsewhere (and for ignored
    samples). input has shape (N, C, *rest) or (C,); target (N, *rest) or ()."""
    coef = np.zeros(shape, dtype)
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    w = -(weight[safe] if weight is not None else np.ones(safe.shape, dtype))
    w = np.where(valid, w, 0).astype(dtype)
    if len(shape) == 1:
        coef[safe] = w
    else:
        np.put_along_axis(coef, np.expand_dims(safe, 1), np.expand_dims(w, 1), axis=1)
    return coef


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    try:
        x, t = input._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim >= 2 and t.ndim >= 1 and x.shape[0] != t.shape[0] or \
            x.ndim >= 2 and t.ndim == 0:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({t.shape[0] if t.ndim else 1}).")
    if x.ndim <= 2 and t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim > 2 and x.shape[:1] + x.shape[2:] != t.shape:
        raise RuntimeError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got "
                           f"{list(t.shape)}")
    if t.dtype != np.int64 and t.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{type_name(t.dtype)}")
    n_classes = x.shape[1] if x.ndim >= 2 else x.shape[0]
    w = None
    if weight is not None:
        w = weight._data
        if w.ndim != 1 or w.shape[0] != n_classes:
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(w.shape)}")
        if w.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found "
                               f"{type_name(w.dtype)}")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] == 1:
        t = t.reshape(())
    if x.ndim > 2 and x.ndim != 4:
        # torch runs the K-dim loss as a 2-D one on a view (ViewBackward0 on each side)
        out = nll_loss(input.reshape(x.shape[0], x.shape[1], 1, -1),
                       target.reshape(t.shape[0], 1, -1), weight, ignore_index, reduction)
        return out.reshape(t.shape) if reduction == "none" else out
    t = t.astype(np.int64, copy=False)
    if w is None and x.ndim == 2 and t.size and ignore_index not in t and \
            0 <= t.min() and t.max() < n_classes:
        # the common case (no weights, no ignored or bad target): the weights are all 1
        picked = x[np.arange(t.shape[0]), t]
        losses = -picked
        total = x.dtype.type(t.shape[0])
    else:
        valid = t != ignore_index
        bad = valid & ((t < 0) | (t >= n_classes))
        if bad.any():
            raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")
        safe = np.where(valid, t, 0)
        if x.ndim == 1:
            picked = x[safe]
        else:
            picked = np.take_along_axis(x, np.expand_dims(safe, 1), axis=1)[:, 0]
        sw = w[safe] if w is not None else np.ones(safe.shape, x.dtype)
        sw = np.where(valid, sw, 0).astype(x.dtype)
        losses = -(sw * picked)
        total = sw.sum(dtype=x.dtype)
    if reduction == "none":
        r = losses if x.ndim > 1 else np.asarray(losses, x.dtype)
    elif reduction == "sum":
        r = np.asarray(losses.sum(dtype=x.dtype), x.dtype)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.asarray(losses.sum(dtype=x.dtype) / total, x.dtype)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NllLoss2DBackward0() if x.ndim == 4 else NllLossBackward0()
        node._target = t
        node._weight = w
        node._ignore_index = ignore_index
        node._reduction = reduction
        node._total_weight = total
        node._shape_dtype = (x.shape, x.dtype)
        node._saved_self = input
        link(res, node, input)
    return res


# ---------------------------------------------------------------- cross_entropy

def _class_view(weight, ndim):
    """A (C,) weight shaped to broadcast along the class dim (1) of an ndim-D input."""
    if ndim <= 1:
        return weight
    return weight.reshape((1, weight._data.shape[0]) + (1,) * (ndim - 2))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim + nll_loss for class-index targets (with label
    smoothing: mixed with the mean of -log p over the classes); -(p * log q) summed over the
    classes for class-probability targets."""
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        raise RuntimeError("Expected floating point type for target with class "
                           f"probabilities, got {type_name(target._data.dtype)}")
    cdim = 1 if x.ndim >= 2 else 0
    n_classes = x.shape[cdim]
    logp = log_softmax(input, cdim)
    # torch reads a floating target of the input's shape as class probabilities; any other
    # target goes down the class-index path (and gets its shape and dtype errors)
    try:
        if target._data.dtype.kind == "f" and target._data.shape == x.shape:
            return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim)
    except AttributeError as e:
        raise not_tensor(e) from None
    loss = nll_loss(logp, target, weight, ignore_index, reduction)
    if not label_smoothing:
        return loss
    eps = float(label_smoothing)
    terms = logp if weight is None else logp * _class_view(weight, x.ndim)
    smooth = -terms.sum(cdim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / (~ignored).sum()
        else:
            kept = target._data[~ignored._data].reshape(-1)
            smooth = smooth.sum() / wrap(weight._data[kept]).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return scalar_op(loss, 1.0 - eps, MulBackward1) + \
        scalar_op(smooth, eps / n_classes, MulBackward1)


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim):
    x = logp._data
    if target._data.shape != x.shape:
        raise RuntimeError(f"Expected input batch_size ({x.shape[0]}) to match target "
                           f"batch_size ({target._data.shape[0] if target._data.ndim else 1}).")
    if label_smoothing:
        eps = float(label_smoothing)
        target = scalar_op(scalar_op(target, 1.0 - eps, MulBackward1), eps / x.shape[cdim],
                           AddBackward1)
    terms = logp if weight is None else logp * _class_view(weight, x.ndim)
    terms = terms * target
    if reduction == "none":
        return -terms.sum(cdim)
    total = -terms.sum()
    if reduction == "sum":
        return total
    return scalar_op(total, x.size // x.shape[cdim] if x.size else 0, DivBackward1)


# ---------------------------------------------------------------- mse / l1 / huber / smooth l1

class MseLossBackward0(Node):                # derivatives.yaml: mse_loss
    __slots__ = ("_saved_self", "_saved_target", "_reduction")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target")

    def apply(self, grad):
        diff = self._saved_self - self._saved_target
        g = grad * 2 * diff
        if self._reduction == "mean":
            g = g / diff._data.size
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)


def _weighted(loss, weight, reduction):
    """A pointwise loss times weight, reduced as torch's weighted mse/l1 losses are: the mean
    is sum(weight * loss) / sum(weight)."""
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def _check_loss_weight(input, weight):
    if weight is not None and weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")


def mse_loss(input, target, reduction="mean", weight=None):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    _check_loss_weight(input, weight)
    if weight is not None:
        a, b = broadcast_tensors(input, target)
        return _weighted((a - b) ** 2, weight, reduction)
    input, target = broadcast_tensors(input, target)
    x, y = _promoted(input, target)
    _float_kernel(x, "mse_cpu")
    d = x - y
    res = wrap(_reduce_np(d * d, reduction))
    t_req = isinstance(target, Tensor) and target._requires_grad
    if STATE.enabled and (input._requires_grad or t_req) or LEVELS and dual(input, target):
        node = MseLossBackward0()
        node._saved_self = input
        node._saved_target = target
        node._reduction = reduction
        link(res, node, input, target)
    return res


def l1_loss(input, target, reduction="mean", weight=None):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    _check_loss_weight(input, weight)
    a, b = broadcast_tensors(input, target)
    loss = (a - b).abs()
    if weight is not None:
        return _weighted(loss, weight, reduction)
    if reduction == "mean" and loss._data.dtype.kind not in "fc":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{type_name(loss._data.dtype)}")
    return _reduce(loss, reduction)


class SmoothL1LossBackward0(Node):           # derivatives.yaml: smooth_l1_loss
    __slots__ = ("_saved_self", "_saved_target", "_reduction", "_saved_beta")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target")

    def apply(self, grad):
        d = self._saved_self - self._saved_target
        beta, dd = self._saved_beta, d._data
        # -1 below -beta, +1 above beta, d / beta between (torch's choice at the ends)
        g = where(wrap(dd <= -beta), -1.0, where(wrap(dd >= beta), 1.0, d / beta))
        g = _grad_scale(grad, self._reduction, dd.size) * g
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)


class HuberLossBackward0(Node):              # derivatives.yaml: huber_loss
    __slots__ = ("_saved_self", "_saved_target", "_reduction", "_saved_delta")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target")

    def apply(self, grad):
        d = self._saved_self - self._saved_target
        delta, dd = self._saved_delta, d._data
        g = where(wrap(dd < -delta), -delta, where(wrap(dd > delta), delta, d))
        g = _grad_scale(grad, self._reduction, dd.size) * g
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)


def _pointwise_node(res, node_cls, input, target, reduction, **saved):
    if STATE.enabled and (input._requires_grad or target._requires_grad) or \
            LEVELS and dual(input, target):
        node = node_cls()
        node._saved_self = input
        node._saved_target = target
        node._reduction = reduction
        for k, v in saved.items():
            setattr(node, "_saved_" + k, v)
        link(res, node, input, target)
    return res


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    input, target = broadcast_tensors(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, y = _promoted(input, target)
    _float_kernel(x, "smooth_l1_cpu")
    d = np.abs(x - y)
    with np.errstate(invalid="ignore"):
        loss = np.where(d < beta, d * d * x.dtype.type(0.5 / beta), d - x.dtype.type(0.5 * beta))
    return _pointwise_node(wrap(_reduce_np(loss, reduction)), SmoothL1LossBackward0, input,
                           target, reduction, beta=beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_loss_weight(input, weight)
    input, target = broadcast_tensors(input, target)
    x, y = _promoted(input, target)
    _into_input_dtype(input, x)
    _float_kernel(x, "huber_cpu")
    d = np.abs(x - y)
    with np.errstate(invalid="ignore"):
        loss = np.where(d < delta, d * d * x.dtype.type(0.5),
                        (d - x.dtype.type(0.5 * delta)) * x.dtype.type(delta))
    if weight is not None:
        res = _pointwise_node(wrap(loss), HuberLossBackward0, input, target, "none",
                              delta=delta)
        return _reduce(res * weight, reduction)
    return _pointwise_node(wrap(_reduce_np(loss, reduction)), HuberLossBackward0, input,
                           target, reduction, delta=delta)


# ---------------------------------------------------------------- binary cross entropy

_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Node):     # derivatives.yaml: binary_cross_entropy
    __slots__ = ("_saved_self", "_saved_target", "_saved_weight", "_reduction")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target", "_saved_weight")

    def apply(self, grad):
        s, t, w = self._saved_self, self._saved_target, self._saved_weight
        grad = _grad_scale(grad, self._reduction, s._data.size)
        if w is not None:
            grad = grad * w
        gs = gt = None
        if needs(self, 0):
            gs = grad * (s - t) / ((1 - s) * s).clamp_min(_BCE_EPS)
        if needs(self, 1):
            gt = grad * ((1 - s).log() - s.log())      # (no clamp here: torch's formula)
        return gs, gt


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    try:
        if target._data.shape != input._data.shape:
            raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                             f"size ({input.shape}) is deprecated. Please ensure they have the same "
                             "size.")
    except AttributeError as e:
        raise not_tensor(e) from None
    x, y = input._data, target._data
    if y.dtype != x.dtype:      # (torch checks the dtypes match before the kernel's dtype)
        raise RuntimeError(f"Found dtype {type_name(y.dtype)} but expected {type_name(x.dtype)}")
    _float_kernel(x, "binary_cross_entropy")
    if weight is not None:
        _not_differentiable("binary_cross_entropy", "weight", weight)
        weight = weight.expand(x.shape) if weight._data.shape != x.shape else weight
    if ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * weight._data
    res = wrap(_reduce_np(loss.astype(x.dtype, copy=False), reduction))
    if STATE.enabled and (input._requires_grad or target._requires_grad) or \
            LEVELS and dual(input, target):
        node = BinaryCrossEntropyBackward0()
        node._saved_self = input
        node._saved_target = target
        node._saved_weight = weight
        node._reduction = reduction
        link(res, node, input, target)
    return res


class BinaryCrossEntropyWithLogitsBackward0(Node):  # derivatives.yaml: ..._with_logits
    __slots__ = ("_saved_self", "_saved_target", "_saved_weight", "_saved_pos_weight",
                 "_reduction")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target", "_saved_weight", "_saved_pos_weight")

    def apply(self, grad):
        s, t = self._saved_self, self._saved_target
        w, pw = self._saved_weight, self._saved_pos_weight
        grad = _grad_scale(grad, self._reduction, s._data.size)
        if w is not None:
            grad = grad * w
        gs = gt = None
        if needs(self, 0):
            if pw is None:
                gs = grad * (s.sigmoid() - t)
            else:
                pt = pw * t
                gs = grad * ((pt + 1 - t) * s.sigmoid() - pt)
        if needs(self, 1):
            if pw is None:
                gt = -grad * s
            else:
                gt = grad * ((pw - 1) * -logsigmoid(s) - s)
        return gs, gt


def _broadcasts(sa, sb):
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(sa), reversed(sb)))


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight, pos_weight = fp32(input, target, weight, pos_weight)
    try:
        if target._data.shape != input._data.shape:
            raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                             f"({input.shape})")
    except AttributeError as e:
        raise not_tensor(e) from None
    _not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    _not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    x, y = _promoted(input, target)
    _float_kernel(x, "binary_cross_entropy_with_logits")
    for a, b in ((pos_weight, y), (x, weight)):     # torch's operand order in its formula
        if a is not None and b is not None and not _broadcasts(a.shape, b.shape):
            raise broadcast_error(a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)     # -logsigmoid(x)
        if pos_weight is None:
            loss = (1 - y) * x + softplus_neg
        else:
            lw = (pos_weight._data - 1) * y + 1
            loss = (1 - y) * x + lw * softplus_neg
        if weight is not None:
            loss = loss * weight._data
    res = wrap(_reduce_np(np.asarray(loss, x.dtype), reduction))
    if STATE.enabled and (input._requires_grad or target._requires_grad) or \
            LEVELS and dual(input, target):
        node = BinaryCrossEntropyWithLogitsBackward0()
        node._saved_self = input
        node._saved_target = target
        node._saved_weight = weight
        node._saved_pos_weight = pos_weight
        node._reduction = reduction
        link(res, node, input, target)
    return res


# ---------------------------------------------------------------- kl_div / poisson / gaussian

def kl_div(input, target, reduction="mean", log_target=False):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = xlogy(target, target) - target * input
    if reduction == "batchmean":
        if input._data.ndim == 0:
            return loss.sum()
        return loss.sum() / input._data.shape[0]
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * scalar_op(input, eps, AddBackward1).log()
    if full:
        # Stirling's term target * log(target) - target + log(2 pi target) / 2, where target > 1
        half_log = scalar_op(scalar_op(target, 2 * math.pi, MulBackward1).log(), 0.5,
                             MulBackward1)
        stirling = target * target.log() - target + half_log
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if not isinstance(var, Tensor):
        var = wrap(np.full(input._data.shape, var, input._data.dtype))
    vs, xs = var._data.shape, input._data.shape
    if vs != xs:
        if xs[:-1] == vs:
            var = var.unsqueeze(-1)
        elif not (xs[:-1] == vs[:-1] and len(vs) == len(xs) and vs[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ---------------------------------------------------------------- margin losses

_COS_EPS = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input1, input2, target = fp32(input1, input2, target)
    try:
        a, b, t = input1._data, input2._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if t.ndim == 1 and not (a.ndim == 2 and b.ndim == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(a.shape)} and {list(b.shape)}.")
    if t.ndim == 0 and not (a.ndim == 1 and b.ndim == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(a.shape)} and {list(b.shape)}.")
    d = t.ndim
    prod_sum = (input1 * input2).sum(d)
    mag1 = scalar_op((input1 * input1).sum(d), _COS_EPS, AddBackward1)
    mag2 = scalar_op((input2 * input2).sum(d), _COS_EPS, AddBackward1)
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = wrap(np.zeros_like(cos._data))
    pos = _const(1, cos) - cos
    neg = scalar_op(cos, margin, SubBackward1).clamp_min(0)
    out = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _reduce(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input1, input2, target = fp32(input1, input2, target)
    try:
        a, b, t = input1._data, input2._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != b.ndim or a.ndim != t.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    out = scalar_op(-target * (input1 - input2), margin, AddBackward1).clamp_min(0)
    return _reduce(out, reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    check_args("hinge_embedding_loss", ("target", 2, "Tensor", target),
               ("margin", 3, "float", margin))
    try:
        zeros = wrap(np.zeros_like(input._data))
    except AttributeError as e:
        raise not_tensor(e) from None
    margin_clamp = (_const(margin, input) - input).clamp_min(0)
    out_margin = where(target != 1, margin_clamp, zeros)
    out_self = where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


class SoftMarginLossBackward0(Node):         # derivatives.yaml: soft_margin_loss
    __slots__ = ("_saved_self", "_saved_target", "_reduction")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target")

    def apply(self, grad):
        s, t = self._saved_self, self._saved_target
        grad = _grad_scale(grad, self._reduction, s._data.size)
        return grad * -t * (-t * s).sigmoid(),


def soft_margin_loss(input, target, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    _not_differentiable("soft_margin_loss", "target", target)
    x, y = _promoted(input, target)
    _into_input_dtype(input, x)
    _float_kernel(x, "soft_margin_loss")
    with np.errstate(over="ignore"):
        loss = np.log1p(np.exp(-x * y))
    res = wrap(_reduce_np(np.asarray(loss, x.dtype), reduction))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SoftMarginLossBackward0()
        node._saved_self = input
        node._saved_target = target
        node._reduction = reduction
        link(res, node, input)
    return res


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input._data.ndim - 1
    loss = loss.sum(class_dim) / input._data.shape[class_dim]
    return _reduce(loss, reduction)


class MultilabelMarginLossBackward0(Node):   # derivatives.yaml: multilabel_margin_loss
    __slots__ = ("_saved_self", "_saved_target", "_saved_is_target", "_reduction",
                 "_counts")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target", "_saved_is_target")

    def apply(self, grad):
        s = self._saved_self._data
        c = s.shape[-1] if s.ndim else 1
        x = s.reshape(-1, c)
        _, active = _multilabel_terms(x, self._counts,
                                      self._saved_is_target._data.reshape(-1, c))
        coef = active.sum(1) - active.sum(2)       # + for each non-target i, - for target j
        coef = (coef / c).astype(s.dtype).reshape(s.shape)
        g = grad._data
        if self._reduction == "none" and s.ndim == 2:
            g = g[:, None]
        elif self._reduction == "mean":
            g = g / x.shape[0]
        return _not_differentiated(wrap(g * coef), "multilabel_margin_loss_backward", grad,
                                   self._saved_self),


def _not_differentiated(res, op, *inputs):
    """A gradient that torch does not differentiate again: when recording, linked to torch's
    NotImplemented node, which raises if it is reached."""
    if STATE.enabled and any(t._requires_grad for t in inputs) or LEVELS and dual(*inputs):
        node = NotImplementedBackward()
        node._op = op
        link(res, node, *inputs)
    return res


def _multilabel_terms(x, counts, is_target):
    """The hinge terms max(0, 1 - (x_j - x_i)) for each listed target j (counted as often as
    it is listed) and each non-target i, and the mask (times the counts) of the active ones,
    both of shape (N, C, C) indexed [n, j, i]."""
    z = 1 - x[:, :, None] + x[:, None, :]
    w = counts[:, :, None] * (1 - is_target)[:, None, :]
    active = (z > 0) * w
    return np.maximum(z, 0) * w, active


def _long_target(t):
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_name(t.dtype)}")


def multilabel_margin_loss(input, target, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target = fp32(input, target)
    try:
        x, t = input._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_kernel(x, "multilabel_margin_loss_forward_out_frame")
    if x.ndim > 2 or t.shape != x.shape and not (x.ndim <= 1 and t.ndim <= 1 and
                                                 t.size == x.size):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: "
                           f"{list(x.shape)}")
    _long_target(t)
    c = x.shape[-1] if x.ndim else 1
    x2, t2 = x.reshape(-1, c), t.reshape(-1, c).astype(np.int64)
    if ((t2 < -1) | (t2 >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    # the targets of a sample are its entries before the first -1
    listed = np.cumprod(t2 != -1, axis=1).astype(bool)
    counts = np.zeros(x2.shape, x.dtype)
    rows = np.broadcast_to(np.arange(x2.shape[0])[:, None], t2.shape)
    np.add.at(counts, (rows[listed], t2[listed]), 1)
    is_target = (counts > 0).astype(x.dtype)
    terms, _ = _multilabel_terms(x2, counts, is_target)
    loss = (terms.sum((1, 2)) / c).astype(x.dtype)
    if reduction == "none":
        r = loss.reshape(x.shape[:-1]) if x.ndim else loss.reshape(())
    else:
        r = _reduce_np(loss, reduction)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MultilabelMarginLossBackward0()
        node._saved_self = input
        node._saved_target = target
        node._saved_is_target = wrap(is_target.reshape(x.shape))
        node._reduction = reduction
        node._counts = counts
        link(res, node, input)
    return res


class MultiMarginLossBackward0(Node):        # derivatives.yaml: multi_margin_loss
    __slots__ = ("_saved_self", "_saved_target", "_saved_p", "_saved_margin", "_saved_weight",
                 "_reduction")
    _saved_reduction = _REDUCTION_ENUM
    _saved_names = ("_saved_self", "_saved_target", "_saved_weight")

    def apply(self, grad):
        s = self._saved_self
        shape = s._data.shape
        x = s.reshape(-1, shape[-1]) if s._data.ndim else s.reshape(1, 1)
        n, c = x._data.shape
        onehot, w = _multi_margin_setup(self._saved_target._data.reshape(-1), n, c,
                                        self._saved_weight, x._data.dtype)
        z = (x - (x * wrap(onehot)).sum(1, keepdim=True)) + self._saved_margin
        active = wrap(((z._data > 0) & (onehot == 0)).astype(x._data.dtype))
        d = active if self._saved_p == 1 else z * active * 2
        if w is not None:
            d = d * wrap(w[:, None])
        d = d / c
        gx = d - wrap(onehot) * d.sum(1, keepdim=True)
        if self._reduction == "none" and len(shape) == 2:
            grad = grad.unsqueeze(1)
        grad = _grad_scale(grad, self._reduction, n)
        res = wrap((grad * gx.reshape(shape))._data)
        return _not_differentiated(res, "multi_margin_loss_backward", grad, s),


def _multi_margin_setup(t, n, c, weight, dtype):
    onehot = np.zeros((n, c), dtype)
    onehot[np.arange(n), t] = 1
    w = None if weight is None else weight._data[t].astype(dtype, copy=False)
    return onehot, w


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        input, target, weight = fp32(input, target, weight)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    try:
        x, t = input._data, target._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_kernel(x, "multi_margin_loss_cpu_kernel")
    c = x.shape[-1] if x.ndim else 1
    n = x.size // c if c else 0
    if x.ndim > 2 or t.ndim > 1 or t.size != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(t.shape)}. Input has shape {list(x.shape)}.")
    if weight is not None and weight._data.shape != (c,):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight._data.shape)}")
    _long_target(t)
    t1 = t.reshape(-1).astype(np.int64)
    if ((t1 < 0) | (t1 >= c)).any():
        raise RuntimeError("target out of range")
    x2 = x.reshape(n, c)
    onehot, w = _multi_margin_setup(t1, n, c, weight, x.dtype)
    z = margin - (x2 * onehot).sum(1, keepdims=True) + x2
    h = np.where((z > 0) & (onehot == 0), z, 0)
    if p == 2:
        h = h * h
    if w is not None:
        h = h * w[:, None]
    loss = (h.sum(1) / c).astype(x.dtype)
    if reduction == "none":
        r = loss if x.ndim == 2 else loss.reshape(())
    else:
        r = _reduce_np(loss, reduction)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MultiMarginLossBackward0()
        node._saved_self = input
        node._saved_target = target
        node._saved_p = p
        node._saved_margin = margin
        node._saved_weight = weight
        node._reduction = reduction
        link(res, node, input)
    return res


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction="mean"):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        anchor, positive, negative = fp32(anchor, positive, negative)
    try:
        na, np_, nn = anchor._data.ndim, positive._data.ndim, negative._data.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    if not (na == np_ == nn):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {na}D, positive {np_}D, "
                           f"and negative {nn}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    out = (scalar_op(dist_pos, margin, AddBackward1) - dist_neg).clamp_min(0)
    return _reduce(out, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    try:
        na, np_, nn = anchor._data.ndim, positive._data.ndim, negative._data.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    if not (na == np_ == nn):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {na}D, positive {np_}D, "
                           f"and negative {nn}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(dist(positive, negative))
    out = (margin + dist_pos - dist_neg).clamp_min(0)
    return _reduce(out, reduction)


# ---------------------------------------------------------------- ctc_loss

class CtcLossBackward0(Node):                # derivatives.yaml: _ctc_loss
    __slots__ = ("_saved_log_probs", "_saved_targets", "_saved_input_lengths",
                 "_saved_target_lengths", "_saved_blank", "_saved_zero_infinity",
                 "_saved_result0", "_saved_result1", "_labels")
    _saved_names = ("_saved_log_probs", "_saved_targets", "_saved_result0", "_saved_result1")

    def apply(self, grad):
        lp = self._saved_log_probs._data
        g = _ctc_grad(lp.astype(np.float64), self._labels, self._saved_input_lengths,
                      self._saved_result1, self._saved_result0._data.astype(np.float64),
                      self._saved_zero_infinity)
        g = (g * grad._data.astype(np.float64)[None, :, None]).astype(lp.dtype)
        return _not_differentiated(wrap(g), "_ctc_loss_backward", grad,
                                   self._saved_log_probs),


def _ctc_labels(targets, target_lengths, blank, n):
    """The extended label sequences (blank, l1, blank, l2, ..., blank) as an (N, S) array
    padded with blanks, S = 2 * max target length + 1, and each one's valid length."""
    t = targets.astype(np.int64)
    lmax = int(target_lengths.max()) if n else 0
    labels = np.full((n, 2 * lmax + 1), blank, np.int64)
    if t.ndim == 2:
        for_rows = t[:, :lmax]
    else:                                  # concatenated targets
        offsets = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        idx = offsets[:, None] + np.arange(lmax)[None, :]
        for_rows = t[np.minimum(idx, max(t.size - 1, 0))] if t.size else \
            np.zeros((n, lmax), np.int64)
    keep = np.arange(lmax)[None, :] < target_lengths[:, None]
    labels[:, 1::2] = np.where(keep, for_rows, blank)
    return labels


def _ctc_alpha(lp, labels, input_lengths, target_lengths, blank):
    """Forward variables log alpha (T, N, S), vectorised over the batch and the label
    positions; one step per time."""
    T, n, _ = lp.shape
    S = labels.shape[1]
    s_len = 2 * target_lengths + 1
    rows = np.arange(n)[:, None]
    emit = lp[:, rows, labels]                            # (T, N, S): lp[t, n, labels[n, s]]
    # the skip from s - 2 is allowed onto a target position (odd s) whose label differs from
    # the previous target's (by position: a target equal to the blank index counts as a label)
    skip = np.zeros((n, S), bool)
    skip[:, 3::2] = labels[:, 3::2] != labels[:, 1:-2:2]
    valid = np.arange(S)[None, :] < s_len[:, None]
    alpha = np.full((T, n, S), -np.inf)
    if T:
        alpha[0, :, 0] = emit[0, :, 0]
        if S > 1:
            alpha[0, :, 1] = np.where(target_lengths > 0, emit[0, :, 1], -np.inf)
    with np.errstate(invalid="ignore"):
        for t in range(1, T):
            prev = alpha[t - 1]
            a = prev.copy()
            a[:, 1:] = np.logaddexp(a[:, 1:], prev[:, :-1])
            a[:, 2:] = np.where(skip[:, 2:], np.logaddexp(a[:, 2:], prev[:, :-2]), a[:, 2:])
            alpha[t] = np.where(valid, a + emit[t], -np.inf)
    return alpha


def _ctc_nll(alpha, input_lengths, target_lengths):
    n = alpha.shape[1]
    rows = np.arange(n)
    t_last = np.maximum(input_lengths - 1, 0)
    end = 2 * target_lengths
    last = alpha[t_last, rows, end]
    before = np.where(target_lengths > 0, alpha[t_last, rows, np.maximum(end - 1, 0)], -np.inf)
    nll = -np.logaddexp(last, before)
    return np.where(input_lengths > 0, nll, np.where(target_lengths > 0, np.inf, 0.0))


def _ctc_grad(lp, labels_info, input_lengths, alpha, nll, zero_infinity):
    """d nll / d log_probs as torch gives it: exp(lp) - exp(log(sum over the positions s with
    label c of alpha * beta) + nll - lp) for t < input_length, 0 after."""
    labels, target_lengths, blank = labels_info
    T, n, C = lp.shape
    S = labels.shape[1]
    rows = np.arange(n)[:, None]
    emit = lp[:, rows, labels]
    s_len = 2 * target_lengths + 1
    skip = np.zeros((n, S), bool)      # skip[s]: s may reach s + 2
    skip[:, 1:-2:2] = labels[:, 1:-2:2] != labels[:, 3::2]
    valid = np.arange(S)[None, :] < s_len[:, None]
    beta = np.full((T, n, S), -np.inf)
    r = np.arange(n)
    with np.errstate(invalid="ignore"):
        for t in range(T - 1, -1, -1):
            if t < T - 1:
                nxt = beta[t + 1]
                b = nxt.copy()
                b[:, :-1] = np.logaddexp(b[:, :-1], nxt[:, 1:])
                b[:, :-2] = np.where(skip[:, :-2], np.logaddexp(b[:, :-2], nxt[:, 2:]),
                                     b[:, :-2])
                b = np.where(valid, b + emit[t], -np.inf)
            else:
                b = np.full((n, S), -np.inf)
            start = input_lengths - 1 == t           # each sample's last time step
            if start.any():
                st = np.full((n, S), -np.inf)
                st[r, s_len - 1] = emit[t, r, s_len - 1]
                prev_end = np.maximum(s_len - 2, 0)
                st[r, prev_end] = np.where(target_lengths > 0, emit[t, r, prev_end],
                                           st[r, prev_end])
                b = np.where(start[:, None], st, b)
            b = np.where((t >= input_lengths)[:, None], -np.inf, b)
            beta[t] = b
        ab = alpha + beta                                 # (T, N, S)
        m = ab.max(axis=2, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        onehot = np.zeros((n, S, C))
        onehot[np.arange(n)[:, None], np.arange(S)[None, :], labels] = valid
        with np.errstate(divide="ignore"):
            lcab = np.log(np.einsum("tns,nsc->tnc", np.exp(ab - m), onehot)) + m
        g = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    g = np.where((np.arange(T)[:, None] < input_lengths[None, :])[:, :, None], g, 0.0)
    if zero_infinity:
        g = np.where(np.isinf(nll)[None, :, None], 0.0, g)
    return g


def _lengths(v, name):
    """input_lengths / target_lengths as an int64 array (a tensor or a list of ints)."""
    if isinstance(v, Tensor):
        a = v._data
        if a.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return a.reshape(-1).astype(np.int64)
    return np.asarray(v, np.int64).reshape(-1)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    if AUTOCAST.cpu:                    # Note [Autocast hook]: a float32 op
        log_probs, = fp32(log_probs)
    lp = log_probs._data
    unbatched = lp.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        lp = log_probs._data
        targets = targets.unsqueeze(0) if targets._data.ndim else targets
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    T, n, C = lp.shape
    _float_kernel(lp, "ctc_loss_cpu")
    if blank < 0 or blank >= C:
        raise RuntimeError("blank must be in label range")
    if il.size != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.size != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{v} (while checking arguments for ctc_loss_allocate_outputs)")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                               f"{v} (while checking arguments for ctc_loss_allocate_outputs)")
    t = targets._data
    if t.ndim == 2 and n and tl.max() > t.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {tl.max()} at dimension 1, "
                           f"but got size {t.shape[1]} for argument #2 'targets' (while "
                           "checking arguments for ctc_loss_allocate_outputs)")
    labels = _ctc_labels(t, tl, blank, n)
    alpha = _ctc_alpha(lp.astype(np.float64), labels, il, tl, blank)
    nll = _ctc_nll(alpha, il, tl)
    res = wrap(nll.astype(lp.dtype))
    if STATE.enabled and log_probs._requires_grad or LEVELS and dual(log_probs):
        node = CtcLossBackward0()
        node._saved_log_probs = log_probs
        node._saved_targets = targets
        node._saved_input_lengths = il
        node._saved_target_lengths = tl
        node._saved_blank = blank
        node._saved_zero_infinity = zero_infinity
        node._saved_result0 = res.detach()
        node._saved_result1 = alpha
        node._labels = (labels, tl, blank)
        link(res, node, log_probs)
    if zero_infinity:
        res = where(wrap(np.isinf(res._data)), wrap(np.zeros((), lp.dtype)), res)
    if reduction == "mean":
        return (res / wrap(np.maximum(tl, 1).astype(lp.dtype))).mean()
    if reduction == "sum":
        return res.sum()
    return res.squeeze(0) if unbatched else res
