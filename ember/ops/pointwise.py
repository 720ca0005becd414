"""Pointwise ops: arithmetic, comparisons, unary math. Each op: its forward (one NumPy call
after torch's promotion), its node class (torch's name) and derivative formula, written with
ember ops so that the same formula serves double backward."""
__all__ = ["add", "sub", "subtract", "rsub", "neg", "negative", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "reciprocal", "pow", "exp", "log", "sqrt", "where", "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal", "conj"]

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import operands, needs, inplace, inplace_source, type_name


def broadcast_error(a, b):
    """torch's message for shapes that do not broadcast."""
    sa = getattr(a, "shape", ())
    sb = getattr(b, "shape", ())
    for i in range(1, max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                f"({y}) at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast")


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
        input, other = _as_tensor(input, other), input
        if alpha != 1:
            return add(_as_tensor(other, input), input, alpha=alpha, out=out)
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
    return _out(res, out)


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
    return _out(res, out)


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
            input = _as_tensor(input, other)
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
    return _out(res, out)


negative = neg


# ---------------------------------------------------------------- mul / div

class MulBackward0(Node):                    # derivatives.yaml: mul.Tensor
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        nf = self.next_functions
        return (grad * _conj(self._saved_other) if nf[0][0] is not None else None,
                grad * _conj(self._saved_self) if nf[1][0] is not None else None)


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
    return _out(res, out)


multiply = mul


class DivBackward0(Node):                    # derivatives.yaml: div.Tensor
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        nf = self.next_functions
        other = _conj(self._saved_other)
        return (grad / other if nf[0][0] is not None else None,
                -grad * _conj(self._saved_self) / (other * other)
                if nf[1][0] is not None else None)


class DivBackward1(Node):                    # derivatives.yaml: div.Tensor_mode (no gradient)
    __slots__ = ()

    def apply(self, grad):
        return tuple(None for _ in self.next_functions)


def div(input, other, *, rounding_mode=None, out=None):
    if not isinstance(input, Tensor):
        input = _as_tensor(input, other)
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
    return _out(res, out)


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
        r = _conj(self._saved_result)
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
    return _out(res, out)


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
        return grad * (e * _conj(self._saved_self) ** (e - 1)),


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
        return _saved_output(self, self._saved_result)


class PowBackward2(Node):                    # derivatives.yaml: pow.Scalar
    __slots__ = ("_saved_self", "_saved_exponent", "_saved_result")
    _saved_names = ("_saved_exponent", "_saved_result")

    def apply(self, grad):
        base = self._saved_self
        r = _saved_output(self, self._saved_result)
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
    return _out(res, out)


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


def _saved_output(node, saved):
    """A saved output: plain when not recording, else reconnected to the node that made it
    (an output is saved detached so that it does not keep its own node alive in a cycle)."""
    if not STATE.enabled or saved is None:
        return saved
    t = wrap(saved._data)
    t._requires_grad = True
    t._grad_fn = node
    t._output_nr = 0
    return t


# ---------------------------------------------------------------- unary math used by formulas

class ExpBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad * _conj(_saved_output(self, self._saved_result)),


def exp(input, *, out=None):
    res = wrap(np.exp(_floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = ExpBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
    return _out(res, out)


class LogBackward0(Node):
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad / _conj(self._saved_self),


def log(input, *, out=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        res = wrap(np.log(_floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = LogBackward0()
        node._saved_self = input
        link(res, node, input)
    return _out(res, out)


class SqrtBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return grad / (2 * _conj(_saved_output(self, self._saved_result))),


def sqrt(input, *, out=None):
    with np.errstate(invalid="ignore"):
        res = wrap(np.sqrt(_floating(input._data)))
    if STATE.enabled and input._requires_grad:
        node = SqrtBackward0()
        node._saved_result = res.detach()
        link(res, node, input)
    return _out(res, out)


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
    return _out(res, out)


# ---------------------------------------------------------------- comparisons (no gradient)

def _compare(ufunc):
    def op(input, other, *, out=None):
        if not isinstance(input, Tensor):
            input = _as_tensor(input, other)
        x, y = operands(input, other)
        try:
            return _out(wrap(ufunc(x, y)), out)
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


# ---------------------------------------------------------------- helpers

def _conj(t):
    """Complex formulas use the conjugate (torch's convention); real ones are unchanged."""
    if isinstance(t, Tensor):
        return t.conj() if t._data.dtype.kind == "c" else t
    return t.conjugate() if isinstance(t, complex) else t


def _floating(x):
    """Integer and bool inputs of float-valued ops compute in the default float dtype."""
    return x if x.dtype.kind in "fc" else x.astype(D.get_default_dtype().np)


def _as_tensor(value, like):
    """A Python scalar first argument as a 0-dim tensor of its own default dtype."""
    return wrap(np.asarray(value, dtype=D.result_type(value).np))


def _out(res, out):
    """Support for the out= argument: copy the result into `out` (resizing if empty)."""
    if out is None:
        return res
    if out._requires_grad and STATE.enabled and res._requires_grad:
        raise RuntimeError(f"{'op'}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    return out


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
    T.__rfloordiv__ = lambda self, other: floor_divide(_as_tensor(other, self), self)
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
    T.conj = conj


_bind()
