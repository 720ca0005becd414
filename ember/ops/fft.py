"""Discrete Fourier transforms: torch's three primitives (complex-to-complex, real-to-complex,
complex-to-real, with their nodes FftC2CBackward0, FftR2CBackward0, FftC2RBackward0) on
NumPy's pocketfft, and torch.fft's functions composed from them as torch composes them.

Note [FFT gradients]: each primitive is linear, y = A x, and its gradient is the adjoint A^H
applied to the output's gradient, which is again one of the primitives: the adjoint of a
transform normalised by `norm` is the opposite-direction transform with the dual norm
("backward" <-> "forward", "ortho" unchanged). R2C's adjoint pads the one-sided spectrum with
zeros and keeps the real part of the inverse; C2R's is R2C with the bins that stand for two
(k and n - k) counted twice. The formulas call the primitives, so they differentiate again."""
import math

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..creation import _arange_resize_warning, _into, _out_dtype
from ..autograd.grad_mode import STATE
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node, NotImplementedBackward, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import wrap_dim
from ._args import not_tensor, check_args, wrong_type, write_out
from .join import cat

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _DUAL:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _float_input(x):
    """x's array in the dtype torch transforms it in (integers: the default float)."""
    a = x._data
    if a.dtype == np.float16:
        raise RuntimeError("Unsupported dtype Half")
    if a.dtype.kind in "biu":
        a = a.astype(D.get_default_dtype().np)
    return a


# ---------------------------------------------------------------- the three primitives

def _norm_enum(norm, forward):
    """torch's fft_norm_mode for a norm name: 0 none, 1 by_root_n, 2 by_n ("backward" scales
    the inverse transform, "forward" the forward one)."""
    if norm == "ortho":
        return 1
    return 2 if (norm == "forward") == forward else 0


class FftC2CBackward0(Node):                 # derivatives.yaml: _fft_c2c
    # _norm: the norm name; grad_fn._saved_normalization reads it as torch's enum
    __slots__ = ("_norm", "_saved_dim", "_saved_forward")
    _saved_normalization = property(lambda self: _norm_enum(self._norm, self._saved_forward))

    def apply(self, grad):
        return fft_c2c(grad, self._saved_dim, _DUAL[self._norm],
                       not self._saved_forward),


def fft_c2c(input, dims, norm, forward):
    """The complex transform of input over dims (forward or inverse), normalised by norm."""
    a = input._data
    if a.dtype.kind != "c":
        a = a.astype(_COMPLEX_OF[np.dtype(a.dtype)])
    f = np.fft.fftn if forward else np.fft.ifftn
    r = f(a, axes=dims, norm=norm) if a.size else a.copy()
    res = wrap(r.astype(a.dtype, copy=False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = FftC2CBackward0()
        node._saved_dim, node._norm, node._saved_forward = dims, norm, forward
        link(res, node, input)
    return res


class FftR2CBackward0(Node):                 # derivatives.yaml: _fft_r2c
    # (_saved_self: torch saves the transformed signal, so an in-place write to it fails
    # backward; the formula reads only its size)
    __slots__ = ("_norm", "_saved_dim", "_saved_onesided", "_self_size", "_saved_self")
    _saved_names = ("_saved_self",)
    _saved_normalization = property(lambda self: _norm_enum(self._norm, True))

    def apply(self, grad):
        dims = self._saved_dim
        g = grad
        if self._saved_onesided:
            last = dims[-1]
            n = self._self_size[last]
            missing = n - g.shape[last]
            if missing > 0:
                shape = list(g.shape)
                shape[last] = missing
                g = cat([g, g.new_zeros(shape)], last)
        full = fft_c2c(g, dims, _DUAL[self._norm], False)
        return full.real,


def fft_r2c(input, dims, norm, onesided):
    """The forward transform of a real input over dims; onesided: only the first n // 2 + 1
    bins of the last dim (the rest is their conjugate)."""
    a = input._data
    if a.size == 0:
        shape = list(a.shape)
        if onesided:
            shape[dims[-1]] = a.shape[dims[-1]] // 2 + 1
        r = np.zeros(shape, _COMPLEX_OF[np.dtype(a.dtype)])
    elif onesided:
        r = np.fft.rfftn(a, axes=dims, norm=norm)
    else:
        r = np.fft.fftn(a, axes=dims, norm=norm)
    res = wrap(r.astype(_COMPLEX_OF[np.dtype(a.dtype)], copy=False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = FftR2CBackward0()
        node._saved_dim, node._norm = dims, norm
        node._saved_onesided, node._self_size = onesided, a.shape
        node._saved_self = input
        link(res, node, input)
    return res


class FftC2RBackward0(Node):                 # derivatives.yaml: _fft_c2r
    __slots__ = ("_last_dim_size", "_norm", "_saved_dim")
    _saved_normalization = property(lambda self: _norm_enum(self._norm, False))

    def apply(self, grad):
        dims, n = self._saved_dim, self._last_dim_size
        g = fft_r2c(grad, dims, _DUAL[self._norm], True)
        m = g.shape[dims[-1]]
        # bins 1 .. n - m stand for two (k and n - k) in the Hermitian signal
        w = np.ones(m, grad._data.dtype)
        w[1: n - m + 1] = 2.0
        w = w.reshape((m,) + (1,) * (g.ndim - 1 - dims[-1]))
        return g * wrap(w),


def fft_c2r(input, dims, norm, last_dim_size):
    """The inverse transform of a one-sided (Hermitian) spectrum over dims: a real signal with
    last_dim_size points along the last of dims."""
    a = input._data
    if a.dtype.kind != "c":
        a = a.astype(_COMPLEX_OF[np.dtype(a.dtype)])
    shape = [a.shape[d] for d in dims[:-1]] + [last_dim_size]
    r = np.fft.irfftn(a, s=shape, axes=dims, norm=norm)
    real = np.float32 if a.dtype == np.complex64 else np.float64
    res = wrap(r.astype(real, copy=False))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = FftC2RBackward0()
        node._saved_dim, node._norm = dims, norm
        node._last_dim_size = last_dim_size
        link(res, node, input)
    return res


# ---------------------------------------------------------------- argument handling

def _one_dim(input, n, dim, name):
    try:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    except AttributeError as e:
        raise not_tensor(e) from None
    check_args("fft_" + name, ("n", 2, "int", n, True), ("dim", 3, "int", dim))
    d = wrap_dim(dim, input.ndim)
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return d


def _many_dims(input, s, dim, name, default_all=True):
    """The dims and sizes of an n-dimensional transform (torch's rules for s and dim)."""
    check_args("fft_" + name, ("s", 2, "tuple of ints", s, True),
               ("dim", 3, "tuple of ints", dim, True))
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is not None:
        try:
            dims = [wrap_dim(d, input.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        except AttributeError as e:
            raise not_tensor(e) from None
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    elif s is not None:
        if len(s) > input.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{input.ndim} dimensions.")
        dims = list(range(input.ndim - len(s), input.ndim))
    else:
        try:
            dims = list(range(input.ndim))
        except AttributeError as e:
            raise not_tensor(e) from None
    sizes = [None] * len(dims) if s is None else [None if v == -1 else v for v in s]
    for v in sizes:
        if v is not None and v < 1:
            raise RuntimeError(f"Invalid number of data points ({v}) specified")
    return tuple(dims), sizes


def _prepared(input, dims, sizes):
    """input resized along dims (a slice when truncating, as torch; zero padding otherwise)."""
    out = input
    for d, n in zip(dims, sizes):
        if n is None or out.shape[d] == n:
            continue
        if out.shape[d] > n:
            out = out[(slice(None),) * d + (slice(0, n),)]
        else:
            shape = list(out.shape)
            shape[d] = n - out.shape[d]
            out = cat([out, out.new_zeros(shape)], d)
    return out


def _real_check(input, name):
    try:
        if input._data.dtype.kind == "c":
            raise RuntimeError(f"{name} expects a real input tensor, but got "
                               f"{type_name(input._data.dtype)}")
    except AttributeError as e:
        raise not_tensor(e) from None


def _as_float(input):
    a = _float_input(input)
    return input if a is input._data else input.to(D.FROM_NP[a.dtype])


def _as_complex(input):
    a = _float_input(input)
    if a.dtype.kind == "c":
        return input
    return input.to(D.FROM_NP[np.dtype(_COMPLEX_OF[np.dtype(a.dtype)])])


# ---------------------------------------------------------------- torch.fft's functions

def fft(input, n=None, dim=-1, norm=None, *, out=None):
    d = _one_dim(input, n, dim, "fft")
    x = _prepared(_as_float(input), (d,), (n,))
    if x._data.dtype.kind == "c":
        return _out(fft_c2c(x, (d,), _norm(norm), True), out, "_fft_c2c", "fft")
    return _out(fft_r2c(x, (d,), _norm(norm), False), out, "_fft_r2c", "fft")


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    d = _one_dim(input, n, dim, "ifft")
    x = _prepared(_as_float(input), (d,), (n,))
    if x._data.dtype.kind == "c":
        return _out(fft_c2c(x, (d,), _norm(norm), False), out, "_fft_c2c", "ifft")
    # a real signal's inverse transform is the conjugate of its forward one
    return _out(fft_r2c(x, (d,), _DUAL[_norm(norm)], False).conj(), out, "conj_physical",
                "ifft")


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    _real_check(input, "rfft")
    d = _one_dim(input, n, dim, "rfft")
    x = _prepared(_as_float(input), (d,), (n,))
    return _out(fft_r2c(x, (d,), _norm(norm), True), out, "_fft_r2c", "rfft")


def _half_spectrum(input, n, dim, name):
    """irfft's and hfft's input: (the half spectrum along the one dim d, trimmed or padded,
    d, the output length n, by default 2 * (size - 1))."""
    d = _one_dim(input, n, dim, name)
    last = 2 * (input.shape[d] - 1) if n is None else n
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return _prepared(_as_complex(input), (d,), (last // 2 + 1,)), d, last


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    x, d, last = _half_spectrum(input, n, dim, "irfft")
    return _out(fft_c2r(x, (d,), _norm(norm), last), out, "_fft_c2r", "irfft")


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    x, d, last = _half_spectrum(input, n, dim, "hfft")
    return _out(fft_c2r(x.conj(), (d,), _DUAL[_norm(norm)], last), out, "_fft_c2r", "hfft")


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    _real_check(input, "ihfft")
    d = _one_dim(input, n, dim, "ihfft")
    x = _prepared(_as_float(input), (d,), (n,))
    return _out(fft_r2c(x, (d,), _DUAL[_norm(norm)], True).conj(), out, "conj_physical",
                "ihfft")


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "fftn")
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2c(x, dims, _norm(norm), True), out, "_fft_c2c", "fftn")


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "ifftn")
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2c(x, dims, _norm(norm), False), out, "_fft_c2c", "fftn")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    _real_check(input, "rfftn")
    dims, sizes = _many_dims(input, s, dim, "rfftn")
    x = _prepared(_as_float(input), dims, sizes)
    return _out(fft_r2c(x, dims, _norm(norm), True), out, "_fft_r2c", "rfftn")


def _c2r_sizes(input, dims, sizes):
    last = sizes[-1] if sizes[-1] is not None else 2 * (input.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return last, sizes[:-1] + [last // 2 + 1]


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "irfftn")
    last, sizes = _c2r_sizes(input, dims, sizes)
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2r(x, dims, _norm(norm), last), out, "_fft_c2r", "irfftn")


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "hfftn")
    last, sizes = _c2r_sizes(input, dims, sizes)
    x = _prepared(_as_complex(input), dims, sizes)
    norm = _norm(norm)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], norm, True)
    return _out(fft_c2r(x.conj(), dims[-1:], _DUAL[norm], last), out, "_fft_c2r", "hfftn")


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    _real_check(input, "ihfftn")
    dims, sizes = _many_dims(input, s, dim, "ihfftn")
    x = _prepared(_as_float(input), dims, sizes)
    norm = _norm(norm)
    y = fft_r2c(x, dims[-1:], _DUAL[norm], True).conj_physical()
    if len(dims) > 1:
        y = fft_c2c(y, dims[:-1], norm, False)
    return _out(y, out, "_fft_c2c" if len(dims) > 1 else "conj_physical", "ihfftn")


def _two(fn):
    name = "fft_" + fn.__name__[:-1] + "2"

    def two(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        check_args(name, ("s", 2, "tuple of ints", s, True), ("dim", 3, "tuple of ints", dim))
        return fn(input, s, dim, norm, out=out)
    two.__name__ = fn.__name__[:-1] + "2"
    return two


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two(f) for f in (fftn, ifftn, rfftn, irfftn,
                                                                hfftn, ihfftn))


def _out(res, out, op, name):
    """torch.fft's out=: the output's kind checked (complex for a complex result, real for a
    real one: torch's error names the n-dim function), autograd's refusal named after the
    primitive that writes out (op), then the result written (resized as any out=). A real
    input's inverse (ifft, ihfft) ends in an in-place conj_physical on out, which torch lets
    through with an input that requires grad: out then gets torch's NotImplemented node."""
    if out is None:
        return res
    if not isinstance(out, Tensor):
        raise wrong_type(out, "Tensor")
    if res._data.dtype.kind == "c" and out._data.dtype.kind != "c":
        raise RuntimeError(f"{name} expects a complex output tensor, but got "
                           f"{type_name(out._data.dtype)}")
    if res._data.dtype.kind != "c" and out._data.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a floating point output tensor, but got "
                           f"{type_name(out._data.dtype)}")
    if op == "conj_physical" and STATE.enabled and res._requires_grad and \
            not out._requires_grad:
        with no_grad():
            write_out(res.detach(), out, op)
        node = NotImplementedBackward()
        node._op = op
        link(out, node, res)
        return out
    return write_out(res, out, f"aten::{op}" if op == "conj_physical" else op)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(n, d, dtype, requires_grad, True, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    return _freq(n, d, dtype, requires_grad, False, out)


def _freq(n, d, dtype, requires_grad, full, out=None):
    name = "fftfreq" if full else "rfftfreq"
    check_args("fft_" + name, ("n", 1, "int", n), ("d", 2, "float", d))
    if out is not None:
        if n < 0 and full:      # (torch's out= path builds it with arange)
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
        dtype = _out_dtype(out, dtype, name)
    # (rfftfreq's length is n / 2 + 1 truncated toward zero, as torch computes it)
    size = n if full else int(n / 2) + 1
    if size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{size}]")
    dt = D.as_dtype(dtype, name) or D.get_default_dtype()
    if dt.np.kind == "c":
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{type_name(dt.np)}\'')
    if dt.np.kind != "f":
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if full:
        k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    else:
        k = np.arange(size)
    # torch: the integer bins in the output dtype, times 1 / (n d) in that dtype (n = 0: NaN)
    scale = 1.0 / (n * d) if n else math.nan
    arr = k.astype(dt.np) * dt.np.type(scale)
    t = wrap(arr.astype(dt.np, copy=False))
    if out is not None:         # (torch fills out with arange: its size warning, its shape)
        n_, m = arr.size, out._data.size
        if m and m != n_:
            _arange_resize_warning(out, n_, 4)
        elif m:
            t = wrap(t._data.reshape(out._data.shape))
        return _into(t, out, "fft_" + name, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shift_dims(input, dim):
    if dim is None:
        try:
            return tuple(range(input.ndim))
        except AttributeError as e:
            raise not_tensor(e) from None
    return tuple([dim] if isinstance(dim, int) else dim)


def fftshift(input, dim=None):
    check_args("fft_fftshift", ("dim", 2, "tuple of ints", dim, True))
    dims = _shift_dims(input, dim)
    return input.roll(tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input, dim=None):
    check_args("fft_ifftshift", ("dim", 2, "tuple of ints", dim, True))
    dims = _shift_dims(input, dim)
    return input.roll(tuple(-(input.shape[d] // 2) for d in dims), dims)
