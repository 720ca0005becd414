"""torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch (LAPACK sytrf / hetrf /
sytrs / hetrs): Bunch-Kaufman pivots exactly, LD bit for bit for real matrices (to rounding for
complex ones: complex products round differently), info, check_errors, hermitian=, batches,
strides, out=, the NotImplemented node torch gives inputs that require grad, and errors."""
import numpy as np
import pytest
import torch
from oracle import check_error

import ember

R = np.random.default_rng(1414)
DTYPES = [np.float64, np.float32, np.complex128, np.complex64]


def _sym(n, dtype, herm, zero_row=False, ties=False, batch=()):
    a = R.standard_normal(batch + (n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * R.standard_normal(batch + (n, n))
    a = a + (np.conj(np.swapaxes(a, -1, -2)) if herm else np.swapaxes(a, -1, -2))
    if ties:
        a = np.round(a)
    if zero_row:
        i = R.integers(0, n)
        a[..., i, :] = 0
        a[..., :, i] = 0
    a = a.astype(dtype)
    if herm and a.dtype.kind == "c":
        d = np.einsum("...ii->...i", a)
        d.imag = 0
    return a


def _factor(lib, a, **kw):
    return lib.linalg.ldl_factor_ex(lib.tensor(a), **kw)


def _compare_factor(a, **kw):
    t, e = _factor(torch, a, **kw), _factor(ember, a, **kw)
    assert t.pivots.tolist() == e.pivots.tolist()
    assert t.info.tolist() == e.info.tolist()
    assert e.pivots.dtype == ember.int32 and e.info.dtype == ember.int32
    if t.LD.numel():    # (an empty array has no layout in NumPy: ember reports C strides)
        assert tuple(t.LD.stride()) == tuple(e.LD.stride())
    tl, el = t.LD.numpy(), e.LD.numpy()
    if tl.dtype.kind == "f":
        assert np.array_equal(tl, el, equal_nan=True)       # bit for bit
    else:
        scale = max(np.abs(tl).max(initial=0), 1)
        tol = 1e-5 if tl.dtype == np.complex64 else 1e-13
        np.testing.assert_allclose(el, tl, rtol=0, atol=tol * scale)
    return t, e


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("herm", [False, True])
def test_factor_random(dtype, herm):
    for trial in range(40):
        n = int(R.integers(1, 13))
        _compare_factor(_sym(n, dtype, herm, zero_row=trial % 3 == 0, ties=trial % 5 == 0),
                        hermitian=herm)


@pytest.mark.parametrize("dtype", DTYPES)
def test_factor_batched_and_empty(dtype):
    _compare_factor(_sym(5, dtype, False, batch=(2, 3)))
    _compare_factor(_sym(4, dtype, True, batch=(3,)), hermitian=True)
    _compare_factor(np.zeros((0, 3, 3), dtype))
    _compare_factor(np.zeros((0, 0), dtype))


def test_factor_singular_and_nan():
    """A zero pivot is info (the factorization goes on); a NaN on the diagonal is not tested
    for: it is swapped away, or becomes a later zero pivot (as torch's LAPACK runs it)."""
    _compare_factor(np.zeros((3, 3)))
    _compare_factor(np.array([[1., 2], [2, 4]]))
    _compare_factor(np.array([[np.nan, 2], [2, 4]]))
    _compare_factor(np.stack([np.eye(3), np.zeros((3, 3))]))


def test_factor_named_tuples_and_check_errors():
    a = _sym(4, np.float64, False)
    for lib in (torch, ember):
        r = lib.linalg.ldl_factor(lib.tensor(a))
        assert type(r).__name__ == "linalg_ldl_factor" and len(r) == 2
        assert r.LD is r[0] and r.pivots is r[1]
        r = lib.linalg.ldl_factor_ex(lib.tensor(a))
        assert len(r) == 3 and r.info is r[2]
    check_error(lambda L: L.linalg.ldl_factor(L.zeros(3, 3)))
    check_error(lambda L: L.linalg.ldl_factor_ex(L.zeros(2, 3, 3), check_errors=True))
    check_error(lambda L: L.linalg.ldl_factor(L.tensor([[1., 2], [2, 4]])))
    check_error(lambda L: L.linalg.ldl_factor(L.stack([L.eye(3), L.zeros(3, 3)])))


def test_requires_grad_not_implemented():
    """torch defines no derivative: LD (not pivots, info) gets a NotImplemented node, and so
    does ldl_solve's result."""
    a = _sym(4, np.float64, False)
    b = R.standard_normal((4, 2))
    for lib in (torch, ember):
        A = lib.tensor(a, requires_grad=True)
        r = lib.linalg.ldl_factor_ex(A)
        assert type(r.LD.grad_fn).__name__ == "NotImplemented"
        assert not r.pivots.requires_grad and not r.info.requires_grad
        with pytest.raises(RuntimeError,
                           match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
            r.LD.sum().backward()
        X = lib.linalg.ldl_solve(r.LD.detach(), r.pivots, lib.tensor(b, requires_grad=True))
        assert type(X.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError,
                           match="derivative for aten::linalg_ldl_solve is not implemented"):
            X.sum().backward()
        r = lib.linalg.ldl_factor(A, out=(lib.empty(0, dtype=lib.float64),
                                          lib.empty(0, dtype=lib.int32)))
        assert type(r.LD.grad_fn).__name__ == "NotImplemented"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("herm", [False, True])
def test_solve(dtype, herm):
    for trial in range(15):
        n = int(R.integers(1, 10))
        a = _sym(n, dtype, herm, ties=trial % 4 == 0)
        b = R.standard_normal((n, 3)).astype(dtype)
        res = []
        for lib in (torch, ember):
            LD, piv = lib.linalg.ldl_factor_ex(lib.tensor(a), hermitian=herm)[:2]
            x = lib.linalg.ldl_solve(LD, piv, lib.tensor(b), hermitian=herm)
            res.append((x.numpy(), tuple(x.stride()), x.dtype))
        (tx, ts, _), (ex, es, _) = res
        if n > 1:   # (a 1-row result is C- and F-contiguous: ember reports C strides)
            assert ts == es
        tol = 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9
        scale = max(np.abs(tx[np.isfinite(tx)]).max(initial=0), 1)
        np.testing.assert_allclose(ex, tx, rtol=0, atol=tol * scale)


def test_solve_batched_broadcast_and_pivots_long():
    # (torch 2.13 crashes when both LD and B have batch dimensions that broadcast: not tried)
    for a, b in ((_sym(4, np.float64, False, batch=(2,)), R.standard_normal((4, 2))),
                 (_sym(4, np.float64, False), R.standard_normal((3, 4, 2)))):
        res = []
        for lib in (torch, ember):
            LD, piv = lib.linalg.ldl_factor(lib.tensor(a))
            x = lib.linalg.ldl_solve(LD, piv.long(), lib.tensor(b))
            res.append((x.numpy(), tuple(x.shape), tuple(x.stride())))
        np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-12)
        assert res[0][1:] == res[1][1:]


def _ldp(L, n=4, dtype=None):
    a = L.tensor(_sym(n, np.float64, False))
    LD, piv = L.linalg.ldl_factor(a)
    return LD, piv


ERRORS = {
    "factor 1-d": lambda L: L.linalg.ldl_factor(L.ones(3)),
    "factor not square": lambda L: L.linalg.ldl_factor(L.ones(3, 4)),
    "factor int": lambda L: L.linalg.ldl_factor(L.ones(3, 3, dtype=L.int32)),
    "factor half": lambda L: L.linalg.ldl_factor(L.ones(3, 3, dtype=L.float16)),
    "factor_ex not square": lambda L: L.linalg.ldl_factor_ex(L.ones(2, 3)),
    "factor out long pivots": lambda L: L.linalg.ldl_factor(
        L.eye(3), out=(L.empty(0), L.empty(0, dtype=L.long))),
    "solve B dtype": lambda L: L.linalg.ldl_solve(*_ldp(L), L.ones(4, 2)),
    "solve B 1-d": lambda L: L.linalg.ldl_solve(*_ldp(L), L.ones(4, dtype=L.float64)),
    "solve B rows": lambda L: L.linalg.ldl_solve(*_ldp(L), L.ones(3, 2, dtype=L.float64)),
    "solve pivots shape": lambda L: L.linalg.ldl_solve(_ldp(L)[0], _ldp(L)[1][:3],
                                                       L.ones(4, 2, dtype=L.float64)),
    "solve pivots float": lambda L: L.linalg.ldl_solve(_ldp(L)[0], _ldp(L)[1].float(),
                                                       L.ones(4, 2, dtype=L.float64)),
    "solve LD not square": lambda L: L.linalg.ldl_solve(_ldp(L)[0][:3], _ldp(L)[1],
                                                        L.ones(4, 2, dtype=L.float64)),
    "solve LD int": lambda L: L.linalg.ldl_solve(_ldp(L)[0].int(), _ldp(L)[1],
                                                 L.ones(4, 2, dtype=L.int32)),
    "solve complex LD, real B": lambda L: L.linalg.ldl_solve(
        _ldp(L)[0].to(L.complex128), _ldp(L)[1], L.ones(4, 2, dtype=L.float64)),
    "solve batched LD, unbatched pivots": lambda L: L.linalg.ldl_solve(
        _ldp(L)[0].expand(2, 4, 4), _ldp(L)[1], L.ones(4, 2, dtype=L.float64)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    check_error(ERRORS[case])


def test_out():
    a = _sym(4, np.float64, False)
    b = R.standard_normal((4, 2))
    res = []
    for lib in (torch, ember):
        outs = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32),
                lib.empty(0, dtype=lib.int32))
        r = lib.linalg.ldl_factor_ex(lib.tensor(a), out=outs)
        assert r.LD is outs[0] and r.info is outs[2]
        assert type(r).__name__ == "linalg_ldl_factor_ex_out"
        xo = lib.empty(0, dtype=lib.float64)
        x = lib.linalg.ldl_solve(r.LD, r.pivots, lib.tensor(b), out=xo)
        assert x is xo
        res.append((r.LD.numpy(), r.pivots.tolist(), x.numpy()))
    assert np.array_equal(res[0][0], res[1][0]) and res[0][1] == res[1][1]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-10, atol=1e-12)


def test_factor_above_block_size():
    """Above 64 rows torch's sytrf factors in blocked panels: the same pivots, LD to rounding
    (bit for bit up to 65 rows, where the unblocked steps still run)."""
    a = _sym(65, np.float64, False)
    _compare_factor(a)
    a = _sym(100, np.float64, False)
    t, e = _factor(torch, a), _factor(ember, a)
    assert t.pivots.tolist() == e.pivots.tolist()
    np.testing.assert_allclose(e.LD.numpy(), t.LD.numpy(), rtol=0, atol=1e-10)


@pytest.mark.parametrize("fn", ["ldl_factor", "ldl_factor_ex"])
@pytest.mark.parametrize("out", ["a", ["a"], "short"])
def test_bad_out_gets_torchs_type_error(fn, out):
    outs = {}
    for lib in (torch, ember):
        o = (lib.empty(0),) if out == "short" else out
        with pytest.raises(TypeError) as e:
            getattr(lib.linalg, fn)(lib.eye(3), out=o)
        outs[lib] = str(e.value)
    assert outs[torch] == outs[ember]
