"""Pointwise ops: arithmetic, comparisons, unary math. Each op: its forward (one NumPy call
after torch's promotion), its node class (torch's name) and derivative formula, written with
ember ops so that the same formula serves double backward."""
__all__ = ["add", "sub", "subtract", "rsub", "neg", "negative", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "reciprocal", "pow", "exp", "log", "sqrt", "where", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor", "logical_not", "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal", "conj"]

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import (operands, needs, inplace, inplace_source, type_name, broadcast_error,
                      saved_output, conj_if_complex, floating, scalar_tensor, write_out)


def _grad_needed(input, o):
    return STATE.enabled and (input._requires_grad or (o is not None and o._requires_grad))


# ---------------------------------------------------------------- add / sub / rsub / neg

class AddBackward0(Node):                    # derivatives.yaml: add.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        a = self._saved_alpha
        return grad, ((grad if a == 1 else grad * a) if needs(self, 1) else None)


def add(input, other, *, alpha=1, out=None):
    if not isinstance(input, Tensor):
        input, other = scalar_tensor(input, other), input
        if alpha != 1:
            return add(scalar_tensor(other, input), input, alpha=alpha, out=out)
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
        a = self._saved_alpha
        return grad, ((-grad if a == 1 else grad * -a) if needs(self, 1) else None)


def sub(input, other, *, alpha=1, out=None):
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    o = other if isinstance(other, Tensor) else None
    if input._data.dtype.kind == "b" or (o is not None and o._data.dtype.kind == "b"):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead." if o is not None and
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
    res = wrap(np.negative(input._data))
    if STATE.enabled and input._requires_grad:
        link(res, NegBackward0(), input)
    return write_out(res, out)


negative = neg


# ---------------------------------------------------------------- mul / div

class MulBackward0(Node):                    # derivatives.yaml: mul.Tensor
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        nf = self.next_functions
        return (grad * conj_if_complex(self._saved_other) if nf[0][0] is not None else None,
                grad * conj_if_complex(self._saved_self) if nf[1][0] is not None else None)


def mul(input, other, *, out=None):
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


class DivBackward1(Node):                    # derivatives.yaml: div.Tensor_mode (no gradient)
    __slots__ = ()

    def apply(self, grad):
        return tuple(None for _ in self.next_functions)


def div(input, other, *, rounding_mode=None, out=None):
    if not isinstance(input, Tensor):
        input = scalar_tensor(input, other)
    o = other if isinstance(other, Tensor) else None
    if rounding_mode is not None:
        return _div_rounding(input, other, o, rounding_mode)
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


def _div_rounding(input, other, o, mode):
    if mode not in ("trunc", "floor"):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{mode}'")
    x, y = operands(input, other)
    with np.errstate(divide="ignore", invalid="ignore"):
        if x.dtype.kind in "iub" and (o is None or y.dtype.kind in "iub"):
            if np.any(np.asarray(y) == 0):
                raise RuntimeError("ZeroDivisionError")
            r = np.floor_divide(x, y) if mode == "floor" else _int_trunc_div(x, y)
        else:
            q = np.true_divide(x, y)
            # torch floors (x - fmod(x, y)) / y, so that exact quotients stay exact
            r = np.where(np.isfinite(q), _float_floor_div(x, y), q) if mode == "floor" \
                else np.trunc(q)
            r = np.asarray(r).astype(q.dtype, copy=False)
    res = wrap(r)
    if _grad_needed(input, o) and res._data.dtype.kind in "fc":
        link(res, DivBackward1(), input, o)
    return res


def _int_trunc_div(x, y):
    q = np.floor_divide(x, y)
    fix = (np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0))
    return q + fix


def _float_floor_div(x, y):
    mod = np.fmod(x, y)
    div = (np.asarray(x) - mod) / y
    div = div - ((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)))
    fl = np.floor(div)
    return np.where(div - fl > 0.5, fl + 1, fl)


def floor_divide(input, other, *, out=None):
    return div(input, other, rounding_mode="floor", out=out)


class ReciprocalBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        r = conj_if_complex(self._saved_result)
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


def exp(input, *, out=None):
    res = wrap(np.exp(floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = ExpBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
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
        raise broadcast_error(c, np.broadcast_shapes(np.shape(x), np.shape(y))
                              if np.shape(x) != np.shape(y) else x) from None
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
            raise RuntimeError(f"\"{name}_cpu\" not implemented for "
                               f"'{type_name(x.dtype if x.dtype.kind not in 'biu' else np.asarray(y).dtype)}'")
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
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for '{type_name(x.dtype)}'")
    return write_out(wrap(np.invert(x)), out)


def _logical(ufunc):
    def op(input, other, *, out=None):
        x = input._data
        y = other._data if isinstance(other, Tensor) else other
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


# ---------------------------------------------------------------- helpers

def conj(input):
    if input._data.dtype.kind != "c":
        return input
    from .unary import conj_physical
    return conj_physical(input)


# ---------------------------------------------------------------- in-place forms

def _inplace_binary(fn):
    def op_(self, other, **kwargs):
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


def _ieq(fn):
    def op_(self, other):
        res = fn(self, other)
        np.copyto(self._data, res._data, casting="unsafe")
        return self
    return op_


eq_, ne_, lt_, le_, gt_, ge_ = (_ieq(f) for f in (eq, ne, lt, le, gt, ge))


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
    T.__invert__ = T.bitwise_not = bitwise_not
    T.logical_and, T.logical_or, T.logical_xor, T.logical_not = \
        logical_and, logical_or, logical_xor, logical_not
    T.conj = conj


_bind()
