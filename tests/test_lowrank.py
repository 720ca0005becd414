"""torch.svd_lowrank / torch.pca_lowrank / torch.lobpcg against torch.

svd_lowrank and pca_lowrank draw the same random matrix as torch (Note [Low-rank draw] in
ember/ops/lowrank.py), so with the same seed the singular values agree to rounding and the
singular vectors agree up to each column's sign (LAPACK's SVD of a wide matrix picks signs
differently in MKL, torch's, and OpenBLAS, NumPy's); gradients of sign-invariant losses agree.
"""
import numpy as np
import pytest
import torch
from oracle import check_error, grad_fn_name

import ember

R = np.random.default_rng(1414)
LIBS = (torch, ember)


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach()._data)


def _tol(dtype):
    return (1e-4, 1e-5) if np.dtype(dtype) == np.float32 else (1e-9, 1e-11)


def _close_up_to_sign(tu, eu, tv, ev, rtol, atol, s=None):
    """U and V equal up to one sign per singular pair (the same sign in U and V); the pairs of
    (numerically) zero singular values, whose vectors are arbitrary, are left out."""
    if tu.ndim > 2:
        for i in range(tu.shape[0]):
            _close_up_to_sign(tu[i], eu[i], tv[i], ev[i], rtol, atol, None if s is None else s[i])
        return
    if s is not None and s.size:
        keep = s > s.max() * 1e-3
        tu, eu, tv, ev = (x[..., keep] for x in (tu, eu, tv, ev))
    if tu.size == 0:
        return
    d = np.sign(np.sum(tu * eu, axis=-2, keepdims=True))
    d[d == 0] = 1
    np.testing.assert_allclose(eu * d, tu, rtol=rtol, atol=atol)
    np.testing.assert_allclose(ev * d, tv, rtol=rtol, atol=atol)


def _lowrank(lib, fn, a, kw, seed=1):
    lib.manual_seed(seed)
    kw = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    return getattr(lib, fn)(lib.tensor(a), **kw)


SHAPES = [(7, 5), (5, 7), (6, 6), (4, 3), (2, 3, 9, 6), (2, 6, 9)]
KWARGS = [dict(q=3, niter=0), dict(q=3), dict(), dict(q=2, niter=3), dict(q=None, niter=None),
          dict(q=8, niter=1), dict(q=0)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kw", KWARGS)
def test_svd_lowrank_values(dtype, shape, kw):
    a = R.standard_normal(shape).astype(dtype)
    t, e = (_lowrank(lib, "svd_lowrank", a, kw) for lib in LIBS)
    assert type(e) is tuple and len(e) == 3
    rtol, atol = _tol(dtype)
    for x, y in zip(t, e):
        assert tuple(x.shape) == tuple(y.shape) and str(x.dtype) == str(y.dtype)
    np.testing.assert_allclose(_np(e[1]), _np(t[1]), rtol=rtol, atol=atol)
    _close_up_to_sign(_np(t[0]), _np(e[0]), _np(t[2]), _np(e[2]), rtol, atol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,mshape", [((7, 5), (5,)), ((7, 5), (7, 5)), ((5, 7), (5, 7)),
                                          ((5, 7), (1, 7)), ((2, 8, 5), (5,)),
                                          ((2, 5, 8), (2, 5, 8))])
def test_svd_lowrank_M(dtype, shape, mshape):
    a = R.standard_normal(shape).astype(dtype)
    m = R.standard_normal(mshape).astype(dtype)
    t, e = (_lowrank(lib, "svd_lowrank", a, dict(q=3, niter=1, M=m)) for lib in LIBS)
    rtol, atol = _tol(dtype)
    np.testing.assert_allclose(_np(e[1]), _np(t[1]), rtol=rtol, atol=atol)
    _close_up_to_sign(_np(t[0]), _np(e[0]), _np(t[2]), _np(e[2]), rtol, atol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES + [(3, 0), (0, 3)])
@pytest.mark.parametrize("kw", [dict(), dict(q=2), dict(q=2, center=False, niter=1),
                                dict(niter=0), dict(q=0)])
def test_pca_lowrank_values(dtype, shape, kw):
    a = R.standard_normal(shape).astype(dtype)
    if min(shape[-2:]) < kw.get("q", 0):
        return
    t, e = (_lowrank(lib, "pca_lowrank", a, kw) for lib in LIBS)
    rtol, atol = _tol(dtype)
    for x, y in zip(t, e):
        assert tuple(x.shape) == tuple(y.shape) and str(x.dtype) == str(y.dtype)
    np.testing.assert_allclose(_np(e[1]), _np(t[1]), rtol=rtol, atol=atol)
    _close_up_to_sign(_np(t[0]), _np(e[0]), _np(t[2]), _np(e[2]), rtol, atol, _np(t[1]))


def test_lowrank_complex():
    a = (R.standard_normal((6, 4)) + 1j * R.standard_normal((6, 4))).astype(np.complex128)
    for fn in ("svd_lowrank", "pca_lowrank"):
        t, e = (_lowrank(lib, fn, a, dict(q=2, niter=1)) for lib in LIBS)
        np.testing.assert_allclose(_np(e[1]), _np(t[1]), rtol=1e-9)
        assert [str(x.dtype) for x in t] == [str(x.dtype) for x in e]
        # the singular subspaces agree: U U^H and V V^H (phases cancel)
        for i in (0, 2):
            pt, pe = _np(t[i]) @ _np(t[i]).conj().T, _np(e[i]) @ _np(e[i]).conj().T
            np.testing.assert_allclose(pe, pt, atol=1e-9)


def test_lowrank_seeded_generator_state():
    """The draw consumes the global generator exactly as torch's does."""
    a = R.standard_normal((9, 7))
    after = []
    for lib in LIBS:
        lib.manual_seed(5)
        lib.svd_lowrank(lib.tensor(a), q=3)
        lib.pca_lowrank(lib.tensor(a.T), q=2)
        after.append(_np(lib.rand(4)))
    np.testing.assert_array_equal(after[0], after[1])


@pytest.mark.parametrize("fn,shape,kw", [
    ("svd_lowrank", (7, 5), dict(q=3)), ("svd_lowrank", (5, 7), dict(q=3, niter=1)),
    ("svd_lowrank", (2, 8, 5), dict(q=3)), ("svd_lowrank", (7, 5), dict(q=3, M="M")),
    ("svd_lowrank", (5, 7), dict(q=2, M="M")), ("pca_lowrank", (8, 5), dict(q=3)),
    ("pca_lowrank", (2, 5, 8), dict(q=3, niter=1)), ("svd_lowrank", (6, 4), dict()),
])
def test_lowrank_gradients(fn, shape, kw):
    """Gradients through randn/matmul/qr/svd, as torch's: a loss invariant to the signs of the
    singular vectors (S, U**2, V**2 and the reconstruction), and the grad_fn names."""
    a = R.standard_normal(shape)
    m = R.standard_normal(shape[-1:])
    w = [R.standard_normal(8) for _ in range(4)]
    grads, names = [], []
    for lib in LIBS:
        lib.manual_seed(3)
        A = lib.tensor(a, requires_grad=True)
        M = lib.tensor(m, requires_grad=True)
        kws = {k: (M if v == "M" else v) for k, v in kw.items()}
        U, S, V = getattr(lib, fn)(A, **kws)
        k = S.shape[-1]
        rec = (U * S.unsqueeze(-2)) @ V.mT
        loss = ((S * lib.tensor(w[0][:k])).sum() + (U ** 2 * lib.tensor(w[1][:k])).sum()
                + (V ** 2 * lib.tensor(w[2][:k])).sum() + (rec * rec).sum() * w[3][0])
        loss.backward()
        grads.append([_np(A.grad)] + ([_np(M.grad)] if "M" in kw else []))
        names.append([grad_fn_name(x) for x in (U, S, V)])
    assert names[0] == names[1]
    for gt, ge in zip(*grads):
        np.testing.assert_allclose(ge, gt, rtol=1e-7, atol=1e-9)


def test_lowrank_no_grad_outputs():
    a = R.standard_normal((6, 4))
    for lib in LIBS:
        U, S, V = lib.svd_lowrank(lib.tensor(a), q=2)
        assert not (U.requires_grad or S.requires_grad or V.requires_grad)


def test_lowrank_lazy_and_namespace():
    assert "svd_lowrank" in dir(ember) and "pca_lowrank" in dir(ember)
    assert not hasattr(ember.linalg, "svd_lowrank") and not hasattr(torch.linalg, "svd_lowrank")
    assert not hasattr(ember.Tensor, "svd_lowrank")


@pytest.mark.parametrize("fn", [
    lambda L: L.svd_lowrank(L.randn(5)),
    lambda L: L.pca_lowrank(L.randn(5)),
    lambda L: L.svd_lowrank(L.tensor(3.0)),
    lambda L: L.svd_lowrank([[1.0, 2.0], [3.0, 4.0]]),
    lambda L: L.pca_lowrank([[1.0, 2.0], [3.0, 4.0]]),
    lambda L: L.svd_lowrank(L.randn(4, 3), q=-1),
    lambda L: L.svd_lowrank(L.randn(4, 3), q=2.5),
    lambda L: L.svd_lowrank(L.randn(4, 3), niter=1.5),
    lambda L: L.svd_lowrank(L.randint(0, 5, (4, 3))),
    lambda L: L.pca_lowrank(L.randint(0, 5, (4, 3))),
    lambda L: L.svd_lowrank(L.randn(4, 3), M=L.randn(2, 4, 3), q=2),
    lambda L: L.svd_lowrank(L.randn(4, 3), M=L.randn(3, 3), q=2),
    lambda L: L.svd_lowrank(L.randn(4, 3), M=L.randn(4, 3, dtype=L.float64), q=2),
    lambda L: L.pca_lowrank(L.randn(4, 3), q=4),
    lambda L: L.pca_lowrank(L.randn(4, 3), q=-1),
    lambda L: L.pca_lowrank(L.randn(4, 3), niter=-1),
    lambda L: L.pca_lowrank(L.randn(4, 3), niter=None),
    lambda L: L.pca_lowrank(L.randn(4, 3), niter=1.0),
    lambda L: L.pca_lowrank(L.randn(4, 3), q=2.0),
])
def test_lowrank_errors(fn):
    check_error(fn)
