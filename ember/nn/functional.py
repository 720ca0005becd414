"""torch.nn.functional: linear, activations and losses, composed from ember ops where torch's
grad_fn is just their parts (linear: addmm / matmul) and with their own node where torch has
one (nll_loss: NllLossBackward0 / NllLoss2DBackward0, mse_loss: MseLossBackward0)."""
import warnings

import numpy as np

from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..ops._args import needs, broadcast_error
from ..ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                        conv_transpose3d, unfold, fold)
from ..ops.embedding import embedding as _embedding, embedding_bag as _embedding_bag
from ..ops.embedding import embedding_renorm_ as _embedding_renorm_
from ..ops.matmul import addmm, matmul
from ..ops.pad import pad
from ..ops.pool import (max_pool1d, max_pool2d, avg_pool1d, avg_pool2d, adaptive_avg_pool1d,
                        adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                        adaptive_max_pool2d, max_unpool1d, max_unpool2d)
from ..ops.reduce import softmax as _softmax, log_softmax as _log_softmax
from ..ops.resize import interpolate, pixel_shuffle, pixel_unshuffle, upsample_fn as _upsample
from ..ops.trilinear import trilinear_bilinear as _trilinear_bilinear
from ..ops.unary import relu, tanh, sigmoid
from ..tensor import Tensor, wrap

__all__ = ["linear", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "nll_loss",
           "cross_entropy", "mse_loss", "bilinear", "embedding", "embedding_bag"]
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "unfold", "fold", "pad", "max_pool1d", "max_pool2d",
            "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
            "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
            "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool2d", "interpolate",
            "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
            "pixel_unshuffle"]


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


# ---- nnmod: bilinear, embedding, embedding_bag

_SHORT = {"float32": "float", "float64": "double", "float16": "half"}


def bilinear(input1, input2, weight, bias=None):
    """x1^T W x2 + b over the last dims, composed as torch composes it: both inputs viewed
    2-D, _trilinear (TrilinearBackward0), the result viewed back, + bias."""
    x1, x2, w = input1._data, input2._data, weight._data
    if x1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if x1.ndim != x2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {x1.ndim} and "
                           f"{x2.ndim}")
    for i in range(x1.ndim - 1):
        if x1.shape[i] != x2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {x1.shape[i]} and {x2.shape[i]}")
    if w.ndim != 3:
        raise RuntimeError("number of dimensions must match")
    if x1.shape[-1] != w.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{x1.shape[-1]} but expected {w.shape[1]}")
    if x2.shape[-1] != w.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{x2.shape[-1]} but expected {w.shape[2]}")
    if bias is not None and (bias._data.ndim == 0 or bias._data.shape[0] != w.shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias._data.shape[0] if bias._data.ndim else 1} but expected "
                           f"{w.shape[0]}")
    dts = [("input1", x1), ("input2", x2), ("weight", w)] + \
        ([("bias", bias._data)] if bias is not None else [])
    if len({a.dtype for _, a in dts}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {_SHORT.get(a.dtype.name, a.dtype.name)}" for n, a in dts))
    out = _trilinear_bilinear(input1.reshape(-1, x1.shape[-1]), weight,
                              input2.reshape(-1, x2.shape[-1]))
    out = out.reshape(x1.shape[:-1] + (w.shape[0],))
    return out if bias is None else out + bias


def _sparse_unsupported(sparse):
    if sparse:
        raise RuntimeError("ember: sparse gradients (sparse=True) are not supported")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    _sparse_unsupported(sparse)
    n = weight._data.shape[0] if weight._data.ndim else 0
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "Padding_idx must be within num_embeddings"
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():
            _embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    _sparse_unsupported(sparse)
    if weight._data.dtype.kind in "iu" and input._data.dtype.kind == "f":
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight._data.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight._data.ndim}")
    nd = input._data.ndim
    if nd == 2:
        if offsets is not None:
            kind = "<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else "<unknown>"
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {kind}")
        rows, cols = input._data.shape
        offsets = wrap(np.arange(0, rows * cols, max(cols, 1), dtype=input._data.dtype)
                       if cols else np.zeros(rows, input._data.dtype))
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif nd == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets._data.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {nd}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if offsets._data.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{offsets.type()} instead (while checking arguments for "
                           "embedding_bag)")
    if max_norm is not None:
        with no_grad():
            _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    n = weight._data.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} "
                           f"through {n - 1}, but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += n
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse,
                          per_sample_weights, include_last_offset, padding_idx)


# ---- conv: convolution, pooling, padding, upsampling, fold/unfold, pixel shuffle
# (the ops and their checks live in ember/ops/conv.py, pool.py, pad.py, resize.py; these are
# torch.nn.functional's aliases and deprecated forms)

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return _upsample(input, size, scale_factor, mode, align_corners, "upsample")


def upsample_nearest(input, size=None, scale_factor=None):
    return _upsample(input, size, scale_factor, "nearest", None, "upsample_nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return _upsample(input, size, scale_factor, "bilinear", True, "upsample_bilinear")
