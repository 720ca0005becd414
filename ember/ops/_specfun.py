"""Float64 kernels of the special functions, in NumPy alone (no SciPy), vectorised over arrays.
The ops, their nodes and derivatives are in ember/ops/special.py; this module holds only the
numerics. Methods (each chosen for full double precision without tables of fitted constants):

- lgamma, digamma: shift the argument up by the recurrence to z >= 15, then Stirling's series
  (Bernoulli numbers); reflection for negative arguments; Taylor series around 1 and 2 for
  lgamma (its zeros), with zeta values computed by the Hurwitz zeta below.
- Hurwitz zeta(s, q) and polygamma: Euler-Maclaurin summation (direct terms to q + N >= 12,
  then the integral, the half term and Bernoulli corrections).
- igamma / igammac: the power series of P(a, x) for x < a + 1, Legendre's continued fraction
  of Q(a, x) beyond (modified Lentz), with the prefactor x^a e^-x / Gamma(a) in logs.
- Modified Bessel I0, I1 (and scaled): the power series for |x| <= 20, Hankel's asymptotic
  series beyond. K_nu (any order nu, scaled or not): the integral
  K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt by the trapezoid rule, which converges
  geometrically for this analytic, doubly-exponentially decaying integrand.
- Bessel J0, J1, Y0, Y1: for |x| <= 25 every J_m(x) at once from one FFT of exp(i x sin t)
  (the Jacobi-Anger expansion), and Y0, Y1 from Neumann's series in the even-order J_m;
  Hankel's asymptotic expansion beyond.
- Airy Ai: Maclaurin series for |x| <= 2, K_{1/3} for x > 2, J_{+-1/3} by Gauss-Legendre
  quadrature of their integral representations for -12 <= x < -2, the asymptotic expansion
  below.
- Orthogonal polynomials: their three-term recurrences.
(erfcx, log_ndtr and ndtri build on the erf kernels and live beside them in special.py.)"""
import functools
import math

import numpy as np

_EULER = 0.57721566490153286061
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_CHUNK = 1 << 14


# B_2, B_4, ..., B_24 (the even Bernoulli numbers), each a correctly rounded quotient of ints
_B2K = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
        -174611 / 330, 854513 / 138, -236364091 / 2730]


def _as_float(x):
    return np.asarray(x, np.float64)


# ---------------------------------------------------------------- gamma family

_SHIFT = 15.0


def _sinpi(x):
    """sin(pi x) with exact zeros at the integers: the argument reduced by an even integer
    first (exactly: x - 2 round(x / 2) keeps every bit of a small x)."""
    r = x - 2.0 * np.round(x / 2.0)
    return np.sin(np.pi * r)


def _shift_up(x, target):
    """(z, log|prod|, prod-free mask): z = x + k >= target and the product x (x+1) ... (x+k-1),
    accumulated as a log of its absolute value."""
    z = x.copy()
    logp = np.zeros_like(x)
    for _ in range(int(target) + 2):
        m = z < target
        if not m.any():
            break
        logp[m] += np.log(np.abs(z[m]))
        z[m] += 1.0
    return z, logp


def _stirling_lgamma(z):
    s = (z - 0.5) * np.log(z) - z + _LOG_SQRT_2PI
    zz = 1.0 / (z * z)
    t = 1.0 / z
    for k, b in enumerate(_B2K[:10], start=1):
        s = s + b / (2 * k * (2 * k - 1)) * t
        t = t * zz
    return s


_ZETA_INT = None


def _zeta_ints():
    """zeta(2), ..., zeta(40) for the Taylor series of lgamma around 1."""
    global _ZETA_INT
    if _ZETA_INT is None:
        _ZETA_INT = hurwitz_zeta(np.arange(2, 41, dtype=np.float64), np.ones(39))
    return _ZETA_INT


def _lgamma_near_one(z):
    """lgamma(1 + z) for |z| <= 0.3: -gamma z + sum_k (-1)^k zeta(k) z^k / k."""
    zs = _zeta_ints()
    s = np.zeros_like(z)
    p = z * z
    for k in range(2, 41):
        s = s + ((-1) ** k) * zs[k - 2] / k * p
        p = p * z
    return -_EULER * z + s


def lgamma_kernel(x):
    x = _as_float(x)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        nan = np.isnan(x)
        pole = (x <= 0) & (x == np.floor(x))
        out[nan] = np.nan
        out[pole | np.isinf(x)] = np.inf
        ok = ~(nan | pole | np.isinf(x))
        neg = ok & (x < 0.5)
        pos = ok & ~neg
        if pos.any():
            out[pos] = _lgamma_pos(x[pos])
        if neg.any():
            v = x[neg]
            out[neg] = np.log(np.pi / np.abs(_sinpi(v))) - _lgamma_pos(1.0 - v)
    return out


def _lgamma_pos(x):
    """lgamma for x >= 0.5."""
    out = np.empty_like(x)
    n1 = np.abs(x - 1.0) <= 0.3
    n2 = np.abs(x - 2.0) <= 0.3
    rest = ~(n1 | n2)
    if n1.any():
        out[n1] = _lgamma_near_one(x[n1] - 1.0)
    if n2.any():
        z = x[n2] - 2.0
        out[n2] = np.log1p(z) + _lgamma_near_one(z)
    if rest.any():
        z, logp = _shift_up(x[rest], _SHIFT)
        out[rest] = _stirling_lgamma(z) - logp
    return out


def digamma_kernel(x):
    x = _as_float(x)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        nan = np.isnan(x) | (x == -np.inf)
        zero = x == 0
        pole = (x < 0) & (x == np.floor(x))
        out[nan | pole] = np.nan
        out[zero] = np.copysign(np.inf, -x[zero])     # torch: -inf at +0, +inf at -0
        out[x == np.inf] = np.inf
        ok = ~(nan | zero | pole | (x == np.inf))
        neg = ok & (x < 0)
        pos = ok & ~neg
        if pos.any():
            out[pos] = _digamma_pos(x[pos])
        if neg.any():
            v = x[neg]
            r = v - np.round(v)                 # exact; tan has period pi
            out[neg] = _digamma_pos(1.0 - v) - np.pi / np.tan(np.pi * r)
    return out


def _digamma_pos(x):
    z = x.copy()
    acc = np.zeros_like(x)
    for _ in range(int(_SHIFT) + 2):
        m = z < _SHIFT
        if not m.any():
            break
        acc[m] += 1.0 / z[m]
        z[m] += 1.0
    zz = 1.0 / (z * z)
    s = np.log(z) - 0.5 / z
    t = zz
    for k, b in enumerate(_B2K[:10], start=1):
        s = s - b / (2 * k) * t
        t = t * zz
    return s - acc


def hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s, with torch's conventions outside its domain (s < 1 or
    non-integer s with q <= 0: NaN; s == 1 or q a non-positive integer: inf)."""
    s, q = np.broadcast_arrays(_as_float(s), _as_float(q))
    out = np.empty(s.shape)
    with np.errstate(all="ignore"):
        bad = np.isnan(s) | np.isnan(q) | (s < 1) | np.isinf(s) | np.isinf(q) | \
            ((q <= 0) & (s != np.floor(s)))
        pole = ~bad & ((s == 1) | ((q <= 0) & (q == np.floor(q))))
        out[bad] = np.nan
        out[pole] = np.inf
        ok = ~(bad | pole)
        if ok.any():
            out[ok] = _zeta_em(s[ok], q[ok])
    return out


def _zeta_em(s, q):
    """Euler-Maclaurin: the direct sum up to q + N >= 12, then the tail."""
    total = np.zeros_like(s)
    a = q.copy()
    steps = int(max(0.0, np.ceil(12.0 - a.min()))) if a.size else 0
    for _ in range(steps):
        m = a < 12.0
        if not m.any():
            break
        total[m] += np.power(a[m], -s[m])
        a[m] += 1.0
    p = np.power(a, -s)
    total += a * p / (s - 1.0) + 0.5 * p
    term = s * p / a              # s (s+1) ... (s+2j-2) a^(-s-2j+1), j = 1
    fact = 1.0
    for j, b in enumerate(_B2K, start=1):
        fact *= (2 * j) * (2 * j - 1) if j > 1 else 2.0
        total += b / fact * term
        term = term * (s + 2 * j - 1) * (s + 2 * j) / (a * a)
    return total


def polygamma_kernel(n, x):
    """psi^(n)(x) for an integer n >= 1: (-1)^(n+1) n! zeta(n + 1, x)."""
    x = _as_float(x)
    fact = math.factorial(n) if n <= 170 else math.inf
    with np.errstate(all="ignore"):
        z = hurwitz_zeta(np.full(x.shape, n + 1.0), x)
        sign = (-1.0) ** (n + 1)
        out = sign * fact * z
        # torch's values at the poles (non-positive integers) and infinities
        out[(x <= 0) & (x == np.floor(x))] = sign * np.inf
        if n == 1:
            out[x == np.inf], out[x == -np.inf] = 0.0, np.nan
        out[np.isnan(x)] = np.nan
    return out


# ---------------------------------------------------------------- incomplete gamma

def _igamma_series(a, x):
    """P(a, x) by its power series (x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    live = np.ones(a.shape, bool)
    for _ in range(4000):
        ap[live] += 1.0
        term[live] *= x[live] / ap[live]
        total[live] += term[live]
        live &= np.abs(term) > np.abs(total) * 1e-17
        if not live.any():
            break
    return total * np.exp(a * np.log(x) - x - lgamma_kernel(a))


def _igammac_cf(a, x):
    """Q(a, x) by Legendre's continued fraction (modified Lentz), x >= a + 1."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    live = np.ones(a.shape, bool)
    for i in range(1, 4000):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h = np.where(live, h * delta, h)
        live &= np.abs(delta - 1.0) > 1e-16
        if not live.any():
            break
    return np.exp(a * np.log(x) - x - lgamma_kernel(a)) * h


def igamma_kernels(a, x):
    """(P(a, x), Q(a, x)), the regularized lower and upper incomplete gamma functions."""
    a, x = np.broadcast_arrays(_as_float(a), _as_float(x))
    p = np.empty(a.shape)
    q = np.empty(a.shape)
    with np.errstate(all="ignore"):
        bad = np.isnan(a) | np.isnan(x) | (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | \
            (np.isinf(a) & np.isinf(x))
        p[bad] = q[bad] = np.nan
        a0 = ~bad & (a == 0)             # P(0, x > 0) = 1
        x0 = ~bad & (x == 0)
        xinf = ~bad & np.isinf(x)
        ainf = ~bad & np.isinf(a)
        p[a0 | xinf], q[a0 | xinf] = 1.0, 0.0
        p[x0 | ainf], q[x0 | ainf] = 0.0, 1.0
        ok = ~(bad | a0 | x0 | xinf | ainf)
        ser = ok & (x < a + 1.0)
        cf = ok & ~ser
        if ser.any():
            v = _igamma_series(a[ser], x[ser])
            p[ser], q[ser] = v, 1.0 - v
        if cf.any():
            v = _igammac_cf(a[cf], x[cf])
            q[cf], p[cf] = v, 1.0 - v
    return p, q


# ---------------------------------------------------------------- modified Bessel I, K

_I_SERIES_END = 20.0


def _hankel_coeffs(nu, count):
    """a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), k = 0 .. count - 1."""
    out = [1.0]
    mu = 4.0 * nu * nu
    for k in range(1, count):
        out.append(out[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0))
    return out


_HANKEL = {0: _hankel_coeffs(0, 40), 1: _hankel_coeffs(1, 40)}


def _bessel_i_series(order, x):
    """I_order(x), order 0 or 1, by its power series (all terms positive for x >= 0)."""
    q = x * x / 4.0
    term = np.ones_like(x) if order == 0 else x / 2.0
    total = term.copy()
    for k in range(1, 200):
        term = term * q / (k * (k + order))
        total = total + term
        if (term <= total * 1e-17).all():
            break
    return total


def _bessel_i_scaled_asym(order, a):
    """exp(-a) I_order(a) for large a > 0: Hankel's asymptotic series."""
    s = np.zeros_like(a)
    t = np.ones_like(a)
    for k, c in enumerate(_HANKEL[order]):
        s = s + ((-1) ** k) * c * t
        t = t / a
    return s / np.sqrt(2.0 * np.pi * a)


def bessel_i_kernel(order, x, scaled=False):
    """I_order(x) (order 0 or 1), or exp(-|x|) I_order(x) when scaled."""
    x = _as_float(x)
    a = np.abs(x)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        small = a <= _I_SERIES_END
        big = ~small & np.isfinite(a)
        if small.any():
            v = _bessel_i_series(order, a[small])
            out[small] = v * np.exp(-a[small]) if scaled else v
        if big.any():
            v = _bessel_i_scaled_asym(order, a[big])
            out[big] = v if scaled else v * np.exp(a[big])
        inf = np.isinf(a)
        out[inf] = 0.0 if scaled else np.nan     # torch's values at +-inf
        out[np.isnan(x)] = np.nan
    if order == 1:
        out = np.where(x < 0, -out, out)
    return out


def bessel_k_kernel(nu, x, scaled=False):
    """K_nu(x) (x > 0), or exp(x) K_nu(x) when scaled, by the trapezoid rule on
    int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt (times exp(-x) unless scaled)."""
    x = _as_float(x)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        out[x == 0] = np.inf
        out[x == np.inf] = 0.0
        ok = (x > 0) & np.isfinite(x)
        if nu in (0, 1):
            tiny = ok & (x <= 1.0)
            if tiny.any():
                v = x[tiny]
                r = _bessel_k_series(nu, v)
                out[tiny] = r * np.exp(v) if scaled else r
            ok &= x > 1.0
        v = x[ok]
        res = np.empty_like(v)
        for i in range(0, v.size, _CHUNK):
            res[i:i + _CHUNK] = _k_integral(nu, v[i:i + _CHUNK])
        if not scaled:
            res = res * np.exp(-v)
        out[ok] = res
    return out


def _bessel_k_series(nu, x):
    """K_0 or K_1 for 0 < x <= 1 from their series in I-like terms (no cancellation here)."""
    q = x * x / 4.0
    lg = np.log(x / 2.0)
    if nu == 0:
        term = np.ones_like(x)
        h = 0.0
        total = np.zeros_like(x)
        for k in range(1, 40):
            term = term * q / (k * k)
            h += 1.0 / k
            total = total + h * term
        return -(lg + _EULER) * bessel_i_kernel(0, x) + total
    # K1 = 1/x + ln(x/2) I1(x) - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)
    psi1, psi2 = -_EULER, 1.0 - _EULER
    term = np.ones_like(x)
    total = (psi1 + psi2) * term
    for k in range(1, 40):
        term = term * q / (k * (k + 1))
        psi1 += 1.0 / k
        psi2 += 1.0 / (k + 1)
        total = total + (psi1 + psi2) * term
    return 1.0 / x + lg * bessel_i_kernel(1, x) - (x / 4.0) * total


def _k_integral(nu, v):
    # step: the integrand's width near t = 0 is ~ 1 / sqrt(x); end where x (cosh t - 1) > 745
    h = 0.25 / np.maximum(1.0, np.sqrt(v / 2.0))
    tmax = np.arccosh(1.0 + 745.0 / v) + 4.0 * abs(nu) / np.maximum(v, 1.0)
    n = int(np.ceil((tmax / h).max())) + 1
    k = np.arange(n, dtype=np.float64)
    t = k[None, :] * h[:, None]
    # cosh t - 1 as 2 sinh(t/2)^2: no cancellation for small t (large x needs it exact)
    f = np.exp(-v[:, None] * (2.0 * np.sinh(t / 2.0) ** 2))
    if nu:
        f = f * np.cosh(nu * t)
    f[:, 0] *= 0.5
    return h * f.sum(axis=1)


# ---------------------------------------------------------------- Bessel J, Y

_J_FFT_END = 25.0
_J_FFT_N = 128


def _bessel_jm_fft(x):
    """J_m(x) for m = 0 .. N/2 - 1 and each x (|x| <= 25): the Fourier coefficients of
    exp(i x sin t), by one FFT per row (Jacobi-Anger)."""
    n = _J_FFT_N
    t = 2.0 * np.pi * np.arange(n) / n
    f = np.exp(1j * x[:, None] * np.sin(t)[None, :])
    c = np.fft.fft(f, axis=1) / n
    return c.real[:, : n // 2]


def _bessel_jy_small(x):
    """(J0, J1, Y0, Y1) for 0 < x <= 25 (Y: Neumann's series in the even-order J_m)."""
    jm = _bessel_jm_fft(x)
    j0, j1 = jm[:, 0], jm[:, 1]
    kmax = jm.shape[1] // 2 - 1
    k = np.arange(1, kmax + 1)
    sign = (-1.0) ** k
    lg = np.log(x / 2.0) + _EULER
    y0 = (2.0 / np.pi) * lg * j0 - (4.0 / np.pi) * (sign * jm[:, 2 * k] / k).sum(axis=1)
    odd = (jm[:, 2 * k - 1] - jm[:, 2 * k + 1]) / k
    y1 = -(2.0 / np.pi) * j0 / x + (2.0 / np.pi) * lg * j1 + (2.0 / np.pi) * (sign * odd).sum(1)
    return j0, j1, y0, y1


def _bessel_jy_asym(order, x):
    """(J_order, Y_order) for large x > 0 by Hankel's expansion."""
    c = _HANKEL[order]
    p = np.zeros_like(x)
    q = np.zeros_like(x)
    inv = 1.0 / x
    t = np.ones_like(x)
    for k, ck in enumerate(c[:30]):
        term = ck * t
        if k % 2 == 0:
            p = p + ((-1) ** (k // 2)) * term
        else:
            q = q + ((-1) ** (k // 2)) * term
        t = t * inv
    chi = x - (order / 2.0 + 0.25) * np.pi
    amp = np.sqrt(2.0 / (np.pi * x))
    cc, ss = np.cos(chi), np.sin(chi)
    return amp * (p * cc - q * ss), amp * (p * ss + q * cc)


def bessel_jy_kernel(x):
    """(J0, J1, Y0, Y1) of x, with torch's values at 0, infinities and negative x."""
    x = _as_float(x)
    if x.ndim != 1:                         # (the chunked loop below indexes a flat array)
        return tuple(r.reshape(x.shape) for r in bessel_jy_kernel(x.reshape(-1)))
    a = np.abs(x)
    j0, j1, y0, y1 = (np.full(x.shape, np.nan) for _ in range(4))
    with np.errstate(all="ignore"):
        zero = a == 0
        j0[zero], j1[zero] = 1.0, 0.0
        y0[zero] = y1[zero] = -np.inf
        small = (a > 0) & (a <= _J_FFT_END)
        big = (a > _J_FFT_END) & np.isfinite(a)
        flat = [v.reshape(-1) for v in (a, j0, j1, y0, y1)]    # views (any number of dims)
        where = np.flatnonzero(small)
        for i0 in range(0, where.size, _CHUNK):
            idx = where[i0:i0 + _CHUNK]
            for v, r in zip(flat[1:], _bessel_jy_small(flat[0][idx])):
                v[idx] = r
        if big.any():
            j0[big], y0[big] = _bessel_jy_asym(0, a[big])
            j1[big], y1[big] = _bessel_jy_asym(1, a[big])
        neg = x < 0
        j1 = np.where(neg, -j1, j1)
        j1[zero] = x[zero] * 0.0                # J1(+-0) = +-0
        y0[neg] = y1[neg] = np.nan
    return j0, j1, y0, y1


# ---------------------------------------------------------------- Airy Ai

_AI0 = 0.355028053887817239260      # Ai(0)
_AIP0 = -0.258819403792806798405    # Ai'(0)


@functools.cache
def _gauss_legendre():
    """96-point Gauss-Legendre nodes and weights, made on first use (numpy.polynomial costs
    ~0.8 MB of memory at import)."""
    return np.polynomial.legendre.leggauss(96)


def _airy_series(x):
    """Ai(x) for |x| <= 2 by its Maclaurin series."""
    f = np.ones_like(x)
    g = x.copy()
    tf, tg = f.copy(), g.copy()
    x3 = x ** 3
    for k in range(1, 60):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    return _AI0 * f + _AIP0 * g


def _bessel_j_frac(nu, z):
    """J_nu(z) for fractional nu and moderate z > 0 (<= 30) by Gauss-Legendre quadrature of
    (1/pi) int_0^pi cos(nu t - z sin t) dt - (sin(nu pi)/pi) int_0^inf exp(-z sinh t - nu t)."""
    gl_x, gl_w = _gauss_legendre()
    t = (gl_x + 1.0) * (np.pi / 2.0)
    w = gl_w * (np.pi / 2.0)
    first = (np.cos(nu * t[None, :] - z[:, None] * np.sin(t)[None, :]) * w).sum(1) / np.pi
    end = np.arcsinh(745.0 / z) + 1.0
    s = (gl_x[None, :] + 1.0) * (end[:, None] / 2.0)
    ws = gl_w[None, :] * (end[:, None] / 2.0)
    second = (np.exp(-z[:, None] * np.sinh(s) - nu * s) * ws).sum(1)
    return first - np.sin(nu * np.pi) / np.pi * second


def _airy_neg_asym(x):
    """Ai(x) for x <= -12: the oscillatory asymptotic expansion."""
    a = -x
    zeta = 2.0 / 3.0 * a ** 1.5
    u = [1.0]
    for k in range(1, 20):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k))
    p = np.zeros_like(a)
    q = np.zeros_like(a)
    inv = 1.0 / zeta
    t = np.ones_like(a)
    for k, uk in enumerate(u):
        if k % 2 == 0:
            p = p + ((-1) ** (k // 2)) * uk * t
        else:
            q = q + ((-1) ** (k // 2)) * uk * t
        t = t * inv
    th = zeta + np.pi / 4.0
    return (np.sin(th) * p - np.cos(th) * q) / (np.sqrt(np.pi) * a ** 0.25)


def airy_ai_kernel(x):
    x = _as_float(x)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        mid = np.abs(x) <= 2.0
        pos = (x > 2.0) & np.isfinite(x)
        neg = (x < -2.0) & (x >= -12.0)
        far = (x < -12.0) & np.isfinite(x)
        if mid.any():
            out[mid] = _airy_series(x[mid])
        if pos.any():
            v = x[pos]
            zeta = 2.0 / 3.0 * v ** 1.5
            out[pos] = np.sqrt(v / 3.0) / np.pi * bessel_k_kernel(1.0 / 3.0, zeta)
        if neg.any():
            v = -x[neg]
            zeta = 2.0 / 3.0 * v ** 1.5
            out[neg] = np.sqrt(v) / 3.0 * (_bessel_j_frac(1.0 / 3.0, zeta) +
                                           _bessel_j_frac(-1.0 / 3.0, zeta))
        if far.any():
            out[far] = _airy_neg_asym(x[far])
    return out


# ---------------------------------------------------------------- orthogonal polynomials

def polynomial_kernel(kind, x, n):
    """The orthogonal polynomial `kind` of degree n (array, truncated to integers) at x, by its
    three-term recurrence; degree < 0 gives 0."""
    x, n = np.broadcast_arrays(_as_float(x), np.trunc(_as_float(n)))
    out = np.zeros(x.shape)
    with np.errstate(all="ignore"):
        valid = n >= 0
        if kind.startswith("shifted_"):
            kind = kind[len("shifted_"):]
            x = 2.0 * x - 1.0
        p0 = np.ones(x.shape)
        if kind == "chebyshev_t":
            p1 = x.copy()
        elif kind == "chebyshev_u":
            p1 = 2.0 * x
        elif kind == "chebyshev_v":
            p1 = 2.0 * x - 1.0
        elif kind == "chebyshev_w":
            p1 = 2.0 * x + 1.0
        elif kind == "hermite_h":
            p1 = 2.0 * x
        elif kind == "hermite_he":
            p1 = x.copy()
        elif kind == "laguerre_l":
            p1 = 1.0 - x
        else:                                # legendre_p
            p1 = x.copy()
        out[valid & (n == 0)] = 1.0
        m1 = valid & (n == 1)
        out[m1] = p1[m1]
        top = int(n[valid].max()) if valid.any() else 0
        for k in range(1, top):
            if kind.startswith("chebyshev"):
                p2 = 2.0 * x * p1 - p0
            elif kind == "hermite_h":
                p2 = 2.0 * x * p1 - 2.0 * k * p0
            elif kind == "hermite_he":
                p2 = x * p1 - k * p0
            elif kind == "laguerre_l":
                p2 = ((2 * k + 1 - x) * p1 - k * p0) / (k + 1)
            else:
                p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1)
            m = valid & (n == k + 1)
            out[m] = p2[m]
            p0, p1 = p1, p2
    return out
