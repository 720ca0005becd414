"""Complex numbers: conj, conj_physical, resolve_conj/neg, real, imag, angle."""
__all__ = ["view_as_real", "view_as_complex", "conj", "angle", "conj_physical", "resolve_conj", "resolve_neg", "real", "imag"]

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import wrap
from ._args import floating, write_out
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
    x = input._data
    if x.dtype.kind == "c":
        r = np.angle(x)
    else:
        x = floating(x)
        r = np.where(x < 0, np.pi, 0.0).astype(x.dtype)
        if x.dtype.kind == "f":
            r = np.where(np.isnan(x), x, r)
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
    if input._data.dtype.kind != "c":
        return input
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ConjBackward0(), input)
    return res


def conj_physical(input, *, out=None):
    if input._data.dtype.kind != "c":
        return input if out is None else write_out(input, out)
    res = wrap(np.conj(input._data))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
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
    x = input._data
    if x.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    re = x.real
    r = np.lib.stride_tricks.as_strided(re, x.shape + (2,), re.strides + (re.itemsize,))
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, ViewAsRealBackward0(), input)
    return res


def view_as_complex(input):
    x = input._data
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
    if input._data.dtype.kind != "c":
        return input
    return select(view_as_real(input), -1, 0)


def imag(input):
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(input), -1, 1)
