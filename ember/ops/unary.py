"""Unary math: exp/log family, powers and roots, trigonometric and hyperbolic functions, sigmoid,
logit, relu, rounding, clamp, nan_to_num, and their in-place forms (forward, node, derivative)."""
__all__ = ["exp", "log", "sqrt", "abs", "absolute", "abs_", "sign", "sgn", "rsqrt", "rsqrt_",
           "square", "square_", "exp2", "exp2_", "expm1", "log2", "log10", "log1p", "sin", "cos",
           "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
           "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sigmoid", "sigmoid_",
           "logit", "logit_", "relu", "relu_", "floor", "ceil", "round", "trunc", "fix", "frac",
           "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "clamp", "clip", "clamp_",
           "clip_", "clamp_min", "clamp_max", "clamp_min_", "clamp_max_", "nan_to_num",
           "nan_to_num_", "positive", "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "exp_", "log_",
           "sqrt_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "tanh_",
           "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_",
           "arctanh_", "log2_", "log10_", "log1p_", "expm1_"]

import builtins
import math

import numpy as np

from .. import dtypes as D, return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, same_meta, ZERO, wrap_out
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import (needs, broadcast_error, plain_operand, scalar_array, saved_output,
                    conj_if_complex, floating, write_out)
from ._args import not_tensor, torch_layout, wrong_type, invalid_args, check_args, out_tuple
from ._args import keep_empty_strides
from ._args import checked_half
from ._views import check_overlap, inplace, inplace_source
from .arith import (_grad_needed, _np_mul, _np_sub, _SavesResult, _SavesSelf, _zeros, pow,
                    scalar_op, MulBackward1, AddBackward1)
from .complex import real
from .convert import CloneBackward0
from .logical import where, isfinite

# ---------------------------------------------------------------- unary math used by formulas


class ExpBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad * conj_if_complex(saved_output(self, self._saved_result)),

    def jvp(self, ts, xs, out):                 # result: self_t * result
        return ts[0] * out

    def np_apply(self, g):
        r = plain_operand(self._saved_result, g)
        if r is not None:
            return g * r,                   # NumPy directly (see mul)
        return Node.np_apply(self, g)


def exp(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if out is None and x.dtype.kind == "f":        # hot path: a real floating input
        r = np.exp(x)
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = ExpBackward0()
            node._saved_result = wrap(r)
            return wrap_out(r, node, input, False)
        return wrap(r)
    res = wrap(np.exp(floating(x)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ExpBackward0()
        node._saved_result = res.detach()
        link(res, node, input, meta=same_meta(input) if x.dtype.kind == "f" else None)
    return write_out(res, out)


class LogBackward0(Node):
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad / conj_if_complex(self._saved_self),

    def jvp(self, ts, xs, out):
        return ts[0] / xs[0]


def log(input, *, out=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            res = wrap(np.log(floating(input._data)))
        except AttributeError as e:
            raise not_tensor(e) from None
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = LogBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


class SqrtBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad / (2 * conj_if_complex(saved_output(self, self._saved_result))),

    def jvp(self, ts, xs, out):
        return ts[0] / (2 * out)


def sqrt(input, *, out=None):
    with np.errstate(invalid="ignore"):
        try:
            res = wrap(np.sqrt(floating(input._data)))
        except AttributeError as e:
            raise not_tensor(e) from None
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SqrtBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- unary math
_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _float_unary(input, ufunc, node_cls, saves_result, out, quiet=True):
    """A float-valued unary op: ints and bools compute in the default float dtype. quiet:
    silence NumPy's overflow/domain warnings (torch prints none); costs a few microseconds,
    so ops that cannot warn on finite input skip it."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if out is None and not quiet and x.dtype.kind == "f":     # hot path: as in exp
        r = ufunc(x)
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = node_cls()
            if saves_result:
                node._saved_result = wrap(r)
            else:
                node._saved_self = input
            return wrap_out(r, node, input, False)
        return wrap(r)
    if quiet:
        with np.errstate(all="ignore"):
            res = wrap(ufunc(floating(x)))
    else:
        res = wrap(ufunc(floating(x)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        if saves_result:
            node._saved_result = res.detach()
        else:
            node._saved_self = input
        # a real floating input gives an output of its own shape and dtype
        link(res, node, input, meta=same_meta(input) if x.dtype.kind == "f" else None)
    return write_out(res, out)


class AbsBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * sgn(self._saved_self),

    def jvp(self, ts, xs, out):
        s = xs[0]
        if s._data.dtype.kind == "c":           # |z|' = Re(conj(sgn z) t)
            return real(sgn(s).conj() * ts[0])
        return ts[0] * sgn(s)


def abs(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    res = wrap(np.abs(x))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = AbsBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


absolute = abs


class SignBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return _zeros(grad),

    def jvp(self, ts, xs, out):
        return _zeros(ts[0])


class SgnBackward0(_SavesSelf):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        if s._data.dtype.kind != "c":
            return ZERO,            # torch's efficient zero (Note [Zero gradients])
        # (grad - sgn * Re(conj(sgn) grad)) / |s|, zero where s == 0
        r = saved_output(self, self._saved_result)
        a = s.abs()
        g = (grad - r * real(r.conj() * grad)) / where(a == 0, 1.0, a)
        return where(a == 0, 0.0, g),

    def jvp(self, ts, xs, out):
        s, t = xs[0], ts[0]
        if s._data.dtype.kind != "c":
            return _zeros(t)
        a = s.abs()             # the projection of apply is symmetric: the same formula
        g = (t - out * real(out.conj() * t)) / where(a == 0, 1.0, a)
        return where(a == 0, 0.0, g)


def _sign_data(x):
    if x.dtype.kind == "b":
        return x.copy("K")
    if x.dtype.kind == "f":
        return np.where(np.isnan(x), x.dtype.type(0), np.sign(x))   # torch: (0 < x) - (x < 0)
    return np.sign(x)


def sign(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    res = wrap(torch_layout(_sign_data(x), x))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, SignBackward0(), input)
    return write_out(res, out)


def sgn(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        with np.errstate(all="ignore"):
            a = np.abs(x)
            r = np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    else:
        r = _sign_data(x)
    res = wrap(torch_layout(r, x))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SgnBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class RsqrtBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        r = self._result()
        return -0.5 * grad * conj_if_complex(r * r * r),

    def jvp(self, ts, xs, out):
        return -0.5 * ts[0] * (out * out * out)


def rsqrt(input, *, out=None):
    return _float_unary(input, _np_rsqrt, RsqrtBackward0, True, out)


def _np_rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def square(input, *, out=None):
    try:
        if input._data.dtype.kind == "b":
            input = wrap(input._data.astype(np.int64))
    except AttributeError as e:
        raise not_tensor(e) from None
    return pow(input, 2, out=out)


class Exp2Backward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        # grad * result.conj() * M_LN2
        return scalar_op(grad * conj_if_complex(self._result()), _LN2, MulBackward1),

    def jvp(self, ts, xs, out):
        return ts[0] * (out * _LN2)


def exp2(input, *, out=None):
    return _float_unary(input, np.exp2, Exp2Backward0, True, out)


class Expm1Backward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return grad * (conj_if_complex(self._result()) + 1),

    def jvp(self, ts, xs, out):
        return ts[0] * (out + 1)


def expm1(input, *, out=None):
    return _float_unary(input, np.expm1, Expm1Backward0, True, out)


class Log2Backward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) * _LN2),

    def jvp(self, ts, xs, out):
        return ts[0] / (xs[0] * _LN2)


def log2(input, *, out=None):
    return _float_unary(input, np.log2, Log2Backward0, False, out)


class Log10Backward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) * _LN10),

    def jvp(self, ts, xs, out):
        return ts[0] / (xs[0] * _LN10)


def log10(input, *, out=None):
    return _float_unary(input, np.log10, Log10Backward0, False, out)


class Log1PBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) + 1),

    def jvp(self, ts, xs, out):
        return ts[0] / (xs[0] + 1)


def log1p(input, *, out=None):
    return _float_unary(input, np.log1p, Log1PBackward0, False, out)


class SinBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(cos(self._saved_self)),

    def jvp(self, ts, xs, out):
        return ts[0] * cos(xs[0])


def sin(input, *, out=None):
    return _float_unary(input, np.sin, SinBackward0, False, out, quiet=False)


class CosBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * -conj_if_complex(sin(self._saved_self)),

    def jvp(self, ts, xs, out):
        return ts[0] * -sin(xs[0])


def cos(input, *, out=None):
    return _float_unary(input, np.cos, CosBackward0, False, out, quiet=False)


class TanBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        r = self._result()
        return grad * conj_if_complex(r * r + 1),

    def jvp(self, ts, xs, out):
        return ts[0] * (out * out + 1)


def tan(input, *, out=None):
    return _float_unary(input, np.tan, TanBackward0, True, out)


class AsinBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(1 - s * s)),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] * rsqrt(1 - s * s)


def asin(input, *, out=None):
    return _float_unary(input, np.arcsin, AsinBackward0, False, out)


class AcosBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * -conj_if_complex(rsqrt(1 - s * s)),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] * -rsqrt(1 - s * s)


def acos(input, *, out=None):
    return _float_unary(input, np.arccos, AcosBackward0, False, out)


class AtanBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad / conj_if_complex(s * s + 1),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] / (s * s + 1)


def atan(input, *, out=None):
    return _float_unary(input, np.arctan, AtanBackward0, False, out, quiet=False)


class SinhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(cosh(self._saved_self)),

    def jvp(self, ts, xs, out):
        return ts[0] * cosh(xs[0])


def sinh(input, *, out=None):
    return _float_unary(input, np.sinh, SinhBackward0, False, out)


class CoshBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(sinh(self._saved_self)),

    def jvp(self, ts, xs, out):
        return ts[0] * sinh(xs[0])


def cosh(input, *, out=None):
    return _float_unary(input, np.cosh, CoshBackward0, False, out)


class TanhBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return _tanh_backward(grad, self._result()),

    def jvp(self, ts, xs, out):
        return ts[0] * (1 - out * out)

    def np_apply(self, g):
        r = plain_operand(self._saved_result, g)
        if r is None or not r.ndim:
            return Node.np_apply(self, g)
        t = _np_mul(r, r)       # NumPy directly (see mul), in one buffer
        _np_sub(scalar_array(1, t.dtype), t, t)
        _np_mul(g, t, t)
        return t,


def tanh(input, *, out=None):
    return _float_unary(input, np.tanh, TanhBackward0, True, out, quiet=False)


# ---- sigmoid_backward / tanh_backward: the first derivatives as ops of their own, as torch
# records them under create_graph (SigmoidBackwardBackward0, TanhBackwardBackward0)

class _ActivationBackwardBackward(Node):
    __slots__ = ("_saved_grad_output", "_saved_output")
    _saved_names = ("_saved_grad_output", "_saved_output")


def _act_backward(grad_output, output, np_fn, node_cls):
    """np_fn(grad_output, output) on the arrays, recorded as node_cls."""
    go, o = grad_output._data, output._data
    with np.errstate(all="ignore"):
        r = np_fn(go, o.conj() if o.dtype.kind == "c" else o)
    res = wrap(r.astype(go.dtype, copy=False))
    if STATE.enabled and (grad_output._requires_grad or output._requires_grad) or \
            LEVELS and dual(grad_output, output):
        node = node_cls()
        node._saved_grad_output = grad_output
        node._saved_output = output
        link(res, node, grad_output, output)
    return res


class SigmoidBackwardBackward0(_ActivationBackwardBackward):   # derivatives.yaml: sigmoid_backward
    __slots__ = ()

    def apply(self, grad):
        # grad_output: sigmoid_backward(grad, output.conj());
        # output: grad.conj() * grad_output * (-2 * output.conj() + 1)
        go, out = self._saved_grad_output, conj_if_complex(self._saved_output)
        return (_sigmoid_backward(grad, out) if needs(self, 0) else None,
                conj_if_complex(grad) * go * scalar_op(scalar_op(out, -2, MulBackward1), 1,
                                                       AddBackward1)
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (gt, ot), (go, o) = ts, xs
        res = None if gt is None else _sigmoid_backward(gt, o)
        if ot is not None:
            part = conj_if_complex(ot) * go * (o * -2 + 1)
            res = part if res is None else res + part
        return res


class TanhBackwardBackward0(_ActivationBackwardBackward):      # derivatives.yaml: tanh_backward
    __slots__ = ()

    def apply(self, grad):
        # grad_output: tanh_backward(grad, output.conj());
        # output: grad.conj() * (-2 * output.conj() * grad_output)
        go, out = self._saved_grad_output, conj_if_complex(self._saved_output)
        return (_tanh_backward(grad, out) if needs(self, 0) else None,
                conj_if_complex(grad) * (scalar_op(out, -2, MulBackward1) * go)
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (gt, ot), (go, o) = ts, xs
        res = None if gt is None else _tanh_backward(gt, o)
        if ot is not None:
            part = conj_if_complex(ot) * (o * -2 * go)
            res = part if res is None else res + part
        return res


def _sigmoid_backward(grad_output, output):
    """grad_output * (output * (1 - output)).conj()."""
    return _act_backward(grad_output, output, lambda g, o: g * (o * (1 - o)),
                         SigmoidBackwardBackward0)


def _tanh_backward(grad_output, output):
    """grad_output * (1 - output ** 2).conj()."""
    return _act_backward(grad_output, output, lambda g, o: g * (1 - o * o),
                         TanhBackwardBackward0)


class AsinhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(s * s + 1)),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] * rsqrt(s * s + 1)


def asinh(input, *, out=None):
    return _float_unary(input, np.arcsinh, AsinhBackward0, False, out, quiet=False)


class AcoshBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(s * s - 1)),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] * rsqrt(s * s - 1)


def acosh(input, *, out=None):
    return _float_unary(input, np.arccosh, AcoshBackward0, False, out)


class AtanhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad / conj_if_complex(1 - s * s),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] / (1 - s * s)


def atanh(input, *, out=None):
    return _float_unary(input, np.arctanh, AtanhBackward0, False, out)


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


class SigmoidBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return _sigmoid_backward(grad, self._result()),

    def jvp(self, ts, xs, out):
        return ts[0] * (out * (1 - out))


def _np_sigmoid(x):
    return np.reciprocal(np.exp(-x) + 1)


def sigmoid(input, *, out=None):
    return _float_unary(input, _np_sigmoid, SigmoidBackward0, True, out)


def _vector_lanes(x):
    """Where torch's vectorised CPU loop computes an elementwise kernel over x (a NumPy array)
    rather than its scalar loop, found by experiment (logit's backward, float32 and float64):
    in each run of elements contiguous in memory (the innermost dims, merged while each
    stride is the next one's run), the leading multiple of two AVX2 vectors (16 float32 or 8
    float64 elements); the rest of each run, and every element of an x whose innermost dim
    is strided, take the scalar loop."""
    shape, strides = x.shape, x.strides
    dims = [i for i in range(x.ndim) if shape[i] != 1]
    lanes = np.zeros(shape, np.bool_)
    run, k = 1, len(dims)
    while k and strides[dims[k - 1]] == run * x.itemsize:
        k -= 1
        run *= shape[dims[k]]
    chunk = 64 // x.itemsize
    if run >= chunk:
        flat = lanes.reshape(-1, run)
        flat[:, : run // chunk * chunk] = True
    return lanes


class LogitBackward0(_SavesSelf):
    __slots__ = ("_saved_eps",)

    def apply(self, grad):
        s, eps = self._saved_self, self._saved_eps
        x = s._data
        scalar = ~_vector_lanes(x)
        # torch's scalar loop takes -0.0 as +0.0 (+inf where its vectorised loop gives -inf)
        neg0 = scalar & (x == 0) & np.signbit(x)
        if neg0.any():
            s = where(wrap(neg0), s + 0.0, s)
        g = grad / (s * (1 - s))
        if eps is None:
            return where((s < 0) | (s > 1), math.nan, g),
        # NaN inputs get 0 in torch's vectorised loop, NaN in its scalar loop
        inside = (x >= eps) & (x <= 1 - eps) | np.isnan(x) & scalar
        return where(wrap(inside), g, 0.0),

    def jvp(self, ts, xs, out):
        s, eps = xs[0], self._saved_eps
        g = ts[0] / (s * (1 - s))          # (torch's tangent: -inf at -0.0, in any loop)
        if eps is None:
            return where((s < 0) | (s > 1), math.nan, g)
        return where((s >= eps) & (s <= 1 - eps), g, 0.0)


def logit(input, eps=None, *, out=None):
    check_args("logit", ("eps", 2, "float", eps, True))
    try:
        x = floating(input._data)
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"logit_cpu\" not implemented for '{type_name(x.dtype)}'")
    with np.errstate(all="ignore"):
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        res = wrap(np.log(x / (1 - x)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = LogitBackward0()
        node._saved_self = input
        node._saved_eps = eps
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- piecewise linear gradients
# The backward of a piecewise linear activation (relu here, hardtanh, leaky_relu, threshold...
# in ops/activation.py) selects the incoming gradient (or scales it by a slope) by a mask of
# the input: linear in the gradient, constant in the input. Its own derivative is that select
# again for the gradient and zeros for the input (torch's ThresholdBackwardBackward0, ...), so
# a create_graph gradient is linked to both.

def _select_np(g, keep, slope):
    """g where keep, else 0 (a select: no -0.0 or inf * 0) or g * slope."""
    if slope is None:
        return np.where(keep, g, g.dtype.type(0))
    return np.where(keep, g, g * g.dtype.type(slope))


class _SelectBackward(Node):
    """The derivative of a piecewise linear activation's gradient."""
    __slots__ = ("_keep", "_slope", "_self_meta")

    def apply(self, gg):
        shape, dtype = self._self_meta
        zeros = wrap(np.zeros(shape, dtype)) if needs(self, 1) else None
        return _linear_grad(type(self), gg, None, self._keep, self._slope), zeros


class ThresholdBackwardBackward0(_SelectBackward):
    __slots__ = ()


def _linear_grad(node_cls, grad, saved, keep, slope=None):
    """The gradient select of a piecewise linear activation, recorded (when create_graph)
    as node_cls with edges to the incoming gradient and the saved input."""
    res = wrap(_select_np(grad._data, keep, slope))
    if STATE.enabled and (grad._requires_grad or (saved is not None and saved._requires_grad)) or \
            LEVELS and dual(grad, saved):
        node = node_cls()
        node._keep, node._slope = keep, slope
        node._self_meta = (keep.shape, grad._data.dtype) if saved is None else \
            (saved._data.shape, saved._data.dtype)
        link(res, node, grad, saved)
    return res


class ReluBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        # torch: threshold_backward(grad, result, 0), linked to grad and the result
        r = self._result()
        return _linear_grad(ThresholdBackwardBackward0, grad, r, ~(r._data <= 0)),

    def jvp(self, ts, xs, out):                 # result: threshold_backward(self_t, result, 0)
        return where(out <= 0, 0.0, ts[0])

    def np_apply(self, g):
        r = plain_operand(self._saved_result, g)
        if r is None or r.shape != g.shape or not r.ndim:
            return Node.np_apply(self, g)
        # torch's threshold_backward: +0 where result <= 0, else grad (a NaN result keeps
        # it). A select, done on the bit patterns: grad's bits AND a mask of all ones (keep)
        # or of zeros (+0.0 bits: a product with a 0/1 mask would give -0.0 for a negative
        # grad and NaN for an infinite one; np.where is ~7x slower than these four passes)
        u = _UINT[g.dtype.itemsize]
        m = np.less_equal(r, 0).view(np.uint8).astype(u)      # 1 where dropped
        m -= _np_ones_u[u]                                     # 1 -> 0, 0 -> all ones
        return np.bitwise_and(g.view(u), m, out=m).view(g.dtype),


_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_np_ones_u = {u: np.array(1, u) for u in _UINT.values()}


def relu(input):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind in "bc":
        if x.dtype.kind == "c":
            raise NotImplementedError(_CLAMP_COMPLEX)
        raise RuntimeError("Boolean inputs not supported for relu")
    r = np.maximum(0, x)        # (x where x == 0: relu(-0.0) is -0.0, as in torch)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ReluBackward0()
        node._saved_result = wrap(r)
        if x.dtype.kind == "f":
            return wrap_out(r, node, input, False)
        res = wrap(r)
        link(res, node, input)
        return res
    return wrap(r)

# ---------------------------------------------------------------- rounding


def _rounding(input, ufunc, node_cls, kernel_name, out):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel_name}_vml_cpu\" not implemented for 'Bool'")
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{type_name(x.dtype)}'"
                                  if kernel_name == "round" else
                                  f"{kernel_name} is not supported for complex inputs")
    res = wrap(ufunc(x) if x.dtype.kind in "fc" else x.copy("K"))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, node_cls(), input)
    return write_out(res, out)


class FloorBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return _zeros(grad),

    def jvp(self, ts, xs, out):
        return _zeros(ts[0])


class CeilBackward0(FloorBackward0):
    __slots__ = ()


class TruncBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward1(FloorBackward0):         # (torch saves nothing: the gradient is zero)
    __slots__ = ()


def floor(input, *, out=None):
    return _rounding(input, np.floor, FloorBackward0, "floor", out)


def ceil(input, *, out=None):
    return _rounding(input, np.ceil, CeilBackward0, "ceil", out)


def trunc(input, *, out=None):
    return _rounding(input, np.trunc, TruncBackward0, "trunc", out)


fix = trunc


def round(input, *, decimals=None, out=None):
    if decimals is None:
        return _rounding(input, np.rint, RoundBackward0, "round", out)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{type_name(x.dtype)}'")
    if decimals == 0:
        r = np.rint(x)
    else:
        h = x.astype(np.float32) if x.dtype == np.float16 else x   # half computes in float
        p = h.dtype.type(10.0 ** builtins.abs(decimals))
        with np.errstate(all="ignore"):
            r = np.rint(h * p) / p if decimals > 0 else np.rint(h / p) * p
        r = r.astype(x.dtype, copy=False)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = RoundBackward1()
        link(res, node, input)
    return write_out(res, out)


class FracBackward0(CloneBackward0):         # derivatives.yaml: frac (grad passes through)
    __slots__ = ()


def frac(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{type_name(x.dtype)}'")
    with np.errstate(all="ignore"):
        res = wrap(x - np.trunc(x))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, FracBackward0(), input)
    return write_out(res, out)

# ---------------------------------------------------------------- clamp


class ClampBackward1(_SavesSelf):            # derivatives.yaml: clamp (Scalar bounds)
    __slots__ = ("_saved_min", "_saved_max")

    def apply(self, grad):
        s, lo, hi = self._saved_self, self._saved_min, self._saved_max
        if lo is not None and hi is not None:
            mask = (s >= lo) & (s <= hi)
        elif lo is not None:
            mask = s >= lo
        else:
            mask = s <= hi
        return where(mask, grad, 0.0),

    def jvp(self, ts, xs, out):
        s, lo, hi = xs[0], self._saved_min, self._saved_max
        if lo is not None and hi is not None:
            mask = (s >= lo) & (s <= hi)
        elif lo is not None:
            mask = s >= lo
        else:
            mask = s <= hi
        return where(mask, ts[0], 0.0)


class ClampBackward0(_SavesSelf):            # derivatives.yaml: clamp.Tensor
    __slots__ = ("_saved_min", "_saved_max")
    _saved_names = ("_saved_self", "_saved_min", "_saved_max")

    def apply(self, grad):
        s, lo, hi = self._saved_self, self._saved_min, self._saved_max
        g0 = g1 = g2 = None
        if lo is not None and hi is not None:
            if needs(self, 0):
                _in_place_mask(s, lo, s, hi)
                g0 = where((s >= lo) & (s <= hi), grad, 0.0)
            if needs(self, 1):
                _in_place_mask(s, lo, lo, hi)
                g1 = where((s < lo) & (lo < hi), grad, 0.0)
            if needs(self, 2):
                _in_place_mask(s, hi, hi, lo)
                g2 = where((s > hi) | (hi < lo), grad, 0.0)
        elif lo is not None:
            if needs(self, 0):
                g0 = where(s >= lo, grad, 0.0)
            if needs(self, 1):
                g1 = where(s < lo, grad, 0.0)
        else:
            if needs(self, 0):
                g0 = where(s <= hi, grad, 0.0)
            if needs(self, 2):
                g2 = where(s > hi, grad, 0.0)
        return g0, g1, g2

    def jvp(self, ts, xs, out):                 # the masks of apply, each input's tangent on its own
        (s, lo, hi), (st, lt, ht) = xs, ts
        if lo is not None and hi is not None:
            return (where((s >= lo) & (s <= hi), st, 0.0) + where((s < lo) & (lo < hi), lt, 0.0)
                    + where((s > hi) | (hi < lo), ht, 0.0))
        if lo is not None:
            return where(s >= lo, st, 0.0) + where(s < lo, lt, 0.0)
        return where(s <= hi, st, 0.0) + where(s > hi, ht, 0.0)


def _in_place_mask(a, b, c, d):
    """torch combines each pair of masks of ClampBackward0 in place ((a < b).logical_and_(c < d)),
    which refuses a second mask of a larger broadcast shape than the first."""
    first = np.broadcast_shapes(np.shape(a), np.shape(b))
    both = np.broadcast_shapes(first, np.shape(c), np.shape(d))
    if both != first:
        raise RuntimeError(f"output with shape {list(first)} doesn't match the broadcast shape "
                           f"{list(both)}")


_CLAMP_COMPLEX = "clamp is not supported for complex types"


def _clamp_data(input, lo, hi):
    """Forward of clamp: max(x, lo) then min(., hi), after torch's promotion."""
    try:
        if input._data.dtype.kind == "c":
            raise NotImplementedError(_CLAMP_COMPLEX)
    except AttributeError as e:
        raise not_tensor(e) from None
    args = [a for a in (input, lo, hi) if a is not None]
    rt = D.result_type(*args).np
    if rt.kind == "b":          # torch's bool kernels: only max/min with one tensor bound
        t = isinstance(lo, Tensor) or isinstance(hi, Tensor)
        kernel = ("clamp_cpu" if t else "clamp_scalar_cpu") if lo is not None and \
            hi is not None else None if t else \
            "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"
        if kernel:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    x = input._data
    if x.dtype != rt:
        x = x.astype(rt)
    lo = lo._data.astype(rt, copy=False) if isinstance(lo, Tensor) else lo
    hi = hi._data.astype(rt, copy=False) if isinstance(hi, Tensor) else hi
    if rt.char == "e":        # number bounds: range-checked, through float32 (Note [Scalar operands])
        lo = checked_half(lo) if type(lo) in (int, float) else lo
        hi = checked_half(hi) if type(hi) in (int, float) else hi
    try:
        r = x
        # (x where x equals the bound: torch keeps -0.0; NumPy's float16 loops return their
        # first argument on a tie, its SIMD float32/float64 loops the second)
        if lo is not None:
            r = np.maximum(lo, r) if rt.char != "e" else np.maximum(r, lo)
        if hi is not None:
            r = np.minimum(hi, r) if rt.char != "e" else np.minimum(r, hi)
    except ValueError:
        raise broadcast_error(x, lo if lo is not None else hi) from None
    if r.dtype != rt:
        r = r.astype(rt)
    return wrap(r)


def clamp(input, min=None, max=None, *, out=None):
    if min is None and max is None:
        if not isinstance(input, Tensor):
            raise not_tensor(AttributeError(name="_data", obj=input))
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tmin, tmax = isinstance(min, Tensor), isinstance(max, Tensor)
    if (tmin or tmax) and not (tmin and tmax) and min is not None and max is not None:
        # mixed scalar and tensor bounds: only a 0-dim tensor outside autograd reads as a
        # scalar (torch's argument parser), anything else matches no overload
        t = min if tmin else max
        if t._data.ndim or (STATE.enabled and t._requires_grad):
            raise TypeError("clamp() received an invalid combination of arguments - got "
                            "(Tensor, Scalar), but expected one of: (Tensor min = None, Tensor "
                            "max = None) or (Number min = None, Number max = None)")
        if tmin:
            min, tmin = min.item(), False
        else:
            max, tmax = max.item(), False
    res = _clamp_data(input, min, max)
    if tmin or tmax:
        if STATE.enabled and (input._requires_grad or (tmin and min._requires_grad) or
                              (tmax and max._requires_grad)) or LEVELS and dual(input, min, max):
            node = ClampBackward0()
            node._saved_self = input
            node._saved_min = min
            node._saved_max = max
            link(res, node, input, min, max)
    elif STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ClampBackward1()
        node._saved_self = input
        node._saved_min = min
        node._saved_max = max
        link(res, node, input)
    return write_out(res, out)


clip = clamp


class ClampMinBackward0(_SavesSelf):
    __slots__ = ("_saved_min",)

    def apply(self, grad):
        return where(self._saved_self >= self._saved_min, grad, 0.0),

    def jvp(self, ts, xs, out):
        return where(xs[0] >= self._saved_min, ts[0], 0.0)


class ClampMinBackward1(_SavesSelf):
    __slots__ = ("_saved_min",)
    _saved_names = ("_saved_self", "_saved_min")

    def apply(self, grad):
        s, lo = self._saved_self, self._saved_min
        return (where(s >= lo, grad, 0.0) if needs(self, 0) else None,
                where(s < lo, grad, 0.0) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (s, lo), (st, lt) = xs, ts
        return where(s >= lo, st, 0.0) + where(s < lo, lt, 0.0)


class ClampMaxBackward0(_SavesSelf):
    __slots__ = ("_saved_max",)

    def apply(self, grad):
        return where(self._saved_self <= self._saved_max, grad, 0.0),

    def jvp(self, ts, xs, out):
        return where(xs[0] <= self._saved_max, ts[0], 0.0)


class ClampMaxBackward1(_SavesSelf):
    __slots__ = ("_saved_max",)
    _saved_names = ("_saved_self", "_saved_max")

    def apply(self, grad):
        s, hi = self._saved_self, self._saved_max
        return (where(s <= hi, grad, 0.0) if needs(self, 0) else None,
                where(s > hi, grad, 0.0) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (s, hi), (st, ht) = xs, ts
        return where(s <= hi, st, 0.0) + where(s > hi, ht, 0.0)


def clamp_min(input, min, *, out=None):
    if min is None:
        raise invalid_args("clamp_min", (input, min))
    res = _clamp_data(input, min, None)
    if isinstance(min, Tensor):
        if _grad_needed(input, min):
            node = ClampMinBackward1()
            node._saved_self, node._saved_min = input, min
            link(res, node, input, min)
    elif STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ClampMinBackward0()
        node._saved_self, node._saved_min = input, min
        link(res, node, input)
    return write_out(res, out)


def clamp_max(input, max, *, out=None):
    if max is None:
        raise invalid_args("clamp_max", (input, max))
    res = _clamp_data(input, None, max)
    if isinstance(max, Tensor):
        if _grad_needed(input, max):
            node = ClampMaxBackward1()
            node._saved_self, node._saved_max = input, max
            link(res, node, input, max)
    elif STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ClampMaxBackward0()
        node._saved_self, node._saved_max = input, max
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- misc unary


class NanToNumBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * isfinite(self._saved_self),

    def jvp(self, ts, xs, out):
        return ts[0] * isfinite(xs[0])


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if not x.size:      # (Note [Empty strides]: torch's result is a clone)
        res = wrap(keep_empty_strides(x.copy(), x))
    elif x.dtype.kind not in "fc":
        res = wrap(x.copy("K"))
    else:
        try:
            res = wrap(torch_layout(np.nan_to_num(x, nan=0.0 if nan is None else nan,
                                                  posinf=posinf, neginf=neginf), x))
        except (TypeError, ValueError):
            bad = next(v for v in (nan, posinf, neginf)
                       if v is not None and not isinstance(v, (int, float)))
            raise wrong_type(bad, "float") from None
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NanToNumBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


def positive(input):
    try:
        if input._data.dtype.kind == "b":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    except AttributeError as e:
        raise not_tensor(e) from None
    return input


class Deg2RadBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return scalar_op(grad, math.pi / 180.0, MulBackward1),

    def jvp(self, ts, xs, out):
        return ts[0] * (math.pi / 180.0)


class Rad2DegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return scalar_op(grad, 180.0 / math.pi, MulBackward1),

    def jvp(self, ts, xs, out):
        return ts[0] * (180.0 / math.pi)


def _scale_unary(input, factor, node_cls, name, out):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    res = wrap(floating(x) * factor)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, node_cls(), input)
    return write_out(res, out)


def deg2rad(input, *, out=None):
    return _scale_unary(input, math.pi / 180.0, Deg2RadBackward0, "deg2rad", out)


def rad2deg(input, *, out=None):
    return _scale_unary(input, 180.0 / math.pi, Rad2DegBackward0, "rad2deg", out)


def exp_(self):
    return inplace(self, exp(inplace_source(self)))


def log_(self):
    return inplace(self, log(inplace_source(self)))


def sqrt_(self):
    return inplace(self, sqrt(inplace_source(self)))


def _inplace_unary(fn):
    def op_(self):
        return inplace(self, fn(inplace_source(self)))
    op_.__name__ = op_.__qualname__ = fn.__name__ + "_"
    return op_


(abs_, sign_, sgn_, rsqrt_, square_, exp2_, expm1_, log2_, log10_, log1p_, sin_, cos_, tan_,
 asin_, acos_, atan_, sinh_, cosh_, tanh_, asinh_, acosh_, atanh_, sigmoid_, floor_, ceil_,
 trunc_, frac_, deg2rad_, rad2deg_) = (
    _inplace_unary(f) for f in (abs, sign, sgn, rsqrt, square, exp2, expm1, log2, log10, log1p,
                                sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh,
                                acosh, atanh, sigmoid, floor, ceil, trunc, frac, deg2rad,
                                rad2deg))
absolute_, fix_ = abs_, trunc_


class AsinhBackward1(AsinhBackward0):      # asinh_ records its own node in torch, whose
    __slots__ = ()                          # derivative torch does not implement
    _op = "asinh"

    def apply(self, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {self._op}' is not "
                                  f"implemented.")


class AcoshBackward1(AcoshBackward0):
    __slots__ = ()
    _op = "acosh"
    apply = AsinhBackward1.apply


class AtanhBackward1(AtanhBackward0):
    __slots__ = ()
    _op = "atanh"
    apply = AsinhBackward1.apply


def _renamed_inplace(fn, node_cls):
    def op_(self):
        res = fn(inplace_source(self))
        if res._grad_fn is not None:
            res._grad_fn.__class__ = node_cls
        return inplace(self, res)
    op_.__name__ = op_.__qualname__ = fn.__name__ + "_"
    return op_


asinh_ = arcsinh_ = _renamed_inplace(asinh, AsinhBackward1)
acosh_ = arccosh_ = _renamed_inplace(acosh, AcoshBackward1)
atanh_ = arctanh_ = _renamed_inplace(atanh, AtanhBackward1)
arcsin_, arccos_, arctan_ = asin_, acos_, atan_


def relu_(self):
    try:
        if self._data.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
    except AttributeError as e:
        raise not_tensor(e) from None
    return inplace(self, relu(inplace_source(self)))


def logit_(self, eps=None):
    check_args("logit_", ("eps", 2, "float", eps, True))
    return inplace(self, logit(inplace_source(self), eps))


def round_(self, *, decimals=None):
    return inplace(self, round(inplace_source(self), decimals=decimals))


def clamp_(self, min=None, max=None):
    check_overlap(self, min)
    check_overlap(self, max)
    return inplace(self, clamp(inplace_source(self), min, max))


clip_ = clamp_


def clamp_min_(self, min):
    if min is None:
        raise invalid_args("clamp_min_", (self, min))
    check_overlap(self, min)
    return inplace(self, clamp_min(inplace_source(self), min))


def clamp_max_(self, max):
    if max is None:
        raise invalid_args("clamp_max_", (self, max))
    check_overlap(self, max)
    return inplace(self, clamp_max(inplace_source(self), max))


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    # (an integral or bool tensor keeps its values: torch writes none, and so lets it be an
    # expanded one, counting the write all the same)
    return inplace(self, nan_to_num(inplace_source(self), nan, posinf, neginf),
                   written=_write_nothing if self._data.dtype.kind in "biu" else None)


def _write_nothing(arr, result):
    """inplace's `written` for an op that writes no element."""


# ================================================================ surface ops (issue 14): frexp
__all__ += ["frexp"]


class FrexpBackward0(Node):                  # derivatives.yaml: frexp
    __slots__ = ("_saved_exponent",)
    _saved_names = ("_saved_exponent",)

    def apply(self, grad):
        return grad / self._saved_exponent.exp2(),


def frexp(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(x)
    # torch: the exponent is 0 for infinities and NaNs
    e = np.where(np.isfinite(x), e, 0).astype(np.int32)
    mant, expo = wrap(torch_layout(m.astype(x.dtype, copy=False), x)), wrap(e)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = FrexpBackward0()
        node._saved_exponent = expo
        link(mant, node, input)
    if out is not None:
        out_tuple(out, 2)
        write_out(mant, out[0])
        write_out(expo, out[1])
        return _RT.frexp_out(out)
    return _RT.frexp((mant, expo))
