"""Issue 14: ember.fft against torch.fft: every function, norm modes, sizes (padding and
truncation), dims, dtypes, node names, gradients (and double backward), errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck, gradgradcheck

RNG = np.random.default_rng(5)
X = RNG.standard_normal(5)
Z = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
M = RNG.standard_normal((3, 4))
MZ = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
W = RNG.standard_normal(8)


def _loss(L, y):
    """A real function of any output (complex outputs through |y|^2 and the real part)."""
    if y.is_complex():
        return (y.abs() ** 2 + y.real * 0.5)
    return y * y


ONE = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
        "irfftn", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


@pytest.mark.parametrize("name", ONE)
@pytest.mark.parametrize("norm", [None, "ortho", "forward", "backward"])
def test_one_dimensional(name, norm):
    inputs = [X] if name in REAL_ONLY else [X, Z]
    for a in inputs:
        for n in (None, 3, 8):
            check(lambda L, x: getattr(L.fft, name)(x, n=n, norm=norm), a, grad=False)
            check(lambda L, x: _loss(L, getattr(L.fft, name)(x, n=n, norm=norm)), a,
                  names=False)
        check(lambda L, x: getattr(L.fft, name)(x, norm=norm), a.astype(
            np.complex64 if a.dtype.kind == "c" else np.float32), grad=False)


@pytest.mark.parametrize("name", MANY)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_many_dimensional(name, norm):
    inputs = [M] if name in REAL_ONLY else [M, MZ]
    for a in inputs:
        for s in (None, (2, 5)):
            check(lambda L, x: getattr(L.fft, name)(x, s=s, norm=norm), a, grad=False)
            check(lambda L, x: _loss(L, getattr(L.fft, name)(x, s=s, norm=norm)), a,
                  names=False)


@pytest.mark.parametrize("name", ONE + MANY)
def test_node_names(name):
    a = M if name in MANY else X
    check(lambda L, x: getattr(L.fft, name)(x), a, grad=False)
    if name not in REAL_ONLY:
        check(lambda L, x: getattr(L.fft, name)(x), MZ if name in MANY else Z, grad=False)


def test_dims_and_integer_inputs():
    check(lambda L, x: L.fft.fftn(x, dim=0), M, grad=False)
    check(lambda L, x: L.fft.fftn(x, dim=(0,), norm="ortho"), M, grad=False)
    check(lambda L, x: L.fft.rfftn(x, s=(3,), dim=(0,)), M, grad=False)
    check(lambda L, x: L.fft.fft(x, dim=0), M, grad=False)
    check(lambda L, x: L.fft.fftn(x, s=(2, 2)), RNG.standard_normal((2, 3, 4)), grad=False)
    check(lambda L, x: L.fft.fft(x), np.array([1, 2, 3]), grad=False)
    check(lambda L, x: L.fft.irfft(x), np.array([1.0, 2, 3]), grad=False)
    check(lambda L, x: L.fft.fft(x), np.array([True, False, True]), grad=False)


def test_gradients_numerically():
    for name in ("fft", "rfft", "ihfft"):
        gradcheck(lambda x: _loss(ember, getattr(ember.fft, name)(x, n=6)), X)
    gradcheck(lambda x: ember.fft.irfft(ember.complex(x, x * 0.5), n=7), X)
    gradcheck(lambda x: ember.fft.hfft(ember.complex(x, x * 0.5), n=8), X)
    gradcheck(lambda x: _loss(ember, ember.fft.rfft2(x, norm="ortho")), M)
    gradgradcheck(lambda x: _loss(ember, ember.fft.fft(x)), X[:4])
    gradgradcheck(lambda x: ember.fft.irfft(ember.complex(x, -x), n=6) ** 2, X[:4])


def test_freq_and_shift():
    for n in range(0, 12):
        for d in (1.0, 0.3, 0.7):
            check(lambda L: L.fft.fftfreq(n, d), grad=False)
            check(lambda L: L.fft.rfftfreq(n, d), grad=False)
            check(lambda L: L.fft.fftfreq(n, d, dtype=L.float64), grad=False)
    check(lambda L: L.fft.fftfreq(5, requires_grad=True), grad=False)
    check(lambda L, x: L.fft.fftshift(x), M)
    check(lambda L, x: L.fft.ifftshift(x, dim=1), M)
    check(lambda L, x: L.fft.fftshift(x, dim=(0,)), M)
    check(lambda L, x: L.fft.ifftshift(L.fft.fftshift(x)), RNG.standard_normal((3, 5)))


@pytest.mark.parametrize("fn", [
    lambda L: L.fft.fft(L.ones(4), norm="bad"), lambda L: L.fft.fft(L.ones(4), n=0),
    lambda L: L.fft.fft(L.ones(4), dim=1), lambda L: L.fft.fft(L.tensor(1.0)),
    lambda L: L.fft.rfft(L.ones(4, dtype=L.complex64)),
    lambda L: L.fft.ihfft(L.ones(4, dtype=L.complex64)),
    lambda L: L.fft.fft(L.ones(4, dtype=L.float16)),
    lambda L: L.fft.fft2(L.ones(3, 4), s=(2,)), lambda L: L.fft.fftn(L.ones(3, 4), s=(2, 3),
                                                                   dim=(0,)),
    lambda L: L.fft.fftfreq(-1),
])
def test_errors(fn):
    check_error(fn)
