"""Activation functions (torch.nn.functional's pointwise nonlinearities): each forward in NumPy
with torch's numerically stable form, its node (torch's name) and derivative written with ember
ops so that double backward works. In-place forms go through the in-place protocol; where torch
records a node that saves the result for the in-place form (EluBackward1, LeakyReluBackward1,
...), so does ember. Derivative choices at kinks and NaN follow torch's kernels."""
__all__ = ["hardtanh", "hardtanh_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_",
           "selu", "selu_", "celu", "celu_", "gelu", "silu", "silu_", "mish", "mish_",
           "softplus", "softsign", "softshrink", "hardshrink", "tanhshrink", "threshold",
           "threshold_", "logsigmoid", "hardswish", "hardswish_", "hardsigmoid", "hardsigmoid_",
           "glu", "prelu", "rrelu", "rrelu_", "softmin"]

import math

import numpy as np

from .._amp_state import AUTOCAST, lower
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, saved_arg
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, saved_output, wrap_dim
from ._args import not_tensor, torch_layout, wrong_type, check_args
from ._views import inplace, inplace_source
from .arith import NotImplementedBackward
from .join import cat
from .logical import where
from .reduce import softmax
from .special import erf_kernel
from .unary import tanh, _select_np, _SelectBackward, _linear_grad
from .unary import ThresholdBackwardBackward0

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = 1 / math.sqrt(2.0)
_2_SQRTPI = 2 / math.sqrt(math.pi)
_GELU_BETA = math.sqrt(2.0) * _2_SQRTPI * 0.5       # sqrt(2 / pi)
_GELU_KAPPA = 0.044715
_SIXTH = float(np.float32(1 / 6))                   # torch's hardsigmoid_backward constant


def _float_input(input, kernel):
    """The array of a floating input; torch's error naming its kernel for other dtypes."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(x.dtype)}'")
    return x


def _record(res, node, *inputs, c_order=False):
    """Link node to res when grad mode is on and an input requires grad; returns res, laid
    out as torch lays out an elementwise result of the first input (Note [Elementwise
    layout]; NumPy's expressions here lose a non-contiguous input's layout), or in C order
    where torch's kernel allocates it so (c_order)."""
    x = inputs[0]._data
    if not x.flags.c_contiguous and res._data.shape == x.shape:
        res._data = (np.asarray(res._data, order="C") if c_order else
                     torch_layout(res._data, x))
    if STATE.enabled:
        for t in inputs:
            if isinstance(t, Tensor) and t._requires_grad:
                link(res, node(), *inputs)
                return res
    if LEVELS and dual(*inputs):
        link(res, node(), *inputs)
    return res


def _node(cls, **saved):
    """A factory for _record: the node class with its saved fields set (cdf: GeluBackward0's
    private cache)."""
    def make():
        n = cls()
        for k, v in saved.items():
            setattr(n, "_cdf" if k == "cdf" else "_saved_" + k, v)
        return n
    return make


def _mask(cond):
    return wrap(cond)


# ---------------------------------------------------------------- piecewise linear gradients
# The backward of a piecewise linear activation selects the incoming gradient (or scales it by
# a slope) by a mask of the input: linear in the gradient, constant in the input. Its own
# derivative is that select again for the gradient and zeros for the input (torch's
# HardtanhBackwardBackward0, ...), so a create_graph gradient is linked to both. The select
# and its node base live in ops/unary.py, where relu's backward (a threshold select) uses them.

class HardtanhBackwardBackward0(_SelectBackward):
    __slots__ = ()


class LeakyReluBackwardBackward0(_SelectBackward):
    __slots__ = ()


class SoftshrinkBackwardBackward0(_SelectBackward):
    __slots__ = ()


class HardshrinkBackwardBackward0(_SelectBackward):
    __slots__ = ()


class RreluWithNoiseBackwardBackward0(_SelectBackward):
    __slots__ = ()


# ---------------------------------------------------------------- hardtanh / relu6

class HardtanhBackward0(Node):               # derivatives.yaml: hardtanh
    __slots__ = ("_saved_self", "_saved_min_val", "_saved_max_val")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        # torch: zero where x <= min_val or x >= max_val (NaN keeps the gradient)
        s = self._saved_self
        keep = ~((s._data <= self._saved_min_val) | (s._data >= self._saved_max_val))
        return _linear_grad(HardtanhBackwardBackward0, grad, s, keep),


def hardtanh(input, min_val=-1.0, max_val=1.0, _inplace=False):
    x = input._data
    if x.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    lo, hi = min_val, max_val
    if x.dtype.kind in "iu":
        lo, hi = int(lo), int(hi)
    r = np.minimum(np.maximum(x, x.dtype.type(lo)), x.dtype.type(hi))
    with np.errstate(invalid="ignore"):
        r = np.where(np.isnan(x), x, r) if x.dtype.kind == "f" else r
    return _record(wrap(r), _node(HardtanhBackward0, self=input, min_val=min_val,
                                  max_val=max_val), input)


def hardtanh_(self, min_val=-1.0, max_val=1.0):
    if self._data.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return inplace(self, hardtanh(inplace_source(self), min_val, max_val))


def relu6(input, inplace=False):
    if inplace:
        return hardtanh_(input, 0, 6)
    return hardtanh(input, 0, 6)


# ---------------------------------------------------------------- leaky_relu

class LeakyReluBackward0(Node):              # derivatives.yaml: leaky_relu
    __slots__ = ("_saved_self", "_saved_negative_slope")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        return _linear_grad(LeakyReluBackwardBackward0, grad, s, s._data > 0,
                            self._saved_negative_slope),


class LeakyReluBackward1(Node):              # derivatives.yaml: leaky_relu_ (saves result)
    __slots__ = ("_saved_result", "_saved_negative_slope")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        slope = self._saved_negative_slope
        if slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an "
                "issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope")
        r = saved_output(self, self._saved_result)
        return _linear_grad(LeakyReluBackwardBackward0, grad, r, r._data > 0, slope),


def leaky_relu(input, negative_slope=0.01, inplace=False, _inplace=False):
    check_args("leaky_relu_" if _inplace else "leaky_relu",
               ("negative_slope", 2, "Number", negative_slope))
    if inplace:
        return leaky_relu_(input, negative_slope)
    x = _float_input(input, "leaky_relu_cpu")
    try:
        r = np.where(x > 0, x, x * x.dtype.type(negative_slope))
    except (TypeError, ValueError):
        raise wrong_type(negative_slope, "Number") from None
    res = wrap(r)
    if _inplace:
        return _record(res, _node(LeakyReluBackward1, result=wrap(r),
                                  negative_slope=negative_slope), input)
    return _record(res, _node(LeakyReluBackward0, self=input, negative_slope=negative_slope),
                   input)


def leaky_relu_(input, negative_slope=0.01):
    check_args("leaky_relu_", ("negative_slope", 2, "Number", negative_slope))
    _float_input(input, "leaky_relu_cpu")
    return inplace(input, leaky_relu(inplace_source(input), negative_slope, _inplace=True))


# ---------------------------------------------------------------- elu / selu / celu

def _elu_data(x, alpha, scale, input_scale):
    with np.errstate(over="ignore", invalid="ignore"):
        neg = np.expm1(np.minimum(x, 0) * x.dtype.type(input_scale)) * \
            x.dtype.type(alpha * scale)
        return np.where(x <= 0, neg, x * x.dtype.type(scale))


class EluBackward0(Node):                    # derivatives.yaml: elu (is_result=False)
    __slots__ = ("_saved_self", "_saved_alpha", "_saved_scale", "_saved_input_scale")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        a, sc, isc = self._saved_alpha, *_elu_scales(self)
        neg = s._data <= 0        # NaN: the positive branch, as torch
        # exp of min(x, 0): the unused branch stays finite, so double backward has no inf * 0
        e = (s.clamp_max(0) * isc).exp()
        return where(_mask(neg), grad * (e * (a * sc * isc)), grad * sc),


class EluBackward1(Node):                    # derivatives.yaml: elu_ (is_result=True)
    __slots__ = ("_saved_result", "_saved_alpha", "_saved_scale", "_saved_input_scale")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        a, sc, isc = self._saved_alpha, *_elu_scales(self)
        if a < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which "
                "is not supported. This is caused by calling in-place forward function with "
                "a negative slope, please call out-of-place version instead.")
        r = saved_output(self, self._saved_result)
        neg = r._data <= 0
        return where(_mask(neg), grad * ((r + a * sc) * isc), grad * sc),


def _elu_scales(node):
    """(scale, input_scale): celu's nodes save neither (torch's CeluBackward has only alpha
    and self / result): 1 and 1 / alpha."""
    try:
        return node._saved_scale, node._saved_input_scale
    except AttributeError:
        return 1, 1.0 / node._saved_alpha


class CeluBackward0(EluBackward0):           # derivatives.yaml: celu
    __slots__ = ()


class CeluBackward1(EluBackward1):           # derivatives.yaml: celu_
    __slots__ = ()


def _elu(input, alpha, scale, input_scale, kernel, cls0, cls1, _inplace):
    x = _float_input(input, kernel)
    try:
        r = _elu_data(x, alpha, scale, input_scale)
    except (TypeError, ValueError):
        raise wrong_type(next(v for v in (alpha, scale, input_scale)
                              if not isinstance(v, (int, float))), "Number") from None
    res = wrap(r)
    scales = {} if cls0 is CeluBackward0 else {"scale": scale, "input_scale": input_scale}
    if _inplace:
        return _record(res, _node(cls1, result=wrap(r), alpha=alpha, **scales), input)
    return _record(res, _node(cls0, self=input, alpha=alpha, **scales), input)


def elu(input, alpha=1.0, inplace=False, _inplace=False):
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha, 1, 1, "elu_cpu", EluBackward0, EluBackward1, _inplace)


def selu(input, inplace=False, _inplace=False):
    if inplace:
        return selu_(input)
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1, "elu_cpu", EluBackward0, EluBackward1,
                _inplace)


def _celu_alpha(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return 1.0 / alpha


def celu(input, alpha=1.0, inplace=False, _inplace=False):
    check_args("celu_" if _inplace else "celu", ("alpha", 2, "Number", alpha))
    if inplace:
        return celu_(input, alpha)
    isc = _celu_alpha(alpha)
    return _elu(input, alpha, 1, isc, "elu_cpu", CeluBackward0, CeluBackward1, _inplace)


def elu_(input, alpha=1.0):
    _float_input(input, "elu_cpu")
    return inplace(input, elu(inplace_source(input), alpha, _inplace=True))


def selu_(input):
    _float_input(input, "elu_cpu")
    return inplace(input, selu(inplace_source(input), _inplace=True))


def celu_(input, alpha=1.0):
    check_args("celu_", ("alpha", 2, "Number", alpha))
    _float_input(input, "elu_cpu")
    return inplace(input, celu(inplace_source(input), alpha, _inplace=True))


# ---------------------------------------------------------------- gelu
# erf for gelu, fast: a Chebyshev expansion of degree 12 on each of 12 intervals of [0, 6)
# (erf(x) / x as a function of x^2 on the first, so that tiny x keep their relative precision;
# 1 from 6 on), its coefficients fitted (at the first call) to ember's float64 erf kernel.
# Relative error < 3e-15, about 3x faster than the kernel's series.

_ERF_W, _ERF_K, _ERF_D = 0.5, 12, 12


def _erf_coefficients():
    k = np.arange(_ERF_D + 1)
    t = np.cos(np.pi * (k + 0.5) / (_ERF_D + 1))          # Chebyshev nodes on [-1, 1]
    cos_table = np.cos(np.outer(k, np.pi * (k + 0.5) / (_ERF_D + 1)))
    coefs = np.zeros((_ERF_D + 1, _ERF_K + 1))
    for i in range(_ERF_K):
        if i == 0:
            z = 0.5 * _ERF_W * _ERF_W * (t + 1)
            f = erf_kernel(np.sqrt(z)) / np.sqrt(z)
        else:
            f = erf_kernel((i + 0.5) * _ERF_W + 0.5 * _ERF_W * t)
        c = 2.0 / (_ERF_D + 1) * (cos_table @ f)
        c[0] *= 0.5
        coefs[:, i] = c
    coefs[0, _ERF_K] = 1.0
    return coefs


_ERF_COEFS = []


def _erf(x):
    """erf of a float64 array (Clenshaw's recurrence on each element's interval)."""
    if not _ERF_COEFS:
        _ERF_COEFS.append(_erf_coefficients())
    a = np.abs(x)
    with np.errstate(invalid="ignore"):
        idx = np.fmin(a * (1 / _ERF_W), _ERF_K).astype(np.int64)     # NaN, inf: the last
    first = idx == 0
    u = np.where(first, a * a * (2 / (_ERF_W * _ERF_W)) - 1,
                 (a - (idx + 0.5) * _ERF_W) * (2 / _ERF_W))
    u[idx == _ERF_K] = 0
    u2 = u + u
    c = _ERF_COEFS[0]
    b1, b2 = np.take(c[_ERF_D], idx), np.zeros_like(u)
    for j in range(_ERF_D - 1, 0, -1):
        b0 = u2 * b1
        b0 -= b2
        b0 += np.take(c[j], idx)
        b1, b2 = b0, b1
    out = u * b1
    out -= b2
    out += np.take(c[0], idx)
    out = np.where(first, a * out, out)
    out[np.isnan(a)] = np.nan
    return np.copysign(out, x)


class GeluBackward0(Node):                   # derivatives.yaml: gelu
    # _cdf: the forward's Phi(x) (none-approximation), reused by a backward that records nothing
    __slots__ = ("_saved_self", "_saved_approximate", "_cdf")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        if self._saved_approximate == "tanh":
            inner = (s + s * s * s * _GELU_KAPPA) * _GELU_BETA
            t = tanh(inner)
            d_inner = (s * s * (3 * _GELU_KAPPA) + 1) * _GELU_BETA
            return grad * ((t + 1) * 0.5 + s * 0.5 * (1 - t * t) * d_inner),
        if STATE.enabled or self._cdf is None:
            cdf = ((s * _SQRT1_2).erf() + 1) * 0.5
        else:
            cdf = wrap(self._cdf)
        pdf = (s * s * -0.5).exp() * (_2_SQRTPI * _SQRT1_2 * 0.5)
        return grad * (cdf + s * pdf),


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = _float_input(input, "GeluKernelImpl")
    cdf = None
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate == "tanh":
            inner = x.dtype.type(_GELU_BETA) * (x + x.dtype.type(_GELU_KAPPA) * x * x * x)
            r = x.dtype.type(0.5) * x * (1 + np.tanh(inner))
        else:
            e = _erf((x * x.dtype.type(_SQRT1_2)).astype(np.float64)).astype(x.dtype)
            r = x * x.dtype.type(0.5) * (1 + e)
            cdf = (e + 1) * x.dtype.type(0.5)
    return _record(wrap(r), _node(GeluBackward0, self=input, approximate=approximate,
                                  cdf=cdf), input)


# ---------------------------------------------------------------- silu / mish / softplus

def _np_sigmoid(x):
    with np.errstate(over="ignore"):
        return np.reciprocal(np.exp(-x) + 1)


class SiluBackward0(Node):                   # derivatives.yaml: silu
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        sig = s.sigmoid()
        return grad * (sig * (s * (1 - sig) + 1)),


def silu(input, inplace=False):
    if inplace:
        return silu_(input)
    x = _float_input(input, "silu_cpu")
    with np.errstate(invalid="ignore"):
        r = x * _np_sigmoid(x)
    return _record(wrap(r), _node(SiluBackward0, self=input), input)


def silu_(input):
    _float_input(input, "silu_cpu")
    return inplace(input, silu(inplace_source(input)))


def _np_softplus(x, beta=1.0, threshold=20.0):
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            xb = x * x.dtype.type(beta)
        except (TypeError, ValueError):
            raise wrong_type(beta, "Number") from None
        return np.where(xb > threshold, x, np.log1p(np.exp(xb)) / x.dtype.type(beta))


class MishBackward0(Node):                   # derivatives.yaml: mish
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        tsp = tanh(softplus(s))
        return grad * (tsp + s * s.sigmoid() * (1 - tsp * tsp)),


def mish(input, inplace=False):
    if inplace:
        return mish_(input)
    x = _float_input(input, "mish_cpu")
    with np.errstate(invalid="ignore", over="ignore"):
        r = x * np.tanh(np.log1p(np.exp(x)))
    return _record(wrap(r), _node(MishBackward0, self=input), input)


def mish_(input):
    _float_input(input, "mish_cpu")
    return inplace(input, mish(inplace_source(input)))


class SoftplusBackward0(Node):               # derivatives.yaml: softplus
    __slots__ = ("_saved_self", "_saved_beta", "_saved_threshold")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s, beta = self._saved_self, self._saved_beta
        linear = s._data * beta > self._saved_threshold
        return where(_mask(linear), grad, grad * (s * beta).sigmoid()),


def softplus(input, beta=1, threshold=20):
    check_args("softplus", ("beta", 2, "Number", beta), ("threshold", 3, "Number", threshold))
    x = _float_input(input, "softplus_cpu")
    return _record(wrap(_np_softplus(x, beta, threshold)),
                   _node(SoftplusBackward0, self=input, beta=beta, threshold=threshold), input)


def softsign(input):
    """x / (1 + |x|), composed as torch composes it."""
    try:
        return input / (input.abs() + 1)
    except AttributeError as e:
        raise not_tensor(e) from None


def tanhshrink(input):
    try:
        return input - input.tanh()
    except AttributeError as e:
        raise not_tensor(e) from None


# ---------------------------------------------------------------- shrink / threshold

def _check_lambd(x, lambd):
    if lambd < 0:
        hi = np.finfo(x.dtype).max
        raise RuntimeError(f"lambda must be in range [0, {hi:g}] for input dtype "
                           f"{type_name(x.dtype)}, but found {lambd:g}")


class SoftshrinkBackward0(Node):             # derivatives.yaml: softshrink
    __slots__ = ("_saved_self", "_saved_lambd")
    _saved_names = ("_saved_self",)
    _double = SoftshrinkBackwardBackward0

    def apply(self, grad):
        s, lam = self._saved_self, self._saved_lambd
        keep = ~((s._data >= -lam) & (s._data <= lam))
        return _linear_grad(self._double, grad, s, keep),


class HardshrinkBackward0(SoftshrinkBackward0):  # derivatives.yaml: hardshrink
    __slots__ = ()
    _double = HardshrinkBackwardBackward0


def softshrink(input, lambd=0.5):
    check_args("softshrink", ("lambd", 2, "Number", lambd))
    x = _float_input(input, "softshrink_check")
    _check_lambd(x, lambd)
    lam = x.dtype.type(lambd)
    r = np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x.dtype.type(0)))
    r = np.where(np.isnan(x), x, r)
    return _record(wrap(r), _node(SoftshrinkBackward0, self=input, lambd=lambd), input)


def hardshrink(input, lambd=0.5):
    check_args("hardshrink", ("lambd", 2, "Number", lambd))
    x = _float_input(input, "hardshrink_cpu")
    try:
        lam = x.dtype.type(lambd)
    except (TypeError, ValueError):
        raise wrong_type(lambd, "Number") from None
    r = np.where((x >= -lam) & (x <= lam), x.dtype.type(0), x)
    return _record(wrap(r), _node(HardshrinkBackward0, self=input, lambd=lambd), input)


class ThresholdBackward0(Node):              # derivatives.yaml: threshold
    __slots__ = ("_saved_self", "_saved_threshold")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        # torch: zero where x <= threshold (NaN keeps the gradient)
        s = self._saved_self
        return _linear_grad(ThresholdBackwardBackward0, grad, s,
                            ~(s._data <= self._saved_threshold)),


class ThresholdBackward1(ThresholdBackward0):  # derivatives.yaml: threshold_
    __slots__ = ()


def threshold(input, threshold, value, inplace=False):
    if inplace:
        return threshold_(input, threshold, value)
    return _threshold(input, threshold, value, ThresholdBackward0)


def threshold_(input, threshold, value):
    return inplace(input, _threshold(inplace_source(input), threshold, value,
                                     ThresholdBackward1))


def _threshold(input, threshold, value, cls):
    x = input._data
    if x.dtype.kind in "bc":
        raise NotImplementedError(f"\"threshold_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    th, v = threshold, value
    if x.dtype.kind in "iu":
        th, v = x.dtype.type(int(th)) if float(th).is_integer() else th, int(v)
    r = np.where(x <= th, x.dtype.type(v), x)
    return _record(wrap(r), _node(cls, self=input, threshold=threshold), input)


# ---------------------------------------------------------------- logsigmoid

class LogSigmoidBackward0(Node):             # derivatives.yaml: log_sigmoid_forward
    __slots__ = ("_saved_self", "_saved_buffer")
    _saved_names = ("_saved_self", "_saved_buffer")

    def apply(self, grad):
        return grad * (-self._saved_self).sigmoid(),


def logsigmoid(input):
    x = _float_input(input, "log_sigmoid_cpu")
    with np.errstate(over="ignore", invalid="ignore"):
        buf = np.exp(-np.abs(x))
        r = np.minimum(x, 0) - np.log1p(buf)
    return _record(wrap(r), _node(LogSigmoidBackward0, self=input, buffer=wrap(buf)), input,
                   c_order=True)


# ---------------------------------------------------------------- hardswish / hardsigmoid

class HardswishBackward0(Node):              # derivatives.yaml: hardswish
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return _hardswish_backward(grad, self._saved_self),


def _hardswish_backward(grad, s):
    """torch's hardswish_backward: 0 up to -3, grad * (x / 3 + 1/2) inside, grad itself from
    3 on (and at NaN); recorded as HardswishBackwardBackward0 (edges: grad, self)."""
    g, d = grad._data, s._data
    inside = (d > -3) & (d < 3)
    with np.errstate(invalid="ignore"):
        mid = g * (d / 3 + 0.5)
    res = wrap(np.where(inside, mid, np.where(d <= -3, g.dtype.type(0), g)).astype(
        np.result_type(g, d), copy=False))
    if STATE.enabled and (grad._requires_grad or s._requires_grad):
        node = HardswishBackwardBackward0()
        node._saved_self, node._saved_grad_output = s, grad
        link(res, node, grad, s)
    return res


class HardswishBackwardBackward0(Node):      # derivatives.yaml: hardswish_backward
    __slots__ = ("_saved_self", "_saved_grad_output")
    _saved_names = ("_saved_self", "_saved_grad_output")

    def apply(self, gg):
        s = self._saved_self
        g_out = _hardswish_backward(gg, s) if needs(self, 0) else None
        g_self = None
        if needs(self, 1):     # d/dx of grad * (x / 3 + 1/2) inside (-3, 3), else 0
            inside = _mask((s._data > -3) & (s._data < 3))
            g_self = where(inside, gg * self._saved_grad_output / 3, 0.0)
        return g_out, g_self


def hardswish(input, inplace=False):
    if inplace:
        return hardswish_(input)
    x = _float_input(input, "hardswish_cpu")
    with np.errstate(invalid="ignore"):
        r = x * np.minimum(np.maximum(x + 3, 0), 6) / 6
    return _record(wrap(r), _node(HardswishBackward0, self=input), input)


def hardswish_(input):
    _float_input(input, "hardswish_cpu")
    return inplace(input, hardswish(inplace_source(input)))


class HardsigmoidBackward0(Node):            # derivatives.yaml: hardsigmoid
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self._data
        res = wrap(_select_np(grad._data, (s > -3) & (s < 3), None) * grad._data.dtype.type(
            _SIXTH))
        if STATE.enabled and (grad._requires_grad or self._saved_self._requires_grad):
            node = NotImplementedBackward()          # torch does not differentiate it again
            node._op = "hardsigmoid_backward"
            link(res, node, grad, self._saved_self)
        return res,

    def jvp(self, ts, xs, out):                 # (its backward is not differentiable in torch)
        s = xs[0]
        return where((s > -3) & (s < 3), ts[0] * _SIXTH, 0.0)


def hardsigmoid(input, inplace=False):
    if inplace:
        return hardsigmoid_(input)
    x = _float_input(input, "hardsigmoid_cpu")
    r = np.minimum(np.maximum(x + 3, 0), 6) / 6
    r = np.where(np.isnan(x), x, r)
    return _record(wrap(r.astype(x.dtype, copy=False)), _node(HardsigmoidBackward0, self=input),
                   input)


def hardsigmoid_(input):
    _float_input(input, "hardsigmoid_cpu")
    return inplace(input, hardsigmoid(inplace_source(input)))


# ---------------------------------------------------------------- glu

class GluBackward0(Node):                    # derivatives.yaml: glu
    __slots__ = ("_saved_self", "_dim", "_dim_arg")
    _saved_names = ("_saved_self",)
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        return glu_backward(grad, self._saved_self, self._dim),


def glu_backward(grad_output, input, dim):
    """glu's derivative as an op of its own, as torch records it (GluBackwardBackward0):
    cat(gO * sigmoid(b), gO * a * sigmoid(b) * (1 - sigmoid(b))) for input = cat(a, b)."""
    go, x = grad_output._data, input._data
    a, b = np.split(x, 2, axis=dim)
    with np.errstate(all="ignore"):
        sig = _np_sigmoid(b)
        r = np.concatenate([go * sig, go * a * sig * (1 - sig)], axis=dim)
    res = wrap(r.astype(x.dtype, copy=False))
    if STATE.enabled and (grad_output._requires_grad or input._requires_grad) or \
            LEVELS and dual(grad_output, input):
        node = GluBackwardBackward0()
        node._saved_grad_output, node._saved_self, node._saved_dim = grad_output, input, dim
        link(res, node, grad_output, input)
    return res


class GluBackwardBackward0(Node):            # derivatives.yaml: glu_backward
    __slots__ = ("_saved_dim", "_saved_grad_output", "_saved_self")
    _saved_names = ("_saved_grad_output", "_saved_self")

    def apply(self, grad):
        go, x, d = self._saved_grad_output, self._saved_self, self._saved_dim
        n = x._data.shape[d] // 2
        ggo = gx = None
        if needs(self, 0):          # glu_double_backward_grad_output: both halves summed
            t = grad * glu_backward(wrap(np.ones(go._data.shape, go._data.dtype)), x, d)
            ggo = t.narrow(d, 0, n) + t.narrow(d, n, n)
        if needs(self, 1):          # glu_double_backward
            a, b = x.narrow(d, 0, n), x.narrow(d, n, n)
            sig = b.sigmoid()
            one_sub = 1 - sig
            sos = sig * one_sub
            g1, g2 = grad.narrow(d, 0, n), grad.narrow(d, n, n)
            second = sos * one_sub - sig * sos
            gx = cat([g2 * go * sos, g2 * a * go * second + g1 * go * sos], d)
        return ggo, gx


def glu(input, dim=-1):
    x = _float_input(input, "glu_cpu") if input._data.ndim else None
    if input._data.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = np.split(x, 2, axis=d)
    r = a * _np_sigmoid(b)
    def node():
        n = GluBackward0()
        n._saved_self, n._dim, n._dim_arg = input, d, dim
        return n
    return _record(wrap(r), node, input)


# ---------------------------------------------------------------- prelu

class PreluKernelBackward0(Node):            # derivatives.yaml: _prelu_kernel
    __slots__ = ("_saved_self", "_saved_weight")
    _saved_names = ("_saved_self", "_saved_weight")

    def apply(self, grad):
        s, w = self._saved_self, self._saved_weight
        pos = _mask(s._data > 0)
        gs = where(pos, grad, grad * w) if needs(self, 0) else None
        gw = where(pos, 0.0, grad * s) if needs(self, 1) else None
        return gs, gw


def prelu(input, weight):
    if AUTOCAST.cpu:                    # Note [Autocast hook]
        input, weight = lower(input, weight)
    x = _float_input(input, "prelu_cpu")
    try:
        w = weight._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if w.dtype != x.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {type_name(x.dtype)} and "
                           f"{type_name(w.dtype)}")
    nw = w.size
    channels = x.shape[1] if x.ndim >= 2 else 1
    if nw != 1 and nw != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {nw} and channel size = {channels}.")
    if x.ndim >= 2:
        wv = weight.reshape((1, nw) + (1,) * (x.ndim - 2))
    elif x.ndim == 0 or w.ndim != 1:
        wv = weight.reshape(() if x.ndim == 0 else (1,))
    else:
        wv = weight
    r = np.where(x > 0, x, x * wv._data.astype(x.dtype, copy=False))
    return _record(wrap(r), _node(PreluKernelBackward0, self=input, weight=wv), input, wv)


# ---------------------------------------------------------------- rrelu

class RreluWithNoiseBackward0(Node):         # derivatives.yaml: rrelu_with_noise
    __slots__ = ("_saved_self", "_saved_noise", "_saved_lower", "_saved_upper",
                 "_saved_training")
    _saved_names = ("_saved_self", "_saved_noise")

    def apply(self, grad):
        return _rrelu_grad(self, grad, self._saved_self)


class RreluWithNoiseBackward1(Node):         # derivatives.yaml: rrelu_with_noise_
    __slots__ = ("_saved_result", "_saved_noise", "_saved_lower", "_saved_upper",
                 "_saved_training")
    _saved_names = ("_saved_result", "_saved_noise")

    def apply(self, grad):
        return _rrelu_grad(self, grad, saved_output(self, self._saved_result))


def _rrelu_grad(node, grad, x):
    lo, hi = node._saved_lower, node._saved_upper
    if node._saved_training and hi - lo > 1e-6:
        return grad * node._saved_noise,
    return _linear_grad(RreluWithNoiseBackwardBackward0, grad, x, x._data > 0, (lo + hi) / 2),


def _uniform_noise(n, lower, upper, generator):
    """n uniform draws in [lower, upper) from generator's stream (None: the default one), in
    float64 (torch draws one float64 per non-positive element, in order)."""
    return wrap(np.empty(n, np.float64)).uniform_(lower, upper,
                                                  generator=generator)._data   # (random.py)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False,
          _inplace=False, generator=None):
    check_args("rrelu_" if _inplace else "rrelu", ("lower", 2, "Number", lower),
               ("upper", 3, "Number", upper), ("training", 4, "bool", training))
    if generator is not None and type(generator).__name__ != "Generator":
        raise TypeError(f"{'rrelu_' if _inplace else 'rrelu'}(): argument 'generator' must be "
                        f"torch.Generator, not {type(generator).__name__}")
    if inplace:
        return rrelu_(input, lower, upper, training, generator)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if training:
        _float_input(input, "rrelu_with_noise_out_cpu")
        if lower > upper:
            raise RuntimeError("Lower bound should be less than or equal to the upper bound")
        noise = np.ones(x.shape, x.dtype)
        neg = x <= 0
        noise[neg] = _uniform_noise(int(neg.sum()), lower, upper, generator)
        r = x * noise
    else:
        _float_input(input, "leaky_relu_cpu")
        noise = np.empty(x.shape, x.dtype)
        slope = x.dtype.type((lower + upper) / 2)
        r = np.where(x > 0, x, x * slope)
    res = wrap(r)
    if _inplace:
        return _record(res, _node(RreluWithNoiseBackward1, result=wrap(r), noise=wrap(noise),
                                  lower=lower, upper=upper, training=training), input)
    return _record(res, _node(RreluWithNoiseBackward0, self=input, noise=wrap(noise),
                              lower=lower, upper=upper, training=training), input, c_order=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    check_args("rrelu_", ("lower", 2, "Number", lower), ("upper", 3, "Number", upper),
               ("training", 4, "bool", training))
    return inplace(input, rrelu(inplace_source(input), lower, upper, training, _inplace=True,
                                generator=generator))


# ---------------------------------------------------------------- softmin

def softmin(input, dim, dtype=None):
    """softmax(-x), as torch composes it (SoftmaxBackward0 after NegBackward0)."""
    return softmax(-input, dim, dtype)
