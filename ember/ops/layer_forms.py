"""torch.*'s own forms of the layer ops (torch.dropout(input, p, train), torch.layer_norm(...,
cudnn_enable), torch.kl_div(input, target, reduction: int), the native_* tuples, ...): torch's
positional signatures over the ops nn.functional uses. A loss's reduction is an int here (1 mean,
2 sum, anything else none) and defaults to none, as torch's top-level bindings do."""
__all__ = ["dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
           "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout",
           "batch_norm", "native_batch_norm", "batch_norm_update_stats", "cudnn_is_acceptable", "layer_norm", "native_layer_norm", "group_norm",
           "native_group_norm", "instance_norm", "rms_norm",
           "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss",
           "kl_div", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
           "ctc_loss", "celu", "celu_", "selu", "selu_", "rrelu", "rrelu_", "threshold",
           "threshold_", "hardshrink", "prelu", "max_pool1d", "max_pool1d_with_indices",
           "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
           "embedding", "embedding_bag", "embedding_renorm_", "norm_except_dim",
           "channel_shuffle", "native_channel_shuffle"]

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, NotImplementedBackward, link, saved_given
from ..tensor import wrap
from . import activation as _act
from . import dropout as _drop
from . import embedding as _emb
from . import loss as _loss
from . import normalization as _norm
from . import pool as _pool
from ._args import saved_output, write_out
from ._args import not_tensor, check_args
from .distance import _norm_np
from .normalization import _stats, _invstd      # (the statistics batch_norm computes)
from .reduce import _norm_backward


# ---------------------------------------------------------------- dropout

def dropout(input, p, train):
    return _drop.dropout(input, p, train)


def dropout_(input, p, train):
    return _drop.dropout(input, p, train, True)


def feature_dropout(input, p, train):
    return _drop.feature_dropout(input, p, train)


def feature_dropout_(input, p, train):
    return _drop.feature_dropout(input, p, train, True)


def alpha_dropout(input, p, train):
    return _drop.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return _drop.alpha_dropout(input, p, train, True)


def feature_alpha_dropout(input, p, train):
    return _drop.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return _drop.feature_alpha_dropout(input, p, train, True)


class NativeDropoutBackward0(Node):          # derivatives.yaml: native_dropout
    __slots__ = ("_saved_p", "_saved_result1", "_scale")     # (_scale: what grad is scaled by)
    _saved_names = ("_saved_result1",)

    def apply(self, grad):
        return grad * (self._saved_result1 * self._scale),


def native_dropout(input, p, train):
    """(output, keep mask): the mask drawn as dropout draws it (bernoulli_(1 - p)); train=None
    means training. Eval mode keeps everything and still links the node, as torch does."""
    x = input._data
    if train is None or train:
        noise = wrap(np.empty(x.shape, x.dtype))
        noise.bernoulli_(1 - p)              # torch's draw (ember/random.py), p == 1 too
        mask = noise._data.astype(bool)
        scale = 0.0 if p == 1 else 1.0 / (1 - p)
        out = x * (mask * x.dtype.type(scale)).astype(x.dtype, copy=False)
        # (torch's backward scales by 1/(1 - p) only when train is given as True)
        scale = scale if train else 1.0
    else:
        mask = np.ones(x.shape, bool)
        scale = 1.0
        out = x.copy()
    res = wrap(out)
    if STATE.enabled and input._requires_grad:
        node = NativeDropoutBackward0()
        node._saved_result1 = wrap(mask)
        node._saved_p, node._scale = p, scale
        link(res, node, input)
    return res, wrap(mask)


# ---------------------------------------------------------------- normalization

def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                            eps)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): the batch statistics per channel in training, empty
    tensors in eval mode."""
    x = input._data
    if training and x.ndim >= 2:
        mean, var = _stats(x, (0,) + tuple(range(2, x.ndim)))
    out = _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)
    if not training:
        return out, wrap(np.empty(0, x.dtype)), wrap(np.empty(0, x.dtype))
    return (out, wrap(mean.reshape(-1).astype(x.dtype)),
            wrap(_invstd(var, eps).reshape(-1).astype(x.dtype)))


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased variance) per channel of an (N, C, *) input, and the running statistics
    moved toward them in place as batch_norm's training step does. torch defines no derivative:
    the statistics of an input that requires grad get the NotImplemented node."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got 1)")
    _norm._float_kernel(x, "batch_norm_update_stats_cpu")
    c = x.shape[1]
    mean, var = _stats(x, (0,) + tuple(range(2, x.ndim)))
    if running_mean is not None or running_var is not None:
        _norm._update_running(running_mean, running_var, mean, var, x.size // c if c else 0,
                              momentum)
    outs = (wrap(mean.reshape(c).astype(x.dtype)), wrap(var.reshape(c).astype(x.dtype)))
    if STATE.enabled and input._requires_grad:
        for o in outs:
            node = NotImplementedBackward()
            node._op = "batch_norm_update_stats"
            link(o, node, input)
    return outs


def cudnn_is_acceptable(input):
    """Whether cuDNN could run an op on input: never, for a tensor on the CPU."""
    check_args("cudnn_is_acceptable", ("input", 1, "Tensor", input))
    return False


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd), the statistics shaped as the input with the normalized dims 1."""
    out = _norm.layer_norm(input, normalized_shape, weight, bias, eps)
    x = input._data
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    mean, var = _stats(x, tuple(range(x.ndim - k, x.ndim)))
    return out, wrap(mean.astype(x.dtype)), wrap(_invstd(var, eps).astype(x.dtype))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd), the statistics of shape (N, group), all three outputs of one
    NativeGroupNormBackward0 (as in torch; only the output's gradient flows back)."""
    return _norm._group_norm(input, group, weight, bias, eps, True)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return _norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                               momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _norm.rms_norm(input, normalized_shape, weight, eps)


# ---------------------------------------------------------------- losses

def _reduction(name, reduction, pos):
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {pos}) must be int, not "
                        f"{type(reduction).__name__}")
    return "mean" if reduction == 1 else "sum" if reduction == 2 else "none"


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _loss.binary_cross_entropy_with_logits(
        input, target, weight, _reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _loss.cosine_embedding_loss(input1, input2, target, margin,
                                       _reduction("cosine_embedding_loss", reduction, 5))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _loss.hinge_embedding_loss(input, target, margin,
                                      _reduction("hinge_embedding_loss", reduction, 4))


def kl_div(input, target, reduction=0, *, log_target=False):
    return _loss.kl_div(input, target, _reduction("kl_div", reduction, 3), log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _loss.margin_ranking_loss(input1, input2, target, margin,
                                     _reduction("margin_ranking_loss", reduction, 5))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _loss.poisson_nll_loss(input, target, log_input, full, eps,
                                  _reduction("poisson_nll_loss", reduction, 6))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    return _loss.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     _reduction("triplet_margin_loss", reduction, 8))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    return _loss.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                          _reduction("ctc_loss", reduction, 6), zero_infinity)


# ---------------------------------------------------------------- activations

def celu(input, alpha=1.0):
    return _act.celu(input, alpha)


def celu_(input, alpha=1.0):
    return _act.celu_(input, alpha)


def selu(input):
    return _act.selu(input)


def selu_(input):
    return _act.selu_(input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _act.rrelu(input, lower, upper, training, generator=generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _act.rrelu_(input, lower, upper, training, generator)


def threshold(input, threshold, value):
    return _act.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _act.threshold_(input, threshold, value)


def hardshrink(input, lambd=0.5, *, out=None):
    return write_out(_act.hardshrink(input, lambd), out)


def prelu(input, weight):
    return _act.prelu(input, weight)


# ---------------------------------------------------------------- pooling

def _stride(stride):
    return None if stride is None or isinstance(stride, (tuple, list)) and not stride else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    check_args("max_pool1d_with_indices", ("kernel_size", 2, "tuple of ints", kernel_size))
    return _pool.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode,
                            True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    return _pool.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                            count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _pool.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    return _pool.adaptive_max_pool1d(input, output_size, True)


# ---------------------------------------------------------------- embeddings

def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if sparse:
        raise RuntimeError("ember: sparse gradients (sparse=True) are not supported")
    return _emb.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)


def embedding_renorm_(input, indices, max_norm, norm_type):
    return _emb.embedding_renorm_(input, indices, max_norm, norm_type)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices) as torch's CPU kernel returns them: for sum
    mode offset2bag is empty and bag_size/max_indices are zeros (one per offset); for mean
    mode max_indices repeats bag_size; for max mode it holds each maximum's row index."""
    if sparse:
        raise RuntimeError("ember: sparse gradients (sparse=True) are not supported")
    n = weight._data.shape[0]
    pad = -1 if padding_idx is None else padding_idx + n if padding_idx < 0 else padding_idx
    out = _emb.embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                             per_sample_weights, include_last_offset, pad)
    idx = indices._data.astype(np.int64, copy=False)
    off = offsets._data.astype(np.int64, copy=False)
    bags = off.shape[0] - 1 if include_last_offset else off.shape[0]
    if mode == 0:
        zeros = np.zeros(bags, np.int64)
        return out, wrap(np.empty(0, np.int64)), wrap(zeros), wrap(zeros.copy())
    offset2bag = np.searchsorted(off[:bags], np.arange(idx.shape[0]), side="right") - 1
    keep = idx != pad
    bag_size = np.bincount(offset2bag[keep], minlength=bags)[:bags].astype(np.int64)
    if mode == 1:
        return out, wrap(offset2bag), wrap(bag_size), wrap(bag_size.copy())
    # each maximum's row: the first position in its bag holding the bag's maximum
    w = weight._data
    pos = np.nonzero(keep)[0]
    vals, bag = w[idx[pos]], offset2bag[pos]
    best = np.full((bags, w.shape[1]), -np.inf)
    np.maximum.at(best, bag, vals)
    first = np.full(best.shape, idx.shape[0])
    hit = vals == best[bag]
    rows, cols = np.nonzero(hit)
    np.minimum.at(first, (bag[rows], cols), pos[rows])
    max_indices = np.where(first < idx.shape[0], idx[np.minimum(first, max(idx.shape[0] - 1, 0))]
                           if idx.shape[0] else 0, 0).astype(np.int64)
    return out, wrap(offset2bag), wrap(bag_size), wrap(max_indices)


class NormBackward0(Node):                   # derivatives.yaml: norm.Scalar
    __slots__ = ("_saved_self", "_p", "_p_arg", "_saved_result")
    _saved_p = saved_given("_p", "_p_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        return _norm_backward(grad, s, saved_output(self, self._saved_result), self._p,
                              tuple(range(s._data.ndim)), False),


def _norm_all(v, p):
    """at::norm(v, p) over every element, recorded as NormBackward0."""
    given, p = p, float(p)
    res = wrap(_norm_np(v._data.reshape(-1), p, 0, False).reshape(()))
    if STATE.enabled and v._requires_grad:
        node = NormBackward0()
        node._saved_self = v
        node._p, node._p_arg = p, given
        node._saved_result = res.detach()
        link(res, node, v)
    return res


def norm_except_dim(v, pow=2, dim=0):
    """The norm over every dim but dim, shaped with 1 there (weight_norm's g); dim=-1: the norm
    of everything."""
    check_args("norm_except_dim", ("pow", 2, "int", pow), ("dim", 3, "int", dim))
    if dim == -1:
        return _norm_all(v, pow)
    try:
        nd = v.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    dim = dim + nd if dim < 0 else dim
    out_shape = tuple(s if i == dim else 1 for i, s in enumerate(v.shape))
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(out_shape)
    if dim == nd - 1:
        return v.contiguous().view(-1, v.shape[nd - 1]).norm(pow, 0).view(out_shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


# ---------------------------------------------------------------- channel shuffle

class ChannelShuffleBackward0(Node):         # derivatives.yaml: channel_shuffle
    __slots__ = ("_saved_groups",)

    def apply(self, grad):
        return channel_shuffle(grad, grad.shape[1] // self._saved_groups),


def _shuffle(x, groups):
    if x.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(x.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = x.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    n = x.shape[0]
    y = x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2)
    return np.ascontiguousarray(y).reshape(x.shape)


def channel_shuffle(input, groups):
    check_args("channel_shuffle", ("groups", 2, "int", groups))
    try:
        res = wrap(_shuffle(input._data, groups))
    except AttributeError as e:
        raise not_tensor(e) from None
    if STATE.enabled and input._requires_grad:
        node = ChannelShuffleBackward0()
        node._saved_groups = groups
        link(res, node, input)
    return res


def native_channel_shuffle(input, groups):
    check_args("native_channel_shuffle", ("groups", 2, "int", groups))
    """channel_shuffle with torch's NotImplemented node (it has no derivative formula)."""
    try:
        res = wrap(_shuffle(input._data, groups))
    except AttributeError as e:
        raise not_tensor(e) from None
    if STATE.enabled and input._requires_grad:
        node = NotImplementedBackward()
        node._op = "native_channel_shuffle"
        link(res, node, input)
    return res
