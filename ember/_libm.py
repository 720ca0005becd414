"""The C library's float64 log, log1p, exp, sin, cos, tan and pow, for the places where ember must give
torch's exact bits (random streams, logspace): torch calls the C library's scalar functions
there.

NumPy's float64 ufuncs call the same functions on most machines, but on machines with AVX-512
NumPy dispatches log, log1p, exp, tan and power to SIMD kernels (SVML) whose last bit differs
from the C library's on roughly 0.1-2% of inputs. So each function is checked once, at first
use, on a fixed sample against Python's `math` module (which calls the C library): where the
ufunc agrees it is used as is (no cost), where it does not, the elements in the function's
domain are computed by `math` (about 0.1-0.2 us each) and the rest (NaN, infinities, values
outside the domain) by the ufunc, which gives the C library's special values there.
exp has a fast exact route on every machine: NumPy's complex exp calls the C library's cexp,
whose real part for a real argument is exp's result."""
import math

import numpy as np

_AGREES = {}


def _sample():
    g = np.random.RandomState(12345)
    u = g.random_sample(4096)
    return np.concatenate([u, u * 1e-6, 1.0 - u * 1e-3, u * 40.0 - 20.0, u * 1400.0 - 700.0,
                           (u - 0.5) * 3.14159, g.standard_normal(4096) * 1e3])


def _agrees(name, ufunc, fn, domain):
    ok = _AGREES.get(name)
    if ok is None:
        x = _sample()
        x = x[domain(x)]
        with np.errstate(all="ignore"):
            ok = bool(np.array_equal(ufunc(x), np.fromiter(map(fn, x.tolist()), np.float64,
                                                            len(x))))
        _AGREES[name] = ok
    return ok


def _by_math(ufunc, fn, x, domain):
    with np.errstate(all="ignore"):
        out = np.asarray(ufunc(x), dtype=np.float64)
    idx = np.flatnonzero(domain(x))
    if len(idx):
        vals = np.take(x, idx).tolist()
        out.flat[idx] = np.fromiter(map(fn, vals), np.float64, len(vals))
    return out


def _log_domain(x):
    return (x > 0) & (x < math.inf)


def _log1p_domain(x):
    return (x > -1) & (x < math.inf)


def _finite(x):
    return np.isfinite(x)


def _unary(name, ufunc, fn, domain):
    def f(x):
        x = np.asarray(x, dtype=np.float64)
        if _agrees(name, ufunc, fn, domain):
            return ufunc(x)
        return _by_math(ufunc, fn, x, domain)
    f.__name__ = name
    f.__doc__ = f"The C library's {name} of a float64 array (see the module's docstring)."
    return f


log = _unary("log", np.log, math.log, _log_domain)
log1p = _unary("log1p", np.log1p, math.log1p, _log1p_domain)
tan = _unary("tan", np.tan, math.tan, _finite)
sin = _unary("sin", np.sin, math.sin, _finite)
cos = _unary("cos", np.cos, math.cos, _finite)


def exp(x):
    """The C library's exp of a float64 array (see the module's docstring)."""
    x = np.asarray(x, dtype=np.float64)
    if _agrees("exp", np.exp, math.exp, lambda v: v < 709.0):
        return np.exp(x)
    with np.errstate(all="ignore"):
        return np.exp(x.astype(np.complex128)).real.copy()


def _pow_or_inf(base, v):
    try:
        return math.pow(base, v)
    except OverflowError:
        return math.inf
    except ValueError:                  # a negative base to a non-integer power
        return math.nan


def power(base, x):
    """The C library's pow(base, x) for a float base and a float64 array x."""
    base = float(base)
    x = np.asarray(x, dtype=np.float64)
    if _agrees(("pow", base), lambda v: np.power(base, v), lambda v: _pow_or_inf(base, v),
               lambda v: np.abs(v) < 300):
        return np.power(base, x)
    return _by_math(lambda v: np.power(base, v), lambda v: _pow_or_inf(base, v), x, _finite)
