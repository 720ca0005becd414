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
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import wrap
from ._args import wrap_dim
from ._args import not_tensor
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

class FftC2CBackward0(Node):                 # derivatives.yaml: _fft_c2c
    __slots__ = ("_saved_dim", "_saved_normalization", "_saved_forward")

    def apply(self, grad):
        return fft_c2c(grad, self._saved_dim, _DUAL[self._saved_normalization],
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
        node._saved_dim, node._saved_normalization, node._saved_forward = dims, norm, forward
        link(res, node, input)
    return res


class FftR2CBackward0(Node):                 # derivatives.yaml: _fft_r2c
    __slots__ = ("_saved_dim", "_saved_normalization", "_saved_onesided", "_self_size")

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
        full = fft_c2c(g, dims, _DUAL[self._saved_normalization], False)
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
        node._saved_dim, node._saved_normalization = dims, norm
        node._saved_onesided, node._self_size = onesided, a.shape
        link(res, node, input)
    return res


class FftC2RBackward0(Node):                 # derivatives.yaml: _fft_c2r
    __slots__ = ("_saved_dim", "_saved_normalization", "_saved_last_dim_size")

    def apply(self, grad):
        dims, n = self._saved_dim, self._saved_last_dim_size
        g = fft_r2c(grad, dims, _DUAL[self._saved_normalization], True)
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
        node._saved_dim, node._saved_normalization = dims, norm
        node._saved_last_dim_size = last_dim_size
        link(res, node, input)
    return res


# ---------------------------------------------------------------- argument handling

def _one_dim(input, n, dim, name):
    try:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, input.ndim)
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return d


def _many_dims(input, s, dim, name, default_all=True):
    """The dims and sizes of an n-dimensional transform (torch's rules for s and dim)."""
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
        return _out(fft_c2c(x, (d,), _norm(norm), True), out)
    return _out(fft_r2c(x, (d,), _norm(norm), False), out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    d = _one_dim(input, n, dim, "ifft")
    x = _prepared(_as_float(input), (d,), (n,))
    if x._data.dtype.kind == "c":
        return _out(fft_c2c(x, (d,), _norm(norm), False), out)
    # a real signal's inverse transform is the conjugate of its forward one
    return _out(fft_r2c(x, (d,), _DUAL[_norm(norm)], False).conj(), out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    _real_check(input, "rfft")
    d = _one_dim(input, n, dim, "rfft")
    x = _prepared(_as_float(input), (d,), (n,))
    return _out(fft_r2c(x, (d,), _norm(norm), True), out)


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
    return _out(fft_c2r(x, (d,), _norm(norm), last), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    x, d, last = _half_spectrum(input, n, dim, "hfft")
    return _out(fft_c2r(x.conj(), (d,), _DUAL[_norm(norm)], last), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    _real_check(input, "ihfft")
    d = _one_dim(input, n, dim, "ihfft")
    x = _prepared(_as_float(input), (d,), (n,))
    return _out(fft_r2c(x, (d,), _DUAL[_norm(norm)], True).conj(), out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "fftn")
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2c(x, dims, _norm(norm), True), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "ifftn")
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2c(x, dims, _norm(norm), False), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    _real_check(input, "rfftn")
    dims, sizes = _many_dims(input, s, dim, "rfftn")
    x = _prepared(_as_float(input), dims, sizes)
    return _out(fft_r2c(x, dims, _norm(norm), True), out)


def _c2r_sizes(input, dims, sizes):
    last = sizes[-1] if sizes[-1] is not None else 2 * (input.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return last, sizes[:-1] + [last // 2 + 1]


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "irfftn")
    last, sizes = _c2r_sizes(input, dims, sizes)
    x = _prepared(_as_complex(input), dims, sizes)
    return _out(fft_c2r(x, dims, _norm(norm), last), out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _many_dims(input, s, dim, "hfftn")
    last, sizes = _c2r_sizes(input, dims, sizes)
    x = _prepared(_as_complex(input), dims, sizes)
    norm = _norm(norm)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], norm, True)
    return _out(fft_c2r(x.conj(), dims[-1:], _DUAL[norm], last), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    _real_check(input, "ihfftn")
    dims, sizes = _many_dims(input, s, dim, "ihfftn")
    x = _prepared(_as_float(input), dims, sizes)
    norm = _norm(norm)
    y = fft_r2c(x, dims[-1:], _DUAL[norm], True).conj_physical()
    if len(dims) > 1:
        y = fft_c2c(y, dims[:-1], norm, False)
    return _out(y, out)


def _two(fn):
    def two(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return fn(input, s, dim, norm, out=out)
    two.__name__ = fn.__name__[:-1] + "2"
    return two


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two(f) for f in (fftn, ifftn, rfftn, irfftn,
                                                                hfftn, ihfftn))


def _out(res, out):
    if out is None:
        return res
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    return out


def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(n, d, dtype, requires_grad, full=True)


def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(n, d, dtype, requires_grad, full=False)


def _freq(n, d, dtype, requires_grad, full):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = D.as_dtype(dtype, "fftfreq") or D.get_default_dtype()
    if full:
        k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    else:
        k = np.arange(n // 2 + 1)
    # torch: the integer bins in the output dtype, times 1 / (n d) in that dtype (n = 0: NaN)
    scale = 1.0 / (n * d) if n else math.nan
    arr = k.astype(dt.np) * dt.np.type(scale)
    t = wrap(arr.astype(dt.np, copy=False))
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
    dims = _shift_dims(input, dim)
    return input.roll(tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input, dim=None):
    dims = _shift_dims(input, dim)
    return input.roll(tuple(-(input.shape[d] // 2) for d in dims), dims)
