"""erf, erfc, erfinv: float64 kernels in NumPy alone (no SciPy) and their autograd nodes.

erf uses the all-positive series erf(x) = 2/sqrt(pi) exp(-x^2) sum_n (2x^2)^n x / (2n+1)!!
(no cancellation) for |x| < 2.5 and the Laplace continued fraction of erfc beyond, where erf
is 1 - erfc; erfc itself switches to the continued fraction from |x| = 2. erfinv starts from
Winitzki's closed-form guess and refines it with Halley steps on erf(x) - y (written as
(1 - |y|) - erfc(|x|) near |y| = 1, so the tail keeps its relative precision). float32 inputs
are computed in float64 and rounded once. Accuracy against torch: ~1e-14 relative (erfc:
1e-12 where it is subnormal)."""
__all__ = ["erf", "erfc", "erfinv"]

import math

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, absent, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import floating, needs, saved_output, write_out
from ._args import not_tensor, torch_layout, check_operands
from ._specfun import (airy_ai_kernel, bessel_i_kernel, bessel_jy_kernel, bessel_k_kernel,
                       digamma_kernel, hurwitz_zeta, igamma_kernels, lgamma_kernel,
                       polygamma_kernel, polynomial_kernel)
from ._views import check_overlap, inplace, inplace_source
from .logical import where

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SERIES_END = 2.5      # erf: series below, 1 - continued fraction above
_ERF_ONE = 6.0         # erf(x) rounds to 1 from here (erfc(6) < 2**-53)
_ERFC_SPLIT = 2.0      # erfc: 1 - series below (erfc > 4.6e-3), continued fraction above
_CHUNK = 1 << 15       # elements per block of the vectorised series
# continued-fraction depth by the smallest argument: relative error < 1e-13 on each range
_CF_DEPTHS = ((2.5, 40), (3.0, 30), (math.inf, 25))


def _series_terms(amax):
    """Number of series terms after which every term is below 1e-17 of the sum."""
    t2 = 2.0 * amax * amax
    n, r = 0, 1.0
    while r > 1e-17 or 2 * n + 1 < t2:
        n += 1
        r *= t2 / (2 * n + 1)
    return n + 1


def _erf_series(a):
    """erf(a) for 0 <= a < _SERIES_END (a: 1-d float64 array). The terms
    a (2a^2)^n / (2n+1)!! are formed at once as a cumulative product along a second axis."""
    if a.size == 0:
        return a.copy()
    n = _series_terms(float(a.max()))
    odd = np.arange(3, 2 * n + 1, 2, dtype=np.float64)
    out = np.empty_like(a)
    for i in range(0, a.size, _CHUNK):
        b = a[i:i + _CHUNK]
        f = np.multiply.outer(2.0 * b * b, 1.0 / odd)
        np.cumprod(f, axis=1, out=f)
        out[i:i + _CHUNK] = b * (1.0 + f.sum(axis=1))
    return _TWO_OVER_SQRT_PI * np.exp(-a * a) * out


def _erfc_cf(a, depth=None):
    """erfc(a) for a >= _ERFC_SPLIT, from erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a +
    (3/2)/(a + ...)))), evaluated bottom-up at a fixed depth."""
    if depth is None:
        lo = a.min() if a.size else math.inf
        depth = next((d for bound, d in _CF_DEPTHS if lo < bound), _CF_DEPTHS[-1][1])  # (inf)
    k = a.copy()
    for n in range(depth, 0, -1):
        k = a + (0.5 * n) / k
    return np.exp(-a * a) / (math.sqrt(math.pi) * k)


def erf_kernel(x):
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    out = np.full(x.shape, np.nan)
    small = a < _SERIES_END
    mid = (a >= _SERIES_END) & (a < _ERF_ONE)
    with np.errstate(all="ignore"):
        if small.any():
            out[small] = _erf_series(a[small])
        if mid.any():
            # erfc < 4.1e-4 here: 20 levels give it to 1e-11, i.e. erf to 1e-16
            out[mid] = 1.0 - _erfc_cf(a[mid], 20)
        out[a >= _ERF_ONE] = 1.0
    return np.copysign(out, x)


def erfc_kernel(x):
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    out = np.full(x.shape, np.nan)
    small = a < _ERFC_SPLIT
    big = a >= _ERFC_SPLIT            # NaN: neither
    neg = x < 0
    with np.errstate(all="ignore"):
        if small.any():
            e = _erf_series(a[small])
            out[small] = np.where(neg[small], 1.0 + e, 1.0 - e)
        if big.any():
            c = _erfc_cf(a[big])
            out[big] = np.where(neg[big], 2.0 - c, c)
    return out


def erfinv_kernel(y):
    y = np.asarray(y, np.float64)
    out = np.full(y.shape, np.nan)
    a = np.abs(y)
    inside = a < 1.0
    with np.errstate(all="ignore"):
        out[a == 1.0] = np.inf
        if inside.any():
            v = a[inside]
            # Winitzki's approximation (relative error ~2e-3), then Halley steps
            c = 0.147
            ln = np.log1p(-v) + np.log1p(v)
            t = 2.0 / (math.pi * c) + 0.5 * ln
            x = np.sqrt(np.sqrt(t * t - ln / c) - t)
            tail = v > 0.5
            one_minus = 1.0 - v          # exact for v > 0.5
            head = ~tail
            f = np.empty_like(x)
            for _ in range(3):     # cubic convergence: 2e-3 -> 1e-8 -> 1e-16
                f[tail] = one_minus[tail] - erfc_kernel(x[tail])
                f[head] = erf_kernel(x[head]) - v[head]
                u = f / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
                step = u / (1.0 + x * u)
                x = np.where(np.isfinite(step), x - step, x)
            x[v == 0] = 0.0
            out[inside] = x
    return np.copysign(out, y)


def _apply_kernel(kernel, x):
    """Kernel on a float array of any float dtype, result in that dtype and in torch's layout
    for x (Note [Elementwise layout]: a kernel's own arrays are C-ordered)."""
    r = kernel(x)
    if x.dtype != np.float64:
        with np.errstate(over="ignore"):    # beyond the dtype's range: inf, as torch gives
            r = r.astype(x.dtype)
    return torch_layout(r, x)


class ErfBackward0(Node):                    # derivatives.yaml: erf
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)
    _scale = _TWO_OVER_SQRT_PI                  # d erf = 2/sqrt(pi) exp(-x^2); erfc: minus that

    def apply(self, grad):
        s = self._saved_self
        return grad * (self._scale * (-(s * s)).exp()),

    def jvp(self, ts, xs, out):
        s = xs[0]
        return ts[0] * (self._scale * (-(s * s)).exp())


def erf(input, *, out=None):
    return _unary(input, erf_kernel, "erf_vml_cpu", ErfBackward0, out)


class ErfcBackward0(ErfBackward0):           # derivatives.yaml: erfc
    __slots__ = ()
    _scale = -_TWO_OVER_SQRT_PI


def erfc(input, *, out=None):
    return _unary(input, erfc_kernel, "erfc_vml_cpu", ErfcBackward0, out)


class ErfinvBackward0(Node):                 # derivatives.yaml: erfinv
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        r = erfinv(self._saved_self)
        return grad * (_SQRT_PI_OVER_TWO * (r * r).exp()),

    def jvp(self, ts, xs, out):
        return ts[0] * (_SQRT_PI_OVER_TWO * (out * out).exp())


def erfinv(input, *, out=None):
    return _unary(input, erfinv_kernel, "erfinv_vml_cpu", ErfinvBackward0, out)


def erf_(self):
    return inplace(self, erf(inplace_source(self)))


def erfc_(self):
    return inplace(self, erfc(inplace_source(self)))


def erfinv_(self):
    return inplace(self, erfinv(inplace_source(self)))


# ================================================================ surface ops (issue 14): the gamma
# family, Bessel functions, incomplete gamma, the normal distribution, zeta, orthogonal
# polynomials (float64 kernels in _specfun.py, or below for the ones built on erf's)
__all__ += ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "i0_", "sinc", "sinc_",
            "igamma", "igammac", "erf_", "erfc_"]


def erfcx_kernel(x):
    """exp(x^2) erfc(x)."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        big = x >= 2.0
        small = ~big
        out[small] = np.exp(x[small] * x[small]) * erfc_kernel(x[small])
        if big.any():
            a = x[big]
            k = a.copy()
            for n in range(60, 0, -1):
                k = a + (0.5 * n) / k
            out[big] = 1.0 / (math.sqrt(math.pi) * k)
        out[x == np.inf] = 0.0
        out[x == -np.inf] = np.inf
    return out


_SQRT_HALF = math.sqrt(0.5)


def log_ndtr_kernel(x):
    """log Phi(x): through erfcx in the lower tail (no underflow), log1p above."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        low = x < -1.0
        t = -x[low] * _SQRT_HALF
        out[low] = np.log(erfcx_kernel(t) / 2.0) - t * t
        high = ~low
        out[high] = np.log1p(-erfc_kernel(x[high] * _SQRT_HALF) / 2.0)
        out[x == -np.inf] = -np.inf
    return out


def ndtri_kernel(p):
    """The inverse of the standard normal CDF."""
    p = np.asarray(p, np.float64)
    out = np.full(p.shape, np.nan)
    with np.errstate(all="ignore"):
        out[p == 0] = -np.inf
        out[p == 1] = np.inf
        ok = (p > 0) & (p < 1)
        v = p[ok]
        upper = v > 0.5
        w = np.where(upper, 1.0 - v, v)          # exact for v > 0.5
        # start: erfinv where it is accurate, the tail asymptote below
        x = math.sqrt(2.0) * erfinv_kernel(2.0 * w - 1.0)
        tail = w < 1e-10
        if tail.any():
            lw = -2.0 * np.log(w[tail])
            x[tail] = -np.sqrt(lw - np.log(lw) - math.log(2.0 * math.pi))
        lw = np.log(w)
        for _ in range(6):          # Newton on log Phi(x) - log w (quadratic convergence)
            lp = log_ndtr_kernel(x)
            # d/dx log Phi = phi / Phi = sqrt(2 / pi) / erfcx(-x / sqrt 2)
            slope = math.sqrt(2.0 / math.pi) / erfcx_kernel(-x * _SQRT_HALF)
            step = (lp - lw) / slope
            x = np.where(np.isfinite(step), x - step, x)
        out[ok] = np.where(upper, -x, x)
    return out


def _special_input(input, name):
    """input's array in a floating dtype (integers and bools: the default float dtype)."""
    try:
        x = floating(input._data)
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"{name}\" not implemented for '{type_name(x.dtype)}'")
    return x


def _unary(input, kernel, name, node_cls, out, saves=("self",)):
    """A float unary special function: the kernel on float64, the result in input's float
    dtype; node_cls (None: not differentiable) saves self and/or the result."""
    x = _special_input(input, name)
    res = wrap(_apply_kernel(kernel, x))
    if node_cls is not None and (STATE.enabled and input._requires_grad or
                                 LEVELS and dual(input)):
        node = node_cls()
        if "self" in saves:
            node._saved_self = input
        if "result" in saves:
            node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class LgammaBackward0(Node):                 # derivatives.yaml: lgamma
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad * digamma(self._saved_self),


def lgamma(input, *, out=None):
    return _unary(input, lgamma_kernel, "lgamma_vml_cpu", LgammaBackward0, out)


class DigammaBackward0(Node):                # derivatives.yaml: digamma
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad * polygamma(1, self._saved_self),


def digamma(input, *, out=None):
    return _unary(input, digamma_kernel, "digamma", DigammaBackward0, out)


class PolygammaBackward0(Node):              # derivatives.yaml: polygamma
    __slots__ = ("_saved_n", "_saved_self")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad * polygamma(self._saved_n + 1, self._saved_self),


class PolygammaBackward1(PolygammaBackward0):   # derivatives.yaml: polygamma_ (in place)
    __slots__ = ()


def polygamma(n, input, *, out=None, _node=PolygammaBackward0):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        x = _special_input(input, "polygamma")
        res = wrap(_apply_kernel(digamma_kernel, x))
    else:
        x = _special_input(input, "polygamma")
        res = wrap(_apply_kernel(lambda v: polygamma_kernel(int(n), v), x))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = _node()
        node._saved_n, node._saved_self = int(n), input
        link(res, node, input)
    return write_out(res, out)


_LOG_PI = math.log(math.pi)


class MvlgammaBackward0(Node):               # derivatives.yaml: mvlgamma
    __slots__ = ("_saved_p", "_saved_self")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        total = digamma(s)
        for j in range(1, self._saved_p):
            total = total + digamma(s - j / 2.0)
        return grad * total,


def mvlgamma(input, p, *, out=None):
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not "
                        f"{type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _special_input(input, "mvlgamma")
    v = x.astype(np.float64)
    total = np.full(v.shape, p * (p - 1) / 4.0 * _LOG_PI)
    for j in range(int(p)):
        total += lgamma_kernel(v - j / 2.0)
    with np.errstate(over="ignore"):
        res = wrap(total.astype(x.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MvlgammaBackward0()
        node._saved_p, node._saved_self = int(p), input
        link(res, node, input)
    return write_out(res, out)


class I0Backward0(Node):                     # derivatives.yaml: i0
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad * special_i1(self._saved_self),


def i0_kernel(x):
    return bessel_i_kernel(0, x)


def i0(input, *, out=None):
    return _unary(input, i0_kernel, "i0_vml_cpu", I0Backward0, out)


class SpecialI0EBackward0(Node):             # derivatives.yaml: special_i0e
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        r = saved_output(self, self._saved_result)
        return grad * (special_i1e(s) - s.sgn() * r),


def special_i0e(input, *, out=None):
    return _unary(input, lambda v: bessel_i_kernel(0, v, scaled=True), "i0e",
                  SpecialI0EBackward0, out, ("self", "result"))


class SpecialI1Backward0(Node):              # derivatives.yaml: special_i1
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        r = saved_output(self, self._saved_result)
        zero = s == 0
        return grad * where(zero, 0.5, i0(s) - r / where(zero, 1.0, s)),


def special_i1(input, *, out=None):
    return _unary(input, lambda v: bessel_i_kernel(1, v), "i1", SpecialI1Backward0, out,
                  ("self", "result"))


class SpecialI1EBackward0(Node):             # derivatives.yaml: special_i1e
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        r = saved_output(self, self._saved_result)
        zero = s == 0
        g = special_i0e(s) - r * (s.sgn() + 1.0 / where(zero, 1.0, s))
        return grad * where(zero, 0.5, g),


def special_i1e(input, *, out=None):
    return _unary(input, lambda v: bessel_i_kernel(1, v, scaled=True), "i1e",
                  SpecialI1EBackward0, out, ("self", "result"))


class SincBackward0(Node):                   # derivatives.yaml: sinc
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        s = self._saved_self
        zero = s == 0
        safe = where(zero, 1.0, s)
        g = ((s * math.pi).cos() - sinc(s)) / safe
        return grad * where(zero, 0.0, g).conj(),


def sinc(input, *, out=None):
    try:
        x = floating(input._data)
    except AttributeError as e:
        raise not_tensor(e) from None
    with np.errstate(all="ignore"):
        # pi * x rounded to x's dtype first, as torch computes it (sinc(1) is not 0 in
        # float32); the sine of that value rounded once
        px = x * x.dtype.type(math.pi)
        s = np.sin(px.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
        r = np.where(x == 0, 1.0, s / px).astype(x.dtype)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SincBackward0()
        node._saved_self = input
        link(res, node, input)
    return write_out(res, out)


def _two_special(input, other, name, cpp):
    for arg, v in (("input", input), ("other", other)):
        if not isinstance(v, Tensor):
            pos = 1 if arg == "input" else 2
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")
    rt = D.result_type(input, other)
    if rt.category < D.FLOAT or rt.is_complex:
        raise NotImplementedError(f"\"{cpp}\" not implemented for '{type_name(rt.np)}'")
    return input._data.astype(rt.np, copy=False), other._data.astype(rt.np, copy=False), rt.np


class IgammaBackward0(Node):                 # derivatives.yaml: igamma
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")
    _sign = 1.0
    _op = "igamma"

    def apply(self, grad):
        if needs(self, 0):
            raise NotImplementedError(f"the derivative for '{self._op}: input' is not "
                                      f"implemented.")
        a, x = self._saved_self, self._saved_other
        # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)
        dens = ((a - 1) * x.log() - x - lgamma(a)).exp()
        return None, grad * (dens * self._sign)


class IgammacBackward0(IgammaBackward0):     # derivatives.yaml: igammac
    __slots__ = ()
    _sign = -1.0
    _op = "igammac"


def _igamma(input, other, out, which, name):
    a, x, rt = _two_special(input, other, name, f"{which}_cpu")
    try:
        p, q = igamma_kernels(a, x)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape}) must match the size of tensor b "
                           f"({x.shape})") from None
    res = wrap((p if which == "igamma" else q).astype(rt))
    if STATE.enabled and (input._requires_grad or other._requires_grad) or \
            LEVELS and dual(input, other):
        node = IgammaBackward0() if which == "igamma" else IgammacBackward0()
        node._saved_self, node._saved_other = input, other
        link(res, node, input, other)
    return write_out(res, out)


def igamma(input, other, *, out=None):
    return _igamma(input, other, out, "igamma", "igamma")


def igammac(input, other, *, out=None):
    return _igamma(input, other, out, "igammac", "igammac")


# ---- torch.special only (ember/special.py re-exports them under torch's names)

class SpecialErfcxBackward0(Node):           # derivatives.yaml: special_erfcx
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return grad * (2.0 * self._saved_self * r - _TWO_OVER_SQRT_PI),


def special_erfcx(input, *, out=None):
    return _unary(input, erfcx_kernel, "erfcx_cpu", SpecialErfcxBackward0, out,
                  ("self", "result"))


class SpecialLogNdtrBackward0(Node):         # derivatives.yaml: special_log_ndtr
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        r = saved_output(self, self._saved_result)
        # phi(x) / Phi(x) = exp(-x^2/2 - log Phi(x)) / sqrt(2 pi): no underflow in the tail
        return grad * ((s * s * -0.5 - r).exp() * _INV_SQRT_2PI),


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def special_log_ndtr(input, *, out=None):
    return _unary(input, log_ndtr_kernel, "log_ndtr_cpu", SpecialLogNdtrBackward0, out,
                  ("self", "result"))


def special_ndtr(input, *, out=None):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, composed as torch composes it."""
    try:
        x = input if input._data.dtype.kind in "fc" else input.to(D.get_default_dtype())
    except AttributeError as e:
        raise not_tensor(e) from None
    return write_out((erf(x * _SQRT_HALF) + 1) * 0.5, out)


class SpecialNdtriBackward0(Node):           # derivatives.yaml: special_ndtri
    __slots__ = ("_saved_result",)
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        r = saved_output(self, self._saved_result)
        return grad * ((r * r * 0.5).exp() * math.sqrt(2.0 * math.pi)),


def special_ndtri(input, *, out=None):
    return _unary(input, ndtri_kernel, "ndtri_cpu", SpecialNdtriBackward0, out, ("result",))


class SpecialEntrBackward0(Node):            # derivatives.yaml: special_entr
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return grad * -(1 + self._saved_self.log()),


def _entr_kernel(x):
    with np.errstate(all="ignore"):
        out = np.where(x > 0, -x * np.log(x), np.where(x == 0, 0.0, -np.inf))
    return np.where(np.isnan(x), np.nan, out)


def special_entr(input, *, out=None):
    return _unary(input, _entr_kernel, "entr_cpu", SpecialEntrBackward0, out)


class SpecialXlog1PyBackward0(Node):         # derivatives.yaml: special_xlog1py
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        g0 = g1 = None
        if needs(self, 0):
            g0 = where((s == 0) & (o <= -1), 0.0, grad * o.log1p())
        if len(self.next_functions) > 1 and needs(self, 1):
            g1 = grad * s / (o + 1)
        return g0, g1


def special_xlog1py(input, other, *, out=None):
    t_in, t_other = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (t_in or t_other):
        raise TypeError("special_xlog1py() received an invalid combination of arguments")
    check_operands("special_xlog1py", input, other)
    rt = D.result_type(input, other)
    rt = (rt if rt.category >= D.FLOAT else D.get_default_dtype()).np
    x = input._data.astype(rt, copy=False) if t_in else np.asarray(input, rt)
    y = other._data.astype(rt, copy=False) if t_other else np.asarray(other, rt)
    with np.errstate(all="ignore"):
        r = np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y)).astype(rt)
    res = wrap(r)
    if STATE.enabled and ((t_in and input._requires_grad) or (t_other and other._requires_grad)) \
            or LEVELS and dual(input, other):
        node = SpecialXlog1PyBackward0()
        node._saved_self = input if t_in else wrap(np.asarray(input, rt))
        node._saved_other = other if t_other else wrap(np.asarray(other, rt))
        link(res, node, input if t_in else None, other if t_other else None)
    return write_out(res, out)


class SpecialZetaBackward0(Node):            # derivatives.yaml: special_zeta
    """Differentiable in q (other) only: d zeta(x, q) / dq = -x zeta(x + 1, q)."""
    __slots__ = ("_saved_other", "_saved_self")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        if needs(self, 0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        x = self._saved_self
        return None, grad * -x * special_zeta(x + 1.0, self._saved_other)


class SpecialZetaBackward1(SpecialZetaBackward0):   # special_zeta.self_scalar
    __slots__ = ()
    _saved_names = ("_saved_other",)
    _raw_saved_self = absent("_raw_saved_self")     # (self: a number)


class SpecialZetaBackward2(Node):            # special_zeta.other_scalar: not differentiable
    __slots__ = ()

    def apply(self, grad):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")


def special_zeta(input, other, *, out=None):
    check_operands("special_zeta", input, other)
    t_in, t_other = isinstance(input, Tensor), isinstance(other, Tensor)
    rt = D.result_type(input, other)
    rt = (rt if rt.category >= D.FLOAT else D.get_default_dtype()).np
    x = input._data if t_in else np.asarray(input)
    q = other._data if t_other else np.asarray(other)
    res = wrap(hurwitz_zeta(x, q).astype(rt))
    if STATE.enabled and ((t_in and input._requires_grad) or (t_other and other._requires_grad)):
        if not t_other:
            link(res, SpecialZetaBackward2(), input, None)
        else:
            node = SpecialZetaBackward0() if t_in else SpecialZetaBackward1()
            node._saved_self = input if t_in else input.item() if hasattr(input, "item") \
                else input
            node._saved_other = other
            link(res, node, input if t_in else None, other)
    return write_out(res, out)


def _plain(kernel, name):
    """A special function torch does not differentiate: its result records no history."""
    def op(input, *, out=None):
        return _unary(input, kernel, name, None, out)
    op.__name__ = name
    return op


def _bessel(i):
    return lambda v: bessel_jy_kernel(v)[i]


special_bessel_j0 = _plain(_bessel(0), "bessel_j0")
special_bessel_j1 = _plain(_bessel(1), "bessel_j1")
special_bessel_y0 = _plain(_bessel(2), "bessel_y0")
special_bessel_y1 = _plain(_bessel(3), "bessel_y1")
special_modified_bessel_i0 = _plain(lambda v: bessel_i_kernel(0, v), "modified_bessel_i0")
special_modified_bessel_i1 = _plain(lambda v: bessel_i_kernel(1, v), "modified_bessel_i1")
special_modified_bessel_k0 = _plain(lambda v: bessel_k_kernel(0, v), "modified_bessel_k0")
special_modified_bessel_k1 = _plain(lambda v: bessel_k_kernel(1, v), "modified_bessel_k1")
special_scaled_modified_bessel_k0 = _plain(lambda v: bessel_k_kernel(0, v, scaled=True),
                                           "scaled_modified_bessel_k0")
special_scaled_modified_bessel_k1 = _plain(lambda v: bessel_k_kernel(1, v, scaled=True),
                                           "scaled_modified_bessel_k1")
special_airy_ai = _plain(airy_ai_kernel, "airy_ai")


def _spherical_j0_kernel(x):
    with np.errstate(all="ignore"):
        r = np.where(x == 0, 1.0, np.sin(x) / x)
    return np.where(np.isinf(x), 0.0, r)


special_spherical_bessel_j0 = _plain(_spherical_j0_kernel, "spherical_bessel_j0")


def special_polynomial(kind, x, n, out=None):
    """An orthogonal polynomial of degree n at x (either may be a number); no history."""
    check_operands("special_" + "_polynomial_".join(kind.rsplit("_", 1)), x, n)
    t_x, t_n = isinstance(x, Tensor), isinstance(n, Tensor)
    rt = D.result_type(x, n)
    rt = (rt if rt.category >= D.FLOAT else D.get_default_dtype()).np
    xa = x._data if t_x else np.asarray(x)
    na = n._data if t_n else np.asarray(n)
    if xa.dtype.kind == "c" or na.dtype.kind == "c":
        raise NotImplementedError(f"\"{kind}_polynomial\" not implemented for "
                                  f"'{type_name(np.result_type(xa, na))}'")
    return write_out(wrap(polynomial_kernel(kind, xa, na).astype(rt)), out)


def i0_(self):
    return inplace(self, i0(inplace_source(self)))


def sinc_(self):
    return inplace(self, sinc(inplace_source(self)))


def lgamma_(self):
    return inplace(self, lgamma(inplace_source(self)))


def digamma_(self):
    return inplace(self, digamma(inplace_source(self)))


def polygamma_(self, n):
    return inplace(self, polygamma(n, inplace_source(self), _node=PolygammaBackward1))


def mvlgamma_(self, p):
    return inplace(self, mvlgamma(inplace_source(self), p))


def igamma_(self, other):
    check_overlap(self, other)
    return inplace(self, igamma(inplace_source(self), other))


def igammac_(self, other):
    check_overlap(self, other)
    return inplace(self, igammac(inplace_source(self), other))


def _polygamma_method(self, n):
    """Tensor.polygamma(n): torch.polygamma(n, self)."""
    return polygamma(n, self)
