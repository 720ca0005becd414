"""Complex numbers: conj, conj_physical, resolve_conj/neg, real, imag, angle."""
__all__ = ["conj", "angle", "conj_physical", "resolve_conj", "resolve_neg", "real", "imag"]

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..tensor import wrap
from ._args import floating, write_out
from ._views import inplace, inplace_source
from .arith import _SavesSelf, _zeros
from .logical import where


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
