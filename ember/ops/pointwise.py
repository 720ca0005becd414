"""Pointwise ops: arithmetic, comparisons, unary math. Each op: its forward (one NumPy call
after torch's promotion), its node class (torch's name) and derivative formula, written with
ember ops so that the same formula serves double backward."""
__all__ = ["add", "sub", "subtract", "rsub", "neg", "negative", "mul", "multiply", "div",
           "divide", "true_divide", "floor_divide", "reciprocal", "pow", "exp", "log", "sqrt",
           "where", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and",
           "logical_or", "logical_xor", "logical_not", "eq", "ne", "not_equal", "lt", "less",
           "le", "less_equal", "gt", "greater", "ge", "greater_equal", "conj", "abs", "absolute",
           "abs_", "sign", "sgn", "rsqrt", "rsqrt_", "square", "square_", "exp2", "exp2_",
           "expm1", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
           "cosh", "tanh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh",
           "arccosh", "arctanh", "sigmoid", "sigmoid_", "logit", "logit_", "relu", "relu_",
           "floor", "ceil", "round", "trunc", "fix", "frac", "floor_", "ceil_", "round_",
           "trunc_", "fix_", "frac_", "clamp", "clip", "clamp_", "clip_", "clamp_min",
           "clamp_max", "clamp_min_", "clamp_max_", "nan_to_num", "nan_to_num_", "positive",
           "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "angle", "exp_", "log_", "sqrt_", "neg_",
           "negative_", "reciprocal_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_",
           "cosh_", "tanh_", "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_",
           "arcsinh_", "arccosh_", "arctanh_", "log2_", "log10_", "log1p_", "expm1_", "remainder",
           "fmod", "float_power", "atan2", "arctan2", "hypot", "copysign", "xlogy", "xlogy_",
           "maximum", "minimum", "fmax", "fmin", "lerp", "addcmul", "addcdiv", "isnan", "isinf",
           "isposinf", "isneginf", "isfinite", "isreal", "signbit", "isclose", "allclose",
           "equal", "bitwise_left_shift", "bitwise_right_shift", "conj_physical",
           "resolve_conj", "resolve_neg", "real", "imag"]

import builtins
import math

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link, same_meta
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap, wrap_out, wrap_out2
from ._common import (operands, needs, inplace, inplace_source, type_name, broadcast_error,
                      plain_operand, mark_written, scalar_array,
                      saved_output, conj_if_complex, floating, scalar_tensor, write_out)


def _grad_needed(input, o):
    return STATE.enabled and (input._requires_grad or (o is not None and o._requires_grad))


_np_mul, _np_sub = np.multiply, np.subtract    # (bound once: ufuncs with positional out=)


# ---------------------------------------------------------------- add / sub / rsub / neg

class AddBackward0(Node):                    # derivatives.yaml: add.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        if self.next_functions[1][0] is None:       # x + number: nothing for `other`
            return grad, None
        a = self._saved_alpha
        return grad, (grad if a == 1 else grad * a)

    def np_apply(self, grad):
        if self.next_functions[1][0] is None:
            return grad,        # (the engine reads a missing entry as None)
        if self._saved_alpha == 1:
            return grad, grad
        return Node.np_apply(self, grad)


def _check_alpha(input, other, alpha):
    """torch's checks on alpha (only reached for alpha != 1)."""
    rt = D.result_type(input, other)
    if type(alpha) is bool:
        if rt is not D.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and rt.category < D.FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def add(input, other, *, alpha=1, out=None):
    if (type(other) is float or type(other) is int) and type(input) is Tensor and \
            alpha.__class__ is int and alpha == 1 and out is None and \
            input._data.dtype.kind == "f":
        # hot path: floating tensor + Python number (no promotion possible, no checks)
        x = input._data
        r = x + scalar_array(other, x.dtype)
        if STATE.enabled and input._requires_grad:
            node = AddBackward0()
            node._saved_alpha = 1
            return wrap_out(r, node, input, True)
        return wrap(r)
    if type(other) is Tensor and type(input) is Tensor and alpha.__class__ is int and \
            alpha == 1 and out is None:
        x, y = input._data, other._data
        if x.dtype is y.dtype and x.dtype.kind == "f":
            # hot path: two floating tensors of one dtype (no promotion, no checks)
            try:
                r = x + y
            except ValueError:
                raise broadcast_error(x, y) from None
            if STATE.enabled and (input._requires_grad or other._requires_grad):
                node = AddBackward0()
                node._saved_alpha = 1
                return wrap_out2(r, node, input, other)
            return wrap(r)
    if alpha != 1 or type(alpha) is bool:
        _check_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        return add(scalar_tensor(input), other, alpha=alpha, out=out)
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    try:
        r = x + y if alpha == 1 else x + y * alpha
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if _grad_needed(input, o):
        node = AddBackward0()
        node._saved_alpha = alpha
        link(res, node, input, o)
    return write_out(res, out)


class SubBackward0(Node):                    # derivatives.yaml: sub.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        if self.next_functions[1][0] is None:       # x - number: nothing for `other`
            return grad, None
        a = self._saved_alpha
        return grad, (-grad if a == 1 else grad * -a)

    def np_apply(self, grad):
        if self.next_functions[1][0] is None:
            return grad,
        if self._saved_alpha == 1:
            return grad, -grad
        return Node.np_apply(self, grad)


def sub(input, other, *, alpha=1, out=None):
    if (type(other) is float or type(other) is int) and type(input) is Tensor and \
            alpha.__class__ is int and alpha == 1 and out is None and \
            input._data.dtype.kind == "f":
        x = input._data
        r = x - scalar_array(other, x.dtype)         # hot path, as in add
        if STATE.enabled and input._requires_grad:
            node = SubBackward0()
            node._saved_alpha = 1
            return wrap_out(r, node, input, True)
        return wrap(r)
    if alpha != 1 or type(alpha) is bool:
        _check_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    o = other if isinstance(other, Tensor) else None
    if input._data.dtype.kind == "b" or (o is not None and o._data.dtype.kind == "b"):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead."
                           if o is not None and
                           input._data.dtype.kind == o._data.dtype.kind == "b" else
                           "Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")
    x, y = operands(input, other)
    try:
        r = x - y if alpha == 1 else x - y * alpha
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if _grad_needed(input, o):
        node = SubBackward0()
        node._saved_alpha = alpha
        link(res, node, input, o)
    return write_out(res, out)


subtract = sub


class RsubBackward1(Node):                   # derivatives.yaml: rsub.Scalar
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        a = self._saved_alpha
        return (-grad if a == 1 else grad * -a),


class RsubBackward0(Node):                   # derivatives.yaml: rsub.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        a = self._saved_alpha
        return ((-grad if a == 1 else grad * -a) if needs(self, 0) else None), grad


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    if isinstance(other, Tensor):
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        x, y = operands(input, other)
        res = wrap(y - x * alpha if alpha != 1 else y - x)
        if _grad_needed(input, other):
            node = RsubBackward0()
            node._saved_alpha = alpha
            link(res, node, input, other)
        return res
    x, y = operands(input, other)
    res = wrap(y - x if alpha == 1 else y - x * alpha)
    if STATE.enabled and input._requires_grad:
        node = RsubBackward1()
        node._saved_alpha = alpha
        link(res, node, input)
    return res


class NegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return -grad,


def neg(input, *, out=None):
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    x = input._data
    r = np.negative(x)
    if STATE.enabled and input._requires_grad:
        if out is None and x.dtype.kind == "f":
            return wrap_out(r, NegBackward0(), input, False)
        res = wrap(r)
        link(res, NegBackward0(), input)
        return write_out(res, out)
    return write_out(wrap(r), out)


negative = neg


# ---------------------------------------------------------------- mul / div

class MulBackward0(Node):                    # derivatives.yaml: mul.Tensor
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        nf = self.next_functions
        a, b = nf[0][0] is not None, nf[1][0] is not None
        return (grad * conj_if_complex(self._saved_other) if a else None,
                grad * conj_if_complex(self._saved_self) if b else None)

    def np_apply(self, g):
        # the same arithmetic straight in NumPy, when no promotion rule could differ (real
        # gradient, operand of the gradient's dtype or a number)
        nf = self.next_functions
        if nf[1][0] is None:                # x * number, or x * a constant
            o = plain_operand(self._saved_other, g)
            if o is not None:
                return g * o,
            return Node.np_apply(self, g)
        a = nf[0][0] is not None
        o = plain_operand(self._saved_other, g) if a else 0
        s = plain_operand(self._saved_self, g)
        if o is not None and s is not None:
            return (g * o if a else None), g * s
        return Node.np_apply(self, g)


def mul(input, other, *, out=None):
    if (type(other) is float or type(other) is int) and type(input) is Tensor and \
            out is None and input._data.dtype.kind == "f":
        x = input._data
        r = x * scalar_array(other, x.dtype)         # hot path, as in add
        if STATE.enabled and input._requires_grad:
            node = MulBackward0()
            node._saved_other = other
            node._saved_self = None
            return wrap_out(r, node, input, True)
        return wrap(r)
    if type(other) is Tensor and type(input) is Tensor and out is None:
        x, y = input._data, other._data
        if x.dtype is y.dtype and x.dtype.kind == "f":     # hot path, as in add
            try:
                r = x * y
            except ValueError:
                raise broadcast_error(x, y) from None
            if STATE.enabled and (input._requires_grad or other._requires_grad):
                node = MulBackward0()
                node._saved_other = other if input._requires_grad else None
                node._saved_self = input if other._requires_grad else None
                return wrap_out2(r, node, input, other)
            return wrap(r)
    if not isinstance(input, Tensor):
        input, other = other, input
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    try:
        r = x * y
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or (o is not None and o._requires_grad)):
        node = MulBackward0()
        # save each operand only if the other one's gradient needs it
        node._saved_other = other if input._requires_grad else None
        node._saved_self = input if o is not None and o._requires_grad else None
        link(res, node, input, o)
    return write_out(res, out)


multiply = mul


class DivBackward0(Node):                    # derivatives.yaml: div.Tensor
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        nf = self.next_functions
        other = conj_if_complex(self._saved_other)
        return (grad / other if nf[0][0] is not None else None,
                -grad * conj_if_complex(self._saved_self) / (other * other)
                if nf[1][0] is not None else None)


class DivBackward2(Node):                    # derivatives.yaml: div.Tensor_mode (zero gradient)
    __slots__ = ()

    def apply(self, grad):
        return tuple(_zeros(grad) if nf[0] is not None else None for nf in self.next_functions)


def div(input, other, *, rounding_mode=None, out=None):
    if not isinstance(input, Tensor):
        input = scalar_tensor(input, other)
    o = other if isinstance(other, Tensor) else None
    if rounding_mode is not None:
        return write_out(_div_rounding(input, other, o, rounding_mode), out)
    rt = D.result_type(input, other)
    if rt.category < D.FLOAT:
        rt = D.get_default_dtype()
    x = input._data
    y = o._data if o is not None else other
    if x.dtype != rt.np:
        x = x.astype(rt.np)
    if o is not None and y.dtype != rt.np:
        y = y.astype(rt.np)
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = x / y
    except ValueError:
        raise broadcast_error(x, y) from None
    if r.dtype != rt.np:
        r = r.astype(rt.np)
    res = wrap(r)
    if _grad_needed(input, o):
        node = DivBackward0()
        node._saved_other = other
        node._saved_self = input if o is not None and o._requires_grad else None
        link(res, node, input, o)
    return write_out(res, out)


divide = true_divide = div


def _div_rounding(input, other, o, mode, node=True):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{mode}'")
    x, y = operands(input, other)
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iub" and (o is None or y.dtype.kind in "iub"):
            if np.any(np.asarray(y) == 0):
                raise RuntimeError("ZeroDivisionError")
            r = np.floor_divide(x, y) if mode == "floor" else _int_trunc_div(x, y)
        else:
            q = np.true_divide(x, y)
            # torch: x / 0 as is, else floor((x - fmod(x, y)) / y), so that exact quotients
            # stay exact (NaN for infinite x); a zero result takes the sign of x / y
            r = np.where(np.asarray(y) == 0, q, _float_floor_div(x, y, q)) if mode == "floor" \
                else np.trunc(q)
            r = np.asarray(r).astype(q.dtype, copy=False)
    res = wrap(r)
    if node and _grad_needed(input, o) and res._data.dtype.kind in "fc":
        link(res, DivBackward2(), input, o)
    return res


def _int_trunc_div(x, y):
    q = np.floor_divide(x, y)
    fix = (np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0))
    return q + fix


def _float_floor_div(x, y, q):
    mod = np.fmod(x, y)
    div = (np.asarray(x) - mod) / y
    div = div - ((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)))
    fl = np.floor(div)
    r = np.where(div - fl > 0.5, fl + 1, fl)
    return np.where(r == 0, np.copysign(0.0, q), r)


def floor_divide(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input = scalar_tensor(input, other)
    o = other if isinstance(other, Tensor) else None
    x = input._data
    if x.dtype.kind == "b" and (o is None or o._data.dtype.kind == "b"):
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
    res = _div_rounding(input, other, o, "floor", node=False)
    return write_out(_not_implemented(res, "floor_divide", input, o), out)


class ReciprocalBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        r = conj_if_complex(saved_output(self, self._saved_result))
        return -grad * r * r,


def reciprocal(input, *, out=None):
    x = input._data
    if x.dtype.kind not in "fc":
        x = x.astype(D.get_default_dtype().np)
    with np.errstate(divide="ignore"):
        res = wrap(np.reciprocal(x))
    if STATE.enabled and input._requires_grad:
        node = ReciprocalBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


def _rdiv(self, other):
    return reciprocal(self) * other


# ---------------------------------------------------------------- pow

class PowBackward0(Node):                    # derivatives.yaml: pow.Tensor_Scalar
    __slots__ = ("_saved_self", "_saved_exponent")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        e = self._saved_exponent
        if e == 0:
            return grad * 0,
        return grad * (e * conj_if_complex(self._saved_self) ** (e - 1)),


class PowBackward1(Node):                    # derivatives.yaml: pow.Tensor_Tensor
    __slots__ = ("_saved_self", "_saved_exponent", "_saved_result")
    _saved_names = ("_saved_self", "_saved_exponent", "_saved_result")

    def apply(self, grad):
        s, e = self._saved_self, self._saved_exponent
        gs = ge = None
        if needs(self, 0):
            gs = grad * where(e == 0, 0.0, e * s ** where(e == 0, 1.0, e - 1))
        if needs(self, 1):
            r = self._result()
            ge = grad * where((s == 0) & (e >= 0), 0.0, r * log(s))
        return gs, ge

    def _result(self):
        return saved_output(self, self._saved_result)


class PowBackward2(Node):                    # derivatives.yaml: pow.Scalar
    __slots__ = ("_saved_self", "_saved_exponent", "_saved_result")
    _saved_names = ("_saved_exponent", "_saved_result")

    def apply(self, grad):
        base = self._saved_self
        r = saved_output(self, self._saved_result)
        if base == 0:
            return grad * where(self._saved_exponent >= 0, 0.0, r * np.log(base + 0j).real),
        return grad * r * float(np.log(base)) if not isinstance(base, complex) else \
            grad * r * complex(np.log(base)),


def pow(input, exponent, *, out=None):
    if not isinstance(input, Tensor):
        return _scalar_pow(input, exponent)
    e = exponent if isinstance(exponent, Tensor) else None
    x, y = operands(input, exponent)
    if x.dtype.kind in "iu" and (e is None or y.dtype.kind in "iub") and np.any(np.asarray(y) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r = np.power(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if _grad_needed(input, e):
        if e is None:
            node = PowBackward0()
            node._saved_self = input
            node._saved_exponent = exponent
            link(res, node, input)
        else:
            node = PowBackward1()
            node._saved_self = input
            node._saved_exponent = e
            node._saved_result = res.detach()
            link(res, node, input, e)
    return write_out(res, out)


def _scalar_pow(base, exponent):
    rt = D.result_type(exponent, base)
    y = exponent._data.astype(rt.np, copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        res = wrap(np.power(np.asarray(base, dtype=rt.np), y))
    if STATE.enabled and exponent._requires_grad:
        node = PowBackward2()
        node._saved_self = base
        node._saved_exponent = exponent
        node._saved_result = res.detach()
        link(res, node, None, exponent)
        node.next_functions = node.next_functions[1:]
    return res


# ---------------------------------------------------------------- unary math used by formulas

class ExpBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad * conj_if_complex(saved_output(self, self._saved_result)),

    def np_apply(self, g):
        r = plain_operand(self._saved_result, g)
        if r is not None:
            return g * r,                   # NumPy directly (see mul)
        return Node.np_apply(self, g)


def exp(input, *, out=None):
    x = input._data
    if out is None and x.dtype.kind == "f":        # hot path: a real floating input
        r = np.exp(x)
        if STATE.enabled and input._requires_grad:
            node = ExpBackward0()
            node._saved_result = wrap(r)
            return wrap_out(r, node, input, False)
        return wrap(r)
    res = wrap(np.exp(floating(x)))
    if STATE.enabled and input._requires_grad:
        node = ExpBackward0()
        node._saved_result = res.detach()
        link(res, node, input, meta=same_meta(input) if x.dtype.kind == "f" else None)
    return write_out(res, out)


class LogBackward0(Node):
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad / conj_if_complex(self._saved_self),


def log(input, *, out=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        res = wrap(np.log(floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = LogBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


class SqrtBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad / (2 * conj_if_complex(saved_output(self, self._saved_result))),


def sqrt(input, *, out=None):
    with np.errstate(invalid="ignore"):
        res = wrap(np.sqrt(floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = SqrtBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class WhereBackward0(Node):                  # derivatives.yaml: where.self
    __slots__ = ("_saved_condition",)
    _saved_names = ("_saved_condition",)

    def apply(self, grad):
        c = self._saved_condition
        zero = grad.new_zeros(())
        return (where(c, grad, zero) if needs(self, 0) else None,
                where(c, zero, grad) if needs(self, 1) else None)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        from .index import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        rt = D.result_type(input, other)
        x, y = np.asarray(input, rt.np), np.asarray(other, rt.np)
        ti = to = None
    else:
        ti = input if isinstance(input, Tensor) else None
        to = other if isinstance(other, Tensor) else None
        rt = D.result_type(input, other)
        x = ti._data if ti is not None else input
        y = to._data if to is not None else other
        x = np.asarray(x, rt.np) if not isinstance(x, np.ndarray) or x.dtype != rt.np else x
        y = np.asarray(y, rt.np) if not isinstance(y, np.ndarray) or y.dtype != rt.np else y
    c = condition._data
    if c.dtype.kind != "b":
        if c.dtype != np.uint8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {type_name(c.dtype)}")
        c = c.astype(bool)
    try:
        res = wrap(np.where(c, x, y))
    except ValueError:
        try:
            cx = np.empty(np.broadcast_shapes(c.shape, np.shape(x)), bool)
        except ValueError:
            raise broadcast_error(c, x) from None
        raise broadcast_error(cx, y) from None
    if STATE.enabled and ((ti is not None and ti._requires_grad) or
                          (to is not None and to._requires_grad)):
        node = WhereBackward0()
        node._saved_condition = condition
        link(res, node, ti, to)
    return write_out(res, out)


# ---------------------------------------------------------------- comparisons (no gradient)

def _compare(ufunc):
    def op(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        x, y = operands(input, other)
        try:
            return write_out(wrap(ufunc(x, y)), out)
        except ValueError:
            raise broadcast_error(x, y) from None
    op.__name__ = ufunc.__name__
    return op


eq = _compare(np.equal)
ne = not_equal = _compare(np.not_equal)
lt = less = _compare(np.less)
le = less_equal = _compare(np.less_equal)
gt = greater = _compare(np.greater)
ge = greater_equal = _compare(np.greater_equal)


def _eq_op(self, other):
    if not isinstance(other, (Tensor, int, float, complex, bool, np.generic)):
        return False
    return eq(self, other)


def _ne_op(self, other):
    if not isinstance(other, (Tensor, int, float, complex, bool, np.generic)):
        return True
    return ne(self, other)


# ---------------------------------------------------------------- bitwise and logical

def _bitwise(ufunc, name):
    def op(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        x, y = operands(input, other)
        if x.dtype.kind not in "biu" or np.asarray(y).dtype.kind not in "biu":
            bad = x.dtype if x.dtype.kind not in "biu" else np.asarray(y).dtype
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{type_name(bad)}'")
        try:
            return write_out(wrap(ufunc(x, y)), out)
        except ValueError:
            raise broadcast_error(x, y) from None
    op.__name__ = name
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def bitwise_not(input, *, out=None):
    x = input._data
    if x.dtype.kind not in "biu":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    return write_out(wrap(np.invert(x)), out)


def _logical(ufunc):
    def op(input, other, *, out=None):
        _tensor_args(ufunc.__name__, input, other)
        x = input._data
        y = other._data
        try:
            return write_out(wrap(ufunc(x, y)), out)
        except ValueError:
            raise broadcast_error(x, y) from None
    op.__name__ = ufunc.__name__
    return op


logical_and = _logical(np.logical_and)
logical_or = _logical(np.logical_or)
logical_xor = _logical(np.logical_xor)


def logical_not(input, *, out=None):
    return write_out(wrap(np.logical_not(input._data)), out)


# ---------------------------------------------------------------- unary math

_LN2, _LN10 = math.log(2.0), math.log(10.0)


class _SavesSelf(Node):
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)


class _SavesResult(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def _result(self):
        return saved_output(self, self._saved_result)


def _zeros(grad):
    """A constant zero gradient (torch's zeros_like(grad): no graph behind it)."""
    return wrap(np.zeros_like(grad._data))


def _float_unary(input, ufunc, node_cls, saves_result, out, quiet=True):
    """A float-valued unary op: ints and bools compute in the default float dtype. quiet:
    silence NumPy's overflow/domain warnings (torch prints none); costs a few microseconds,
    so ops that cannot warn on finite input skip it."""
    x = input._data
    if out is None and not quiet and x.dtype.kind == "f":     # hot path: as in exp
        r = ufunc(x)
        if STATE.enabled and input._requires_grad:
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
    if STATE.enabled and input._requires_grad:
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


def abs(input, *, out=None):
    x = input._data
    if x.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    res = wrap(np.abs(x))
    if STATE.enabled and input._requires_grad:
        node = AbsBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


absolute = abs


class SignBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return _zeros(grad),


class SgnBackward0(_SavesSelf):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        if s._data.dtype.kind != "c":
            return _zeros(grad),
        # (grad - sgn * Re(conj(sgn) grad)) / |s|, zero where s == 0
        r = saved_output(self, self._saved_result)
        a = s.abs()
        g = (grad - r * real(r.conj() * grad)) / where(a == 0, 1.0, a)
        return where(a == 0, 0.0, g),


def _sign_data(x):
    if x.dtype.kind == "b":
        return x.copy()
    if x.dtype.kind == "f":
        return np.where(np.isnan(x), x.dtype.type(0), np.sign(x))   # torch: (0 < x) - (x < 0)
    return np.sign(x)


def sign(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    res = wrap(_sign_data(x))
    if STATE.enabled and input._requires_grad:
        link(res, SignBackward0(), input)
    return write_out(res, out)


def sgn(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        with np.errstate(all="ignore"):
            a = np.abs(x)
            r = np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    else:
        r = _sign_data(x)
    res = wrap(r)
    if STATE.enabled and input._requires_grad:
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


def rsqrt(input, *, out=None):
    return _float_unary(input, _np_rsqrt, RsqrtBackward0, True, out)


def _np_rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def square(input, *, out=None):
    if input._data.dtype.kind == "b":
        input = wrap(input._data.astype(np.int64))
    return pow(input, 2, out=out)


class Exp2Backward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return grad * (conj_if_complex(self._result()) * _LN2),


def exp2(input, *, out=None):
    return _float_unary(input, np.exp2, Exp2Backward0, True, out)


class Expm1Backward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return grad * (conj_if_complex(self._result()) + 1),


def expm1(input, *, out=None):
    return _float_unary(input, np.expm1, Expm1Backward0, True, out)


class Log2Backward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) * _LN2),


def log2(input, *, out=None):
    return _float_unary(input, np.log2, Log2Backward0, False, out)


class Log10Backward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) * _LN10),


def log10(input, *, out=None):
    return _float_unary(input, np.log10, Log10Backward0, False, out)


class Log1PBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad / (conj_if_complex(self._saved_self) + 1),


def log1p(input, *, out=None):
    return _float_unary(input, np.log1p, Log1PBackward0, False, out)


class SinBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(cos(self._saved_self)),


def sin(input, *, out=None):
    return _float_unary(input, np.sin, SinBackward0, False, out, quiet=False)


class CosBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * -conj_if_complex(sin(self._saved_self)),


def cos(input, *, out=None):
    return _float_unary(input, np.cos, CosBackward0, False, out, quiet=False)


class TanBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        r = self._result()
        return grad * conj_if_complex(r * r + 1),


def tan(input, *, out=None):
    return _float_unary(input, np.tan, TanBackward0, True, out)


class AsinBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(1 - s * s)),


def asin(input, *, out=None):
    return _float_unary(input, np.arcsin, AsinBackward0, False, out)


class AcosBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * -conj_if_complex(rsqrt(1 - s * s)),


def acos(input, *, out=None):
    return _float_unary(input, np.arccos, AcosBackward0, False, out)


class AtanBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad / conj_if_complex(s * s + 1),


def atan(input, *, out=None):
    return _float_unary(input, np.arctan, AtanBackward0, False, out, quiet=False)


class SinhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(cosh(self._saved_self)),


def sinh(input, *, out=None):
    return _float_unary(input, np.sinh, SinhBackward0, False, out)


class CoshBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * conj_if_complex(sinh(self._saved_self)),


def cosh(input, *, out=None):
    return _float_unary(input, np.cosh, CoshBackward0, False, out)


class TanhBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        r = self._result()
        return grad * conj_if_complex(1 - r * r),

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


class AsinhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(s * s + 1)),


def asinh(input, *, out=None):
    return _float_unary(input, np.arcsinh, AsinhBackward0, False, out, quiet=False)


class AcoshBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad * conj_if_complex(rsqrt(s * s - 1)),


def acosh(input, *, out=None):
    return _float_unary(input, np.arccosh, AcoshBackward0, False, out)


class AtanhBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        return grad / conj_if_complex(1 - s * s),


def atanh(input, *, out=None):
    return _float_unary(input, np.arctanh, AtanhBackward0, False, out)


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


class SigmoidBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        r = self._result()
        return grad * conj_if_complex(r * (1 - r)),


def _np_sigmoid(x):
    return np.reciprocal(np.exp(-x) + 1)


def sigmoid(input, *, out=None):
    return _float_unary(input, _np_sigmoid, SigmoidBackward0, True, out)


class LogitBackward0(_SavesSelf):
    __slots__ = ("_saved_eps",)

    def apply(self, grad):
        s, eps = self._saved_self, self._saved_eps
        g = grad / (s * (1 - s))
        if eps is None:
            return where((s < 0) | (s > 1), math.nan, g),
        # NaN inputs get 0 (torch's vectorised kernel; its scalar tail loop gives NaN)
        return where((s >= eps) & (s <= 1 - eps), g, 0.0),


def logit(input, eps=None, *, out=None):
    x = floating(input._data)
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"logit_cpu\" not implemented for '{type_name(x.dtype)}'")
    with np.errstate(all="ignore"):
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        res = wrap(np.log(x / (1 - x)))
    if STATE.enabled and input._requires_grad:
        node = LogitBackward0()
        node._saved_self = input
        node._saved_eps = eps
        link(res, node, input)
    return write_out(res, out)


class ReluBackward0(_SavesResult):
    __slots__ = ()

    def apply(self, grad):
        return where(self._result() <= 0, 0.0, grad),

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


def relu(input, inplace=False):
    if inplace:
        return relu_(input)
    x = input._data
    if x.dtype.kind in "bc":
        if x.dtype.kind == "c":
            raise NotImplementedError(_CLAMP_COMPLEX)
        raise RuntimeError("Boolean inputs not supported for relu")
    r = np.maximum(x, 0)
    if STATE.enabled and input._requires_grad:
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
    x = input._data
    if x.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel_name}_vml_cpu\" not implemented for 'Bool'")
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{type_name(x.dtype)}'"
                                  if kernel_name == "round" else
                                  f"{kernel_name} is not supported for complex inputs")
    res = wrap(ufunc(x) if x.dtype.kind in "fc" else x.copy())
    if STATE.enabled and input._requires_grad:
        link(res, node_cls(), input)
    return write_out(res, out)


class FloorBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return _zeros(grad),


class CeilBackward0(FloorBackward0):
    __slots__ = ()


class TruncBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward1(FloorBackward0):
    __slots__ = ("_saved_decimals",)


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
    x = input._data
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
    if STATE.enabled and input._requires_grad:
        node = RoundBackward1()
        node._saved_decimals = decimals
        link(res, node, input)
    return write_out(res, out)


class FracBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad,


def frac(input, *, out=None):
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{type_name(x.dtype)}'")
    with np.errstate(all="ignore"):
        res = wrap(x - np.trunc(x))
    if STATE.enabled and input._requires_grad:
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


class ClampBackward0(_SavesSelf):            # derivatives.yaml: clamp.Tensor
    __slots__ = ("_saved_min", "_saved_max")
    _saved_names = ("_saved_self", "_saved_min", "_saved_max")

    def apply(self, grad):
        s, lo, hi = self._saved_self, self._saved_min, self._saved_max
        g0 = g1 = g2 = None
        if lo is not None and hi is not None:
            if needs(self, 0):
                g0 = where((s >= lo) & (s <= hi), grad, 0.0)
            if needs(self, 1):
                g1 = where((s < lo) & (lo < hi), grad, 0.0)
            if needs(self, 2):
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


_CLAMP_COMPLEX = "clamp is not supported for complex types"


def _clamp_data(input, lo, hi):
    """Forward of clamp: max(x, lo) then min(., hi), after torch's promotion."""
    if input._data.dtype.kind == "c":
        raise NotImplementedError(_CLAMP_COMPLEX)
    args = [a for a in (input, lo, hi) if a is not None]
    rt = D.result_type(*args).np
    x = input._data
    if x.dtype != rt:
        x = x.astype(rt)
    lo = lo._data.astype(rt, copy=False) if isinstance(lo, Tensor) else lo
    hi = hi._data.astype(rt, copy=False) if isinstance(hi, Tensor) else hi
    try:
        r = x
        if lo is not None:
            r = np.maximum(r, lo)
        if hi is not None:
            r = np.minimum(r, hi)
    except ValueError:
        raise broadcast_error(x, lo if lo is not None else hi) from None
    if r.dtype != rt:
        r = r.astype(rt)
    return wrap(r)


def clamp(input, min=None, max=None, *, out=None):
    if min is None and max is None:
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
                              (tmax and max._requires_grad)):
            node = ClampBackward0()
            node._saved_self = input
            node._saved_min = min
            node._saved_max = max
            link(res, node, input, min, max)
    elif STATE.enabled and input._requires_grad:
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


class ClampMinBackward1(_SavesSelf):
    __slots__ = ("_saved_min",)
    _saved_names = ("_saved_self", "_saved_min")

    def apply(self, grad):
        s, lo = self._saved_self, self._saved_min
        return (where(s >= lo, grad, 0.0) if needs(self, 0) else None,
                where(s < lo, grad, 0.0) if needs(self, 1) else None)


class ClampMaxBackward0(_SavesSelf):
    __slots__ = ("_saved_max",)

    def apply(self, grad):
        return where(self._saved_self <= self._saved_max, grad, 0.0),


class ClampMaxBackward1(_SavesSelf):
    __slots__ = ("_saved_max",)
    _saved_names = ("_saved_self", "_saved_max")

    def apply(self, grad):
        s, hi = self._saved_self, self._saved_max
        return (where(s <= hi, grad, 0.0) if needs(self, 0) else None,
                where(s > hi, grad, 0.0) if needs(self, 1) else None)


def clamp_min(input, min, *, out=None):
    res = _clamp_data(input, min, None)
    if isinstance(min, Tensor):
        if _grad_needed(input, min):
            node = ClampMinBackward1()
            node._saved_self, node._saved_min = input, min
            link(res, node, input, min)
    elif STATE.enabled and input._requires_grad:
        node = ClampMinBackward0()
        node._saved_self, node._saved_min = input, min
        link(res, node, input)
    return write_out(res, out)


def clamp_max(input, max, *, out=None):
    res = _clamp_data(input, None, max)
    if isinstance(max, Tensor):
        if _grad_needed(input, max):
            node = ClampMaxBackward1()
            node._saved_self, node._saved_max = input, max
            link(res, node, input, max)
    elif STATE.enabled and input._requires_grad:
        node = ClampMaxBackward0()
        node._saved_self, node._saved_max = input, max
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- misc unary

class NanToNumBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        return grad * isfinite(self._saved_self),


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    x = input._data
    if x.dtype.kind not in "fc":
        res = wrap(x.copy())
    else:
        res = wrap(np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf))
    if STATE.enabled and input._requires_grad:
        node = NanToNumBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


def positive(input):
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


class Deg2RadBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad * (math.pi / 180.0),


class Rad2DegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad * (180.0 / math.pi),


def _scale_unary(input, factor, node_cls, name, out):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    res = wrap(floating(x) * factor)
    if STATE.enabled and input._requires_grad:
        link(res, node_cls(), input)
    return write_out(res, out)


def deg2rad(input, *, out=None):
    return _scale_unary(input, math.pi / 180.0, Deg2RadBackward0, "deg2rad", out)


def rad2deg(input, *, out=None):
    return _scale_unary(input, 180.0 / math.pi, Rad2DegBackward0, "rad2deg", out)


class AngleBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        if s._data.dtype.kind != "c":
            return _zeros(grad),
        a2 = real(s * s.conj())
        g = grad * s / where(a2 == 0, 1.0, a2) * 1j
        return where(a2 == 0, 0.0, g),


def angle(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        r = np.angle(x)
    else:
        x = floating(x)
        r = np.where(x < 0, np.pi, 0.0).astype(x.dtype)
        if x.dtype.kind == "f":
            r = np.where(np.isnan(x), x, r)
    res = wrap(r)
    if STATE.enabled and input._requires_grad:
        node = AngleBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- remainder / fmod

class NotImplementedBackward(Node):
    """torch's NotImplemented node: ops whose derivative torch does not define."""
    __slots__ = ("_op",)

    def apply(self, grad):
        raise RuntimeError(f"derivative for aten::{self._op} is not implemented")


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"


def _not_implemented(res, op, input, o):
    if _grad_needed(input, o) and res._data.dtype.kind in "fc":
        node = NotImplementedBackward()
        node._op = op
        link(res, node, input, o)
    return res


def _int_zero_check(x, y):
    if x.dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")


def _bool_check(x, y, name):
    for a in (x, y):
        a = np.asarray(a)
        if a.dtype.kind in "bc":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{type_name(a.dtype)}'")


class RemainderBackward0(Node):              # derivatives.yaml: remainder.Scalar
    __slots__ = ()

    def apply(self, grad):
        return grad,


class RemainderBackward1(_SavesSelf):        # derivatives.yaml: remainder.Tensor
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        return (grad if needs(self, 0) else None,
                -grad * div(self._saved_self, self._saved_other, rounding_mode="floor")
                if needs(self, 1) else None)


def remainder(input, other, *, out=None):
    scalar_self = not isinstance(input, Tensor)
    if scalar_self:
        input = scalar_tensor(input, other)
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    _bool_check(x, y, "remainder")
    _int_zero_check(x, y)
    try:
        with np.errstate(all="ignore"):
            if x.dtype.kind in "fc":
                m = np.fmod(x, y)
                r = np.where((m != 0) & ((np.asarray(y) < 0) != (m < 0)), m + y, m)
                r = np.asarray(r).astype(x.dtype, copy=False)
            else:
                r = np.remainder(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if scalar_self:
        return write_out(_not_implemented(res, "remainder", input, o), out)
    if o is None:
        if STATE.enabled and input._requires_grad:
            link(res, RemainderBackward0(), input)
    elif _grad_needed(input, o):
        node = RemainderBackward1()
        node._saved_self = input if o._requires_grad else None
        node._saved_other = o if o._requires_grad else None
        link(res, node, input, o)
    return write_out(res, out)


class FmodBackward0(RemainderBackward0):     # derivatives.yaml: fmod.Scalar
    __slots__ = ()


class FmodBackward1(_SavesSelf):             # derivatives.yaml: fmod.Tensor
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        return (grad if needs(self, 0) else None,
                -grad * div(self._saved_self, self._saved_other, rounding_mode="trunc")
                if needs(self, 1) else None)


def fmod(input, other, *, out=None):
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    _bool_check(x, y, "fmod")
    _int_zero_check(x, y)
    try:
        with np.errstate(all="ignore"):
            r = np.fmod(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(r)
    if o is None:
        if STATE.enabled and input._requires_grad:
            link(res, FmodBackward0(), input)
    elif _grad_needed(input, o):
        node = FmodBackward1()
        node._saved_self = input if o._requires_grad else None
        node._saved_other = o if o._requires_grad else None
        link(res, node, input, o)
    return write_out(res, out)


# ---------------------------------------------------------------- float_power

def float_power(input, exponent, *, out=None):
    cplx = any(isinstance(a, complex) or (isinstance(a, Tensor) and a._data.dtype.kind == "c")
               for a in (input, exponent))
    dt = D.complex128 if cplx else D.float64
    if isinstance(input, Tensor):
        input = input.to(dt)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dt)
    if not isinstance(input, Tensor):
        return write_out(_scalar_pow(complex(input) if cplx else float(input), exponent), out)
    return pow(input, exponent, out=out)


def float_power_(self, exponent):
    cplx = isinstance(exponent, complex) or (isinstance(exponent, Tensor) and
                                             exponent._data.dtype.kind == "c")
    want = np.complex128 if cplx or self._data.dtype.kind == "c" else np.float64
    if self._data.dtype != want:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{type_name(self._data.dtype)} but the operation's result requires "
                           f"dtype {type_name(np.dtype(want))}")
    return inplace(self, float_power(inplace_source(self), exponent))


# ---------------------------------------------------------------- binary float ops

def _tensor_args(name, input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


def _float_operands(input, other, name):
    """Operands of a float-valued binary op: integer results compute in the default float."""
    rt = D.result_type(input, other)
    if rt.is_complex:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{type_name(rt.np)}'")
    if rt.category < D.FLOAT:
        rt = D.get_default_dtype()
    x = input._data if isinstance(input, Tensor) else input
    y = other._data if isinstance(other, Tensor) else other
    if isinstance(input, Tensor) and x.dtype != rt.np:
        x = x.astype(rt.np)
    if isinstance(other, Tensor) and y.dtype != rt.np:
        y = y.astype(rt.np)
    return x, y, rt.np


class Atan2Backward0(_SavesSelf):
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        d = s * s + o * o
        zero = d == 0
        recip = grad / where(zero, 1.0, d)
        return (where(zero, 0.0, recip * o) if needs(self, 0) else None,
                where(zero, 0.0, recip * -s) if needs(self, 1) else None)


def atan2(input, other, *, out=None):
    _tensor_args("atan2", input, other)
    x, y, _ = _float_operands(input, other, "atan2")
    try:
        with np.errstate(all="ignore"):
            res = wrap(np.arctan2(x, y))
    except ValueError:
        raise broadcast_error(x, y) from None
    if _grad_needed(input, other):
        node = Atan2Backward0()
        node._saved_self, node._saved_other = input, other
        link(res, node, input, other)
    return write_out(res, out)


arctan2 = atan2


class HypotBackward0(_SavesSelf):
    __slots__ = ("_saved_other", "_saved_result")
    _saved_names = ("_saved_self", "_saved_other", "_saved_result")

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return (grad * self._saved_self / r if needs(self, 0) else None,
                grad * self._saved_other / r if needs(self, 1) else None)


def hypot(input, other, *, out=None):
    _tensor_args("hypot", input, other)
    x, y = operands(input, other)
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{type_name(x.dtype)}'")
    try:
        res = wrap(np.hypot(x, y))
    except ValueError:
        raise broadcast_error(x, y) from None
    if _grad_needed(input, other):
        node = HypotBackward0()
        node._saved_self, node._saved_other = input, other
        node._saved_result = res.detach()
        link(res, node, input, other)
    return write_out(res, out)


class CopysignBackward0(_SavesSelf):         # derivatives.yaml: copysign.Tensor
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        g0 = None
        if needs(self, 0):
            s = self._saved_self
            r = saved_output(self, self._saved_result)
            zero = s == 0
            g0 = grad * where(zero, 0.0, r / where(zero, 1.0, s))
        return g0, (_zeros(grad) if len(self.next_functions) > 1 and needs(self, 1) else None)


class CopysignBackward1(CopysignBackward0):  # derivatives.yaml: copysign.Scalar
    __slots__ = ()


def copysign(input, other, *, out=None):
    if not isinstance(input, Tensor):
        raise TypeError("copysign() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:")
    o = other if isinstance(other, Tensor) else None
    x, y, rt = _float_operands(input, other, "copysign")
    try:
        res = wrap(np.copysign(x, y).astype(rt, copy=False))
    except ValueError:
        raise broadcast_error(x, y) from None
    if _grad_needed(input, o):
        node = CopysignBackward0() if o is not None else CopysignBackward1()
        node._saved_self = input
        node._saved_result = res.detach()
        if o is not None:
            link(res, node, input, o)
        else:
            link(res, node, input)
    return write_out(res, out)


class XlogyBackward0(_SavesSelf):            # derivatives.yaml: xlogy.Tensor
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        return (grad * xlogy((s != 0).to(s.dtype), o) if needs(self, 0) else None,
                grad * s / o if needs(self, 1) else None)


class XlogyBackward1(_SavesSelf):            # derivatives.yaml: xlogy.Scalar_Self
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_other",)

    def apply(self, grad):
        return grad * self._saved_self / self._saved_other,


class XlogyBackward2(_SavesSelf):            # derivatives.yaml: xlogy.Scalar_Other
    __slots__ = ("_saved_other",)

    def apply(self, grad):
        # torch's gradient here is log(other), zeroed where self == 0 unless other > 0
        s, o = self._saved_self, self._saved_other
        with np.errstate(all="ignore"):
            lg = float(np.log(np.float64(o)))
        if o > 0:
            return grad * lg,
        return grad * where(s == 0, 0.0, lg),


def xlogy(input, other, *, out=None):
    x, y, rt = _float_operands(input, other, "xlogy")
    with np.errstate(all="ignore"):
        try:
            r = np.where(np.isnan(y), np.nan, np.where(np.asarray(x) == 0, 0, x * np.log(y)))
        except ValueError:
            raise broadcast_error(x, y) from None
    res = wrap(r.astype(rt, copy=False))
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    if not STATE.enabled:
        return write_out(res, out)
    if ti and to:
        if input._requires_grad or other._requires_grad:
            node = XlogyBackward0()
            node._saved_self, node._saved_other = input, other
            link(res, node, input, other)
    elif to:
        if other._requires_grad:
            node = XlogyBackward1()
            node._saved_self, node._saved_other = input, other
            link(res, node, other)
    elif input._requires_grad:
        node = XlogyBackward2()
        node._saved_self, node._saved_other = input, other
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- maximum / minimum / fmax / fmin

class MaximumBackward0(_SavesSelf):
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")
    _lose_self = staticmethod(lambda s, o: s < o)

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        half = where(s == o, grad / 2, grad)
        return (where(self._lose_self(s, o), 0.0, half) if needs(self, 0) else None,
                where(self._lose_self(o, s), 0.0, half) if needs(self, 1) else None)


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()
    _lose_self = staticmethod(lambda s, o: s > o)


class FmaxBackward0(_SavesSelf):
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")
    _self_wins = staticmethod(lambda s, o: (s >= o) | isnan(o))

    def apply(self, grad):
        win = self._self_wins(self._saved_self, self._saved_other)
        return (where(win, grad, 0.0) if needs(self, 0) else None,
                where(win, 0.0, grad) if needs(self, 1) else None)


class FminBackward0(FmaxBackward0):
    __slots__ = ()
    _self_wins = staticmethod(lambda s, o: (s <= o) | isnan(o))


def _minmax(name, ufunc, node_cls):
    def op(input, other, *, out=None):
        _tensor_args(name, input, other)
        x, y = operands(input, other)
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        try:
            res = wrap(ufunc(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None
        if STATE.enabled and (input._requires_grad or other._requires_grad):
            node = node_cls()
            node._saved_self, node._saved_other = input, other
            link(res, node, input, other)
        return write_out(res, out)
    op.__name__ = op.__qualname__ = name
    return op


maximum = _minmax("maximum", np.maximum, MaximumBackward0)
minimum = _minmax("minimum", np.minimum, MinimumBackward0)
fmax = _minmax("fmax", np.fmax, FmaxBackward0)
fmin = _minmax("fmin", np.fmin, FminBackward0)


# ---------------------------------------------------------------- lerp / addcmul / addcdiv

class LerpBackward0(Node):                   # derivatives.yaml: lerp.Scalar
    __slots__ = ("_saved_weight",)

    def apply(self, grad):
        w = self._saved_weight
        return (grad * (1 - w) if needs(self, 0) else None,
                grad * w if needs(self, 1) else None)


class LerpBackward1(_SavesSelf):             # derivatives.yaml: lerp.Tensor
    __slots__ = ("_saved_end", "_saved_weight")
    _saved_names = ("_saved_self", "_saved_end", "_saved_weight")

    def apply(self, grad):
        w = self._saved_weight
        return (grad * (1 - w) if needs(self, 0) else None,
                grad * w if needs(self, 1) else None,
                grad * (self._saved_end - self._saved_self) if needs(self, 2) else None)


def lerp(input, end, weight, *, out=None):
    x, e = input._data, end._data
    tw = isinstance(weight, Tensor)
    if e.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {_c_name(x.dtype)} for `end` but got dtype "
                           f"{_c_name(e.dtype)}")
    if tw and weight._data.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {_c_name(x.dtype)} for `weight` but got "
                           f"dtype {_c_name(weight._data.dtype)}")
    if x.dtype.kind not in "fc":
        raise NotImplementedError(f"\"lerp_kernel_{'tensor' if tw else 'scalar'}\" not "
                                  f"implemented for '{type_name(x.dtype)}'")
    w = weight._data if tw else weight
    try:
        with np.errstate(all="ignore"):
            diff = e - x
            r = np.where(np.abs(w) < 0.5, x + w * diff, e - diff * (1 - w))
    except ValueError:
        raise _broadcast_error_n(x, e, w) from None
    res = wrap(np.asarray(r).astype(x.dtype, copy=False))
    if tw:
        if STATE.enabled and (input._requires_grad or end._requires_grad or
                              weight._requires_grad):
            node = LerpBackward1()
            node._saved_self, node._saved_end, node._saved_weight = input, end, weight
            link(res, node, input, end, weight)
    elif _grad_needed(input, end):
        node = LerpBackward0()
        node._saved_weight = weight
        link(res, node, input, end)
    return write_out(res, out)


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def _c_name(np_dtype):
    """The C++ type name torch prints in some dtype messages (float, double, ...)."""
    return _C_NAMES[np_dtype.name]


def _broadcast_error_n(*arrays):
    """torch's message for the first pair (left to right) of operands that do not broadcast."""
    shape = np.shape(arrays[0])
    for a in arrays[1:]:
        try:
            shape = np.broadcast_shapes(shape, np.shape(a))
        except ValueError:
            return broadcast_error(np.empty(shape, bool), a)
    return broadcast_error(arrays[0], arrays[-1])


def _promote3(input, t1, t2):
    rt = D.result_type(input, t1, t2).np
    return tuple(a._data if a._data.dtype == rt else a._data.astype(rt) for a in (input, t1, t2))


class AddcmulBackward0(Node):
    __slots__ = ("_saved_tensor1", "_saved_tensor2", "_saved_value")
    _saved_names = ("_saved_tensor1", "_saved_tensor2")

    def apply(self, grad):
        v = self._saved_value
        return (grad if needs(self, 0) else None,
                grad * conj_if_complex(self._saved_tensor2) * v if needs(self, 1) else None,
                grad * conj_if_complex(self._saved_tensor1) * v if needs(self, 2) else None)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    x, a, b = _promote3(input, tensor1, tensor2)
    try:
        r = x + value * (a * b) if value != 1 else x + a * b
        res = wrap(r if r.dtype == x.dtype else r.astype(x.dtype))
    except ValueError:
        raise _broadcast_error_n(x, a, b) from None
    if STATE.enabled and (input._requires_grad or tensor1._requires_grad or
                          tensor2._requires_grad):
        node = AddcmulBackward0()
        node._saved_tensor1 = tensor1 if tensor2._requires_grad else None
        node._saved_tensor2 = tensor2 if tensor1._requires_grad else None
        node._saved_value = value
        link(res, node, input, tensor1, tensor2)
    return write_out(res, out)


class AddcdivBackward0(Node):
    __slots__ = ("_saved_tensor1", "_saved_tensor2", "_saved_value")
    _saved_names = ("_saved_tensor1", "_saved_tensor2")

    def apply(self, grad):
        v = self._saved_value
        t1, t2 = self._saved_tensor1, self._saved_tensor2
        return (grad if needs(self, 0) else None,
                grad * v / conj_if_complex(t2) if needs(self, 1) else None,
                -grad * v * conj_if_complex(t1) / conj_if_complex(t2 * t2)
                if needs(self, 2) else None)


_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_INT)
    x, a, b = _promote3(input, tensor1, tensor2)
    try:
        with np.errstate(all="ignore"):
            r = x + value * (a / b) if value != 1 else x + a / b
        res = wrap(r if r.dtype == x.dtype else r.astype(x.dtype))
    except ValueError:
        raise _broadcast_error_n(x, a, b) from None
    if STATE.enabled and (input._requires_grad or tensor1._requires_grad or
                          tensor2._requires_grad):
        node = AddcdivBackward0()
        node._saved_tensor1 = tensor1 if tensor2._requires_grad else None
        node._saved_tensor2 = tensor2
        node._saved_value = value
        link(res, node, input, tensor1, tensor2)
    return write_out(res, out)


# ---------------------------------------------------------------- predicates (no gradient)

def isnan(input):
    x = input._data
    return wrap(np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool))


def isinf(input):
    x = input._data
    return wrap(np.isinf(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool))


def isposinf(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return write_out(wrap(np.isposinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)),
                     out)


def isneginf(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return write_out(wrap(np.isneginf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)),
                     out)


def isfinite(input):
    x = input._data
    return wrap(np.isfinite(x) if x.dtype.kind in "fc" else np.ones(x.shape, bool))


def isreal(input):
    x = input._data
    return wrap(x.imag == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool))


def signbit(input, *, out=None):
    x = input._data
    if x.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return write_out(wrap(np.signbit(x) if x.dtype.kind != "b" else np.zeros(x.shape, bool)),
                     out)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _tensor_args("isclose", input, other)
    x, y = input._data, other._data
    if x.dtype != y.dtype:
        raise RuntimeError(f"{type_name(x.dtype)} did not match {type_name(y.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    try:
        close = x == y
    except ValueError:
        raise broadcast_error(x, y) from None
    if x.dtype.kind == "b":
        return wrap(np.asarray(close))
    if equal_nan and x.dtype.kind in "fc":
        close = close | (np.isnan(x) & np.isnan(y))
    if x.dtype.kind in "iu":
        x = x.astype(D.get_default_dtype().np)
        y = y.astype(x.dtype)
    with np.errstate(all="ignore"):
        actual = np.abs(x - y)
        allowed = atol + np.abs(rtol * y)
        close = close | (np.isfinite(actual) & (actual <= allowed))
    return wrap(np.asarray(close))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    _tensor_args("equal", input, other)
    if input._data.shape != other._data.shape:
        return False
    x, y = operands(input, other)
    return bool(np.array_equal(x, y))


# ---------------------------------------------------------------- shifts

def _shift(ufunc, kernel, name):
    def op(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = scalar_tensor(input, other)
        x, y = operands(input, other)
        ky = np.asarray(y).dtype.kind
        if x.dtype.kind not in "iu" or ky not in "iu":
            bad = x.dtype if x.dtype.kind not in "iu" else np.asarray(y).dtype
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{type_name(bad)}'")
        bits = x.dtype.itemsize * 8
        yy = np.asarray(y)
        try:
            if ufunc is np.left_shift:
                r = np.where((yy < 0) | (yy >= bits), 0, np.left_shift(x, np.clip(yy, 0, bits - 1)))
            else:
                fill = np.where(np.asarray(x) < 0, -1, 0) if x.dtype.kind == "i" else 0
                r = np.where((yy < 0) | (yy >= bits), fill,
                             np.right_shift(x, np.clip(yy, 0, bits - 1)))
        except ValueError:
            raise broadcast_error(x, y) from None
        return write_out(wrap(np.asarray(r).astype(x.dtype, copy=False)), out)
    op.__name__ = op.__qualname__ = name
    return op


bitwise_left_shift = _shift(np.left_shift, "lshift", "bitwise_left_shift")
bitwise_right_shift = _shift(np.right_shift, "rshift", "bitwise_right_shift")


# ---------------------------------------------------------------- complex views of real tensors

class ConjBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return conj(grad),


class ConjPhysicalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return conj_physical(grad),


def conj(input):
    if input._data.dtype.kind != "c":
        return input
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad:
        link(res, ConjBackward0(), input)
    return res


def conj_physical(input, *, out=None):
    if input._data.dtype.kind != "c":
        return input if out is None else write_out(input, out)
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad:
        link(res, ConjPhysicalBackward0(), input)
    return write_out(res, out)


def conj_physical_(self):
    if self._data.dtype.kind != "c":
        return self
    return inplace(self, conj_physical(inplace_source(self)))


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


class SelectBackward0(Node):                 # real/imag are views of view_as_real in torch
    __slots__ = ("_imag",)

    def apply(self, grad):
        return (grad * 1j if self._imag else grad),


def _complex_part(input, imag):
    x = input._data
    if x.dtype.kind != "c":
        if imag:
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return input
    res = wrap(x.imag if imag else x.real)
    if STATE.enabled and input._requires_grad:
        node = SelectBackward0()
        node._imag = imag
        link(res, node, input)
    return res


def real(input):
    return _complex_part(input, False)


def imag(input):
    return _complex_part(input, True)


# ---------------------------------------------------------------- in-place forms

_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _inplace_binary(fn):
    ufunc = _UFUNCS.get(fn.__name__)

    def op_(self, other, **kwargs):
        if ufunc is not None and not kwargs and not (STATE.enabled and (
                self._requires_grad or getattr(other, "_requires_grad", False))):
            # nothing recorded (e.g. an optimizer step): write in place in one pass
            x = self._data
            y = plain_operand(other, x)
            if y is not None and x.dtype.kind == "f" and x.flags.writeable and (
                    type(y) is not np.ndarray or y.shape == x.shape or y.ndim == 0):
                ufunc(x, y, out=x)
                mark_written(self)
                return self
        return inplace(self, fn(inplace_source(self), other, **kwargs))
    op_.__name__ = fn.__name__ + "_"
    return op_


add_ = _inplace_binary(add)
sub_ = subtract_ = _inplace_binary(sub)
mul_ = multiply_ = _inplace_binary(mul)
div_ = divide_ = true_divide_ = _inplace_binary(div)
pow_ = _inplace_binary(pow)
floor_divide_ = _inplace_binary(floor_divide)


def neg_(self):
    return inplace(self, neg(inplace_source(self)))


negative_ = neg_


def exp_(self):
    return inplace(self, exp(inplace_source(self)))


def log_(self):
    return inplace(self, log(inplace_source(self)))


def sqrt_(self):
    return inplace(self, sqrt(inplace_source(self)))


def reciprocal_(self):
    return inplace(self, reciprocal(inplace_source(self)))


def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


def _ieq(fn):
    def op_(self, other):
        res = fn(self, other)
        np.copyto(self._data, res._data, casting="unsafe")
        return self
    return op_


eq_, ne_, lt_, le_, gt_, ge_ = (_ieq(f) for f in (eq, ne, lt, le, gt, ge))


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
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return inplace(self, relu(inplace_source(self)))


def logit_(self, eps=None):
    return inplace(self, logit(inplace_source(self), eps))


def round_(self, *, decimals=None):
    return inplace(self, round(inplace_source(self), decimals=decimals))


def clamp_(self, min=None, max=None):
    return inplace(self, clamp(inplace_source(self), min, max))


clip_ = clamp_


def clamp_min_(self, min):
    return inplace(self, clamp_min(inplace_source(self), min))


def clamp_max_(self, max):
    return inplace(self, clamp_max(inplace_source(self), max))


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return inplace(self, nan_to_num(inplace_source(self), nan, posinf, neginf))


def lerp_(self, end, weight):
    return inplace(self, lerp(inplace_source(self), end, weight))


def addcmul_(self, tensor1, tensor2, *, value=1):
    return inplace(self, addcmul(inplace_source(self), tensor1, tensor2, value=value))


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return inplace(self, addcdiv(inplace_source(self), tensor1, tensor2, value=value))


remainder_ = _inplace_binary(remainder)
fmod_ = _inplace_binary(fmod)
atan2_ = arctan2_ = _inplace_binary(atan2)
hypot_ = _inplace_binary(hypot)
copysign_ = _inplace_binary(copysign)
xlogy_ = _inplace_binary(xlogy)
bitwise_and_ = _inplace_binary(bitwise_and)
bitwise_or_ = _inplace_binary(bitwise_or)
bitwise_xor_ = _inplace_binary(bitwise_xor)
bitwise_left_shift_ = _inplace_binary(bitwise_left_shift)
bitwise_right_shift_ = _inplace_binary(bitwise_right_shift)
logical_and_ = _ieq(logical_and)
logical_or_ = _ieq(logical_or)
logical_xor_ = _ieq(logical_xor)


def bitwise_not_(self):
    return inplace(self, bitwise_not(self))


def logical_not_(self):
    np.copyto(self._data, np.logical_not(self._data), casting="unsafe")
    return self


# Tensor methods that are the module function of the same name
_METHODS = (
    "sign", "sign_", "sgn", "sgn_", "rsqrt", "rsqrt_", "square", "square_", "exp2", "exp2_",
    "expm1", "expm1_", "log2", "log2_", "log10", "log10_", "log1p", "log1p_", "sin", "sin_",
    "cos", "cos_", "tan", "tan_", "asin", "asin_", "acos", "acos_", "atan", "atan_", "sinh",
    "sinh_", "cosh", "cosh_", "tanh", "tanh_", "asinh", "asinh_", "acosh", "acosh_", "atanh",
    "atanh_", "arcsin", "arcsin_", "arccos", "arccos_", "arctan", "arctan_", "arcsinh",
    "arcsinh_", "arccosh", "arccosh_", "arctanh", "arctanh_", "sigmoid", "sigmoid_", "logit",
    "logit_", "relu", "relu_", "floor", "floor_", "ceil", "ceil_", "round", "round_", "trunc",
    "trunc_", "fix", "fix_", "frac", "frac_", "clamp", "clamp_", "clamp_min", "clamp_min_",
    "clamp_max", "clamp_max_", "nan_to_num", "nan_to_num_", "deg2rad", "deg2rad_", "rad2deg",
    "rad2deg_", "angle", "fmod", "float_power", "atan2", "arctan2", "hypot", "copysign", "xlogy",
    "maximum", "minimum", "fmax", "fmin", "lerp", "lerp_", "addcmul", "addcmul_", "addcdiv",
    "addcdiv_", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit", "isclose",
    "allclose", "equal",
)


def _bind():
    T = Tensor
    T.__add__ = T.__radd__ = T.add = add
    T.__iadd__ = T.add_ = add_
    T.__sub__ = T.sub = T.subtract = sub
    T.__rsub__ = lambda self, other: rsub(self, other)
    T.__isub__ = T.sub_ = T.subtract_ = sub_
    T.__mul__ = T.__rmul__ = T.mul = T.multiply = mul
    T.__imul__ = T.mul_ = T.multiply_ = mul_
    T.__truediv__ = T.div = T.divide = T.true_divide = div
    T.__rtruediv__ = _rdiv
    T.__itruediv__ = T.div_ = T.divide_ = T.true_divide_ = div_
    T.__floordiv__ = T.floor_divide = floor_divide
    T.__rfloordiv__ = lambda self, other: floor_divide(scalar_tensor(other, self), self)
    T.__ifloordiv__ = T.floor_divide_ = floor_divide_
    T.__pow__ = T.pow = pow
    T.__rpow__ = lambda self, other: _scalar_pow(other, self)
    T.__ipow__ = T.pow_ = pow_
    T.__neg__ = T.neg = T.negative = neg
    T.neg_ = T.negative_ = neg_
    T.reciprocal, T.reciprocal_ = reciprocal, reciprocal_
    T.exp, T.exp_, T.log, T.log_, T.sqrt, T.sqrt_ = exp, exp_, log, log_, sqrt, sqrt_
    T.__eq__, T.__ne__ = _eq_op, _ne_op
    T.__lt__ = T.lt = T.less = lt
    T.__le__ = T.le = T.less_equal = le
    T.__gt__ = T.gt = T.greater = gt
    T.__ge__ = T.ge = T.greater_equal = ge
    T.eq, T.ne, T.not_equal = eq, ne, ne
    T.eq_, T.ne_, T.lt_, T.le_, T.gt_, T.ge_ = eq_, ne_, lt_, le_, gt_, ge_
    T.where = lambda self, condition, other: where(condition, self, other)
    T.__and__ = T.__rand__ = T.bitwise_and = bitwise_and
    T.__or__ = T.__ror__ = T.bitwise_or = bitwise_or
    T.__xor__ = T.__rxor__ = T.bitwise_xor = bitwise_xor
    T.__invert__ = _invert
    T.bitwise_not = bitwise_not
    T.logical_and, T.logical_or, T.logical_xor, T.logical_not = \
        logical_and, logical_or, logical_xor, logical_not
    T.conj = conj
    T.__abs__ = T.abs = T.absolute = abs
    T.abs_ = T.absolute_ = abs_
    T.__pos__ = T.positive = positive
    T.__mod__ = T.remainder = remainder
    T.__rmod__ = lambda self, other: remainder(other, self)
    T.__imod__ = T.remainder_ = remainder_
    T.__lshift__ = T.bitwise_left_shift = bitwise_left_shift
    T.__rshift__ = T.bitwise_right_shift = bitwise_right_shift
    T.__rlshift__ = lambda self, other: bitwise_left_shift(other, self)
    T.__rrshift__ = lambda self, other: bitwise_right_shift(other, self)
    T.__ilshift__ = T.bitwise_left_shift_ = bitwise_left_shift_
    T.__irshift__ = T.bitwise_right_shift_ = bitwise_right_shift_
    T.__iand__ = T.bitwise_and_ = bitwise_and_
    T.__ior__ = T.bitwise_or_ = bitwise_or_
    T.__ixor__ = T.bitwise_xor_ = bitwise_xor_
    T.bitwise_not_ = bitwise_not_
    T.logical_and_, T.logical_or_, T.logical_xor_, T.logical_not_ = \
        logical_and_, logical_or_, logical_xor_, logical_not_
    for name in _METHODS:
        setattr(T, name, globals()[name])
    T.fmod_, T.atan2_, T.arctan2_, T.hypot_, T.copysign_, T.xlogy_ = \
        fmod_, atan2_, arctan2_, hypot_, copysign_, xlogy_
    T.clip, T.clip_ = clamp, clamp_
    T.float_power_ = float_power_
    T.real = property(real)
    T.imag = property(imag)
    T.conj_physical, T.resolve_conj, T.resolve_neg = conj_physical, resolve_conj, resolve_neg
    T.isreal = isreal
    T.greater_, T.greater_equal_, T.less_, T.less_equal_, T.not_equal_ = gt_, ge_, lt_, le_, ne_
    T.conj_physical_ = conj_physical_


_bind()
