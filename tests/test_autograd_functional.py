"""Issue 12: torch.autograd.functional and gradcheck/gradgradcheck, compared with torch."""
import sys

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

RNG = np.random.default_rng(12)
A = RNG.standard_normal(3)
B = RNG.standard_normal((2, 3))


def both(fn):
    """fn(lib) -> tensors or nested tuples of them; compare torch's and ember's."""
    t, e = fn(torch), fn(ember)
    _same(t, e)
    return t, e


def _same(t, e):
    if isinstance(t, tuple):
        assert isinstance(e, tuple) and len(t) == len(e), (t, e)
        for a, b in zip(t, e):
            _same(a, b)
        return
    assert isinstance(e, ember.Tensor), type(e)
    assert tuple(t.shape) == tuple(e.shape) and str(t.dtype) == str(e.dtype), (t, e)
    assert t.requires_grad == e.requires_grad
    np.testing.assert_allclose(t.detach().numpy(), e.detach().numpy(), rtol=1e-9, atol=1e-12)


def f1(L):
    return lambda a: a.exp() * a.sum()


def f2(L):
    return lambda a, b: (a * b.sin(), (a.unsqueeze(0) * b).sum(1))


def scalar(L):
    return lambda a, b: (a.exp() * b).sum() + (a * a).sum() * b.prod()


def _t(L, x):
    return L.tensor(x)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_single_and_tuples(create_graph):
    both(lambda L: L.autograd.functional.jacobian(f1(L), _t(L, A), create_graph=create_graph))
    both(lambda L: L.autograd.functional.jacobian(f2(L), (_t(L, A), _t(L, B)),
                                                  create_graph=create_graph))
    both(lambda L: L.autograd.functional.jacobian(lambda a: (a * 2,), _t(L, A)))
    both(lambda L: L.autograd.functional.jacobian(lambda a: a.sum(), (_t(L, A),)))
    # an input the output does not use: zeros
    both(lambda L: L.autograd.functional.jacobian(lambda a, b: a * 2, (_t(L, A), _t(L, B))))


def test_hessian_vhp_hvp_vjp_jvp():
    F = torch.autograd.functional
    E = ember.autograd.functional
    both(lambda L: L.autograd.functional.hessian(lambda a: (a.exp() * a.sum()).sum(), _t(L, A)))
    both(lambda L: L.autograd.functional.hessian(scalar(L), (_t(L, A), _t(L, A[::-1].copy()))))
    v = A[::-1].copy()
    for name in ("vhp", "hvp"):
        both(lambda L: getattr(L.autograd.functional, name)(
            lambda a: (a.exp() * a.sum()).sum(), _t(L, A), _t(L, v)))
        both(lambda L: getattr(L.autograd.functional, name)(
            scalar(L), (_t(L, A), _t(L, v)), (_t(L, v), _t(L, A))))
    both(lambda L: L.autograd.functional.vjp(f1(L), _t(L, A), _t(L, v)))
    both(lambda L: L.autograd.functional.vjp(lambda a: (a * a).sum(), _t(L, A)))
    both(lambda L: L.autograd.functional.jvp(f1(L), _t(L, A), _t(L, v)))
    both(lambda L: L.autograd.functional.jvp(f2(L), (_t(L, A), _t(L, B)),
                                             (_t(L, v), _t(L, B * 2))))
    assert F.vjp is not None and E.vjp is not None


def test_create_graph_gives_higher_derivatives():
    # third order through jacobian(create_graph=True) on a composite function
    outs = {}
    for L in (torch, ember):
        x = L.tensor(A, requires_grad=True)
        j = L.autograd.functional.jacobian(lambda a: (a.sin() * a.sum()).exp(), x,
                                           create_graph=True)
        g1, = L.autograd.grad(j.sum(), x, create_graph=True)
        g2, = L.autograd.grad((g1 * g1).sum(), x, create_graph=True)
        g3, = L.autograd.grad(g2.sum(), x)
        outs[L] = [t.detach().numpy() for t in (j, g1, g2, g3)]
    for a, b in zip(outs[torch], outs[ember]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L: L.autograd.functional.jacobian(lambda a: a.exp(), L.ones(2), strategy="bad"),
    lambda L: L.autograd.functional.jacobian(lambda a: a.exp(), L.ones(2),
                                             strategy="forward-mode"),
    lambda L: L.autograd.functional.jacobian(lambda a: a.exp(), L.ones(2), vectorize=True,
                                             strategy="forward-mode", create_graph=True),
    lambda L: L.autograd.functional.jacobian(lambda a: L.zeros(2), L.ones(2), strict=True),
    lambda L: L.autograd.functional.jacobian(lambda a, b: a.sum(), (L.ones(2), L.ones(3)),
                                             strict=True),
    lambda L: L.autograd.functional.jacobian(lambda a: 3, L.ones(2)),
    lambda L: L.autograd.functional.jacobian(lambda a: [a], L.ones(2)),
    lambda L: L.autograd.functional.jacobian(lambda a: a, [L.ones(2)]),
    lambda L: L.autograd.functional.jacobian(lambda a: a, 3),
    lambda L: L.autograd.functional.vjp(lambda a: a.exp(), L.ones(2)),
    lambda L: L.autograd.functional.vjp(lambda a: a.exp(), L.ones(2), L.ones(3)),
    lambda L: L.autograd.functional.vjp(lambda a: a * 2, L.ones(2), 3),
    lambda L: L.autograd.functional.vjp(lambda a, b: a * 2, (L.ones(2), L.ones(3)),
                                        L.ones(2), strict=True),
    lambda L: L.autograd.functional.vjp(lambda a: a.detach(), L.ones(2), L.ones(2),
                                        strict=True),
    lambda L: L.autograd.functional.jvp(lambda a: a.exp(), L.ones(2)),
    lambda L: L.autograd.functional.jvp(lambda a: a * 2, L.ones(2), L.ones(3)),
    lambda L: L.autograd.functional.jvp(lambda a: a * 2, L.ones(2), (L.ones(2), L.ones(2))),
    lambda L: L.autograd.functional.jvp(lambda a, b: a * 2, (L.ones(2), L.ones(3)),
                                        (L.ones(2), L.ones(3)), strict=True),
    lambda L: L.autograd.functional.hessian(lambda a: a, L.ones(2)),
    lambda L: L.autograd.functional.hessian(lambda a: a.sum(), L.ones(2), strict=True),
    lambda L: L.autograd.functional.hessian(lambda a, b: (a * b.sum()).sum(),
                                            (L.ones(2), L.ones(3)), strict=True),
    lambda L: L.autograd.functional.hvp(lambda a: a, L.ones(2), L.ones(2)),
    lambda L: L.autograd.functional.hvp(lambda a: a.sum(), L.ones(2), L.ones(2), strict=True),
    lambda L: L.autograd.functional.vhp(lambda a: a.sum(), L.ones(2), L.ones(2), strict=True),
    lambda L: L.autograd.functional.vhp(lambda a: (a * a).sum(), L.ones(2), L.ones(3)),
])
def test_functional_errors(call):
    check_error(call)


def test_results_are_detached_without_create_graph():
    x = ember.tensor(A, requires_grad=True)
    j = ember.autograd.functional.jacobian(lambda a: a.exp(), x)
    assert not j.requires_grad and x.grad is None
    o, v = ember.autograd.functional.vjp(lambda a: a.exp(), x, ember.ones(3))
    assert not o.requires_grad and not v.requires_grad


# ---------------------------------------------------------------- gradcheck


def _d(L, x):
    return L.tensor(x, dtype=L.float64, requires_grad=True)


def test_gradcheck_passes_on_composites_and_custom_functions():
    for L in (torch, ember):
        assert L.autograd.gradcheck(lambda a, b: (a.sin() * b).tanh() @ b.t(),
                                    (_d(L, B), _d(L, B[::-1].copy())))
        assert L.autograd.gradgradcheck(lambda a: (a.exp() * a).sum(0), (_d(L, B),))
        assert L.autograd.gradcheck(lambda a: a.cumsum(1) * a, _d(L, B), fast_mode=True)
        assert L.autograd.gradgradcheck(lambda a: a.sin() * a, _d(L, A), fast_mode=True)


def make_square(L, factor):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return factor * a * g
    return Square


@pytest.mark.parametrize("fast", [False, True])
def test_gradcheck_failure_messages(fast):
    # a wrong custom backward: same error type and first line; slow mode's whole message
    errs = {}
    for L in (torch, ember):
        sq = make_square(L, 3)
        with pytest.raises(Exception) as info:
            L.autograd.gradcheck(sq.apply, _d(L, A), fast_mode=fast)
        errs[L] = info.value
        assert L.autograd.gradcheck(make_square(L, 2).apply, _d(L, A), fast_mode=fast)
        assert not L.autograd.gradcheck(sq.apply, _d(L, A), fast_mode=fast,
                                        raise_exception=False)
    t, e = errs[torch], errs[ember]
    assert type(t).__name__ == type(e).__name__ == "GradcheckError"
    assert isinstance(e, RuntimeError)
    assert str(t).split("\n")[0] == str(e).split("\n")[0]
    if not fast:
        assert str(t) == str(e)
    else:
        tail = "The max per-element difference (slow mode) is:"
        assert tail in str(e)
        assert str(t).split("\n")[4:12] == str(e).split("\n")[4:12]


def test_gradcheck_argument_errors_and_warning():
    check_error(lambda L: L.autograd.gradcheck(lambda a: a * 2, L.ones(2, dtype=L.float64)))
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        with pytest.raises(sys.modules["ember.autograd.gradcheck"].GradcheckError):
            ember.autograd.gradcheck(lambda a: a.exp() * 100, ember.ones(2, requires_grad=True))


def test_gradgradcheck_catches_a_wrong_double_backward():
    for L in (torch, ember):
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 3 * a.detach() ** 2 * g      # first order right, second order wrong

        x = _d(L, A)
        assert L.autograd.gradcheck(Cube.apply, x)
        with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to "
                                               "input 0"):
            L.autograd.gradgradcheck(Cube.apply, x)
