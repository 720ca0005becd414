"""Binary and ternary float ops: where, atan2, hypot, copysign, xlogy, maximum/minimum/fmax/fmin,
lerp, addcmul, addcdiv, and their in-place forms (forward, node, derivative)."""
__all__ = ["atan2", "arctan2", "hypot", "copysign", "xlogy", "xlogy_", "maximum", "minimum",
           "fmax", "fmin", "lerp", "addcmul", "addcdiv"]

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, NotImplementedBackward, absent, link
from ..dtypes import C_NAMES, type_name
from ..tensor import Tensor, wrap
from ._args import (operands, needs, broadcast_error, saved_output, conj_if_complex, write_out,
                    _tensor_args, layout2, torch_layout)
from ._args import not_tensor, half_scalar
from ._views import check_overlap, inplace, inplace_source, inplace_binary
from .arith import (_grad_needed, _SavesSelf, _zeros, div, scalar_op, MulBackward1,
                    DivBackward1)
from .convert import fill_value
from .logical import isnan, where


# ---------------------------------------------------------------- binary float ops


def _float_operands(input, other, name):
    """Operands of a float-valued binary op: integer results compute in the default float."""
    if input is None or other is None:
        raise not_tensor(AttributeError(name="_data", obj=None))
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
        # atan2_backward: recip = (self^2 + other^2).reciprocal(), 0 where that is 0;
        # grad * other * recip, grad * -self * recip
        s, o = self._saved_self, self._saved_other
        d = s * s + o * o
        recip = d.reciprocal().masked_fill(d == 0, 0)
        return (grad * o * recip if needs(self, 0) else None,
                grad * -s * recip if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (st, ot), (s, o) = ts, xs
        d = s * s + o * o
        zero = d == 0
        return where(zero, 0.0, (st * o - ot * s) / where(zero, 1.0, d))


def atan2(input, other, *, out=None):
    _tensor_args("atan2", input, other)
    x, y, _ = _float_operands(input, other, "atan2")
    try:
        with np.errstate(all="ignore"):
            res = wrap(layout2(np.arctan2(x, y), input, other))
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

    def jvp(self, ts, xs, out):
        (st, ot), (s, o) = ts, xs
        return (st * s + ot * o) / out


def hypot(input, other, *, out=None):
    _tensor_args("hypot", input, other)
    x, y = operands(input, other)
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{type_name(x.dtype)}'")
    try:
        res = wrap(layout2(np.hypot(x, y), input, other))
    except ValueError:
        raise broadcast_error(x, y) from None
    if _grad_needed(input, other):
        node = HypotBackward0()
        # (each operand is saved for its own gradient only, as torch saves them)
        node._saved_self = input if _grad_needed(input, None) else None
        node._saved_other = other if _grad_needed(other, None) else None
        node._saved_result = res.detach()
        link(res, node, input, other)
    return write_out(res, out)


class CopysignBackward0(_SavesSelf):         # derivatives.yaml: copysign.Tensor
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_self", "_saved_result")
    _jvp_uses = (0,)

    def apply(self, grad):
        g0 = None
        if needs(self, 0):
            s = self._saved_self
            r = saved_output(self, self._saved_result)
            zero = s == 0
            g0 = grad * where(zero, 0.0, r / where(zero, 1.0, s))
        return g0, (_zeros(grad) if len(self.next_functions) > 1 and needs(self, 1) else None)

    def jvp(self, ts, xs, out):                 # other's tangent contributes nothing
        s = xs[0]
        zero = s == 0
        return ts[0] * where(zero, 0.0, out / where(zero, 1.0, s))


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
        res = wrap(layout2(np.copysign(x, y).astype(rt, copy=False), input, other))
    except ValueError:
        raise broadcast_error(x, y) from None
    if _grad_needed(input, o):
        node = CopysignBackward0() if o is not None else CopysignBackward1()
        node._saved_self = input if _grad_needed(input, None) else None   # (self's only)
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
        # torch: xlogy(grad, other), 0 where self == 0 and other <= 0 (log(other) is not
        # finite there); other: grad * self / other
        return (xlogy(grad, o).masked_fill((s == 0) & (o <= 0), 0) if needs(self, 0) else None,
                grad * s / o if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (st, ot), (s, o) = ts, xs
        return xlogy(st, o).masked_fill((s == 0) & (o <= 0), 0) + ot * s / o


class XlogyBackward1(_SavesSelf):            # derivatives.yaml: xlogy.Scalar_Self
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_other",)
    _raw_saved_self = absent("_raw_saved_self")     # (self: a number)

    def apply(self, grad):
        return grad * self._saved_self / self._saved_other,

    def jvp(self, ts, xs, out):                 # xs: (other,); self is a number
        return ts[0] * self._saved_self / xs[0]


class XlogyBackward2(_SavesSelf):            # derivatives.yaml: xlogy.Scalar_Other
    __slots__ = ("_saved_other",)

    def apply(self, grad):
        # as XlogyBackward0's self gradient, with a number for other
        s, o = self._saved_self, self._saved_other
        g = xlogy(grad, o)
        return (g if o > 0 else g.masked_fill(s == 0, 0)),

    def jvp(self, ts, xs, out):
        s, o = xs[0], self._saved_other
        g = xlogy(ts[0], o)
        return g if o > 0 else g.masked_fill(s == 0, 0)


def xlogy(input, other, *, out=None):
    x, y, rt = _float_operands(input, other, "xlogy")
    with np.errstate(all="ignore"):
        if not isinstance(other, Tensor) and rt.char in "ef":
            # a number's log in the result's dtype, as torch's kernel takes it: float32's
            # correctly rounded (NumPy's logf is an ulp off at 1.1), float16's through float32
            ly = np.float32(np.log(np.float64(np.float32(y)))) if rt.char == "f" else \
                np.log(np.float32(half_scalar(y))).astype(np.float16)
        else:
            ly = np.log(y)
        try:
            r = np.where(np.isnan(y), np.nan, np.where(np.asarray(x) == 0, 0, x * ly))
        except ValueError:
            raise broadcast_error(x, y) from None
    res = wrap(layout2(r.astype(rt, copy=False), input, other))
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    fw = LEVELS and dual(input, other)
    if not STATE.enabled and not fw:
        return write_out(res, out)
    if ti and to:
        if input._requires_grad or other._requires_grad or fw:
            node = XlogyBackward0()
            node._saved_self, node._saved_other = input, other
            link(res, node, input, other)
    elif to:
        if other._requires_grad or fw:
            node = XlogyBackward1()
            node._saved_self, node._saved_other = input, other
            link(res, node, other)
    elif input._requires_grad or fw:
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
        # where(self == other, grad / 2, grad).masked_fill_(self < other, 0) (maximum)
        s, o = self._saved_self, self._saved_other
        half = where(s == o, scalar_op(grad, 2, DivBackward1), grad)
        return (half.masked_fill(self._lose_self(s, o), 0) if needs(self, 0) else None,
                half.masked_fill(self._lose_self(o, s), 0) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):                 # the tangent of the larger; their mean at a tie
        (st, ot), (s, o) = ts, xs
        tie = s == o
        return (where(self._lose_self(s, o), 0.0, where(tie, st / 2, st))
                + where(self._lose_self(o, s), 0.0, where(tie, ot / 2, ot)))


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()
    _lose_self = staticmethod(lambda s, o: s > o)


class FmaxBackward0(_SavesSelf):
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")
    _self_wins = staticmethod(lambda s, o: (s >= o) | isnan(o))

    def apply(self, grad):
        # grad.masked_fill(~win, 0), grad.masked_fill(win, 0)
        win = self._self_wins(self._saved_self, self._saved_other)
        return (grad.masked_fill(win.logical_not(), 0) if needs(self, 0) else None,
                grad.masked_fill(win, 0) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return where(self._self_wins(xs[0], xs[1]), ts[0], ts[1])


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
            # torch keeps self where the two are equal (-0.0 vs 0.0); which argument NumPy's
            # max/min ufuncs return there depends on the CPU's SIMD path, so ties are settled here
            res = wrap(layout2(np.where(x == y, x, ufunc(x, y)), input, other))
        except ValueError:
            raise broadcast_error(x, y) from None
        if STATE.enabled and (input._requires_grad or other._requires_grad) or \
                LEVELS and dual(input, other):
            node = node_cls()
            node._saved_self, node._saved_other = input, other
            link(res, node, input, other)
        return write_out(res, out, name)
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
        w = self._saved_weight          # grad * (1 - weight), grad * weight: mul.Scalar
        return (scalar_op(grad, 1 - w, MulBackward1) if needs(self, 0) else None,
                scalar_op(grad, w, MulBackward1) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        w = self._saved_weight
        return ts[0] * (1 - w) + ts[1] * w


class LerpBackward1(_SavesSelf):             # derivatives.yaml: lerp.Tensor
    __slots__ = ("_saved_end", "_saved_weight")
    _saved_names = ("_saved_self", "_saved_end", "_saved_weight")

    def apply(self, grad):
        w = self._saved_weight
        return (grad * (1 - w) if needs(self, 0) else None,
                grad * w if needs(self, 1) else None,
                grad * (self._saved_end - self._saved_self) if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        (st, et, wt), (s, e, w) = ts, xs
        return st * (1 - w) + et * w + wt * (e - s)


def lerp(input, end, weight, *, out=None):
    x, e = input._data, end._data
    tw = isinstance(weight, Tensor)
    if e.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {_c_name(x.dtype)} for `end` but got dtype "
                           f"{_c_name(e.dtype)}")
    w = weight._data if tw else weight
    if tw and w.ndim == 0:
        # a 0-d weight promotes as a number does: it may make the result complex, or an
        # integral or bool start and end floating
        rt = D.result_type(input, weight).np
        if rt != x.dtype:
            x, e = x.astype(rt), e.astype(rt)
        w = w.astype(x.dtype)
    elif tw and w.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {_c_name(x.dtype)} for `weight` but got "
                           f"dtype {_c_name(w.dtype)}")
    if x.dtype.kind not in "fc":
        raise NotImplementedError(f"\"lerp_kernel_{'tensor' if tw else 'scalar'}\" not "
                                  f"implemented for '{type_name(x.dtype)}'")
    try:
        with np.errstate(all="ignore"):
            if x.dtype.char in "efd" and type(w) in (int, float, bool):
                r = _fused_lerp(x, e, w)
            else:
                diff = e - x
                r = np.where(np.abs(w) < 0.5, x + w * diff, e - diff * (1 - w))
    except ValueError:
        raise _broadcast_error_n(x, e, w) from None
    # (a number weight is no operand of torch's lerp: Note [Elementwise layout])
    res = wrap(torch_layout(np.asarray(r).astype(x.dtype, copy=False), input._data, end._data,
                            *((weight._data,) if tw else ())))
    if tw:
        if STATE.enabled and (input._requires_grad or end._requires_grad or
                              weight._requires_grad) or LEVELS and dual(input, end, weight):
            node = LerpBackward1()
            # (self and end are read by weight's gradient only: torch saves them for it)
            if _grad_needed(weight, None):
                node._saved_self, node._saved_end = input, end
            else:
                node._saved_self = node._saved_end = None
            node._saved_weight = weight
            link(res, node, input, end, weight)
    elif _grad_needed(input, end):
        node = LerpBackward0()
        node._saved_weight = weight
        link(res, node, input, end)
    return write_out(res, out)



def _half_f32(*arrays):
    """float16 arrays as broadcast float32 ones (torch's float16 kernels compute in float32)."""
    return np.broadcast_arrays(*(np.asarray(a, np.float32) for a in arrays))


def _fused_lerp(x, e, w):
    """lerp of real floating tensors with a number weight as torch computes it: a fused
    multiply-add from the nearer end (float16 in float32, rounded once: Note [Scalar
    operands])."""
    from ..creation import fused        # (creation imports the ops: a local import)
    dt = x.dtype
    if dt == np.float16:
        x, e = _half_f32(x, e)
    w = x.dtype.type(w)
    d = e - x
    r = fused(w, d, x) if abs(w) < 0.5 else fused(d, w - x.dtype.type(1), e)
    return r.astype(dt, copy=False)


def _c_name(np_dtype):
    """The C++ type name torch prints in some dtype messages (float, double, ...)."""
    return C_NAMES[np_dtype.name]


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
    try:
        return tuple(a._data if a._data.dtype == rt else a._data.astype(rt)
                     for a in (input, t1, t2))
    except AttributeError as e:
        raise not_tensor(e) from None


class AddcmulBackward0(Node):
    __slots__ = ("_saved_tensor1", "_saved_tensor2", "_saved_value")
    _saved_names = ("_saved_tensor1", "_saved_tensor2")

    def apply(self, grad):
        v = self._saved_value
        return (grad if needs(self, 0) else None,
                grad * conj_if_complex(self._saved_tensor2) * v if needs(self, 1) else None,
                grad * conj_if_complex(self._saved_tensor1) * v if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        (st, t1t, t2t), (s, t1, t2) = ts, xs
        v = self._saved_value
        return st + (t1t * t2 + t1 * t2t) * v


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    x, a, b = _promote3(input, tensor1, tensor2)
    if x.dtype.kind == "b":
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    if x.dtype.kind in "iu" and isinstance(value, float):
        # torch casts the scalar to the integral result type (refusing a non-finite one)
        value = int(fill_value(value, x.dtype))
    try:
        if x.dtype.char in "efd" and type(value) in (int, float, bool):
            # torch's kernel: fma(value * tensor1, tensor2, input) (float16 in float32)
            from ..creation import fused     # (creation imports the ops: a local import)
            x32, a32, b32 = _half_f32(x, a, b) if x.dtype.char == "e" else (x, a, b)
            with np.errstate(all="ignore"):
                r = fused(x32.dtype.type(value) * a32, b32, x32).astype(x.dtype)
        else:
            r = x + value * (a * b) if value != 1 else x + a * b
        res = wrap(torch_layout(r if r.dtype == x.dtype else r.astype(x.dtype), input._data,
                                tensor1._data, tensor2._data))
    except ValueError:
        raise _broadcast_error_n(x, a, b) from None
    if STATE.enabled and (input._requires_grad or tensor1._requires_grad or
                          tensor2._requires_grad) or LEVELS and dual(input, tensor1, tensor2):
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
        # tensor1: grad * (value / tensor2).conj(); tensor2: -grad * (value * tensor1 /
        # (tensor2 * tensor2)).conj()
        if needs(self, 1) and t2._data.dtype.kind in "biu":
            _scalar_over_tensor_error(v, t2._data.dtype)
        return (grad if needs(self, 0) else None,
                grad * conj_if_complex(div(v, t2)) if needs(self, 1) else None,
                -grad * conj_if_complex(scalar_op(t1, v, MulBackward1) / (t2 * t2))
                if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        (st, t1t, t2t), (s, t1, t2) = ts, xs
        v = self._saved_value
        return st + (t1t / t2 - t1 * t2t / (t2 * t2)) * v


def _scalar_over_tensor_error(value, dtype):
    """torch's gradient for tensor1 computes value / tensor2 as a tensor of tensor2's dtype
    filled with value, then divided in place by tensor2: for an integral or bool tensor2 the
    fill (a non-finite value) or the true division's float result is refused."""
    fill_value(value, dtype)
    raise RuntimeError(f"result type {type_name(D.get_default_dtype().np)} can't be cast to the "
                       f"desired output type {type_name(dtype)}")


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
            if x.dtype.char in "efd" and type(value) in (int, float, bool):
                # torch's kernel: input + (value * tensor1) / tensor2 (float16 in float32)
                x32, a32, b32 = _half_f32(x, a, b) if x.dtype.char == "e" else (x, a, b)
                v = x32.dtype.type(value)
                r = (x32 + v * a32 / b32).astype(x.dtype)
            else:
                r = x + value * (a / b) if value != 1 else x + a / b
        res = wrap(torch_layout(r if r.dtype == x.dtype else r.astype(x.dtype), input._data,
                                tensor1._data, tensor2._data))
    except ValueError:
        raise _broadcast_error_n(x, a, b) from None
    if STATE.enabled and (input._requires_grad or tensor1._requires_grad or
                          tensor2._requires_grad) or LEVELS and dual(input, tensor1, tensor2):
        node = AddcdivBackward0()
        node._saved_tensor1 = tensor1 if tensor2._requires_grad else None
        node._saved_tensor2 = tensor2
        node._saved_value = value
        link(res, node, input, tensor1, tensor2)
    return write_out(res, out)


def lerp_(self, end, weight):
    check_overlap(self, end)
    check_overlap(self, weight)
    return inplace(self, lerp(inplace_source(self), end, weight))


def addcmul_(self, tensor1, tensor2, *, value=1):
    check_overlap(self, tensor1)
    check_overlap(self, tensor2)
    return inplace(self, addcmul(inplace_source(self), tensor1, tensor2, value=value))


def addcdiv_(self, tensor1, tensor2, *, value=1):
    check_overlap(self, tensor1)
    check_overlap(self, tensor2)
    return inplace(self, addcdiv(inplace_source(self), tensor1, tensor2, value=value))


atan2_ = arctan2_ = inplace_binary(atan2, numbers=False)
hypot_ = inplace_binary(hypot, numbers=False)
copysign_ = inplace_binary(copysign)
xlogy_ = inplace_binary(xlogy)


# ================================================================ surface ops (issue 14):
# gcd, lcm, heaviside, nextafter, ldexp, logaddexp, logaddexp2 and their in-place forms
__all__ += ["gcd", "gcd_", "lcm", "lcm_", "heaviside", "nextafter", "ldexp", "ldexp_",
            "logaddexp", "logaddexp2"]


def _binary_np(ufunc, x, y):
    try:
        with np.errstate(all="ignore"):
            return ufunc(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None


def _integer_op(name, ufunc, input, other, out):
    _tensor_args(name, input, other)
    x, y = operands(input, other)
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{type_name(x.dtype)}'")
    return write_out(wrap(layout2(_binary_np(ufunc, x, y).astype(x.dtype, copy=False), input,
                                  other)), out)


def gcd(input, other, *, out=None):
    return _integer_op("gcd", np.gcd, input, other, out)


def lcm(input, other, *, out=None):
    return _integer_op("lcm", np.lcm, input, other, out)


def heaviside(input, values, *, out=None):
    _tensor_args("heaviside", input, values, second="values")
    x, v = input._data, values._data
    if x.dtype.kind == "c" or v.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if x.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    # torch: input == 0 ? values : input > 0 (so NaN gives 0, unlike NumPy's heaviside)
    with np.errstate(invalid="ignore"):
        try:
            r = np.where(x == 0, v, x > 0).astype(x.dtype, copy=False)
        except ValueError:
            raise broadcast_error(x, v) from None
    res = wrap(torch_layout(r, x, v))
    if STATE.enabled and (input._requires_grad or values._requires_grad):
        node = NotImplementedBackward()
        node._op = "heaviside"
        link(res, node, input, values)
    return write_out(res, out)


class NextafterBackward0(Node):              # derivatives.yaml: nextafter
    # torch saves both inputs where self's gradient is needed (its formula does not read them:
    # an in-place write to either still fails backward, as torch's)
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        return (grad if needs(self, 0) else None,
                _zeros(grad) if needs(self, 1) else None)


def nextafter(input, other, *, out=None):
    _tensor_args("nextafter", input, other)
    x, y = operands(input, other)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    res = wrap(layout2(_binary_np(np.nextafter, x, y), input, other))
    if _grad_needed(input, other):
        node = NextafterBackward0()
        if input._requires_grad:
            node._saved_self, node._saved_other = input, other
        else:
            node._saved_self = node._saved_other = None
        link(res, node, input, other)
    return write_out(res, out)


class LdexpBackward0(Node):                  # derivatives.yaml: ldexp
    __slots__ = ("_saved_result", "_saved_other")
    _saved_names = ("_saved_result", "_saved_other")

    def apply(self, grad):
        o = self._saved_other
        if o._data.dtype.kind in "iu":
            # torch's formula raises 2 to an integer exponent in integer arithmetic, where a
            # negative power is 0: its self-gradient is 0 there (reproduced as torch gives it)
            p = where(o < 0, 0.0, 2.0 ** o.clamp(min=0).double()).to(grad.dtype)
        else:
            p = 2.0 ** o
        return (grad * p if needs(self, 0) else None,
                grad * saved_output(self, self._saved_result) * _LN2 if needs(self, 1) else
                None)


_LN2 = float(np.log(2.0))


def ldexp(input, other, *, out=None):
    """input * 2 ** other, in the promoted floating dtype (torch's float default for ints)."""
    _tensor_args("ldexp", input, other)
    rt = D.result_type(input, other)
    rt = (rt if rt.category >= D.FLOAT else D.get_default_dtype()).np
    x, y = input._data.astype(rt, copy=False), other._data.astype(rt, copy=False)
    with np.errstate(all="ignore"):
        res = wrap(layout2(_binary_np(np.multiply, x, np.exp2(y)).astype(rt, copy=False),
                           input, other))
    if _grad_needed(input, other):
        node = LdexpBackward0()
        node._saved_result, node._saved_other = res.detach(), other
        link(res, node, input, other)
    return write_out(res, out)


class LogaddexpBackward0(Node):              # derivatives.yaml: logaddexp
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        return (grad / (1 + (o - s).exp()) if needs(self, 0) else None,
                grad / (1 + (s - o).exp()) if needs(self, 1) else None)


class Logaddexp2Backward0(Node):             # derivatives.yaml: logaddexp2
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        return (grad / (1 + (o - s).exp2()) if needs(self, 0) else None,
                grad / (1 + (s - o).exp2()) if needs(self, 1) else None)


def _complex_logaddexp(x, y):
    """log(exp(x) + exp(y)) for complex operands, factoring out the larger real part."""
    big = np.where(x.real >= y.real, x, y)
    small = np.where(x.real >= y.real, y, x)
    with np.errstate(all="ignore"):
        return big + np.log1p(np.exp(small - big))


def _logaddexp(name, node_cls, input, other, out):
    _tensor_args(name, input, other)
    x, y = operands(input, other)
    kind = x.dtype.kind
    if kind not in "fc" or (kind == "c" and name == "logaddexp2"):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{type_name(x.dtype)}'")
    if kind == "c":
        x, y = np.broadcast_arrays(x, y)
        res = wrap(layout2(_complex_logaddexp(x, y).astype(x.dtype, copy=False), input, other))
    else:
        res = wrap(layout2(_binary_np(np.logaddexp if name == "logaddexp" else np.logaddexp2,
                                      x, y), input, other))
    if _grad_needed(input, other):
        node = node_cls()
        node._saved_self, node._saved_other = input, other
        link(res, node, input, other)
    return write_out(res, out)


def logaddexp(input, other, *, out=None):
    return _logaddexp("logaddexp", LogaddexpBackward0, input, other, out)


def logaddexp2(input, other, *, out=None):
    return _logaddexp("logaddexp2", Logaddexp2Backward0, input, other, out)


gcd_ = inplace_binary(gcd)
lcm_ = inplace_binary(lcm)
heaviside_ = inplace_binary(heaviside)
nextafter_ = inplace_binary(nextafter)
ldexp_ = inplace_binary(ldexp, overlap=False)     # (mul_ by a temporary)
