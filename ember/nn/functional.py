"""torch.nn.functional: linear, activations and losses, composed from ember ops where torch's
grad_fn is just their parts (linear: addmm / matmul) and with their own node where torch has
one (nll_loss: NllLossBackward0 / NllLoss2DBackward0, mse_loss: MseLossBackward0)."""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import C_NAMES as _C_NAMES, type_name
from ..ops._args import needs, broadcast_error
from ..ops.matmul import addmm, matmul
from ..ops.reduce import softmax as _softmax, log_softmax as _log_softmax
from ..ops.unary import relu, tanh, sigmoid
from ..tensor import Tensor, wrap
from ..ops import attention as _attn
from ..ops.rnn import _dropout as _composite_dropout
from ..ops.join import cat

__all__ = ["linear", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "nll_loss",
           "cross_entropy", "mse_loss"]


# ---------------------------------------------------------------- linear

def linear(input, weight, bias=None):
    """input @ weight.T + bias, built as torch builds it: addmm for a 2-D input with bias,
    flatten + addmm + view for another contiguous input with bias, else matmul (+ bias)."""
    wt = weight.t()
    if bias is not None:
        nd = input._data.ndim
        if nd == 2:
            return addmm(bias, input, wt)
        if nd != 0 and input._data.flags.c_contiguous:
            shape = input._data.shape
            out = addmm(bias, input.reshape(-1, shape[-1]), wt)
            return out.reshape(shape[:-1] + (out._data.shape[-1],))
        return matmul(input, wt) + bias
    return matmul(input, wt)


# ---------------------------------------------------------------- softmax family

def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input._data.ndim, _stacklevel)
    return _softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input._data.ndim, _stacklevel)
    return _log_softmax(input, dim, dtype)


# ---------------------------------------------------------------- reductions (legacy args)

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


# ---------------------------------------------------------------- nll_loss

class NllLossBackward0(Node):                # derivatives.yaml: nll_loss_forward
    # target, weight and total_weight are constants (no gradient), kept as NumPy arrays;
    # _saved_shape_dtype: the input's shape and dtype, from which the gradient is built
    __slots__ = ("_saved_target", "_saved_weight", "_saved_ignore_index", "_saved_reduction",
                 "_saved_total_weight", "_saved_shape_dtype")

    def apply(self, grad):
        coef = self._coefficients()
        if self._saved_reduction == "none" and coef.ndim > 1:
            grad = grad.unsqueeze(1)              # per-sample gradient, broadcast over classes
        return grad * wrap(coef),

    def np_apply(self, g):
        coef = self._coefficients()
        if self._saved_reduction == "none" and coef.ndim > 1:
            g = g[:, None]
        if g.dtype is not coef.dtype:
            return Node.np_apply(self, g)
        coef *= g         # (coef is fresh: the product in its buffer, as grad * coef)
        return coef,

    def _coefficients(self):
        """d loss / d input before the incoming gradient: -weight[target] / total_weight at
        each sample's target (0 elsewhere and for ignored samples; no division unless the
        reduction is the mean)."""
        shape, dtype = self._saved_shape_dtype
        t, w = self._saved_target, self._saved_weight
        if w is None and len(shape) == 2 and self._saved_ignore_index not in t:
            coef = np.zeros(shape, dtype)     # the common case: no weights, none ignored
            coef[np.arange(shape[0]), t] = -1
        else:
            coef = _nll_coefficients(shape, dtype, t, w, self._saved_ignore_index)
        if self._saved_reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                coef /= self._saved_total_weight
        return coef


class NllLoss2DBackward0(NllLossBackward0):  # derivatives.yaml: nll_loss2d_forward
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


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim >= 2 and t.ndim >= 1 and x.shape[0] != t.shape[0] or \
            x.ndim >= 2 and t.ndim == 0:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({t.shape[0] if t.ndim else 1}).")
    if t.dtype.kind not in "iu" or t.dtype.kind == "u" and t.dtype.itemsize != 1:
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
    if x.ndim > 2 and x.shape[:1] + x.shape[2:] != t.shape:
        raise RuntimeError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got "
                           f"{list(t.shape)}")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] == 1:
        t = t.reshape(())
    if x.ndim > 2 and x.ndim != 4:
        # torch runs the K-dim loss as a 2-D one on a view (ViewBackward0 on each side)
        out = nll_loss(input.reshape(x.shape[0], x.shape[1], 1, -1),
                       target.reshape(t.shape[0], 1, -1), weight, None, ignore_index, None,
                       reduction)
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
    if STATE.enabled and input._requires_grad:
        node = NllLoss2DBackward0() if x.ndim == 4 else NllLossBackward0()
        node._saved_target = t
        node._saved_weight = w
        node._saved_ignore_index = ignore_index
        node._saved_reduction = reduction
        node._saved_total_weight = total
        node._saved_shape_dtype = (x.shape, x.dtype)
        link(res, node, input)
    return res


# ---------------------------------------------------------------- cross_entropy

class MulBackward1(Node):                    # derivatives.yaml: mul.Scalar
    __slots__ = ("_saved_other",)

    def apply(self, grad):
        return grad * self._saved_other,


class DivBackward1(Node):                    # derivatives.yaml: div.Scalar
    __slots__ = ("_saved_other",)

    def apply(self, grad):
        return grad / self._saved_other,


def _scalar_op(input, value, node_cls, ufunc):
    """input (*, /) a Python scalar, recorded as torch's .Scalar overloads are (the losses
    below are composed of them)."""
    res = wrap(ufunc(input._data, value))
    if STATE.enabled and input._requires_grad:
        node = node_cls()
        node._saved_other = value
        link(res, node, input)
    return res


def _class_view(weight, ndim):
    """A (C,) weight shaped to broadcast along the class dim (1) of an ndim-D input."""
    if ndim <= 1:
        return weight
    return weight.reshape((1, weight._data.shape[0]) + (1,) * (ndim - 2))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim + nll_loss for class-index targets (with label
    smoothing: mixed with the mean of -log p over the classes); -(p * log q) summed over the
    classes for class-probability targets."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("Expected floating point type for target with class "
                           f"probabilities, got {type_name(target._data.dtype)}")
    cdim = 1 if x.ndim >= 2 else 0
    n_classes = x.shape[cdim]
    logp = _log_softmax(input, cdim)
    if target._data.dtype.kind == "f":
        return _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim)
    loss = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
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
    return _scalar_op(loss, 1.0 - eps, MulBackward1, np.multiply) + \
        _scalar_op(smooth, eps / n_classes, MulBackward1, np.multiply)


def _cross_entropy_probs(logp, target, weight, reduction, label_smoothing, cdim):
    x = logp._data
    if target._data.shape != x.shape:
        raise RuntimeError(f"Expected input batch_size ({x.shape[0]}) to match target "
                           f"batch_size ({target._data.shape[0] if target._data.ndim else 1}).")
    if label_smoothing:
        eps = float(label_smoothing)
        target = wrap(target._data * (1.0 - eps) + eps / x.shape[cdim])
    terms = logp if weight is None else logp * _class_view(weight, x.ndim)
    terms = terms * target
    if reduction == "none":
        return -terms.sum(cdim)
    total = -terms.sum()
    if reduction == "sum":
        return total
    return _scalar_op(total, x.size // x.shape[cdim] if x.size else 0, DivBackward1,
                      np.true_divide)


# ---------------------------------------------------------------- mse_loss

class MseLossBackward0(Node):                # derivatives.yaml: mse_loss
    __slots__ = ("_saved_self", "_saved_target", "_saved_reduction")
    _saved_names = ("_saved_self", "_saved_target")

    def apply(self, grad):
        diff = self._saved_self - self._saved_target
        g = grad * 2 * diff
        if self._saved_reduction == "mean":
            g = g / diff._data.size
        return (g if needs(self, 0) else None), (-g if needs(self, 1) else None)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if weight is not None:
        raise NotImplementedError("ember: mse_loss with weight")
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if input._data.shape != target._data.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=2)
    _check_reduction(reduction)
    x, y = input._data, target._data
    if x.dtype != y.dtype:
        rt = np.result_type(x, y)
        x, y = x.astype(rt), y.astype(rt)
    try:
        d = x - y
    except ValueError:
        raise broadcast_error(x, y) from None
    sq = d * d
    if reduction == "none":
        r = sq
    elif reduction == "sum":
        r = np.asarray(sq.sum(), sq.dtype)
    else:
        with np.errstate(invalid="ignore"):
            r = np.asarray(sq.mean() if sq.size else np.nan, sq.dtype)
    res = wrap(r)
    t_req = isinstance(target, Tensor) and target._requires_grad
    if STATE.enabled and (input._requires_grad or t_req):
        node = MseLossBackward0()
        node._saved_self = input
        node._saved_target = target
        node._saved_reduction = reduction
        link(res, node, input, target)
    return res


# ---- attention (scaled_dot_product_attention, multi_head_attention_forward)

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _sdpa_checks(query, key, value, attn_mask, dropout_p):
    q, k, v = query._data, key._data, value._data
    if not (q.dtype == k.dtype == v.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_C_NAMES[q.dtype.name]} key.dtype: "
                           f"{_C_NAMES[k.dtype.name]} and value.dtype: "
                           f"{_C_NAMES[v.dtype.name]} instead.")
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {q.ndim} key.dim: {k.ndim} and value.dim: "
                           f"{v.ndim} instead.")
    if attn_mask is not None:
        m = attn_mask._data
        if m.dtype != np.bool_ and m.dtype != q.dtype:
            raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {_C_NAMES[m.dtype.name]} and "
                               f" query.dtype: {_C_NAMES[q.dtype.name]} instead.")
    if not 0 <= dropout_p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                           f"{dropout_p}")


def _fused_attention_applies(query, key, value, attn_mask, dropout_p):
    """Whether torch's CPU dispatch picks its fused (flash) kernel for these arguments, as
    found by experiment: 4-D inputs with equal batch sizes and head sizes, unit stride in
    the last dim, no dropout, no mask or a 2-D / 4-D one that does not require grad, and
    at least one query and one key."""
    q, k, v = query._data, key._data, value._data
    if not (q.ndim == k.ndim == v.ndim == 4) or dropout_p != 0:
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0]) or not (
            q.shape[-1] == k.shape[-1] == v.shape[-1]) or k.shape[1] != v.shape[1]:
        return False
    if q.shape[2] == 0 or k.shape[2] == 0 or q.dtype.kind != "f":
        return False
    for a in (q, k, v):
        if a.shape[-1] > 1 and a.strides[-1] != a.itemsize:
            return False
    if attn_mask is not None and (attn_mask._data.ndim not in (2, 4) or
                                  attn_mask._requires_grad):
        return False
    return True


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v: torch's fused CPU op where its dispatch picks it
    (ScaledDotProductFlashAttentionForCpuBackward0), else its math path, composed."""
    _sdpa_checks(query, key, value, attn_mask, dropout_p)
    hq, hk = query._data.shape[-3] if query._data.ndim > 2 else 1, \
        key._data.shape[-3] if key._data.ndim > 2 else 1
    if enable_gqa and hq != hk:
        if hk == 0 or hq % hk or value._data.shape[-3] != hk:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
    if _fused_attention_applies(query, key, value, attn_mask, dropout_p) and \
            (hq == hk or enable_gqa):
        return _attn._scaled_dot_product_flash_attention_for_cpu(
            query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)[0]
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    factor = math.sqrt(1.0 / math.sqrt(query._data.shape[-1]) if scale is None else scale)
    q = _scalar_op(query, factor, MulBackward1, np.multiply)
    if enable_gqa and hq != hk:
        key = key.repeat_interleave(hq // hk, -3)
        value = value.repeat_interleave(hq // hk, -3)
    attn = q.matmul(_scalar_op(key.transpose(-2, -1), factor, MulBackward1, np.multiply))
    if is_causal:
        L, S = query._data.shape[-2], key._data.shape[-2]
        attn_mask = wrap(np.tri(L, S, dtype=np.bool_))
    if attn_mask is not None:
        attn = attn + _attn._float_mask(attn_mask, query._data.dtype)
    attn = _attn._safe_softmax(attn, -1)
    if dropout_p > 0:
        attn = _composite_dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float mask (True -> -inf) of target_type; a float mask as
    it is."""
    if mask is None:
        return None
    kind = mask._data.dtype.kind
    if kind != "b" and kind != "f":
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if kind == "b":
        return wrap(np.where(mask._data, target_type.np.type(-np.inf),
                             target_type.np.type(0)))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched; torch's assertions on the dims of the arguments."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v through the packed (3E, E) projection: one matmul when q, k and v are the same
    tensor (self-attention), two when k is v (encoder-decoder), else three."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v through their own projection weights (kdim / vdim differ from embed_dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                           ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got "
                                 f"{w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _pad_last(mask):
    """A mask with one more (0: attend) column, for the key added by bias_k or zero_attn."""
    zeros = wrap(np.zeros(mask._data.shape[:-1] + (1,), mask._data.dtype))
    return cat([mask, zeros], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)), as torch builds it:
    the attention weights explicitly (bmm, softmax) when they are returned, else through
    scaled_dot_product_attention."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # scaled_dot_product_attention's is_causal does the masking
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k, v = (_heads(t, static, name, bsz * num_heads, head_dim)
            for t, static, name in ((k, static_k, "static_k"), (v, static_v, "static_v")))
    if add_zero_attn:
        zero = wrap(np.zeros((bsz * num_heads, 1, head_dim), q._data.dtype))
        k = cat([k, zero], 1)
        v = cat([v, zero], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        for i, n in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != n:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {n}, but got "
                                     f"{key_padding_mask.shape[i]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = _softmax(weights, -1)
        if dropout_p > 0.0:
            weights = _composite_dropout(weights, dropout_p, True)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _heads(t, static, name, n, head_dim):
    """k or v as (batch * heads, S, head_dim), or the given static one (checked)."""
    if static is None:
        return t.view(t.shape[0], n, head_dim).transpose(0, 1)
    if static.size(0) != n:
        raise AssertionError(f"expecting {name}.size(0) of {n}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static
