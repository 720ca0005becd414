"""Complex numbers: conj, conj_physical, resolve_conj/neg, real, imag, angle."""
__all__ = ["view_as_real", "view_as_complex", "conj", "angle", "conj_physical", "resolve_conj", "resolve_neg", "real", "imag"]

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import broadcast_error, floating, needs, saved_output, write_out
from ._args import _tensor_args, not_tensor, torch_layout
from ._views import inplace, inplace_source, make_view
from .arith import _SavesSelf, _zeros
from .logical import where
from .shape import select


class AngleBackward0(_SavesSelf):
    __slots__ = ()

    def apply(self, grad):
        s = self._saved_self
        if s._data.dtype.kind != "c":
            return _zeros(grad),
        a2 = real(s * s.conj())
        g = grad * s / where(a2 == 0, 1.0, a2) * 1j
        return where(a2 == 0, 0.0, g),

    def jvp(self, ts, xs, out):                 # d angle(z) = Im(conj(z) dz) / |z|^2
        s = xs[0]
        if s._data.dtype.kind != "c":
            return _zeros(out)
        a2 = real(s * s.conj())
        return where(a2 == 0, 0.0, imag(s.conj() * ts[0]) / where(a2 == 0, 1.0, a2))


def angle(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        r = np.asarray(np.angle(x), order="C")   # (torch's complex angle: C order, any input)
    else:
        x = floating(x)
        r = np.where(x < 0, np.pi, 0.0).astype(x.dtype)
        if x.dtype.kind == "f":
            r = np.where(np.isnan(x), x, r)
        r = torch_layout(r, x)          # (torch's layout for a real input; a complex one: C order)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = AngleBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- complex views of real tensors


class ConjBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return conj(grad),

    def jvp(self, ts, xs, out):
        return conj(ts[0])


class ConjPhysicalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return conj_physical(grad),

    def jvp(self, ts, xs, out):
        return conj_physical(ts[0])


def conj(input):
    try:
        if input._data.dtype.kind != "c":
            return input
    except AttributeError as e:
        raise not_tensor(e) from None
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ConjBackward0(), input)
    return res


def conj_physical(input, *, out=None):
    try:
        if input._data.dtype.kind != "c":
            return input if out is None else write_out(input, out)
    except AttributeError as e:
        raise not_tensor(e) from None
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ConjPhysicalBackward0(), input)
    return write_out(res, out)


class ConjPhysicalBackward1(ConjPhysicalBackward0):   # derivatives.yaml: conj_physical_
    __slots__ = ()


def conj_physical_(self):
    """In place, a real tensor too: torch writes it (a version bump, the leaf check, its
    own node ConjPhysicalBackward1), though the values stay."""
    try:
        x = self._data
    except AttributeError as e:
        raise not_tensor(e) from None
    src = inplace_source(self)
    res = wrap(np.conj(src._data) if x.dtype.kind == "c" else src._data.copy())
    if STATE.enabled and src._requires_grad or LEVELS and dual(src):
        link(res, ConjPhysicalBackward1(), src)
    return inplace(self, res)


def resolve_conj(input):
    if not isinstance(input, Tensor):
        raise not_tensor(AttributeError(name="_data", obj=input))
    return input


def resolve_neg(input):
    if not isinstance(input, Tensor):
        raise not_tensor(AttributeError(name="_data", obj=input))
    return input


class ViewAsRealBackward0(Node):             # derivatives.yaml: view_as_real
    __slots__ = ()

    def apply(self, grad):
        return view_as_complex(grad.contiguous()),

    def jvp(self, ts, xs, out):
        return view_as_real(ts[0])


class ViewAsComplexBackward0(Node):          # derivatives.yaml: view_as_complex
    __slots__ = ()

    def apply(self, grad):
        return view_as_real(grad),

    def jvp(self, ts, xs, out):
        return view_as_complex(ts[0].contiguous())


def view_as_real(input):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    re = x.real
    r = np.lib.stride_tricks.as_strided(re, x.shape + (2,), re.strides + (re.itemsize,))
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ViewAsRealBackward0(), input)
    return res


def view_as_complex(input):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {type_name(x.dtype)}")
    if x.ndim == 0 or x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    isz = x.itemsize
    if x.strides[-1] != isz:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * isz) for s, n in zip(x.strides[:-1], x.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    mem = x
    while isinstance(mem.base, np.ndarray):
        mem = mem.base
    offset = x.__array_interface__["data"][0] - mem.__array_interface__["data"][0]
    if offset % (2 * isz):
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    c = np.complex64 if x.dtype == np.float32 else np.complex128
    r = np.ndarray(x.shape[:-1], c, buffer=mem, offset=offset, strides=x.strides[:-1])
    if not x.flags.writeable:
        r.flags.writeable = False
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ViewAsComplexBackward0(), input)
    return res


def real(input):
    try:
        if input._data.dtype.kind != "c":
            return input
    except AttributeError as e:
        raise not_tensor(e) from None
    return select(view_as_real(input), -1, 0)


def imag(input):
    try:
        if input._data.dtype.kind != "c":
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    except AttributeError as e:
        raise not_tensor(e) from None
    return select(view_as_real(input), -1, 1)


# ================================================================ surface ops (issue 14):
# complex(real, imag), polar(abs, angle)
__all__ += ["complex", "polar"]


def _parts(name, a, b, first, second):
    _tensor_args(name, a, b, first, second)
    x, y = a._data, b._data
    if x.dtype.kind != "f" or y.dtype.kind != "f":
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{type_name(x.dtype)} and {type_name(y.dtype)}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"Expected object of scalar type {type_name(x.dtype)} but got "
                           f"scalar type {type_name(y.dtype)} for second argument")
    if x.dtype == np.float16:
        raise TypeError("ember has no complex32 dtype (torch's complex of two half tensors)")
    return x, y, np.complex64 if x.dtype == np.float32 else np.complex128


class ComplexBackward0(Node):                # derivatives.yaml: complex
    # torch saves each part whose gradient is needed (its formula reads the part's dtype), so
    # an in-place write to it fails backward there; ember's formula reads neither
    __slots__ = ("_saved_real", "_saved_imag")
    _saved_names = ("_saved_real", "_saved_imag")

    def apply(self, grad):
        return grad.real if needs(self, 0) else None, grad.imag if needs(self, 1) else None


def complex(real, imag, *, out=None):
    x, y, ct = _parts("complex", real, imag, "real", "imag")
    try:
        b = np.broadcast(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None
    r = np.empty(b.shape, ct)
    r.real, r.imag = x, y
    res = wrap(r)
    if STATE.enabled and (real._requires_grad or imag._requires_grad) or \
            LEVELS and dual(real, imag):
        node = ComplexBackward0()
        node._saved_real = real if real._requires_grad else None
        node._saved_imag = imag if imag._requires_grad else None
        link(res, node, real, imag)
    return write_out(res, out)


class PolarBackward0(Node):                  # derivatives.yaml: polar
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        out = saved_output(self, self._saved_result)
        g0 = g1 = None
        if needs(self, 0):
            r = out.abs()
            # d|out|/d abs along out's direction (0 where abs == 0, as torch gives)
            g0 = where(r == 0, 0.0, real(grad * out.conj()) / where(r == 0, 1.0, r))
        if needs(self, 1):
            g1 = real(grad * (out * 1j).conj())
        return g0, g1


def polar(abs, angle, *, out=None):
    x, y, ct = _parts("polar", abs, angle, "abs", "angle")
    with np.errstate(all="ignore"):
        try:
            r = (x * np.cos(y)) + 1j * (x * np.sin(y))
        except ValueError:
            raise broadcast_error(x, y) from None
    res = wrap(r.astype(ct, copy=False))
    if STATE.enabled and (abs._requires_grad or angle._requires_grad) or \
            LEVELS and dual(abs, angle):
        node = PolarBackward0()
        node._saved_result = res.detach()
        link(res, node, abs, angle)
    return write_out(res, out)
