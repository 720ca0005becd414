"""torch.nn.functional: the thin torch-signature front end (argument checks, defaults, the
legacy size_average/reduce arguments, torch's Python-side errors and warnings) over the ops in
ember/ops/ (activation, normalization, dropout, loss, distance, ...)."""
import math
import warnings

import numpy as np

from .._amp_state import AUTOCAST, lower
from ..autograd.grad_mode import no_grad
from ..ops._args import not_tensor as _not_tensor, check_args as _check_args
from ..dtypes import C_NAMES as _C_NAMES, as_dtype as _as_dtype
from ..ops import activation as _act
from ..ops import attention as _attn
from ..ops import distance as _dist
from ..ops import dropout as _drop
from ..ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                        conv_transpose3d, unfold, fold)
from ..ops.embedding import embedding as _embedding, embedding_bag as _embedding_bag
from ..ops.embedding import embedding_renorm_ as _embedding_renorm_
from ..ops import loss as _loss
from ..ops import normalization as _norm
from ..ops.matmul import addmm, matmul
from ..ops.pad import pad
from ..ops.pool import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool3d, avg_pool2d, adaptive_avg_pool1d,
                        adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                        adaptive_max_pool2d, max_unpool1d, max_unpool2d,
                        adaptive_max_pool3d, max_unpool3d)
from ..ops.reduce import softmax as _softmax, log_softmax as _log_softmax
from ..ops.grid import affine_grid, grid_sample
from ..ops.layer_forms import channel_shuffle, native_channel_shuffle
from ..ops.resize import interpolate, pixel_shuffle, pixel_unshuffle, upsample_fn as _upsample
from ..ops.trilinear import bilinear
from ..ops import unary as _unary
from ..creation import empty_like as _empty_like, zeros_like as _zeros_like
from ..ops.conv import conv_tbc  # (torch.nn.functional.conv_tbc is torch.conv_tbc)
from ..ops.pool import fractional_max_pool as _fractional_max_pool
from ..ops.unary import sign as _sign
from ..ops.arith import MulBackward1, scalar_op as _scalar_op
from ..ops.join import cat
from ..ops.unary import tanh, sigmoid
from ..tensor import Tensor, wrap

__all__ = ["linear", "softmax", "log_softmax", "bilinear", "embedding", "embedding_bag",
           # ---- normloss
           "relu", "relu_", "tanh", "sigmoid", "threshold", "threshold_", "hardtanh",
           "hardtanh_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu",
           "leaky_relu_", "prelu", "rrelu", "rrelu_", "glu", "gelu", "logsigmoid", "hardshrink",
           "tanhshrink", "softsign", "softplus", "softmin", "softshrink", "hardsigmoid", "silu",
           "mish", "hardswish", "batch_norm", "instance_norm", "layer_norm", "group_norm",
           "rms_norm", "local_response_norm", "normalize", "dropout", "alpha_dropout",
           "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "cosine_similarity",
           "pairwise_distance", "pdist", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
           "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multilabel_margin_loss", "multi_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]
__all__ += ["one_hot"]     # ---- nnaudit
__all__ += ["conv_tbc", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
            "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "gumbel_softmax",
            "linear_cross_entropy", "lp_pool1d", "lp_pool2d", "lp_pool3d"]     # ---- surf2
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "unfold", "fold", "pad", "max_pool1d", "max_pool2d",
            "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d",
            "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
            "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
            "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool2d", "interpolate",
            "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d",
            "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
            "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "grid_sample",
            "affine_grid"]


# ---------------------------------------------------------------- linear

def linear(input, weight, bias=None):
    """input @ weight.T + bias, built as torch builds it: addmm for a 2-D input with bias,
    flatten + addmm + view for another contiguous input with bias, else matmul (+ bias)."""
    try:
        if input._data.ndim == 0 or weight._data.ndim == 0:
            raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                               f"{input._data.ndim}D and {weight._data.ndim}D")
    except AttributeError as e:
        raise _not_tensor(e) from None
    if AUTOCAST.cpu:                    # Note [Autocast hook] (cast before weight.t())
        input, weight, bias = lower(input, weight, bias)
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
    _as_dtype(dtype, "softmax")
    if dim is None:
        try:
            dim = _softmax_dim("softmax", input._data.ndim, _stacklevel)
        except AttributeError as e:
            raise _not_tensor(e) from None
    return _softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    _as_dtype(dtype, "log_softmax")
    if dim is None:
        try:
            dim = _softmax_dim("log_softmax", input._data.ndim, _stacklevel)
        except AttributeError as e:
            raise _not_tensor(e) from None
    return _log_softmax(input, dim, dtype)


# ---- normloss: activations, normalization, dropout, distances, losses
# ---------------------------------------------------------------- argument checks

def _tensor(name, input):
    """torch's TypeError for a non-Tensor input of a C++-bound function."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


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


def _reduction(size_average, reduce, reduction, weight=None):
    """The reduction string after the legacy arguments, validated as torch validates it (with
    a weight, mse_loss's and l1_loss's: only the weighted reductions)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is None:
        _check_reduction(reduction)
    else:
        _weighted_reduction(reduction)
    return reduction


# ---------------------------------------------------------------- activations

def relu(input, inplace=False):
    input = _tensor("relu", input)
    return _unary.relu_(input) if inplace else _unary.relu(input)


def relu_(input):
    return _unary.relu_(_tensor("relu_", input))


def threshold(input, threshold, value, inplace=False):
    _tensor("threshold", input)
    return _act.threshold_(input, threshold, value) if inplace else \
        _act.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _act.threshold_(_tensor("threshold_", input), threshold, value)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    _tensor("hardtanh", input)
    return _act.hardtanh_(input, min_val, max_val) if inplace else \
        _act.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    _check_args("hardtanh_", ("min_val", 2, "Number", min_val), ("max_val", 3, "Number", max_val))
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _act.hardtanh_(_tensor("hardtanh_", input), min_val, max_val)


def relu6(input, inplace=False):
    return _act.relu6(_tensor("relu6", input), inplace)


def elu(input, alpha=1.0, inplace=False):
    return _act.elu(_tensor("elu", input), alpha, inplace)


def elu_(input, alpha=1.0):
    return _act.elu_(_tensor("elu_", input), alpha)


def selu(input, inplace=False):
    return _act.selu(_tensor("selu", input), inplace)


def selu_(input):
    return _act.selu_(_tensor("selu_", input))


def celu(input, alpha=1.0, inplace=False):
    return _act.celu(_tensor("celu", input), alpha, inplace)


def celu_(input, alpha=1.0):
    return _act.celu_(_tensor("celu_", input), alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _act.leaky_relu(_tensor("leaky_relu", input), negative_slope, inplace)


def leaky_relu_(input, negative_slope=0.01):
    return _act.leaky_relu_(_tensor("leaky_relu_", input), negative_slope)


def prelu(input, weight):
    return _act.prelu(_tensor("prelu", input), weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _act.rrelu(_tensor("rrelu", input), lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _act.rrelu_(_tensor("rrelu_", input), lower, upper, training)


def glu(input, dim=-1):
    return _act.glu(_tensor("glu", input), dim)


def gelu(input, *, approximate="none"):
    return _act.gelu(_tensor("gelu", input), approximate)


def logsigmoid(input):
    return _act.logsigmoid(_tensor("log_sigmoid", input))


def hardshrink(input, lambd=0.5):
    return _act.hardshrink(_tensor("hardshrink", input), lambd)


def tanhshrink(input):
    return _act.tanhshrink(input)


def softsign(input):
    return _act.softsign(input)


def softplus(input, beta=1, threshold=20):
    return _act.softplus(_tensor("softplus", input), beta, threshold)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    _as_dtype(dtype, "softmax")
    if dim is None:
        try:
            dim = _softmax_dim("softmin", input._data.ndim, _stacklevel)
        except AttributeError as e:
            raise _not_tensor(e) from None
    return _act.softmin(input, dim, dtype)


def softshrink(input, lambd=0.5):
    return _act.softshrink(_tensor("softshrink", input), lambd)


def hardsigmoid(input, inplace=False):
    return _act.hardsigmoid(_tensor("hardsigmoid", input), inplace)


def silu(input, inplace=False):
    return _act.silu(_tensor("silu", input), inplace)


def mish(input, inplace=False):
    return _act.mish(_tensor("mish", input), inplace)


def hardswish(input, inplace=False):
    return _act.hardswish(_tensor("hardswish", input), inplace)


# ---------------------------------------------------------------- normalization

def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    if training:
        _verify_batch_size(input.size())
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    if use_input_stats:
        n = 1
        try:
            for s in input.shape[2:]:
                n *= s
        except AttributeError as e:
            raise _not_tensor(e) from None
        if n == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    return _norm.instance_norm(input, running_mean, running_var, weight, bias,
                               use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _norm.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    shape = input.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{len(shape)}")
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:]))
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    return _norm.local_response_norm(input, size, alpha, beta, k)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    return _norm.normalize(input, p, dim, eps, out)


# ---------------------------------------------------------------- dropout

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_args("dropout", ("train", 3, "bool", training))
    _check_p(p)
    return _drop.dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_args("alpha_dropout", ("train", 3, "bool", training))
    _check_p(p)
    return _drop.alpha_dropout(input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_args("feature_alpha_dropout", ("train", 3, "bool", training))
    _check_p(p)
    return _drop.feature_alpha_dropout(input, p, training, inplace)


def _feature_dropout_unbatched(input, p, training, inplace, batched):
    if batched:
        return _drop.feature_dropout(input, p, training, inplace)
    if inplace:
        return _drop.feature_dropout(input.unsqueeze_(0), p, training, True).squeeze_(0)
    return _drop.feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_args("feature_dropout", ("train", 3, "bool", training))
    _check_p(p)
    try:
        nd = input.dim()
    except AttributeError as e:
        raise _not_tensor(e) from None
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout_unbatched(input, p, training, inplace, nd == 3)


def _feature_dim_warning(name, nd, spatial, dims):
    warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and will "
                  "result in an error in a future release. To retain the behavior and silence "
                  f"this warning, please use dropout instead. Note that {name} exists to "
                  f"provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
                  "channel dimension, and an optional batch dimension (i.e. "
                  f"{dims[0]}D or {dims[1]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_args("feature_dropout", ("train", 3, "bool", training))
    _check_p(p)
    try:
        nd = input.dim()
    except AttributeError as e:
        raise _not_tensor(e) from None
    if nd not in (3, 4):
        _feature_dim_warning("dropout2d", nd, 2, (3, 4))
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change in "
                      "a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _drop.feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_args("feature_dropout", ("train", 3, "bool", training))
    _check_p(p)
    try:
        nd = input.dim()
    except AttributeError as e:
        raise _not_tensor(e) from None
    if nd not in (4, 5):
        _feature_dim_warning("dropout3d", nd, 3, (4, 5))
    return _feature_dropout_unbatched(input, p, training, inplace, nd == 5)


# ---------------------------------------------------------------- distances

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _dist.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _dist.pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input, p=2):
    return _dist.pdist(input, p)


# ---------------------------------------------------------------- losses

def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    if isinstance(input, Tensor):
        _check_args("nll_loss_nd", ("target", 2, "Tensor", target))
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.nll_loss(input, target, weight, ignore_index, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    if isinstance(input, Tensor):
        _check_args("cross_entropy_loss", ("target", 2, "Tensor", target))
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def _size_warning(input, target):
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction, weight)
    return _loss.mse_loss(input, target, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction, weight)
    return _loss.l1_loss(input, target, reduction, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _size_warning(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _size_warning(input, target)
    _check_reduction(reduction)
    return _loss.huber_loss(input, target, reduction, delta, weight)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        if reduction != "batchmean":
            _check_reduction(reduction)
    return _loss.kl_div(input, target, reduction, log_target)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.poisson_nll_loss(input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    return _loss.gaussian_nll_loss(input, target, var, full, eps, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.cosine_embedding_loss(input1, input2, target, margin, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.margin_ranking_loss(input1, input2, target, margin, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.hinge_embedding_loss(input, target, margin, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.soft_margin_loss(input, target, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return _loss.multilabel_soft_margin_loss(input, target, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.multilabel_margin_loss(input, target, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _loss.multi_margin_loss(input, target, p, margin, weight, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    return _loss.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _loss.triplet_margin_with_distance_loss(
        anchor, positive, negative, distance_function=distance_function, margin=margin,
        swap=swap, reduction=reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    _check_reduction(reduction)
    return _loss.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                          zero_infinity)


# ---- attention (scaled_dot_product_attention, multi_head_attention_forward)

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _sdpa_checks(query, key, value, attn_mask, dropout_p):
    try:
        q, k, v = query._data, key._data, value._data
    except AttributeError as e:
        raise _not_tensor(e) from None
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
    q = _scalar_op(query, factor, MulBackward1)
    if enable_gqa and hq != hk:
        key = key.repeat_interleave(hq // hk, -3)
        value = value.repeat_interleave(hq // hk, -3)
    attn = q.matmul(_scalar_op(key.transpose(-2, -1), factor, MulBackward1))
    if is_causal:
        L, S = query._data.shape[-2], key._data.shape[-2]
        attn_mask = wrap(np.tri(L, S, dtype=np.bool_))
    if attn_mask is not None:
        attn = attn + _attn._float_mask(attn_mask, query._data.dtype)
    attn = _attn._safe_softmax(attn, -1)
    if dropout_p > 0:
        attn = _drop.dropout(attn, dropout_p, True)
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
            weights = _drop.dropout(weights, dropout_p, True)
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
# ---- nnmod: bilinear, embedding, embedding_bag



def _sparse_unsupported(sparse):
    if sparse:
        raise RuntimeError("ember: sparse gradients (sparse=True) are not supported")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    _sparse_unsupported(sparse)
    try:
        n = weight._data.shape[0] if weight._data.ndim else 0
    except AttributeError as e:
        raise _not_tensor(e) from None
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
    try:
        if weight._data.dtype.kind in "iu" and input._data.dtype.kind == "f":
            warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                          "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                          "`embedding_bag(input, weight, ...)`.", stacklevel=2)
            weight, input = input, weight
    except AttributeError as e:
        raise _not_tensor(e) from None
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight._data.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight._data.ndim}")
    try:
        nd = input._data.ndim
    except AttributeError as e:
        raise _not_tensor(e) from None
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
    _check_args("max_pool1d_with_indices", ("kernel_size", 2, "tuple of ints", kernel_size))
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    _check_args("max_pool2d_with_indices", ("kernel_size", 2, "tuple of ints", kernel_size))
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    _check_args("max_pool3d_with_indices", ("kernel_size", 2, "tuple of ints", kernel_size))
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool3d(input, output_size, True)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return _upsample(input, size, scale_factor, mode, align_corners, "upsample")


def upsample_nearest(input, size=None, scale_factor=None):
    return _upsample(input, size, scale_factor, "nearest", None, "upsample_nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return _upsample(input, size, scale_factor, "bilinear", True, "upsample_bilinear")


# ---- nnaudit: one_hot

def one_hot(tensor, num_classes=-1):
    """torch.nn.functional.one_hot: int64 indices -> int64 one-hot rows (not differentiable)."""
    if not isinstance(tensor, Tensor):
        raise TypeError("one_hot(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)):
        raise TypeError("one_hot(): argument 'num_classes' (position 2) must be int, not "
                        f"{type(num_classes).__name__}")
    idx = tensor._data
    if idx.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = int(num_classes)
    if idx.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if idx.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(idx.max()) + 1
        elif idx.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    # compare against a class axis: one vectorised pass, no scatter loop
    return wrap((idx[..., None] == np.arange(num_classes)).astype(np.int64))


# ---------------------------------------------------------------- power-average pools, linear CE

def _lp_finish(out, norm_type, count):
    """torch's lp_pool tail: (sign(out) * relu(|out|)) * (window size), to the 1/p."""
    return (_sign(out) * relu(out.abs())).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """torch.nn.functional.lp_pool1d: avg_pool1d of x^p, times the window, to the 1/p."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """torch.nn.functional.lp_pool2d (as lp_pool1d, over kh * kw windows)."""
    kw, kh = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 2
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kw * kh)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """torch.nn.functional.lp_pool3d (as lp_pool1d, over kd * kh * kw windows)."""
    kd, kw, kh = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 3
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_finish(out, norm_type, kd * kw * kh)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """torch.nn.functional.linear_cross_entropy: cross_entropy(linear(input, W, b), target)
    (torch's options only choose how the product is chunked to save memory; ignore_index=None
    ignores nothing: torch's default of -100 gives the same losses for valid targets)."""
    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    logits = linear(input, linear_weight, linear_bias)
    return cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None
                         else ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)




def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """torch.nn.functional.gumbel_softmax: softmax((logits + g) / tau) with g = -log(E),
    E ~ Exponential(1) drawn from the generator as torch draws it; hard=True returns the
    one-hot of the argmax with the soft sample's gradient (y_hard - y_soft.detach() +
    y_soft)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not isinstance(logits, Tensor):      # (torch's first use of it: empty_like)
        raise TypeError(f"empty_like(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(logits).__name__}")
    gumbels = -_empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool2d (FractionalMaxPool2DBackward0)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                               _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """torch.nn.functional.fractional_max_pool3d (FractionalMaxPool3DBackward0)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                               _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def assert_int_or_pair(arg, arg_name, message):
    """torch.nn.functional's argument check left public: arg is an int or has two items (a
    length-2 sequence); otherwise AssertionError(message.format(arg_name))."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
