"""Normalization: batch_norm (NativeBatchNormBackward0, with the running statistics updated in
place), layer_norm (NativeLayerNormBackward0), group_norm (NativeGroupNormBackward0), and the
ones torch composes from other ops: instance_norm (batch_norm on a (1, N*C, ...) view),
rms_norm, local_response_norm, normalize. Statistics are accumulated in float64 (torch's CPU
accumulation type for float). The backward formulas are ember ops on the saved input, so double
backward works; when recording they recompute the statistics from the input so that their
dependence on it is differentiated too."""
__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm",
           "local_response_norm", "normalize"]

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi
from ..dtypes import type_name
from ..tensor import wrap
from ._args import needs, requires, write_out
from ._args import not_tensor, wrong_type, check_args, channels_last_result
from ._views import mark_written
from .arith import scalar_op, AddBackward1
from .join import cat
from .reduce import vector_norm


def _float_kernel(x, kernel):
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(x.dtype)}'")


def _stats(x, axes):
    """Mean and biased variance of x over axes (keepdims, float64), the sums accumulated in
    float64 without a float64 copy of x."""
    mean = x.mean(axis=axes, keepdims=True, dtype=np.float64)
    d = x - mean.astype(x.dtype)
    d *= d
    var = d.mean(axis=axes, keepdims=True, dtype=np.float64)
    return mean, var


def _normalize(x, mean, rstd, weight, bias, bshape=None):
    """(x - mean) * rstd (* weight + bias) in x's dtype, the statistics rounded to it."""
    dt = x.dtype
    scale = rstd.astype(dt)
    if weight is not None:
        w = weight._data if bshape is None else weight._data.reshape(bshape)
        scale = scale * w.astype(dt, copy=False)
    out = x - mean.astype(dt)
    out *= scale
    if bias is not None:
        out += bias._data if bshape is None else bias._data.reshape(bshape)
    return out


def _invstd(var, eps):
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(var + eps)


def _normalized_backward(g, xhat, invstd, axes):
    """d/dx of (x - mean) * invstd over axes, applied to g (the gradient at xhat)."""
    return invstd * (g - g.mean(axes, keepdim=True) -
                     xhat * (g * xhat).mean(axes, keepdim=True))


def _live_stats(x, axes, eps):
    """mean and 1/sqrt(var + eps) of tensor x over axes as recorded ember ops (for double
    backward)."""
    mean = x.mean(axes, keepdim=True)
    c = x - mean
    return mean, ((c * c).mean(axes, keepdim=True) + eps).rsqrt()


# ---------------------------------------------------------------- batch_norm

class NativeBatchNormBackward0(Node):        # derivatives.yaml: native_batch_norm
    __slots__ = ("_saved_input", "_saved_weight", "_saved_running_mean", "_saved_running_var",
                 "_saved_result1", "_saved_result2", "_saved_training", "_saved_eps")
    _saved_names = ("_saved_input", "_saved_weight", "_saved_result1", "_saved_result2")

    def apply(self, grad):
        x, w = self._saved_input, self._saved_weight
        nd = x._data.ndim
        axes = (0,) + tuple(range(2, nd))
        bshape = (1, -1) + (1,) * (nd - 2)
        if self._saved_training:
            if STATE.enabled:
                mean, invstd = _live_stats(x, axes, self._saved_eps)
            else:
                mean = self._saved_result1.reshape(bshape)
                invstd = self._saved_result2.reshape(bshape)
        else:
            mean = wrap(self._saved_running_mean._data.reshape(bshape))
            invstd = wrap(_invstd(self._saved_running_var._data.astype(np.float64),
                                  self._saved_eps).astype(x._data.dtype).reshape(bshape))
        xhat = (x - mean) * invstd
        gx = gw = gb = None
        if needs(self, 0):
            g = grad if w is None else grad * w.reshape(bshape)
            gx = _normalized_backward(g, xhat, invstd, axes) if self._saved_training else \
                g * invstd
        if needs(self, 1):
            gw = (grad * xhat).sum(axes)
        if needs(self, 2):
            gb = grad.sum(axes)
        return gx, gw, gb


def _check_params(x, weight, bias, running_mean, running_var):
    """torch's size and dtype checks of batch_norm's parameters and running statistics."""
    c = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    given = [t for t in (weight, bias, running_mean, running_var) if t is not None]
    params = [t._data.dtype for t in given]
    if params and params[0] != x.dtype:
        # mixed types: only a half input with float parameters
        if any(d != np.float32 for d in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if x.dtype != np.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for t in (running_mean, running_var):
        if t is not None and t._data.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found "
                               f"{type_name(t._data.dtype)}")


@channels_last_result
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    x = input._data
    if x.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got 1)")
    _float_kernel(x, "batch_norm")
    c = x.shape[1]
    _check_params(x, weight, bias, running_mean, running_var)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and STATE.enabled and t._requires_grad:
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have "
                               "requires_grad True.")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if training:
        mean, var = _stats(x, axes)
        invstd = _invstd(var, eps)
        if running_mean is not None or running_var is not None:
            n = x.size // c if c else 0
            _update_running(running_mean, running_var, mean, var, n, momentum)
    else:
        mean = running_mean._data.astype(np.float64).reshape(bshape)
        invstd = _invstd(running_var._data.astype(np.float64).reshape(bshape), eps)
    # (x - mean) * (invstd * weight) + bias in the input's dtype, from the statistics rounded
    # to it (centring first keeps a large mean from cancelling digits)
    out = _normalize(x, mean, invstd, weight, bias, bshape)
    res = wrap(out)
    if requires(input, weight, bias):
        node = NativeBatchNormBackward0()
        node._saved_input = input
        node._saved_weight = weight
        node._saved_running_mean = running_mean
        node._saved_running_var = running_var
        if training:
            node._saved_result1 = wrap(mean.reshape(c).astype(x.dtype))
            node._saved_result2 = wrap(invstd.reshape(c).astype(x.dtype))
        else:
            node._saved_result1 = node._saved_result2 = wrap(np.empty(0, x.dtype))
        node._saved_training = training
        node._saved_eps = eps
        link(res, node, input, weight, bias)
    return res


def _update_running(running_mean, running_var, mean, var, n, momentum):
    """running = (1 - momentum) * running + momentum * batch statistic (the variance
    unbiased), written in place (torch does it under no_grad)."""
    if running_mean is not None:
        rm = running_mean._data
        new = (1 - momentum) * rm.astype(np.float64) + momentum * mean.reshape(-1)
        np.copyto(rm, new, casting="unsafe")
        mark_written(running_mean)
    if running_var is not None:
        rv = running_var._data
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = var.reshape(-1) * n / (n - 1)
        new = (1 - momentum) * rv.astype(np.float64) + momentum * unbiased
        np.copyto(rv, new, casting="unsafe")
        mark_written(running_var)


# ---------------------------------------------------------------- layer_norm

class NativeLayerNormBackward0(Node):        # derivatives.yaml: native_layer_norm
    __slots__ = ("_saved_input", "_saved_normalized_shape", "_saved_weight", "_saved_bias",
                 "_saved_result1", "_saved_result2", "_eps")
    _saved_names = ("_saved_input", "_saved_weight", "_saved_bias", "_saved_result1",
                    "_saved_result2")

    def apply(self, grad):
        x, w = self._saved_input, self._saved_weight
        nd, k = x._data.ndim, len(self._saved_normalized_shape)
        axes = tuple(range(nd - k, nd))
        if STATE.enabled:
            mean, rstd = _live_stats(x, axes, self._eps)
        else:
            mean, rstd = self._saved_result1, self._saved_result2
        xhat = (x - mean) * rstd
        gx = gw = gb = None
        lead = tuple(range(nd - k))
        if needs(self, 0):
            g = grad if w is None else grad * w
            gx = _normalized_backward(g, xhat, rstd, axes)
            if not gx._data.flags.c_contiguous:     # (torch's kernel writes C order)
                gx = gx.contiguous()
        if needs(self, 1):
            gw = (grad * xhat).sum(lead) if lead else grad * xhat
        if needs(self, 2):
            gb = grad.sum(lead) if lead else grad
        return gx, gw, gb


def _check_normalized_shape(x, shape, name="layer_norm"):
    if isinstance(shape, int) and name == "layer_norm":
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    try:
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise wrong_type(shape, "tuple of ints") from None
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    k = len(shape)
    if x.shape[x.ndim - k:] != shape or x.ndim < k:
        star = "*, " if name == "layer_norm" else "*"
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[{star}{', '.join(map(str, shape))}], but got input of "
                           f"size{list(x.shape)}")
    return shape


def _check_affine_shape(t, shape, what):
    if t is not None and t._data.shape != shape:
        raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got "
                           f"{what} of shape {list(t._data.shape)} and normalized_shape = "
                           f"{list(shape)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    shape = _check_normalized_shape(x, normalized_shape)
    _check_affine_shape(weight, shape, "weight")
    _check_affine_shape(bias, shape, "bias")
    _float_kernel(x, "LayerNormKernelImpl")
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean, var = _stats(x, axes)
    rstd = _invstd(var, eps)
    # (C-contiguous whatever the input's layout, as torch's kernel writes it)
    res = wrap(np.asarray(_normalize(x, mean, rstd, weight, bias), order="C"))
    if requires(input, weight, bias):
        node = NativeLayerNormBackward0()
        node._saved_input = input
        node._saved_normalized_shape = shape
        node._saved_weight = weight
        node._saved_bias = bias
        node._saved_result1 = wrap(mean.astype(x.dtype))
        node._saved_result2 = wrap(rstd.astype(x.dtype))
        node._eps = eps
        link(res, node, input, weight, bias)
    return res


# ---------------------------------------------------------------- group_norm

class NativeGroupNormBackward0(Node):        # derivatives.yaml: native_group_norm
    __slots__ = ("_saved_input", "_saved_weight", "_saved_N", "_saved_C", "_saved_HxW",
                 "_saved_group", "_saved_eps", "_saved_result1", "_saved_result2", "_n_outputs")
    _saved_names = ("_saved_input", "_saved_weight", "_saved_result1", "_saved_result2")

    def apply(self, grad):
        gmean = grstd = None
        if self._n_outputs != 1:    # native_group_norm: (output, mean, rstd)
            grad, gmean, grstd = grad
            if gmean is None or grstd is None:  # torch 2.13 reads the statistics' gradients
                gmean = grstd = None            # only when both are defined
            if grad is None and gmean is None:
                return None, None, None
        x, w = self._saved_input, self._saved_weight
        n, c, grp = self._saved_N, self._saved_C, self._saved_group
        shape = x._data.shape
        xg = x.reshape(n, grp, -1)
        if STATE.enabled:
            mean, rstd = _live_stats(xg, (2,), self._saved_eps)
        else:
            mean = self._saved_result1.reshape(n, grp, 1)
            rstd = self._saved_result2.reshape(n, grp, 1)
        xhat = ((xg - mean) * rstd).reshape(shape)
        bshape = (1, c) + (1,) * (len(shape) - 2)
        axes = (0,) + tuple(range(2, len(shape)))
        gx = gw = gb = None
        if needs(self, 0) and grad is not None:
            g = grad if w is None else grad * w.reshape(bshape)
            gx = _normalized_backward(g.reshape(n, grp, -1), xhat.reshape(n, grp, -1), rstd,
                                      (2,)).reshape(shape)
        if needs(self, 0) and gmean is not None:   # d mean = 1/M, d rstd = -rstd^3 (x-mean)/M
            gs = (gmean.reshape(n, grp, 1) - grstd.reshape(n, grp, 1) * rstd ** 3 * (xg - mean)) \
                / xg.shape[2]
            gx = gs.reshape(shape) if gx is None else gx + gs.reshape(shape)
        if grad is None:
            return gx, None, None
        if needs(self, 1):
            gw = (grad * xhat).sum(axes)
        if needs(self, 2):
            gb = grad.sum(axes)
        return gx, gw, gb


@channels_last_result
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    check_args("group_norm", ("num_groups", 2, "int", num_groups),
               ("weight", 3, "Tensor", weight, True), ("bias", 4, "Tensor", bias, True),
               ("eps", 5, "float", eps))
    return _group_norm(input, num_groups, weight, bias, eps, False)


def _group_norm(input, num_groups, weight, bias, eps, stats):
    """group_norm's output; with stats, (output, mean, rstd) all three from one
    NativeGroupNormBackward0 (torch.native_group_norm's outputs)."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{x.ndim}")
    n, c = x.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(x.shape)} and "
                           f"num_groups={num_groups}")
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(f"Expected {what} to be a vector of size equal to the number of "
                               f"channels in input, but got {what} of shape "
                               f"{list(t._data.shape)} and input of shape {list(x.shape)}")
    _float_kernel(x, "GroupNormKernelImpl")
    hw = int(np.prod(x.shape[2:]))
    xg = x.reshape(n, num_groups, -1)
    mean, var = _stats(xg, (2,))
    rstd = _invstd(var, eps)
    out = _normalize(xg, mean, rstd, None, None).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out *= weight._data.reshape(bshape)
    if bias is not None:
        out += bias._data.reshape(bshape)
    res = wrap(out)
    mean = wrap(mean.reshape(n, num_groups).astype(x.dtype))
    rstd = wrap(rstd.reshape(n, num_groups).astype(x.dtype))
    if requires(input, weight, bias):
        node = NativeGroupNormBackward0()
        node._n_outputs = 3 if stats else 1
        node._saved_input = input
        node._saved_weight = weight
        node._saved_N, node._saved_C, node._saved_HxW = n, c, hw
        node._saved_group = num_groups
        node._saved_eps = eps
        node._saved_result1 = wrap(mean._data) if stats else mean   # (no node -> output
        node._saved_result2 = wrap(rstd._data) if stats else rstd   # -> node cycle)
        if stats:
            return link_multi((res, mean, rstd), node, input, weight, bias)
        link(res, node, input, weight, bias)
    return (res, mean, rstd) if stats else res


# ---------------------------------------------------------------- instance_norm

def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """batch_norm over a (1, N*C, *) view of the input, with the affine parameters and running
    statistics repeated N times (the running statistics then get the mean over N of the
    repeated copies), as torch composes it."""
    x = input._data
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = x.shape[:2]
    view = input.reshape((1, n * c) + x.shape[2:])
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    rm = wrap(np.tile(running_mean._data, n)) if running_mean is not None else None
    rv = wrap(np.tile(running_var._data, n)) if running_var is not None else None
    out = batch_norm(view, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        for mine, rep in ((running_mean, rm), (running_var, rv)):
            if mine is not None:
                np.copyto(mine._data, rep._data.reshape(n, c).mean(0), casting="unsafe")
                mark_written(mine)
    return out.reshape(x.shape)


# ---------------------------------------------------------------- rms_norm

def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input * rsqrt(mean(input^2) + eps) (* weight), composed as torch composes it."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    shape = _check_normalized_shape(x, normalized_shape, "rms_norm")
    _check_affine_shape(weight, shape, "weight")
    if eps is None:
        eps = float(np.finfo(x.dtype).eps) if x.dtype.kind == "f" else 1.1920928955078125e-07
    dims = tuple(range(x.ndim - len(shape), x.ndim))
    ms = input.pow(2).mean(dims, keepdim=True)
    out = input * scalar_op(ms, eps, AddBackward1).rsqrt()
    return out * weight if weight is not None else out


# ---------------------------------------------------------------- local_response_norm

def _channel_window_mean(sq, size):
    """Mean over a window of `size` channels (dim 1), zero-padded size // 2 before and
    (size - 1) // 2 after: torch pads and runs avg_pool2d/3d; here the padded tensor's shifted
    slices are summed (one pass per window position)."""
    c = sq._data.shape[1]
    before, after = size // 2, (size - 1) // 2
    zshape = list(sq._data.shape)
    parts = []
    if before:
        zshape[1] = before
        parts.append(wrap(np.zeros(zshape, sq._data.dtype)))
    parts.append(sq)
    if after:
        zshape[1] = after
        parts.append(wrap(np.zeros(zshape, sq._data.dtype)))
    padded = cat(parts, 1) if len(parts) > 1 else sq
    total = padded.narrow(1, 0, c)
    for k in range(1, size):
        total = total + padded.narrow(1, k, c)
    return total / size


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    try:
        dim = input._data.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input._data.size == 0:
        return input
    div = _channel_window_mean(input * input, size)
    div = (div * alpha + k) ** beta
    return input / div


# ---------------------------------------------------------------- normalize

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    # torch's F.normalize calls input.norm(p, dim): None is the 2-norm, 'fro' over one dim too,
    # any other string asks for a matrix norm, which one dim cannot give
    if p is None or isinstance(p, str) and p == "fro":
        p = 2.0
    elif isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    check_args("linalg_vector_norm", ("ord", 2, "Number", p), ("dim", 3, "tuple of ints", dim))
    denom = vector_norm(input, p, dim, True).clamp_min(eps).expand_as(input)
    return write_out(input / denom, out)
