"""nn.CrossMapLRN2d (Lua torch's cross-channel LRN) against torch: values and gradients over
sizes and channel counts (its own window: channel 0 reaches every channel; its backward is not
the derivative of its forward, so torch's gradients, not numerical ones, are the reference),
node name, repr, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error

R = np.random.default_rng(21)


def run(lib, x, g, size, alpha, beta, k):
    xt = lib.tensor(x, requires_grad=True)
    m = lib.nn.CrossMapLRN2d(size, alpha, beta, k)
    y = m(xt)
    y.backward(lib.tensor(g))
    return y.detach().numpy() if lib is torch else y.detach()._data, \
        xt.grad.numpy() if lib is torch else xt.grad._data, y.grad_fn.name(), repr(m)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 9])
@pytest.mark.parametrize("channels", [1, 2, 3, 5, 8])
def test_values_and_grads(dtype, size, channels):
    x = R.standard_normal((2, channels, 3, 2)).astype(dtype)
    g = R.standard_normal((2, channels, 3, 2)).astype(dtype)
    args = (size, 0.3, 0.75, 1.5)
    ty, tg, tn, tr = run(torch, x, g, *args)
    ey, eg, en, er = run(ember, x, g, *args)
    assert (tn, tr) == (en, er) == ("CrossMapLRN2dBackward", tr)
    assert ey.dtype == ty.dtype and eg.dtype == tg.dtype
    # float32: torch's vectorized pow is within an ulp or two of the correctly rounded one
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype is np.float64 else {"rtol": 1e-6, "atol": 3e-7}
    np.testing.assert_allclose(ey, ty, **tol)
    np.testing.assert_allclose(eg, tg, **tol)


def test_defaults_and_no_grad():
    x = R.standard_normal((1, 4, 2, 2)).astype(np.float32)
    out = {}
    for lib in (torch, ember):
        m = lib.nn.CrossMapLRN2d(5)
        y = m(lib.tensor(x))
        out[lib] = (repr(m), repr(lib.nn.CrossMapLRN2d(size=2, alpha=1, beta=2, k=3)),
                    y.grad_fn, y.numpy() if lib is torch else y._data)
    assert out[torch][:3] == out[ember][:3]
    np.testing.assert_allclose(out[ember][3], out[torch][3], rtol=1e-6)


def test_empty_batch():
    shapes = [tuple(lib.nn.CrossMapLRN2d(3)(lib.ones(0, 3, 2, 2)).shape) for lib in (torch, ember)]
    assert shapes[0] == shapes[1] == (0, 3, 2, 2)


ERRORS = {
    "3d": lambda lib: lib.nn.CrossMapLRN2d(3)(lib.randn(5, 3, 3)),
    "5d": lambda lib: lib.nn.CrossMapLRN2d(3)(lib.randn(1, 2, 3, 3, 3)),
    "int": lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(1, 3, 1, 1, dtype=lib.int64)),
    "no_channels": lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(1, 0, 2, 2)),
    "size0": lambda lib: lib.nn.CrossMapLRN2d(0)(lib.ones(1, 2, 2, 2)),
    "size1_backward": lambda lib: lib.nn.CrossMapLRN2d(1)(
        lib.ones(1, 4, 2, 2, requires_grad=True)).sum().backward(),
    "create_graph": lambda lib: _double_backward(lib),
}


def _double_backward(lib):
    x = lib.ones(1, 3, 1, 1, requires_grad=True)
    return lib.autograd.grad(lib.nn.CrossMapLRN2d(3)(x).sum(), x, create_graph=True)


@pytest.mark.parametrize("case", ERRORS)
def test_errors(case):
    check_error(ERRORS[case])
