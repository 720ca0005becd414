"""ember.special: torch.special's functions under torch's names. The ops, their nodes and
derivatives are in ember/ops/special.py (and the unary/reduce families for the aliases)."""
from .ops import special as _S
from .ops._args import check_args as _check_args
from .ops.binary import xlogy
from .ops.reduce import log_softmax as _log_softmax, logsumexp, softmax as _softmax
from .ops.special import (digamma, erf, erfc, erfinv, polygamma, sinc, i0,
                          special_airy_ai as airy_ai, special_bessel_j0 as bessel_j0,
                          special_bessel_j1 as bessel_j1, special_bessel_y0 as bessel_y0,
                          special_bessel_y1 as bessel_y1, special_entr as entr,
                          special_erfcx as erfcx, special_i0e as i0e, special_i1 as i1,
                          special_i1e as i1e, special_log_ndtr as log_ndtr,
                          special_modified_bessel_i0 as modified_bessel_i0,
                          special_modified_bessel_i1 as modified_bessel_i1,
                          special_modified_bessel_k0 as modified_bessel_k0,
                          special_modified_bessel_k1 as modified_bessel_k1,
                          special_ndtr as ndtr, special_ndtri as ndtri,
                          special_scaled_modified_bessel_k0 as scaled_modified_bessel_k0,
                          special_scaled_modified_bessel_k1 as scaled_modified_bessel_k1,
                          special_spherical_bessel_j0 as spherical_bessel_j0,
                          special_xlog1py as xlog1py, special_zeta as zeta)
from .ops.unary import exp2, expm1, log1p, logit, round as _round, sigmoid
from .tensor import Tensor

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc",
           "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

expit = sigmoid
gammaln = _S.lgamma
psi = digamma


def gammainc(input, other, *, out=None):
    _tensors("special_gammainc", input, other)
    return _S.igamma(input, other, out=out)


def gammaincc(input, other, *, out=None):
    _tensors("special_gammaincc", input, other)
    return _S.igammac(input, other, out=out)


def _tensors(name, input, other):
    for arg, pos, v in (("input", 1, input), ("other", 2, other)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")


def multigammaln(input, p, *, out=None):
    _check_args("multigammaln", ("p", 2, "int", p))
    return _S.mvlgamma(input, p, out=out)


def round(input, *, decimals=0, out=None):
    return _round(input, decimals=decimals, out=out)


def softmax(input, dim, *, dtype=None):
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _log_softmax(input, dim, dtype=dtype)


def chebyshev_polynomial_t(input, n, *, out=None):
    return _S.special_polynomial("chebyshev_t", input, n, out)


def chebyshev_polynomial_u(input, n, *, out=None):
    return _S.special_polynomial("chebyshev_u", input, n, out)


def chebyshev_polynomial_v(input, n, *, out=None):
    return _S.special_polynomial("chebyshev_v", input, n, out)


def chebyshev_polynomial_w(input, n, *, out=None):
    return _S.special_polynomial("chebyshev_w", input, n, out)


def shifted_chebyshev_polynomial_t(input, n, *, out=None):
    return _S.special_polynomial("shifted_chebyshev_t", input, n, out)


def shifted_chebyshev_polynomial_u(input, n, *, out=None):
    return _S.special_polynomial("shifted_chebyshev_u", input, n, out)


def shifted_chebyshev_polynomial_v(input, n, *, out=None):
    return _S.special_polynomial("shifted_chebyshev_v", input, n, out)


def shifted_chebyshev_polynomial_w(input, n, *, out=None):
    return _S.special_polynomial("shifted_chebyshev_w", input, n, out)


def hermite_polynomial_h(input, n, *, out=None):
    return _S.special_polynomial("hermite_h", input, n, out)


def hermite_polynomial_he(input, n, *, out=None):
    return _S.special_polynomial("hermite_he", input, n, out)


def laguerre_polynomial_l(input, n, *, out=None):
    return _S.special_polynomial("laguerre_l", input, n, out)


def legendre_polynomial_p(input, n, *, out=None):
    return _S.special_polynomial("legendre_p", input, n, out)
