"""Issue 12: gradcheck's complex (Wirtinger) checks, check_forward_ad, check_batched_grad,
check_batched_forward_grad, check_backward_ad=False, and autograd.grad(is_grads_batched=True),
compared with torch: verdicts, error types, and whole slow-mode messages."""
import numpy as np
import pytest
import torch
from oracle import check_error

import ember

RNG = np.random.default_rng(120)
A = RNG.standard_normal(3)
Z = RNG.standard_normal(2) + 1j * RNG.standard_normal(2)
M = RNG.standard_normal((2, 3))


def _d(L, x):
    dt = L.complex128 if np.iscomplexobj(x) else L.float64
    return L.tensor(x, dtype=dt, requires_grad=True)


def _fn(L, forward, backward, jvp=None):
    """An autograd.Function of L from (ctx, a) -> out, (saved a, g) -> grad, (a, t) -> tangent."""
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            ctx.a = a.detach()
            return forward(a)

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return backward(a, g)

        @staticmethod
        def jvp(ctx, t):
            return jvp(ctx.a, t)
    return F.apply


def _raised(fn):
    out = {}
    for L in (torch, ember):
        with pytest.raises(Exception) as info:
            fn(L)
        out[L] = info.value
    t, e = out[torch], out[ember]
    assert type(t).__name__ == type(e).__name__, (t, e)
    return str(t), str(e)


GOOD = [  # (name, input, function): gradcheck with every flag passes in both libraries
    ("holomorphic", Z, lambda a: a * a * a.sin()),
    ("non-holomorphic", Z, lambda a: a * a.abs()),
    ("complex->real", Z, lambda a: (a * a).abs()),
    ("real->complex", A, lambda a: a * (1 + 2j) + a.exp()),
    ("complex.real", Z, lambda a: a.real * a.imag),
    ("real", A, lambda a: (a.sin() * a, a.cumsum(0))),
]


@pytest.mark.parametrize("name,x,f", GOOD, ids=[g[0] for g in GOOD])
@pytest.mark.parametrize("fast", [False, True])
def test_gradcheck_every_flag_passes(name, x, f, fast):
    for L in (torch, ember):
        assert L.autograd.gradcheck(f, (_d(L, x),), fast_mode=fast, check_forward_ad=True,
                                    check_batched_grad=True, check_batched_forward_grad=True)
        assert L.autograd.gradcheck(f, (_d(L, x),), fast_mode=fast, check_forward_ad=True,
                                    check_backward_ad=False)


def test_gradgradcheck_complex_and_fwd_over_rev():
    for L in (torch, ember):
        assert L.autograd.gradgradcheck(lambda a: a * a.conj() * a, (_d(L, Z),))
        assert L.autograd.gradgradcheck(lambda a: (a.sin() * a).sum(), (_d(L, M),),
                                        check_fwd_over_rev=True, check_batched_grad=True)
        assert L.autograd.gradgradcheck(lambda a: a.sin() * a, (_d(L, A),),
                                        check_fwd_over_rev=True, check_rev_over_rev=False,
                                        check_undefined_grad=False)


def test_flag_assertions():
    f = (lambda a: a * a)
    for kw in ({"check_backward_ad": False},
               {"check_batched_forward_grad": True},
               {"check_batched_grad": True, "check_backward_ad": False, "check_forward_ad": True}):
        check_error(lambda L, kw=kw: L.autograd.gradcheck(f, (_d(L, A),), **kw))
    check_error(lambda L: L.autograd.gradgradcheck(f, (_d(L, A),), check_rev_over_rev=False,
                                                   check_fwd_over_rev=True))


# wrong derivatives: each caught, with torch's message (slow mode: the whole message)
WRONG = [
    # backward right for the imaginary part of the output only (grad 1j), wrong for the real
    ("complex out, real part", Z, lambda a: a * a,
     lambda a, g: g * 2 * a.conj() * (3 if bool((g.imag == 0).all()) else 1), None),
    ("complex out, imaginary part", Z, lambda a: a * a, lambda a, g: g * 2 * a, None),
    ("complex->real", Z, lambda a: a.abs() ** 2, lambda a, g: g * a, None),
    ("real->complex", A, lambda a: a * (1 + 2j), lambda a, g: (g * (1 + 2j)).real, None),
]


@pytest.mark.parametrize("name,x,f,b,j", WRONG, ids=[w[0] for w in WRONG])
@pytest.mark.parametrize("fast", [False, True])
def test_complex_backward_mismatch_messages(name, x, f, b, j, fast):
    t, e = _raised(lambda L: L.autograd.gradcheck(_fn(L, f, b), (_d(L, x),), fast_mode=fast))
    assert t.split("\n")[0].split(",")[0] == e.split("\n")[0].split(",")[0]
    if fast:
        _same_slow_part(t, e)
    else:
        assert t == e


def _same_slow_part(t, e):
    """fast mode's messages: the slow-mode Jacobians equal; the max difference to rounding."""
    tail = "Below, we recompute numerical and analytical jacobians in slow mode:"
    last = "The max per-element difference (slow mode) is: "
    t, e = t.split(tail)[1], e.split(tail)[1]
    assert t.split(last)[0] == e.split(last)[0]
    assert float(t.split(last)[1][:-2]) == pytest.approx(float(e.split(last)[1][:-2]), rel=1e-6)


FWD_WRONG = [
    ("real", A, lambda a, t: 3 * t),
    ("real->complex", A, lambda a, t: t * (1 + 3j)),
    ("complex, real part", Z, lambda a, t: 2 * a * t * (3 if bool((t.imag == 0).all()) else 1)),
    ("complex, imaginary part", Z,
     lambda a, t: 2 * a * t * (3 if bool((t.real == 0).all()) else 1)),
]


@pytest.mark.parametrize("name,x,jvp", FWD_WRONG, ids=[w[0] for w in FWD_WRONG])
@pytest.mark.parametrize("fast", [False, True])
def test_forward_ad_mismatch_messages(name, x, jvp, fast):
    holo = np.iscomplexobj(x)
    f = (lambda a: a * a) if holo else (lambda a: a * (1 + 2j))
    b = (lambda a, g: g * 2 * a.conj()) if holo else (lambda a, g: (g * (1 - 2j)).real)
    for back in (True, False):
        t, e = _raised(lambda L, back=back: L.autograd.gradcheck(
            _fn(L, f, b, jvp), (_d(L, x),), fast_mode=fast, check_forward_ad=True,
            check_backward_ad=back))
        assert t.split("\n")[0] == e.split("\n")[0]
        if fast:
            _same_slow_part(t, e)
        else:
            assert t == e


_ITEM = "Batching rule not implemented for aten::item. We could not generate a fallback."


@pytest.fixture
def vmap_refusing_item(monkeypatch):
    """ember.func.vmap runs the samples one at a time, where .item() is fine: stand in a vmap
    that refuses the way torch's does, to compare how gradcheck reports the failure."""
    import ember.func as efunc

    def refusing(fn, *args, **kwargs):
        def run(*xs):
            raise RuntimeError(_ITEM)
        return run
    monkeypatch.setattr(efunc, "vmap", refusing)


def _item_fn(L):
    return _fn(L, lambda a: a * a, lambda a, g: g * 2 * a * (g.sum().item() * 0 + 1),
               lambda a, t: 2 * a * t * (t.sum().item() * 0 + 1))


def test_batched_forward_check_runs_functions_as_torchs_legacy_vmap():
    """check_batched_forward_grad runs a custom Function's forward and jvp on the batched
    tensors, as torch's legacy vmap does: no vmap staticmethod is needed (torch passes), and
    a jvp that calls .item() fails with torch's message, whole."""
    kw = {"check_forward_ad": True, "check_batched_forward_grad": True}
    for L in (torch, ember):
        f = _fn(L, lambda a: a * a, lambda a, g: g * 2 * a, lambda a, t: 2 * a * t)
        assert L.autograd.gradcheck(f, (_d(L, A),), **kw)
    t, e = _raised(lambda L: L.autograd.gradcheck(_item_fn(L), (_d(L, A),), **kw))
    assert t == e
    assert t.startswith("While computing batched gradients, got: " + _ITEM)


def test_batched_backward_check_refuses_item_as_torch():
    kw = {"check_batched_grad": True}
    t, e = _raised(lambda L: L.autograd.gradcheck(_item_fn(L), (_d(L, A),), **kw))
    assert t == e


@pytest.mark.parametrize("kw", [{"check_batched_grad": True},
                                {"check_forward_ad": True, "check_batched_forward_grad": True}])
def test_batched_failure_message_is_torchs(kw, vmap_refusing_item):
    t, e = _raised(lambda L: L.autograd.gradcheck(_item_fn(L), (_d(L, A),), **kw))
    assert t == e
    assert t.startswith("While computing batched gradients, got: " + _ITEM)


# ---------------------------------------------------------------- grad(is_grads_batched=True)

def test_grad_is_grads_batched_matches_torch():
    gy = np.random.default_rng(5).standard_normal((4, 2, 3))
    res = {}
    for L in (torch, ember):
        x = L.tensor(M, dtype=L.float64, requires_grad=True)
        z = L.tensor(A[:2], dtype=L.float64, requires_grad=True)
        y = x.sin() * x
        s = (x * x).sum()
        g = L.tensor(gy, dtype=L.float64)
        gs = L.tensor(np.arange(4.0), dtype=L.float64)
        out = L.autograd.grad([s, y], [x, z], [gs, g], is_grads_batched=True,
                              allow_unused=True, retain_graph=True)
        mat = L.autograd.grad(y, [x, z], g, is_grads_batched=True, materialize_grads=True,
                              retain_graph=True)
        gg, = L.autograd.grad(y, x, g, is_grads_batched=True, create_graph=True)
        second, = L.autograd.grad(gg.sum(), x)
        res[L] = (out, mat, gg, second)
    t, e = res[torch], res[ember]
    assert t[0][1] is None and e[0][1] is None
    for a, b in [(t[0][0], e[0][0]), (t[1][0], e[1][0]), (t[1][1], e[1][1]), (t[2], e[2]),
                 (t[3], e[3])]:
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)
    assert e[2].grad_fn is not None


def test_grad_is_grads_batched_errors():
    def prog(L, go, n=3):
        x = L.ones(n, requires_grad=True)
        return L.autograd.grad(x * 2, x, go(L), is_grads_batched=True)
    check_error(lambda L: prog(L, lambda L: L.ones(3, 4)))
    check_error(lambda L: prog(L, lambda L: L.ones(3)))
    check_error(lambda L: prog(L, lambda L: None))

    def two(L):
        x = L.ones(3, requires_grad=True)
        return L.autograd.grad([x.sum(), x * 2], x, [L.ones(2), L.ones(3, 3)],
                               is_grads_batched=True)
    check_error(two)
