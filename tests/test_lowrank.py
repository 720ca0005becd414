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


# ---------------------------------------------------------------- lobpcg
def _spd(n, dist=1.5, dtype=np.float64, batch=()):
    """Symmetric positive definite with well-separated eigenvalues 1, 2**dist, ..., n**dist."""
    out = []
    for _ in range(int(np.prod(batch))):
        q, _ = np.linalg.qr(R.standard_normal((n, n)))
        out.append((q * np.arange(1, n + 1) ** dist) @ q.T)
    return np.stack(out).reshape(batch + (n, n)).astype(dtype)


def _lobpcg(lib, a, seed=1, **kw):
    lib.manual_seed(seed)
    kw = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    return lib.lobpcg(lib.tensor(a), **kw)


def _eig_close(t, e, rtol, atol):
    """Eigenvalues equal; eigenvectors equal up to each column's sign."""
    (tE, tX), (eE, eX) = t, e
    assert tuple(tE.shape) == tuple(eE.shape) and tuple(tX.shape) == tuple(eX.shape)
    assert str(tE.dtype) == str(eE.dtype) and str(tX.dtype) == str(eX.dtype)
    np.testing.assert_allclose(_np(eE), _np(tE), rtol=rtol, atol=atol)
    tx, ex = _np(tX), _np(eX)
    d = np.sign(np.sum(tx * ex, axis=-2, keepdims=True))
    np.testing.assert_allclose(ex * d, tx, rtol=rtol, atol=atol * 100)


@pytest.mark.parametrize("m,kw", [
    (12, dict()), (12, dict(k=2)), (20, dict(k=3)), (20, dict(k=3, largest=False)),
    (30, dict(k=4, n=6)), (30, dict(k=2, method="basic", largest=False)),
    (40, dict(k=5, method="basic")), (20, dict(k=3, niter=-1)), (20, dict(k=2, niter=0)),
    (20, dict(k=3, tol=1e-10)), (20, dict(k=2, n=1)), (20, dict(k=3, method="foo")),
    (20, dict(k=2, ortho_iparams=dict(ortho_i_max=5), ortho_fparams=dict(ortho_tol=1e-6),
              ortho_bparams=dict(ortho_use_drop=True))),
])
def test_lobpcg_converged(m, kw):
    a = _spd(m)
    t, e = (_lobpcg(lib, a, **kw) for lib in LIBS)
    _eig_close(t, e, 1e-9, 1e-9)


def test_lobpcg_float32():
    a = _spd(16, dtype=np.float32)
    for largest in (True, False):
        t, e = (_lobpcg(lib, a, k=2, largest=largest) for lib in LIBS)
        _eig_close(t, e, 1e-4, 1e-5)


def test_lobpcg_X_B_iK():
    a, b = _spd(20), _spd(20, 0.3)
    x = R.standard_normal((20, 4))
    for kw in (dict(X=x), dict(k=2, X=x), dict(k=3, B=b), dict(k=3, B=b, largest=False),
               dict(k=3, iK=np.eye(20)), dict(k=2, B=np.eye(20), iK=np.eye(20))):
        t, e = (_lobpcg(lib, a, **kw) for lib in LIBS)
        _eig_close(t, e, 1e-9, 1e-9)


def test_lobpcg_generalized_basic():
    """torch's basic method returns a repeated pair for this B (its third eigenvalue equals the
    first, and X^T B X is not I); ember's gives the generalized eigenpairs, checked here against
    LAPACK's (NumPy) generalized solution."""
    a, b = _spd(20), _spd(20, 0.3)
    E, X = _lobpcg(ember, a, k=3, B=b, method="basic")
    lb = np.linalg.cholesky(b)
    li = np.linalg.inv(lb)
    want = np.linalg.eigvalsh(li @ a @ li.T)[::-1][:3]
    np.testing.assert_allclose(_np(E), want, rtol=1e-9)
    np.testing.assert_allclose(_np(X).T @ b @ _np(X), np.eye(3), atol=1e-9)


@pytest.mark.parametrize("method", ["basic", "ortho"])
@pytest.mark.parametrize("niter", [1, 2, 3, 5, 8])
def test_lobpcg_iterates(method, niter):
    """Each step equals torch's: the same draw, the same subspaces (X, then [X, W], then
    [X, W, P]; basic takes the next Ritz vectors as P); ortho's first step only orthonormalizes
    X (E stays zero, as in torch)."""
    a = _spd(60)
    t, e = (_lobpcg(lib, a, k=4, niter=niter, method=method) for lib in LIBS)
    np.testing.assert_allclose(_np(e[0]), _np(t[0]), rtol=1e-11, atol=1e-12)


def test_lobpcg_basic_fails_where_torch_does():
    """On a 15 x 15 matrix with n = 4 the basic method's Gram matrix of [X, W, P] loses
    definiteness at step 4 in both (linalg.cholesky's LinAlgError)."""
    a = _spd(15)
    check_error(lambda L: _lobpcg(L, a, k=3, n=4, method="basic"), match_message=False)
    for lib in LIBS:
        _lobpcg(lib, a, k=3, n=4, method="basic", niter=3)


@pytest.mark.parametrize("m,n,k,kw", [(60, 4, 4, {}), (60, 5, 3, {}),
                                      (100, 3, 3, dict(largest=False)),
                                      (40, 3, 2, dict(tol=1e-10)), (20, 3, 3, dict(B=True))])
def test_lobpcg_ortho_whole_run(m, n, k, kw):
    """method="ortho": every step's E, converged_count and converged_end, and the number of
    steps, equal torch's (locking of converged pairs included)."""
    a = _spd(m)
    if kw.get("B"):
        kw = dict(B=_spd(m, 0.3))
    logs = []
    for lib in LIBS:
        log = []
        _lobpcg(lib, a, k=k, n=n, tracker=lambda w, log=log: log.append(
            (w.ivars["istep"], w.ivars["converged_count"], w.ivars["converged_end"],
             _np(w.E).copy())), **kw)
        logs.append(log)
    assert [x[:3] for x in logs[0]] == [x[:3] for x in logs[1]]
    for t, e in zip(*logs):
        np.testing.assert_allclose(e[3], t[3], rtol=1e-9)


def test_lobpcg_batched():
    a = _spd(12, batch=(3, 2))
    t, e = (_lobpcg(lib, a, k=2) for lib in LIBS)
    _eig_close(t, e, 1e-9, 1e-9)
    # one randn(m, n) per matrix, in order: the first step's Ritz values show the draws
    t, e = (_lobpcg(lib, a, k=2, niter=1, method="basic") for lib in LIBS)
    np.testing.assert_allclose(_np(e[0]), _np(t[0]), rtol=1e-10)
    x = R.standard_normal((3, 2, 12, 3))
    t, e = (_lobpcg(lib, a, X=x) for lib in LIBS)
    _eig_close(t, e, 1e-9, 1e-9)


def test_lobpcg_tracker():
    a = _spd(15)
    logs, strs = [], []
    for lib in LIBS:
        log = []

        def tracker(w, log=log):
            log.append((dict(w.iparams), dict(w.fparams), dict(w.bparams), list(w.ivars),
                        w.ivars["istep"], w.ivars["iterations_left"], _np(w.E).copy(),
                        tuple(w.X.shape), tuple(w.S.shape), tuple(w.R.shape),
                        tuple(w.tvars["rerr"].shape), w.fvars["X_norm"], w.fvars["A_norm"],
                        w.fvars["B_norm"], w.bvars["_"], w.fvars["_"]))
            if w.ivars["istep"] == 4:
                w.bvars["force_stop"] = True
            if w.ivars["istep"] == 1:
                strs.append(str(w).split("\n")[:4])
        E, X = _lobpcg(lib, a, k=3, n=4, tracker=tracker)
        logs.append(log)
    assert len(logs[0]) == len(logs[1]) == 4
    for step, (t, e) in enumerate(zip(*logs)):
        assert t[:6] == e[:6] and t[7:11] == e[7:11] and t[14:] == e[14:]
        if step < 3:           # m = 15 = 3n + 3: from step 4 rounding picks the basis
            np.testing.assert_allclose(e[6], t[6], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(e[11:14], t[11:14], rtol=1e-12)
    assert strs[0] == strs[1]
    # the basic method's parameters, and a worker whose class name is torch's
    seen = []
    for lib in LIBS:
        _lobpcg(lib, a, k=2, niter=2, method="basic",
                tracker=lambda w: seen.append((type(w).__name__, w.iparams, w.fparams,
                                               w.bparams, w.method, w.iK, w.B)))
    assert seen[:2] == seen[2:]


def test_lobpcg_converged_count_and_stop():
    """Iteration stops when the leading k pairs' relative residuals are below tol."""
    a = _spd(20)
    for lib in LIBS:
        log = []
        _lobpcg(lib, a, k=3, tracker=lambda w: log.append(
            (w.ivars["converged_count"], _np(w.tvars["rerr"]).copy(), w.fparams["tol"])))
        cc, rerr, tol = log[-1]
        assert cc >= 3 and (rerr[:3] < tol).all()
        assert all(c < 3 for c, _, _ in log[:-1])


@pytest.mark.parametrize("shape,k,largest", [((12,), 2, True), ((15,), 3, False),
                                             ((2,), 1, True)])
def test_lobpcg_gradients(shape, k, largest):
    """A requires grad: A is symmetrized ((A + A^T) / 2: DivBackward0 <- AddBackward0) and the
    solver is LOBPCGAutogradFunction; gradients (and double backward) equal torch's to the
    solver's tolerance."""
    m = 10 if shape == (2,) else shape[0]
    a = _spd(m) + 0.01 * R.standard_normal((m, m))        # not quite symmetric
    if shape == (2,):
        a = np.stack([a, _spd(m)])
    wE = R.standard_normal(a.shape[:-2] + (k,))
    wX = R.standard_normal(a.shape[:-2] + (m, k))
    res = []
    for lib in LIBS:
        lib.manual_seed(1)
        A = lib.tensor(a, requires_grad=True)
        E, X = lib.lobpcg(A, k=k, largest=largest)
        div = E.grad_fn.next_functions[0][0]
        names = [grad_fn_name(E), grad_fn_name(X), type(div).__name__,
                 [type(f[0]).__name__ for f in div.next_functions if f[0] is not None],
                 [type(f[0]).__name__ for f in div.next_functions[0][0].next_functions]]
        loss = (E * lib.tensor(wE)).sum() + (X ** 2 * lib.tensor(wX)).sum()
        g, = lib.autograd.grad(loss, A, create_graph=True)
        gg, = lib.autograd.grad((g ** 2).sum(), A)
        res.append((_np(g), _np(gg), names))
    assert res[0][2] == res[1][2]
    assert res[1][2][:3] == ["LOBPCGAutogradFunctionBackward"] * 2 + ["DivBackward0"]
    np.testing.assert_allclose(res[1][0], res[0][0], atol=1e-7)
    np.testing.assert_allclose(res[1][1], res[0][1], atol=1e-7)


def test_lobpcg_gradient_against_eigh():
    """A second opinion: the gradient equals that of the same eigenpairs from linalg.eigh."""
    a = _spd(12)
    w = R.standard_normal((12, 2))
    A = ember.tensor(a, requires_grad=True)
    ember.manual_seed(0)
    E, X = ember.lobpcg(A, k=2, tol=1e-12)
    ((X ** 2 * ember.tensor(w)).sum() + E.sum()).backward()
    A2 = ember.tensor(a, requires_grad=True)
    L, V = ember.linalg.eigh(A2)
    ((V[:, [11, 10]] ** 2 * ember.tensor(w)).sum() + L[[11, 10]].sum()).backward()
    np.testing.assert_allclose(_np(A.grad), _np(A2.grad), atol=1e-9)


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad")
def test_lobpcg_no_grad_and_X_grad():
    a = _spd(20)
    x = R.standard_normal((20, 3))
    names = []
    for lib in LIBS:
        with lib.no_grad():
            E, X = lib.lobpcg(lib.tensor(a, requires_grad=True), k=2)
        assert E.grad_fn is None and not E.requires_grad
        lib.manual_seed(0)
        Xg = lib.tensor(x, requires_grad=True)
        E, X = lib.lobpcg(lib.tensor(a), k=3, X=Xg, niter=3)   # through the iteration's ops
        names.append((grad_fn_name(E), grad_fn_name(X)))
    # (torch's backward through this graph fails: its iteration writes into saved tensors)
    assert names[0] == names[1]


@pytest.mark.parametrize("fn", [
    lambda L: L.lobpcg(_T(L), k=5),
    lambda L: L.lobpcg(_T(L), n=5),
    lambda L: L.lobpcg(_T(L), X=L.randn(12, 5, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L), X=L.randn(11, 3, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L), X=L.randn(12, 3)),
    lambda L: L.lobpcg(_T(L), X=L.randn(3, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L), B=L.randn(11, 11, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L), B=L.eye(12)),
    lambda L: L.lobpcg(_T(L)[:5, :6]),
    lambda L: L.lobpcg(L.randn(5)),
    lambda L: L.lobpcg(_T(L).half()),
    lambda L: L.lobpcg(L.eye(6, dtype=L.int64)),
    lambda L: L.lobpcg(_T(L).to(L.complex128)),
    lambda L: L.lobpcg([[1.0, 2.0], [3.0, 4.0]]),
    lambda L: L.lobpcg(_T(L), k=0),
    lambda L: L.lobpcg(_T(L), k=-1),
    lambda L: L.lobpcg(_T(L), k=2.0),
    lambda L: L.lobpcg(_T(L), X=L.zeros(12, 2, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L).expand(2, 12, 12), X=L.randn(12, 3, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L).expand(2, 12, 12), B=L.eye(12, dtype=L.float64)),
    lambda L: L.lobpcg(_T(L).requires_grad_(), k=2, B=L.eye(12, dtype=L.float64))[0]
    .sum().backward(),
])
def test_lobpcg_errors(fn):
    check_error(fn)


def _T(L, n=12):
    L.manual_seed(0)
    a = L.randn(n, n, dtype=L.float64)
    return a @ a.mT + n * L.eye(n, dtype=L.float64)


def test_lobpcg_namespace():
    assert "lobpcg" in dir(ember)
    assert not hasattr(ember.linalg, "lobpcg") and not hasattr(torch.linalg, "lobpcg")
    assert not hasattr(ember.Tensor, "lobpcg") and not hasattr(torch.Tensor, "lobpcg")


def test_solvers_load_lazily():
    """`import ember` does not load them (W8's import memory); first use does."""
    import subprocess
    import sys
    code = ("import sys, ember; mods = ('ember.ops.lowrank', 'ember.ops.lobpcg'); "
            "assert not any(m in sys.modules for m in mods); ember.svd_lowrank; ember.lobpcg; "
            "assert all(m in sys.modules for m in mods); "
            "from ember import pca_lowrank; print(pca_lowrank.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ember.ops.lowrank"
