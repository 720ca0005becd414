"""Copies and dtype conversions: clone, to, type, float()/double()/..., contiguous, and the
in-place writes of whole tensors: copy_, fill_, zero_ (forward, node, derivative)."""
__all__ = ["clone"]


import math
import warnings

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import SCALAR_NAMES, type_name
from ..tensor import NO_ACCELERATOR, Tensor, check_device, wrap
from ..tensor import contiguous_format, preserve_format
from ..tensor import memory_format as memory_format_cls
from ..tensor import device as _DEVICE      # (to() has a parameter named device)
from ._args import broadcast_error
from ._args import memory_error, not_tensor, torch_layout, check_operands, half_scalar
from ._args import in_format, channels_last_format
from ._views import inplace, check_inplace, check_overlap, mark_written, writable


class CloneBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad,

    def jvp(self, ts, xs, out):
        return ts[0].clone()


def check_memory_format(name, memory_format):
    """torch's TypeError for a memory_format= that is no torch.memory_format."""
    if memory_format is not None and not isinstance(memory_format, memory_format_cls):
        raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")


def clone(input, *, memory_format=None):
    check_memory_format("clone", memory_format)
    try:
        x = input._data
        # preserve_format (the default) keeps the input's layout (Note [Elementwise layout])
        if memory_format is None or memory_format is preserve_format:
            res = wrap(x.copy() if x.flags.c_contiguous else torch_layout(x.copy(), x))
        else:
            res = wrap(in_format(x, memory_format))     # (Note [Channels last])
    except AttributeError as e:
        raise not_tensor(e) from None
    except MemoryError as e:
        raise memory_error(e) from None
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, CloneBackward0(), input)
    return res


def contiguous(input, *, memory_format=None):
    if memory_format is None or memory_format is contiguous_format:
        if input._data.flags.c_contiguous:
            return input
        return clone(input, memory_format=contiguous_format)
    check_memory_format("contiguous", memory_format)
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if input.is_contiguous(memory_format=memory_format):
        return input
    return clone(input, memory_format=memory_format)


class ToCopyBackward0(Node):                 # derivatives.yaml: _to_copy
    __slots__ = ("_self_dtype",)

    def apply(self, grad):
        if grad.dtype.is_complex and not self._self_dtype.is_complex:   # (batched: no _data)
            grad = grad.real        # a real input's gradient is the real part (torch: no warning)
        return grad.to(self._self_dtype),

    def jvp(self, ts, xs, out):
        t = ts[0]
        if t._data.dtype.kind == "c" and out._data.dtype.kind != "c":
            t = t.real
        return t.to(out.dtype, copy=True)


def _to_dtype(input, dtype, copy=False, memory_format=None):
    x = input._data
    if dtype.np == x.dtype and not copy:
        return input
    if x.dtype.kind == "c" and dtype.category < D.COMPLEX:
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        x = x.real
    if memory_format is not None:               # a copy in that layout (after the cast:
        res = wrap(in_format(x if dtype.np == x.dtype else D.cast(x, dtype.np),  # astype
                             memory_format))    # relays size-1 dims)
    else:
        r = D.cast(x, dtype.np)
        if not r.flags.c_contiguous:
            r = torch_layout(r, x)      # (an expanded input: torch's result is contiguous)
        res = wrap(r)
    if (STATE.enabled and input._requires_grad or LEVELS and dual(input)) and \
            dtype.category >= D.FLOAT:
        node = ToCopyBackward0()
        node._self_dtype = input.dtype
        link(res, node, input)
    return res


def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None):
    """Tensor.to(dtype) / to(device) / to(device, dtype) / to(other)."""
    dtype = D.as_dtype(dtype, "to")
    check_memory_format("to", memory_format)
    for a in args:
        if isinstance(a, D.dtype) or a in (float, int, bool, complex):
            dtype = D.as_dtype(a, "to")
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _DEVICE, int)) or a is None:
            _check_device(a)
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if device is not None:
        _check_device(device)
    if memory_format is not None and memory_format is not preserve_format:
        # a copy unless input's suggested format is that one, and the dtype too (torch's
        # rule: a transposed matrix is its own to(memory_format=contiguous_format))
        x = input._data
        if copy or dtype is not None and dtype.np != x.dtype or \
                (channels_last_format(x) or contiguous_format) is not memory_format:
            return _to_dtype(input, dtype or input.dtype, True, memory_format)
        return input
    if dtype is None:
        return clone(input) if copy else input
    return _to_dtype(input, dtype, copy)


def _check_device(d):
    if isinstance(d, int) and not isinstance(d, bool):
        raise RuntimeError(NO_ACCELERATOR)     # a bare index names the accelerator
    check_device(d)


def _caster(dt):
    def cast(self, *, memory_format=None):
        if memory_format is not None:
            check_memory_format(cast.__name__, memory_format)
            if memory_format is not preserve_format:
                return to(self, dt, memory_format=memory_format)
        return _to_dtype(self, dt)
    cast.__name__ = dt.name
    return cast


def type_as(self, other):
    try:
        dtype = other.dtype
    except AttributeError as e:
        raise not_tensor(e) from None
    return _to_dtype(self, dtype)


float_ = _caster(D.float32)
double = _caster(D.float64)
half = _caster(D.float16)
long = _caster(D.int64)
int_ = _caster(D.int32)
short = _caster(D.int16)
char = _caster(D.int8)
byte = _caster(D.uint8)
bool_ = _caster(D.bool_)
cfloat = _caster(D.complex64)
cdouble = _caster(D.complex128)


# ---------------------------------------------------------------- copy_ / fill_ / zero_
# Each writes a whole tensor through the in-place protocol (_views.inplace); while nothing is
# recorded it writes straight into the array.

class CopyBackwards(Node):                   # derivatives.yaml: copy_
    __slots__ = ()

    def apply(self, grad):
        return (grad.new_zeros(grad.shape) if self.next_functions[0][0] is not None else None,
                grad)

    def jvp(self, ts, xs, out):                 # self's values are src's: so is the tangent
        return ts[1].to(out.dtype).expand(out.shape).clone()

    def np_apply(self, grad):
        return (np.zeros_like(grad) if self.next_functions[0][0] is not None else None), grad


def same_layout(a, b):
    """Whether NumPy arrays a and b are the same elements of the same memory: the same
    address, dtype, shape and strides."""
    return a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides and \
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        if isinstance(src, (bool, int, float, complex)):
            return fill_(self, src)
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    sd, vd = self._data, src._data
    same = same_layout(sd, vd)
    if same and not (STATE.enabled and (self._requires_grad or src._requires_grad)):
        # the very memory, laid out alike: torch's copy does nothing (not even refuse an
        # expanded tensor) but count the write
        check_inplace(self, False, write=False)
        mark_written(self)
        return self
    if not same:
        check_overlap(self, src)    # (torch's copy checks the memory before the shapes)
    if vd.shape != sd.shape:
        try:
            shape = np.broadcast_shapes(vd.shape, sd.shape)
        except ValueError:
            raise broadcast_error(sd, vd) from None
        if shape != sd.shape:
            raise RuntimeError(f"output with shape {list(sd.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
    # (an integer tensor never requires grad: a copy into one records nothing)
    recording = (STATE.enabled and (self._requires_grad or src._requires_grad) or
                 LEVELS and dual(self, src)) and sd.dtype.kind in "fc"
    if not recording:
        check_inplace(self, False)
        np.copyto(writable(sd), vd, casting="unsafe")
        mark_written(self)
        return self
    res = wrap(np.broadcast_to(vd, sd.shape).astype(sd.dtype))
    link(res, CopyBackwards(), self, src)
    # (a recorded copy of the very memory goes through into an expanded tensor as well, and
    # its backward refuses: Note [Expanded writes])
    return inplace(self, res, written=_unchanged if same else None)


def _unchanged(arr, result):
    """inplace's `written` for a copy of the very memory: nothing to write."""


class FillBackward2(Node):                   # derivatives.yaml: fill_.Scalar
    __slots__ = ()

    def apply(self, grad):
        return grad.new_zeros(grad.shape),

    def jvp(self, ts, xs, out):
        return ts[0].new_zeros(out.shape)

    def np_apply(self, grad):
        return np.zeros_like(grad),


class FillBackward3(Node):                   # derivatives.yaml: fill_.Tensor
    __slots__ = ()

    def apply(self, grad):
        return (grad.new_zeros(grad.shape) if self.next_functions[0][0] is not None else None,
                grad.sum() if self.next_functions[1][0] is not None else None)

    def jvp(self, ts, xs, out):
        return ts[1].to(out.dtype).expand(out.shape).clone()


class ZeroBackward0(FillBackward2):          # derivatives.yaml: zero_
    __slots__ = ()


def fill_value(value, np_dtype):
    """A Python number as a value of np_dtype, with torch's overflow errors."""
    kind = np_dtype.kind
    if kind == "b":
        return bool(value)
    overflow = RuntimeError(f"value cannot be converted to type {SCALAR_NAMES[np_dtype.name]} "
                            f"without overflow")
    if isinstance(value, complex):
        if kind != "c":
            if value.imag:
                raise overflow
            value = value.real
    if kind in "iu":
        if isinstance(value, float):
            if not math.isfinite(value):
                raise overflow
            value = int(value)
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            raise overflow
    elif kind == "f" and isinstance(value, (int, float)) and math.isfinite(value) and \
            abs(value) > float(np.finfo(np_dtype).max):
        raise overflow
    if np_dtype.char == "e" and isinstance(value, float):
        return half_scalar(value)       # (through float32: Note [Scalar operands])
    return value


def _fill_type_error(value):
    return TypeError(f"fill_() received an invalid combination of arguments - got "
                     f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
                     f"      didn't match because some of the arguments have invalid types: "
                     f"(!{type(value).__name__}!)\n * (Number value)\n")


def fill_(self, value):
    try:
        sd = self._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        # (into an integer tensor too: torch records it, and self then requires grad)
        if STATE.enabled and (self._requires_grad or value._requires_grad) or \
                LEVELS and dual(self, value) and sd.dtype.kind in "fc":
            res = wrap(np.full(sd.shape, value._data, sd.dtype))
            link(res, FillBackward3(), self, value)
            return inplace(self, res)
        check_inplace(self, False)      # (a tensor value cannot fill an expanded tensor)
        value = value.item()
    elif isinstance(value, np.generic):
        value = value.item()
    elif not isinstance(value, (bool, int, float, complex)):
        raise _fill_type_error(value)
    if sd.dtype.char == "e" and sd.size == 1 and type(value) in (int, float):
        value = half_scalar(value)      # (torch's one-element float16 fill_: no range check)
    else:
        value = fill_value(value, sd.dtype)
    # (torch lets a number fill an expanded tensor, whose elements share memory)
    if STATE.enabled and self._requires_grad or LEVELS and dual(self):
        res = wrap(np.full(sd.shape, value, sd.dtype))
        link(res, FillBackward2(), self)
        return inplace(self, res, overlap_ok=True)
    check_inplace(self, False, write=False)
    writable(sd).fill(value)
    mark_written(self)
    return self


def zero_(self):
    try:
        sd = self._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if STATE.enabled and self._requires_grad or LEVELS and dual(self):
        res = wrap(np.zeros(sd.shape, sd.dtype))
        link(res, ZeroBackward0(), self)
        return inplace(self, res, overlap_ok=True)
    check_inplace(self, False, write=False)     # (an expanded tensor too, as in torch)
    writable(sd).fill(0)
    mark_written(self)
    return self


# ================================================================ surface ops (issue 14):
# apply_, map_, map2_: a Python callable run on each element (that is their definition, so a
# loop over the elements in Python, as in torch), written back in place with no history


def _callable_check(self, name, *others):
    for t in (self,) + others:
        if t._requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                               f"var.detach().{name}() instead.")


def _write_values(self, values):
    """The callable's results, converted as torch converts them, into self's memory."""
    dt = self._data.dtype
    out = np.empty(len(values), dt)
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            v = v.item()
        if dt.kind == "b":
            out[i] = bool(v)
        elif dt.kind in "iu":
            if not isinstance(v, (bool, int, float, np.generic)):
                raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an "
                                f"integer")
            v = int(v) if isinstance(v, float) else int(v)
            info = np.iinfo(dt)
            if not info.min <= v <= info.max:
                raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                                   f"overflow")
            out[i] = v
        elif dt.kind == "f":
            if isinstance(v, complex) or not isinstance(v, (bool, int, float, np.generic)):
                raise TypeError(f"must be real number, not {type(v).__name__}")
            out[i] = v
        else:
            out[i] = complex(v)
    check_inplace(self, False)
    self._data[...] = out.reshape(self._data.shape)
    mark_written(self)
    return self


def apply_(self, callable):
    _callable_check(self, "apply_")
    f = callable
    return _write_values(self, [f(v) for v in self._data.reshape(-1).tolist()])


def _expanded(self, other, name, arg):
    """other's values broadcast to self's shape, in self's element order (torch's checks)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    if other._data.dtype != self._data.dtype:
        what = "for 'other'" if name == "map_" else f"for argument '{arg}'"
        raise TypeError(f"{name}: expected torch.{type_name(self._data.dtype)}Tensor {what} "
                        f"(got torch.{type_name(other._data.dtype)}Tensor)")
    return other.expand_as(self)._data.reshape(-1).tolist()


def map_(self, tensor, callable):
    b = _expanded(self, tensor, "map_", "other")
    _callable_check(self, "map_", tensor)
    a = self._data.reshape(-1).tolist()
    return _write_values(self, [callable(u, v) for u, v in zip(a, b)])


def map2_(self, x, y, callable):
    bx = _expanded(self, x, "map2_", "x")
    by = _expanded(self, y, "map2_", "y")
    _callable_check(self, "map2_", x, y)
    a = self._data.reshape(-1).tolist()
    return _write_values(self, [callable(u, v, w) for u, v, w in zip(a, bx, by)])


# ---- torch.fill: the out-of-place fill (FillBackward0: a number; FillBackward1: a 0-d tensor)
class FillBackward0(FillBackward2):          # derivatives.yaml: fill.Scalar
    __slots__ = ()


class FillBackward1(FillBackward3):          # derivatives.yaml: fill.Tensor
    __slots__ = ()


def fill(input, value):
    try:
        sd = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    check_operands("fill", input, value)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        res = wrap(np.full(sd.shape, value._data, sd.dtype))
        if STATE.enabled and (input._requires_grad or value._requires_grad):
            link(res, FillBackward1(), input, value)
        return res
    if isinstance(value, np.generic):
        value = value.item()
    elif not isinstance(value, (bool, int, float, complex)):
        raise _fill_type_error(value)
    res = wrap(np.full(sd.shape, fill_value(value, sd.dtype), sd.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, FillBackward0(), input)
    return res


def module_load(self, other, assign=False):
    """Tensor.module_load: how load_state_dict turns a state-dict value into a parameter's new
    value (self.copy_(other).detach(), or other.detach() when assigning)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()
