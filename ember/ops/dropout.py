"""Dropout, feature (channel) dropout and alpha dropout, composed as torch composes them: a noise
tensor of the input's shape (or (N, C, 1, ...) for feature dropout) filled by bernoulli_(1 - p)
from the default stream, scaled, and multiplied in (MulBackward0; alpha dropout adds a shift:
AddBackward0). p == 0, eval mode and empty inputs return the input itself; p == 1 multiplies by
a 0-dim zero and draws nothing."""
__all__ = ["dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"]

import math

import numpy as np

from ..tensor import wrap
from ._args import not_tensor, torch_layout

_SELU_ALPHA_SCALE = 1.7580993408473766      # SELU's alpha * scale: alpha dropout's saturation


def _noise_shape(x, feature):
    if not feature:
        return x.shape
    if x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return x.shape[:2] + (1,) * (x.ndim - 2)


def _dropout_impl(input, p, train, inplace, feature, alpha):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if p == 0 or not train or x.size == 0:
        return input
    if p == 1:
        zero = wrap(np.zeros((), x.dtype))
        return input.mul_(zero) if inplace else input * zero
    noise = np.empty(_noise_shape(x, feature), x.dtype)
    if not feature and not x.flags.c_contiguous:
        noise = torch_layout(noise, x)      # empty_like's layout: the draws follow memory
    noise = wrap(noise)
    noise.bernoulli_(1 - p)          # torch's draw (ember/random.py)
    n = noise._data
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE * _SELU_ALPHA_SCALE * p + 1) * (1 - p))
        b = n + x.dtype.type(-1)
        b *= x.dtype.type(_SELU_ALPHA_SCALE * a)
        b += x.dtype.type(_SELU_ALPHA_SCALE * a * p)
        n *= x.dtype.type(a)
        b = wrap(b)
        if inplace:
            return input.mul_(noise).add_(b)
        return input * noise + b
    n /= x.dtype.type(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, train=True, inplace=False):
    return _dropout_impl(input, p, train, inplace, False, False)


def feature_dropout(input, p=0.5, train=True, inplace=False):
    return _dropout_impl(input, p, train, inplace, True, False)


def alpha_dropout(input, p=0.5, train=True, inplace=False):
    return _dropout_impl(input, p, train, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, train=True, inplace=False):
    return _dropout_impl(input, p, train, inplace, True, True)
