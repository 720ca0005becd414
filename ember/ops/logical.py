"""Comparisons, bitwise and logical ops, shifts and predicates (isnan, isclose, ...): no
gradients; their in-place forms write in the input's dtype."""
__all__ = ["where", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and",
           "logical_or", "logical_xor", "logical_not", "eq", "ne", "not_equal", "lt", "less", "le",
           "less_equal", "gt", "greater", "ge", "greater_equal", "isnan", "isinf", "isposinf",
           "isneginf", "isfinite", "isreal", "signbit", "isclose", "allclose", "equal",
           "bitwise_left_shift", "bitwise_right_shift"]

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import (operands, needs, broadcast_error, scalar_tensor, write_out, _tensor_args,
                    layout2, torch_layout, keep_empty_strides)
from ._args import not_tensor, invalid_args, OMITTED, half_scalar
from ._views import check_overlap, inplace, inplace_binary


class WhereBackward0(Node):                  # derivatives.yaml: where.self
    __slots__ = ("_saved_condition",)
    _saved_names = ("_saved_condition",)

    def apply(self, grad):
        c = self._saved_condition
        zero = grad.new_zeros(())
        return (where(c, grad, zero) if needs(self, 0) else None,
                where(c, zero, grad) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        c = self._saved_condition
        return where(c, 0.0 if ts[0] is None else ts[0], 0.0 if ts[1] is None else ts[1])


def where(condition, input=OMITTED, other=OMITTED, *, out=None):
    if input is None or other is None or (input is OMITTED) != (other is OMITTED):
        raise invalid_args("where", [a for a in (condition, input, other) if a is not OMITTED])
    if input is OMITTED:
        if out is not None:             # where(condition) has no out=
            raise invalid_args("where", (condition,), {"out": out})
        try:
            return condition.nonzero(as_tuple=True)
        except AttributeError as e:
            raise not_tensor(e) from None
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
        if rt is D.float16:             # a number through float32 (Note [Scalar operands])
            x = half_scalar(x) if type(x) is float else x
            y = half_scalar(y) if type(y) is float else y
        x = np.asarray(x, rt.np) if not isinstance(x, np.ndarray) or x.dtype != rt.np else x
        y = np.asarray(y, rt.np) if not isinstance(y, np.ndarray) or y.dtype != rt.np else y
    try:
        c = condition._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if c.dtype.kind != "b":
        if c.dtype != np.uint8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {type_name(c.dtype)}")
        c = c.astype(bool)
    try:
        res = wrap(torch_layout(np.where(c, x, y), condition._data,
                                input._data if isinstance(input, Tensor) else input,
                                other._data if isinstance(other, Tensor) else other))
    except ValueError:
        try:
            cx = np.empty(np.broadcast_shapes(c.shape, np.shape(x)), bool)
        except ValueError:
            raise broadcast_error(c, x) from None
        raise broadcast_error(cx, y) from None
    if STATE.enabled and ((ti is not None and ti._requires_grad) or
                          (to is not None and to._requires_grad)) or LEVELS and dual(ti, to):
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
            return write_out(wrap(layout2(ufunc(x, y), input, other)), out)
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
            return write_out(wrap(layout2(ufunc(x, y), input, other)), out)
        except ValueError:
            raise broadcast_error(x, y) from None
    op.__name__ = name
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def bitwise_not(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
            return write_out(wrap(layout2(ufunc(x, y), input, other)), out)
        except ValueError:
            raise broadcast_error(x, y) from None
    op.__name__ = ufunc.__name__
    return op


logical_and = _logical(np.logical_and)
logical_or = _logical(np.logical_or)
logical_xor = _logical(np.logical_xor)


def logical_not(input, *, out=None):
    try:
        return write_out(wrap(np.logical_not(input._data)), out)
    except AttributeError as e:
        raise not_tensor(e) from None

# ---------------------------------------------------------------- predicates (no gradient)


def _predicate(input, test, kinds, fill, out=None, refuse=None, keep=""):
    """test(x) of each element for the dtype kinds `kinds`, the constant `fill` for the others
    (in the input's layout: Note [Elementwise layout]); refuse: (exception class, message)
    raised for a complex input; keep: the dtype kinds for which torch's result keeps an empty
    input's strides (Note [Empty strides]: its kernel is an empty_like, ones_like...)."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if refuse is not None and x.dtype.kind == "c":
        raise refuse[0](refuse[1])
    r = test(x) if x.dtype.kind in kinds else (np.ones_like if fill else np.zeros_like)(x, bool)
    if not r.size and x.dtype.kind in keep:
        r = keep_empty_strides(r, x)
    return write_out(wrap(r), out)


def isnan(input):
    return _predicate(input, np.isnan, "fc", False)


def isinf(input):
    return _predicate(input, np.isinf, "fc", False, keep="fciub")


def isposinf(input, *, out=None):
    return _predicate(input, np.isposinf, "f", False, out,
                      (RuntimeError, "isposinf does not support complex inputs."))


def isneginf(input, *, out=None):
    return _predicate(input, np.isneginf, "f", False, out,
                      (RuntimeError, "isneginf does not support complex inputs."))


def isfinite(input):
    return _predicate(input, np.isfinite, "fc", True, keep="iub")


def isreal(input):
    return _predicate(input, lambda x: x.imag == 0, "c", True, keep="fiub")


def signbit(input, *, out=None):
    return _predicate(input, np.signbit, "fiu", False, out,
                      (NotImplementedError, "signbit is not implemented for complex tensors."))


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
    if isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"allclose(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
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
        if type(other) is bool and input._data.dtype.kind in "iu":
            other = int(other)          # a Python bool shifts an integer tensor as 0 or 1
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


def _invert(self):
    if self._data.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


# In-place comparisons write 0/1 in self's dtype; while recording they link a node whose
# gradients are zeros (derivatives.yaml eq_.Scalar / eq_.Tensor: zeros_like), named for the
# overload: Backward0 for a number, Backward1 for a tensor.

class _ZerosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad.new_zeros(grad.shape),


class _ZerosBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        z = grad.new_zeros(grad.shape)
        return z, z


class EqBackward0(_ZerosBackward0):
    __slots__ = ()


class EqBackward1(_ZerosBackward1):
    __slots__ = ()


class NeBackward0(_ZerosBackward0):
    __slots__ = ()


class NeBackward1(_ZerosBackward1):
    __slots__ = ()


class LtBackward0(_ZerosBackward0):
    __slots__ = ()


class LtBackward1(_ZerosBackward1):
    __slots__ = ()


class LeBackward0(_ZerosBackward0):
    __slots__ = ()


class LeBackward1(_ZerosBackward1):
    __slots__ = ()


class GtBackward0(_ZerosBackward0):
    __slots__ = ()


class GtBackward1(_ZerosBackward1):
    __slots__ = ()


class GeBackward0(_ZerosBackward0):
    __slots__ = ()


class GeBackward1(_ZerosBackward1):
    __slots__ = ()


def _compare_(fn, scalar_node, tensor_node):
    def op_(self, other):
        check_overlap(self, other)
        res = wrap(fn(self, other)._data.astype(self._data.dtype))
        t = other if isinstance(other, Tensor) else None
        # (an integral self too: torch records the node, and self then requires grad)
        if STATE.enabled and (self._requires_grad or t is not None and t._requires_grad):
            if t is None:
                link(res, scalar_node(), self)
            else:
                link(res, tensor_node(), self, t)
        return inplace(self, res)
    op_.__name__ = fn.__name__ + "_"
    return op_


eq_ = _compare_(eq, EqBackward0, EqBackward1)
ne_ = _compare_(ne, NeBackward0, NeBackward1)
lt_ = _compare_(lt, LtBackward0, LtBackward1)
le_ = _compare_(le, LeBackward0, LeBackward1)
gt_ = _compare_(gt, GtBackward0, GtBackward1)
ge_ = _compare_(ge, GeBackward0, GeBackward1)
bitwise_and_ = inplace_binary(bitwise_and)
bitwise_or_ = inplace_binary(bitwise_or)
bitwise_xor_ = inplace_binary(bitwise_xor)
bitwise_left_shift_ = inplace_binary(bitwise_left_shift)
bitwise_right_shift_ = inplace_binary(bitwise_right_shift)


# logical_*_ are not differentiable: they write (a version bump) and record nothing, and a
# leaf that requires grad may be written (torch allows it)
def logical_and_(self, other):
    check_overlap(self, other)
    return inplace(self, logical_and(self, other))


def logical_or_(self, other):
    check_overlap(self, other)
    return inplace(self, logical_or(self, other))


def logical_xor_(self, other):
    check_overlap(self, other)
    return inplace(self, logical_xor(self, other))


def bitwise_not_(self):
    return inplace(self, bitwise_not(self))


def logical_not_(self):
    return inplace(self, logical_not(self))


def _where_method(self, condition, other):
    """Tensor.where(condition, other): torch.where(condition, self, other)."""
    return where(condition, self, other)


def _rlshift(self, other):
    """other << self (Tensor.__rlshift__)."""
    return bitwise_left_shift(other, self)


def _rrshift(self, other):
    """other >> self (Tensor.__rrshift__)."""
    return bitwise_right_shift(other, self)
