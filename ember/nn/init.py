"""torch.nn.init: in-place initialisations under no_grad, each calling the same sampling
primitives (uniform_, normal_, randperm) in the same order as torch, so that with torch's
random streams they give torch's numbers."""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops._views import mark_written
from ..random import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant",
           "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse", "eye", "dirac"]


def _no_grad_uniform_(tensor, a, b, generator):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def calculate_gain(nonlinearity, param=None):
    linear_fns = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d")
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    return _no_grad_normal_(tensor, mean, std, generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) restricted to [a, b] by rejection, as torch 2.13 samples it: with
    normal proposals (whole-tensor redraws replacing the values still outside) when [a, b]
    holds at least 30% of the mass, else with uniform proposals on [a, b] accepted with
    probability pdf(x) / max pdf on [a, b] (a uniform_(a, b) and a uniform_() per round)."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    arr = tensor._data
    if mass >= 0.3:
        _no_grad_normal_(tensor, mean, std, generator)
        pending = (arr < a) | (arr > b)
        while pending.any():
            new = _no_grad_normal_(tensor.new_empty(arr.shape), mean, std, generator)._data
            arr[pending] = new[pending]
            pending &= (new < a) | (new > b)
    else:
        nearest = min(max(mean, a), b)     # where the density peaks on [a, b]

        def accepted(x, u):
            return u <= np.exp(-((x - mean) ** 2 - (nearest - mean) ** 2) / (2 * std * std))
        _no_grad_uniform_(tensor, a, b, generator)
        u = _no_grad_uniform_(tensor.new_empty(arr.shape), 0.0, 1.0, generator)._data
        pending = ~accepted(arr, u)
        while pending.any():
            x = _no_grad_uniform_(tensor.new_empty(arr.shape), a, b, generator)._data
            u = _no_grad_uniform_(tensor.new_empty(arr.shape), 0.0, 1.0, generator)._data
            take = pending & accepted(x, u)
            arr[take] = x[take]
            pending &= ~take
    with no_grad():
        mark_written(tensor)
    return tensor


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        arr = tensor._data
        np.copyto(arr, np.eye(*arr.shape, dtype=arr.dtype))
        mark_written(tensor)
    return tensor


def dirac_(tensor, groups=1):
    """The identity for a conv weight: 1 at the kernel centre of (out=g*k+d, in=d)."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    n = min(per_group, sizes[1])
    with no_grad():
        arr = tensor._data
        arr[...] = 0
        d = np.arange(n)
        out = (np.arange(groups)[:, None] * per_group + d).reshape(-1)
        centre = tuple(s // 2 for s in sizes[2:])
        arr[(out, np.tile(d, groups)) + centre] = 1
        mark_written(tensor)
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return _no_grad_normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Q of the QR factorisation of a standard normal (rows x rest) matrix (of its transpose
    when wider than tall), columns' signs fixed by R's diagonal, times gain."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols))
    _no_grad_normal_(flat, 0, 1, generator)
    a = flat._data.T if rows < cols else flat._data
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diagonal(r))
    if rows < cols:
        q = q.T
    with no_grad():
        np.copyto(tensor._data, q.reshape(tensor._data.shape), casting="unsafe")
        mark_written(tensor)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) with ceil(sparsity * rows) entries of each column set to 0 (rows chosen
    by one randperm per column, as torch draws them)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    _no_grad_normal_(tensor, 0, std, generator)
    with no_grad():
        arr = tensor._data
        for col in range(cols):     # one draw per column: the stream order is torch's
            arr[randperm(rows)._data[:num_zeros], col] = 0
        mark_written(tensor)
    return tensor


def _deprecated(new):
    name = new.__name__[:-1]

    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{name}` is now deprecated in favor of "
                      f"`nn.init.{new.__name__}`.", FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = name
    old.__doc__ = f"Deprecated alias of {new.__name__}."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
sparse = _deprecated(sparse_)
