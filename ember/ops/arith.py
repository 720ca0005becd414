"""Arithmetic: add, sub, mul, div, pow, remainder, fmod and their in-place forms. Each op: its
forward (one NumPy call after torch's promotion), its node class (torch's name) and derivative
formula, written with ember ops so that the same formula serves double backward."""
__all__ = ["add", "sub", "subtract", "rsub", "neg", "negative", "mul", "multiply", "div", "divide",
           "true_divide", "floor_divide", "reciprocal", "pow", "neg_", "negative_", "reciprocal_",
           "remainder", "fmod", "float_power"]

import sys

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import (Node, link, wrap_out, wrap_out2, NotImplementedBackward,
                              SavedTensor)
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import (operands, needs, broadcast_error, plain_operand, scalar_array, saved_output,
                    conj_if_complex, scalar_tensor, write_out, torch_layout, layout2)
from ._args import (floating, not_tensor, wrong_type, invalid_args, half_opmath, half_scalar,
                    checked_half, check_int_scalar, int_overflow, wrap_int)
from ._views import check_overlap, inplace, inplace_source, inplace_binary
from .logical import where


def _grad_needed(input, o):
    return STATE.enabled and (input._requires_grad or (o is not None and o._requires_grad)) or \
        LEVELS and dual(input, o)


_np_mul, _np_sub = np.multiply, np.subtract    # (bound once: ufuncs with positional out=)


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


# ---------------------------------------------------------------- add / sub / rsub / neg

class AddBackward0(Node):                    # derivatives.yaml: add.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        if self.next_functions[1][0] is None:       # x + number: nothing for `other`
            return grad, None
        a = self._saved_alpha          # maybe_multiply(grad, alpha): mul.Scalar
        return grad, (grad if a == 1 else scalar_op(grad, a, MulBackward1))

    def jvp(self, ts, xs, out):                 # result: self_t + maybe_multiply(other_t, alpha)
        a = self._saved_alpha
        if ts[1] is None:
            return ts[0].clone()
        return ts[0] + (ts[1] if a == 1 else ts[1] * a)

    def np_apply(self, grad):
        if self.next_functions[1][0] is None:
            return grad,        # (the engine reads a missing entry as None)
        if self._saved_alpha == 1:
            return grad, grad
        return Node.np_apply(self, grad)


def _check_alpha(input, other, alpha):
    """torch's checks on alpha (only reached for alpha != 1 or one not an int)."""
    if not isinstance(alpha, (int, float, complex, np.number, Tensor)):
        name = sys._getframe(1).f_code.co_name      # the op, on the error path only
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    rt = D.result_type(input, other)
    if type(alpha) is bool:
        if rt is not D.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and rt.category < D.FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    elif isinstance(alpha, complex) and rt.category < D.COMPLEX:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")


def add(input, other, *, alpha=1, out=None):
    if (type(other) is float or type(other) is int) and type(input) is Tensor and \
            alpha.__class__ is int and alpha == 1 and out is None and \
            input._data.dtype.kind == "f":
        # hot path: floating tensor + Python number (no promotion possible, no checks)
        x = input._data
        r = x + scalar_array(other, x.dtype)
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
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
            if x.shape != y.shape:             # broadcast: Note [Elementwise layout]
                r = torch_layout(r, x, y)
            if STATE.enabled and (input._requires_grad or other._requires_grad) or \
                    LEVELS and dual(input, other):
                node = AddBackward0()
                node._saved_alpha = 1
                return wrap_out2(r, node, input, other)
            return wrap(r)
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        return add(scalar_tensor(input), other, alpha=alpha, out=out)
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    try:
        r = x + y if alpha == 1 else _alpha_sum(x, y, alpha)
    except ValueError:
        raise broadcast_error(x, y) from None
    if r.dtype != x.dtype and x.dtype.kind == "b":
        # bool + alpha * bool stays bool, as in torch: alpha as a bool, the sum an or
        r = np.logical_or(x, np.logical_and(y, bool(alpha)))
    res = wrap(torch_layout(r, input._data, other._data if o is not None else other))
    if _grad_needed(input, o):
        node = AddBackward0()
        node._saved_alpha = alpha
        link(res, node, input, o)
    return write_out(res, out)


def _alpha_sum(x, y, alpha):
    """x + alpha * y as torch's kernels compute it for a real floating x: one fused
    multiply-add, alpha in x's dtype (float16: range-checked; Note [Scalar operands]);
    NumPy's arithmetic for other dtypes."""
    c = x.dtype.char
    if c not in "efd" or type(alpha) not in (int, float):
        return x + y * alpha
    from ..creation import fused        # (creation imports the ops: a local import)
    a = checked_half(alpha) if c == "e" else x.dtype.type(alpha)
    y = np.asarray(y, x.dtype)
    r = fused(np.asarray(a, x.dtype), y, x)
    if c == "e" and r.size:
        # torch's float16 kernel runs 32 elements at a time in float32; the last n % 32 of
        # each inner loop go through its scalar loop, in float16 arithmetic (the product
        # rounded first)
        xb, yb = np.broadcast_arrays(x, y)
        n = _inner_loop(xb, yb)
        k = n - n % 32
        if k < n:
            r = np.ascontiguousarray(r).reshape(-1, n)
            with np.errstate(all="ignore"):
                r[:, k:] = xb.reshape(-1, n)[:, k:] + yb.reshape(-1, n)[:, k:] * a
            r = r.reshape(xb.shape)
    return r


def _inner_loop(*arrays):
    """The length of TensorIterator's inner loop over broadcast views of one shape: the
    trailing dims that coalesce (each dim's stride is the next one's extent in every operand;
    size-1 dims drop out). Operands in C order assumed."""
    shape = arrays[0].shape
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return 1
    n, last = shape[dims[-1]], dims[-1]
    for d in reversed(dims[:-1]):
        if all(a.strides[d] == a.strides[last] * shape[last] for a in arrays):
            n *= shape[d]
            last = d
        else:
            break
    return n


class SubBackward0(Node):                    # derivatives.yaml: sub.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        if self.next_functions[1][0] is None:       # x - number: nothing for `other`
            return grad, None
        a = self._saved_alpha          # maybe_multiply(-grad, alpha)
        return grad, (-grad if a == 1 else scalar_op(-grad, a, MulBackward1))

    def jvp(self, ts, xs, out):
        a = self._saved_alpha
        if ts[1] is None:
            return ts[0].clone()
        return ts[0] - (ts[1] if a == 1 else ts[1] * a)

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
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = SubBackward0()
            node._saved_alpha = 1
            return wrap_out(r, node, input, True)
        return wrap(r)
    if alpha != 1 or type(alpha) is not int:
        _check_alpha(input, other, alpha)
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    o = other if isinstance(other, Tensor) else None
    _check_bool_sub(input, other)
    x, y = operands(input, other)
    try:
        r = x - y if alpha == 1 else _alpha_sum(x, y, -alpha)
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(torch_layout(r, input._data, other._data if o is not None else other))
    if _grad_needed(input, o):
        node = SubBackward0()
        node._saved_alpha = alpha
        link(res, node, input, o)
    return write_out(res, out)


subtract = sub


class RsubBackward1(Node):                   # derivatives.yaml: rsub.Scalar
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        a = self._saved_alpha          # maybe_multiply(-grad, alpha)
        return (-grad if a == 1 else scalar_op(-grad, a, MulBackward1)),

    def jvp(self, ts, xs, out):
        a = self._saved_alpha
        return -ts[0] if a == 1 else ts[0] * -a


class RsubBackward0(Node):                   # derivatives.yaml: rsub.Tensor
    __slots__ = ("_saved_alpha",)

    def apply(self, grad):
        a = self._saved_alpha
        return ((-grad if a == 1 else scalar_op(-grad, a, MulBackward1)) if needs(self, 0)
                else None), grad

    def jvp(self, ts, xs, out):
        a = self._saved_alpha
        return ts[1] - (ts[0] if a == 1 else ts[0] * a)


def _check_bool_sub(a, b):
    """torch refuses subtraction when an operand is bool (a tensor or a Python bool); a
    Python bool with a bool tensor counts as two bool tensors (torch wraps the number)."""
    ba = a._data.dtype.kind == "b" if isinstance(a, Tensor) else type(a) is bool
    bb = b._data.dtype.kind == "b" if isinstance(b, Tensor) else type(b) is bool
    if ba or bb:
        for v in (a, b):            # (torch's parser refuses a huge int first)
            if type(v) is int and not -(1 << 63) <= v < 1 << 64:
                raise int_overflow(v)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead."
                           if ba and bb else "Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


def _scalar_self(value, other):
    """A Python scalar first operand as a 0-dim tensor, kept in the wider floating dtype of
    tensor `other` (1.62 % a float64 tensor reads 1.62 as a double, as torch's wrapped number
    does, not rounded to the default float32 first)."""
    t = scalar_tensor(value, other)
    if type(value) is float and isinstance(other, Tensor):
        od = other._data.dtype
        if od.kind == "f" and od.itemsize > t._data.dtype.itemsize:
            return wrap(np.asarray(value, od))
    elif type(value) is int and isinstance(other, Tensor) and other._data.dtype.kind in "iu" \
            and -(1 << 63) <= value < 1 << 63:
        # an int takes an integral tensor's dtype, even a 0-d one's (1 % int32 is int32)
        return wrap(wrap_int(value, other._data.dtype))
    return t


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    _check_bool_sub(input, other)
    if isinstance(other, Tensor):
        if not isinstance(input, Tensor):
            input = _scalar_self(input, other)
        x, y = operands(input, other)
        try:
            r = _alpha_sum(y, x, -alpha) if alpha != 1 else y - x
        except ValueError:
            raise broadcast_error(y, x) from None
        res = wrap(layout2(r, other, input))
        if _grad_needed(input, other):
            node = RsubBackward0()
            node._saved_alpha = alpha
            link(res, node, input, other)
        return res
    x, y = operands(input, other)
    res = wrap(layout2(y - x if alpha == 1 else _alpha_sum(np.asarray(y, x.dtype), x, -alpha),
                       other, input))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = RsubBackward1()
        node._saved_alpha = alpha
        link(res, node, input)
    return res


class NegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return -grad,

    def jvp(self, ts, xs, out):
        return -ts[0]


def neg(input, *, out=None):
    try:
        if input._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                               "you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")
    except AttributeError as e:
        raise not_tensor(e) from None
    x = input._data
    r = np.negative(x)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        if out is None and x.dtype.kind == "f":
            return wrap_out(r, NegBackward0(), input, False)
        res = wrap(r)
        link(res, NegBackward0(), input)
        return write_out(res, out)
    return write_out(wrap(r), out)


negative = neg

# ---------------------------------------------------------------- mul / div


def _saved_operand(slot):
    """torch's grad_fn._saved_<arg> (and _raw_saved_<arg>) for an operand that may be a Python
    number: the slot keeps the number as given, so that the forward pays nothing, and a read
    gives the 0-dim tensor torch wraps it into (int64, float64, complex128 or bool)."""
    def get(self):
        v = getattr(self, slot)
        return v if v is None or isinstance(v, Tensor) else wrap(np.asarray(v))
    return property(get), property(lambda self: SavedTensor(self, slot))


class MulBackward0(Node):                    # derivatives.yaml: mul.Tensor
    # _other: `other` as given (a number or a Tensor); read it as _saved_other
    __slots__ = ("_other", "_saved_self")
    _saved_names = ("_saved_self", "_other")
    _saved_other, _raw_saved_other = _saved_operand("_other")

    def apply(self, grad):
        nf = self.next_functions
        a, b = nf[0][0] is not None, nf[1][0] is not None
        return (grad * conj_if_complex(self._other) if a else None,
                grad * conj_if_complex(self._saved_self) if b else None)

    def jvp(self, ts, xs, out):                 # result: other_t * self_p + self_t * other_p
        (st, ot), (s, o) = ts, xs
        if o is None:
            return st * self._other
        return st * o + ot * s

    def np_apply(self, g):
        # the same arithmetic straight in NumPy, when no promotion rule could differ (real
        # gradient, operand of the gradient's dtype or a number)
        nf = self.next_functions
        if nf[1][0] is None:                # x * number, or x * a constant
            o = plain_operand(self._other, g)
            if o is not None:
                return g * o,
            return Node.np_apply(self, g)
        a = nf[0][0] is not None
        o = plain_operand(self._other, g) if a else 0
        s = plain_operand(self._saved_self, g)
        if o is not None and s is not None:
            return (g * o if a else None), g * s
        return Node.np_apply(self, g)


def mul(input, other, *, out=None):
    if (type(other) is float or type(other) is int) and type(input) is Tensor and \
            out is None and input._data.dtype.char in "fd":
        x = input._data
        # hot path, as in add (float16 computes in float32: Note [Scalar operands])
        r = x * scalar_array(other, x.dtype)
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = MulBackward0()
            node._other = other
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
            if x.shape != y.shape:             # broadcast: Note [Elementwise layout]
                r = torch_layout(r, x, y)
            if STATE.enabled and (input._requires_grad or other._requires_grad) or \
                    LEVELS and dual(input, other):
                node = MulBackward0()
                node._other = other if input._requires_grad else None
                node._saved_self = input if other._requires_grad else None
                return wrap_out2(r, node, input, other)
            return wrap(r)
    if not isinstance(input, Tensor):
        input, other = other, input
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    try:
        if x.dtype.char == "e" and _scalar_second(other):
            r = half_opmath(np.multiply, input._data, _scalar_value(other))
        else:
            r = x * y
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(torch_layout(r, input._data, other._data if o is not None else other))
    if STATE.enabled and (input._requires_grad or (o is not None and o._requires_grad)) or \
            LEVELS and dual(input, o):
        node = MulBackward0()
        # save each operand only if the other one's gradient needs it (a number: always)
        node._other = other if input._requires_grad or o is None else None
        node._saved_self = input if o is not None and o._requires_grad else None
        link(res, node, input, o)
    return write_out(res, out)


multiply = mul


def _scalar_second(other):
    """Whether mul/div's second operand is a scalar to torch's kernels (a Python number or a
    one-element tensor, broadcast), which a float16 result then reads in float32 (Note
    [Scalar operands])."""
    return not isinstance(other, Tensor) or other._data.size == 1


def _scalar_value(other):
    return other._data.reshape(()) if isinstance(other, Tensor) else other


class DivBackward0(Node):                    # derivatives.yaml: div.Tensor
    __slots__ = ("_other", "_saved_self")        # (_other: as in MulBackward0)
    _saved_names = ("_saved_self", "_other")
    _saved_other, _raw_saved_other = _saved_operand("_other")

    def apply(self, grad):
        nf = self.next_functions
        other = self._other       # other: -grad * ((self / other) / other).conj()
        return (grad / conj_if_complex(other) if nf[0][0] is not None else None,
                -grad * conj_if_complex(self._saved_self / other / other)
                if nf[1][0] is not None else None)

    def jvp(self, ts, xs, out):                 # result: (self_t - other_t * result) / other_p
        (st, ot), (s, o) = ts, xs
        if o is None:
            return st / self._other
        return (st - ot * out) / o


class DivBackward2(DivBackward0):             # derivatives.yaml: div.Tensor_mode
    """Division given a rounding_mode (None too): a zero gradient when it rounds."""
    __slots__ = ("_saved_rounding_mode",)

    def apply(self, grad):
        if self._saved_rounding_mode is None:
            return DivBackward0.apply(self, grad)
        return tuple(_zeros(grad) if nf[0] is not None else None for nf in self.next_functions)

    def jvp(self, ts, xs, out):
        return _zeros(out)


class _NoMode:
    """div's rounding_mode when not given (given, even as None, torch takes another overload)."""
    __slots__ = ()

    def __repr__(self):
        return "None"


_NO_MODE = _NoMode()


def div(input, other, *, rounding_mode=_NO_MODE, out=None):
    if not isinstance(input, Tensor):
        input = _scalar_self(input, other)
    o = other if isinstance(other, Tensor) else None
    if rounding_mode is not None and rounding_mode is not _NO_MODE:
        return write_out(_div_rounding(input, other, o, rounding_mode), out)
    rt = D.result_type(input, other)
    if rt.category < D.FLOAT:
        rt = D.get_default_dtype()
    x = input._data
    y = o._data if o is not None else other
    if type(other) is int:
        check_int_scalar(other, x.dtype)
    if x.dtype != rt.np:
        x = x.astype(rt.np)
    if o is not None and y.dtype != rt.np:
        y = y.astype(rt.np)
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            if x.dtype.char == "e" and _scalar_second(other):
                r = half_opmath(np.true_divide, x, _scalar_value(other))
            else:
                r = x / y
    except ValueError:
        raise broadcast_error(x, y) from None
    except TypeError:                   # a None other (no number, no tensor)
        raise wrong_type(other, "Tensor") from None
    if r.dtype != rt.np:
        r = r.astype(rt.np)
    res = wrap(torch_layout(r, input._data, other._data if o is not None else other))
    if _grad_needed(input, o):
        if rounding_mode is None:       # given as None: torch's Tensor_mode overload
            node = DivBackward2()
            node._saved_rounding_mode = None
            node._saved_self = input if o is not None and o._requires_grad else None
        else:
            node = DivBackward0()
            node._saved_self = input if o is not None and o._requires_grad else None
        node._other = other
        link(res, node, input, o)
    return write_out(res, out)


divide = true_divide = div


def _div_rounding(input, other, o, mode, node=True):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{mode}'")
    if input._data.dtype.kind == "b" and (type(other) is bool if o is None else
                                          o._data.dtype.kind == "b"):
        raise NotImplementedError(f"\"div_{mode}_cpu\" not implemented for 'Bool'")
    x, y = operands(input, other)
    try:
        empty = 0 in np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise broadcast_error(x, y) from None
    half = x.dtype.char == "e" and _scalar_second(other)
    if half:        # computed in float32, rounded once (Note [Scalar operands])
        x, y = x.astype(np.float32), np.float32(_scalar_value(other))
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iub" and (o is None or y.dtype.kind in "iub"):
            if not empty and np.any(np.asarray(y) == 0):
                raise RuntimeError("ZeroDivisionError")
            r = np.floor_divide(x, y) if mode == "floor" else _int_trunc_div(x, y)
        else:
            q = np.true_divide(x, y)
            # torch: x / 0 as is, else floor((x - fmod(x, y)) / y), so that exact quotients
            # stay exact (NaN for infinite x); a zero result takes the sign of x / y
            r = np.where(np.asarray(y) == 0, q, _float_floor_div(x, y, q)) if mode == "floor" \
                else np.trunc(q)
            r = np.asarray(r).astype(q.dtype, copy=False)
    if half:
        r = np.asarray(r).astype(np.float16)
    res = wrap(layout2(r, input, other))
    if node and _grad_needed(input, o) and res._data.dtype.kind in "fc":
        node = DivBackward2()
        node._saved_rounding_mode = mode
        # (torch saves self only for other's gradient)
        node._saved_self = input if o is not None and o._requires_grad else None
        node._other = other
        link(res, node, input, o)
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
        input = _scalar_self(input, other)
    o = other if isinstance(other, Tensor) else None
    x = input._data
    if x.dtype.kind == "b" and (type(other) is bool if o is None else o._data.dtype.kind == "b"):
        raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
    res = _div_rounding(input, other, o, "floor", node=False)
    return write_out(_not_implemented(res, "floor_divide", input, o), out)


class ReciprocalBackward0(Node):
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        r = conj_if_complex(saved_output(self, self._saved_result))
        return -grad * (r * r),         # (torch's order: it rounds differently in float16)

    def jvp(self, ts, xs, out):
        return -ts[0] * out * out


def reciprocal(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    with np.errstate(divide="ignore"):
        res = wrap(np.reciprocal(floating(x)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
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
        if e == 0 and type(e) is not bool:
            # (zeros, as torch: not grad * 0, NaN for NaN; a False exponent is no zero to
            # torch's Scalar comparison, and takes the formula: NaN where self is 0)
            return _zeros(grad),
        return grad * (e * conj_if_complex(self._saved_self) ** (e - 1)),

    def jvp(self, ts, xs, out):
        e = self._saved_exponent
        if e == 0 and type(e) is not bool:
            return ts[0] * 0
        return ts[0] * (e * xs[0] ** (e - 1))


def _log_as(s, r):
    """log(s) in the result's dtype: an integral base (2 ** a float64 tensor) is read in it,
    as torch's formula promotes it, not logged in the default float32 first."""
    return (s if s._data.dtype.kind in "fc" else s.to(r.dtype)).log()


class PowBackward1(Node):                    # derivatives.yaml: pow.Tensor_Tensor
    __slots__ = ("_saved_self", "_saved_exponent", "_saved_result")
    _saved_names = ("_saved_self", "_saved_exponent", "_saved_result")

    def apply(self, grad):
        s, e = self._saved_self, self._saved_exponent
        gs = ge = None
        if needs(self, 0):
            # (masked after the product with grad, as torch: a NaN in grad gives 0 there;
            # the exponent's term is masked before it)
            gs = where(e == 0, 0.0, grad * (e * s ** where(e == 0, 1.0, e - 1)))
        if needs(self, 1):
            r = self._result()
            ge = grad * where((s == 0) & (e >= 0), 0.0, r * _log_as(s, r))  # (masked first)
        return gs, ge

    def jvp(self, ts, xs, out):
        (st, et), (s, e) = ts, xs
        return (st * where(e == 0, 0.0, e * s ** where(e == 0, 1.0, e - 1))
                + et * where((s == 0) & (e >= 0), 0.0, out * _log_as(s, out)))

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
        # grad * (result * log(self)): torch's order (float16 rounds the product once)
        return grad * (r * float(np.log(base))) if not isinstance(base, complex) else \
            grad * (r * complex(np.log(base))),

    def jvp(self, ts, xs, out):
        base = self._saved_self
        if base == 0:
            return ts[0] * where(xs[0] >= 0, 0.0, out * np.log(base + 0j).real)
        return ts[0] * out * (complex(np.log(base)) if isinstance(base, complex) else
                              float(np.log(base)))


def pow(input, exponent, *, out=None):
    if not isinstance(input, Tensor):
        return _scalar_pow(input, exponent)
    e = exponent if isinstance(exponent, Tensor) else None
    kind = input._data.dtype.kind
    if type(exponent) is int and kind in "iub":
        _check_int_exponent(exponent, input._data.dtype if kind != "b" else np.dtype(np.int64))
    x, y = operands(input, exponent)
    if e is None and x.dtype.char == "e" and type(exponent) is not bool:
        y = checked_half(exponent)      # (torch's half kernel checks the exponent's range)
    if x.dtype.kind == "b":
        if e is not None:
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        if type(y) is bool:     # torch: x ** True is x, x ** False is ones (bool)
            r = x.copy() if y else np.ones_like(x)
            return write_out(wrap(r), out)
    neg = x.dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub" and \
        np.any(np.asarray(y) < 0)
    if neg and e is None:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if e is None and x.dtype.kind == "f" and exponent in _POW_FORMS and \
            type(exponent) is not bool and (x.dtype.itemsize >= 4 or exponent == -0.5):
        with np.errstate(all="ignore"):
            r = _POW_FORMS[exponent](x)
    elif e is None and x.dtype.char == "f" and type(exponent) in (float, int) and \
            exponent not in _POW_NUMPY:
        r = _pow_float32(x, exponent)
    else:
        try:
            if e is not None and x.dtype.char == "f" and np.asarray(y).dtype.char == "f":
                # torch's float32 pow of two tensors: pow in double rounded (bit for bit
                # in its scalar loop, 98% in its vectorised one; NumPy's float32 power 86%)
                with np.errstate(all="ignore"):
                    r = np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
            else:
                r = _int_pow(x, y) if neg else np.power(x, y)
        except ValueError:
            raise broadcast_error(x, y) from None
        if e is not None and y.size == 1 and r.dtype.kind == "f" and y.flat[0] == 0.5:
            # NumPy's power loop takes a one-element exponent of 0.5 as sqrt (-inf -> NaN,
            # -0.0 -> -0.0); torch's tensor exponent is pow's (+inf, +0.0)
            r = np.where(np.isneginf(x), np.inf, r + 0.0)
    # (a number exponent: torch's pow is then a one-operand op, Note [Elementwise layout])
    res = wrap(layout2(r, input, exponent) if e is not None else torch_layout(r, input._data))
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


# torch's pow of a floating tensor by these number exponents is this arithmetic, bit for bit
# (found by experiment, float32 and float64; float16 computes in float32): x ** 3 is x * x * x,
# x ** -2 is 1 / (x * x), x ** -0.5 is rsqrt (-0 gives -inf, -inf NaN); NumPy's power rounds
# differently on about 30% of values (it takes 2, -1 and 0.5 as square, reciprocal and sqrt
# itself: _POW_NUMPY).
_POW_FORMS = {3: lambda x: x * x * x, -2: lambda x: 1 / (x * x), -0.5: lambda x: 1 / np.sqrt(x)}
_POW_NUMPY = (0.0, 1.0, 2.0, -1.0, 0.5)


def _pow_float32(x, e):
    """torch's float32 x ** e (e a number), to the last bit on 98.5% of random values where
    NumPy's float32 power agrees on 86% (so that a later op amplifying a last-digit difference,
    frac, %, tan, mostly sees torch's value). Found by experiment: torch's kernel takes a row
    of memory (the contiguous innermost dims, coalesced) in blocks of 16, each through its
    vectorised powf with e rounded to float32 (pow in float64 rounded agrees on 98.5%), and
    the rest of the row (fewer than 16; every element of a row that is not contiguous) through
    pow in double with e as given, rounded (bit for bit)."""
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = np.power(xd, float(e))
        head = _vector_blocks(x, 16)
        if head is not None:
            r = np.where(head, np.power(xd, float(np.float32(e))), r)
        return r.astype(np.float32)


def _vector_blocks(x, block):
    """Where torch's vectorised loop over x's memory reaches x's elements in whole blocks of
    `block` (a bool array of x's shape), or None where it reaches none: along a row of memory
    (its innermost dims of unit stride, coalesced while each next dim's stride spans the
    row so far), the first block * (row length // block) elements."""
    n = x.size
    if n < block:
        return None
    isz = x.itemsize
    dims = sorted((abs(st), d) for d, (st, k) in enumerate(zip(x.strides, x.shape)) if k > 1)
    if not dims or dims[0][0] != isz:
        return None
    row, span = [], isz
    for st, d in dims:
        if st != span:
            break
        row.append(d)
        span *= x.shape[d]
    length = span // isz
    cut = block * (length // block)
    if not cut:
        return None
    pos = np.zeros((1,) * x.ndim, np.int64)
    for d in row:
        ix = np.arange(x.shape[d]) * (x.strides[d] // isz)
        if x.strides[d] < 0:
            ix -= ix.min()
        pos = pos + ix.reshape([-1 if k == d else 1 for k in range(x.ndim)])
    return np.broadcast_to(pos < cut, x.shape)


def _check_int_exponent(v, dt):
    """torch's checks of a Python int exponent for an integral tensor, in its order: the
    value must fit int64, be non-negative, and fit the tensor's dtype (NumPy would wrap it)."""
    if not -(1 << 63) <= v < 1 << 64:
        raise int_overflow(v)                           # (torch's argument parser)
    if v >= 1 << 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if v < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if v > np.iinfo(dt).max:
        raise RuntimeError(f"value cannot be converted to type {D.SCALAR_NAMES[dt.name]} "
                           f"without overflow")


def _int_pow(x, y):
    """Integers to integer powers, some negative: 1 and -1 keep a value, others give 0."""
    y = np.asarray(y)
    r = np.power(x, np.maximum(y, 0))
    odd = (y % 2).astype(bool)
    return np.where(y >= 0, r, np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1),
                                                             0))).astype(r.dtype)


def _scalar_pow(base, exponent):
    if type(base) is int and not -(1 << 63) <= base < 1 << 63:
        check_int_scalar(base, exponent._data.dtype)
    rt = D.result_type(exponent, base)
    if rt is D.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    y = exponent._data.astype(rt.np, copy=False)
    if type(base) is int and rt.category < D.FLOAT and -(1 << 63) <= base < 1 << 64:
        b = wrap_int(base, rt.np)   # (torch converts it to the exponent's dtype as C does)
    else:
        b = np.asarray(half_scalar(base) if rt is D.float16 and type(base) is not complex
                       else base, dtype=rt.np)
    if rt.category < D.FLOAT and np.any(y < 0):
        return wrap(_int_pow(b, y))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        res = wrap(np.asarray(np.power(b, y), order="C"))  # (torch: C order, any layout)
    if STATE.enabled and exponent._requires_grad or LEVELS and dual(exponent):
        node = PowBackward2()
        node._saved_self = base
        node._saved_exponent = exponent
        node._saved_result = res.detach()
        link(res, node, exponent)
    return res

# ---------------------------------------------------------------- remainder / fmod


def _not_implemented(res, op, input, o):
    if _grad_needed(input, o) and res._data.dtype.kind in "fc":
        node = NotImplementedBackward()
        node._op = op
        link(res, node, input, o)
    return res


def _int_zero_check(x, y):
    if x.dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub" and \
            np.any(np.asarray(y) == 0) and x.size:     # (an empty result divides nothing)
        try:
            if 0 in np.broadcast_shapes(x.shape, np.shape(y)):
                return
        except ValueError:
            return          # the op reports the shapes
        raise RuntimeError("ZeroDivisionError")


def _bool_as_int(v, t):
    """A Python bool operand of remainder/fmod counts as the int 0 or 1 in torch (with a bool
    tensor the result stays bool, which the kernels refuse)."""
    if type(v) is bool and not (isinstance(t, Tensor) and t._data.dtype.kind == "b"):
        return int(v)
    return v


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

    def jvp(self, ts, xs, out):
        return ts[0].clone()


class RemainderBackward1(_SavesSelf):        # derivatives.yaml: remainder.Tensor
    __slots__ = ("_saved_other",)
    _saved_names = ("_saved_self", "_saved_other")
    _rounding = "floor"         # d/dother of self - other * div(self, other): fmod's: "trunc"

    def apply(self, grad):
        return (grad if needs(self, 0) else None,
                -grad * div(self._saved_self, self._saved_other, rounding_mode=self._rounding)
                if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        (st, ot), (s, o) = ts, xs
        return st - ot * div(s, o, rounding_mode=self._rounding)


def _link_mod(res, input, o, node0, node1):
    """remainder's and fmod's nodes: node0 for a number divisor, node1 (saving both
    operands, as torch does, when the divisor requires grad) for a tensor."""
    if o is None:
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            link(res, node0(), input)
    elif _grad_needed(input, o):
        node = node1()
        node._saved_self = input if o._requires_grad else None
        node._saved_other = o if o._requires_grad else None
        link(res, node, input, o)


def remainder(input, other, *, out=None):
    input, other = _bool_as_int(input, other), _bool_as_int(other, input)
    scalar_self = not isinstance(input, Tensor)
    if scalar_self:
        input = _scalar_self(input, other)
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
    res = wrap(layout2(r, input, other))
    if scalar_self:
        return write_out(_not_implemented(res, "remainder", input, o), out)
    _link_mod(res, input, o, RemainderBackward0, RemainderBackward1)
    return write_out(res, out)


class FmodBackward0(RemainderBackward0):     # derivatives.yaml: fmod.Scalar
    __slots__ = ()


class FmodBackward1(RemainderBackward1):     # derivatives.yaml: fmod.Tensor
    __slots__ = ()
    _rounding = "trunc"


def fmod(input, other, *, out=None):
    other = _bool_as_int(other, input)
    o = other if isinstance(other, Tensor) else None
    x, y = operands(input, other)
    _bool_check(x, y, "fmod")
    _int_zero_check(x, y)
    try:
        with np.errstate(all="ignore"):
            r = np.fmod(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None
    res = wrap(layout2(r, input, other))
    _link_mod(res, input, o, FmodBackward0, FmodBackward1)
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
    elif isinstance(exponent, (int, float, complex, np.number)):
        exponent = complex(exponent) if cplx else float(exponent)     # (torch saves a double)
    if not isinstance(input, Tensor):
        return write_out(_scalar_pow(complex(input) if cplx else float(input), exponent), out)
    return pow(input, exponent, out=out)


def float_power_(self, exponent):
    if not isinstance(exponent, (Tensor, int, float, complex, np.number)):
        raise invalid_args("float_power_", (exponent,))
    cplx = isinstance(exponent, complex) or (isinstance(exponent, Tensor) and
                                             exponent._data.dtype.kind == "c")
    want = np.complex128 if cplx or self._data.dtype.kind == "c" else np.float64
    if self._data.dtype != want:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{type_name(self._data.dtype)} but the operation's result requires "
                           f"dtype {type_name(np.dtype(want))}")
    check_overlap(self, exponent)
    return inplace(self, float_power(inplace_source(self), exponent))

# ---------------------------------------------------------------- in-place forms


add_ = inplace_binary(add)
sub_ = subtract_ = inplace_binary(sub)
mul_ = multiply_ = inplace_binary(mul)
div_ = divide_ = true_divide_ = inplace_binary(div)
pow_ = inplace_binary(pow)
floor_divide_ = inplace_binary(floor_divide)


def neg_(self):
    return inplace(self, neg(inplace_source(self)))


negative_ = neg_


def reciprocal_(self):
    return inplace(self, reciprocal(inplace_source(self)))


remainder_ = inplace_binary(remainder)
fmod_ = inplace_binary(fmod)


def _rsub(self, other):
    """other - self (Tensor.__rsub__)."""
    return rsub(self, other)


def _rfloordiv(self, other):
    """other // self (Tensor.__rfloordiv__). The number keeps its double precision until it
    meets self's dtype, as torch's wrapped numbers do (-0.85 // tensor([0.05], float64) is
    -17, not float32(-0.85)'s -18)."""
    return floor_divide(other, self)


def _rpow(self, other):
    """other ** self (Tensor.__rpow__)."""
    return _scalar_pow(other, self)


def _rmod(self, other):
    """other % self (Tensor.__rmod__)."""
    return remainder(other, self)


# ---------------------------------------------------------------- Scalar overloads
# torch's C++ composites (losses, norms) call add/sub/mul/div with a Scalar, which records the
# .Scalar overload's node (AddBackward1, ...); Python's `x + 2` records AddBackward0. The
# composite ops in ember that mirror torch's chains call scalar_op.

class AddBackward1(Node):                    # derivatives.yaml: add.Scalar
    __slots__ = ()

    def apply(self, grad):
        return grad,

    def jvp(self, ts, xs, out):
        return ts[0].clone()


class SubBackward1(AddBackward1):            # derivatives.yaml: sub.Scalar
    __slots__ = ()


class MulBackward1(Node):                    # derivatives.yaml: mul.Scalar
    __slots__ = ("_saved_other",)

    def apply(self, grad):                      # grad * other, other a Scalar
        return scalar_op(grad, self._saved_other, MulBackward1),

    def jvp(self, ts, xs, out):
        return ts[0] * self._saved_other


class DivBackward1(Node):                    # derivatives.yaml: div.Scalar
    __slots__ = ("_saved_other",)

    def apply(self, grad):                      # grad / other, other a Scalar
        return scalar_op(grad, self._saved_other, DivBackward1),

    def jvp(self, ts, xs, out):
        return ts[0] / self._saved_other


_SCALAR_OPS = {AddBackward1: np.add, SubBackward1: np.subtract, MulBackward1: np.multiply,
               DivBackward1: np.true_divide}


def scalar_op(input, value, node_cls):
    """input (+, -, *, /) the Python number value, recorded as torch's .Scalar overload
    node_cls (a floating input keeps its dtype)."""
    x = input._data
    if x.dtype.char != "e":
        res = wrap(_SCALAR_OPS[node_cls](x, value))
    elif node_cls is MulBackward1 or node_cls is DivBackward1:   # Note [Scalar operands]
        res = wrap(half_opmath(_SCALAR_OPS[node_cls], x, value))
    else:
        res = wrap(_SCALAR_OPS[node_cls](x, half_scalar(value)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        if node_cls is MulBackward1 or node_cls is DivBackward1:
            node._saved_other = value
        link(res, node, input)
    return res
