"""nn.utils against torch.nn.utils: gradient clipping (norms of every order, non-finite
norms, the returned total norm), clip_grad_value_, parameters <-> vector."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def model(L, dtype="float32"):
    """A small model with known parameters and gradients (one parameter left without)."""
    m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Linear(4, 2), L.nn.Linear(2, 2))
    with L.no_grad():
        for k, p in enumerate(m.parameters()):
            p.data = L.tensor(np.cos(np.arange(p.numel()) * 0.7 + k).reshape(tuple(p.shape)))
    m = m.to(getattr(L, dtype))
    x = L.tensor(np.linspace(-1, 2, 15).reshape(5, 3)).to(getattr(L, dtype))
    (m(x) ** 2).sum().backward()
    m[2].bias.grad = None
    return m


def grads(m):
    return [None if p.grad is None else p.grad.detach().numpy() if isinstance(p, torch.Tensor)
            else p.grad._data for p in m.parameters()]


def same(prog, tol=1e-6):
    t, e = prog(torch), prog(ember)
    tr, er = t[0], e[0]
    if tr is None:
        assert er is None
    else:
        assert str(tr.dtype) == str(er.dtype) and tuple(tr.shape) == tuple(er.shape)
        np.testing.assert_allclose(er._data, tr.numpy(), rtol=tol, atol=tol)
    for a, b in zip(grads(t[1]), grads(e[1])):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


@pytest.mark.parametrize("norm_type", [2, 2.0, 1, 3.5, float("inf"), "inf", 0])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm(norm_type, max_norm, dtype):
    def prog(L):
        m = model(L, dtype)
        return L.nn.utils.clip_grad_norm_(m.parameters(), max_norm, norm_type=norm_type), m
    same(prog, 1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("call", [
    lambda L, m: L.nn.utils.clip_grad_norm_(m[0].weight, 0.1),
    lambda L, m: L.nn.utils.clip_grad_norm_([], 0.1),
    lambda L, m: L.nn.utils.clip_grad_norm_(m.parameters(), 0.1, foreach=True),
    lambda L, m: L.nn.utils.clip_grad_norm_(list(m.parameters())[4:], 0.1),
    lambda L, m: L.nn.utils.get_total_norm([p.grad for p in m[0].parameters()], 3),
    lambda L, m: L.nn.utils.get_total_norm(m[0].weight.grad),
    lambda L, m: L.nn.utils.get_total_norm([]),
    lambda L, m: L.nn.utils.clip_grads_with_norm_(m.parameters(), 1.0, L.tensor(5.0)),
    lambda L, m: L.nn.utils.clip_grad_value_(m.parameters(), 0.5),
    lambda L, m: L.nn.utils.clip_grad_value_(m[1].weight, 1),
])
def test_clip_variants(call):
    def prog(L):
        m = model(L)
        return call(L, m), m
    same(prog, 1e-5)


def test_non_finite():
    def prog(L):
        m = model(L)
        m[0].weight.grad[0, 0] = float("nan")
        return L.nn.utils.clip_grad_norm_(m.parameters(), 1.0), m
    same(prog)

    def raises(L):
        m = model(L)
        m[1].bias.grad[0] = float("inf")
        L.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
    check_error(raises)


def test_deprecated_alias():
    def prog(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.utils.clip_grad_norm(model(L).parameters(), 1.0)
        return [(x.category.__name__, str(x.message)) for x in w]
    assert prog(torch) == prog(ember)


def test_parameters_to_vector_and_back():
    def prog(L):
        m = model(L, "float64")
        v = L.nn.utils.parameters_to_vector(m.parameters())
        name = type(v.grad_fn).__name__
        (v * L.arange(v.numel(), dtype=L.float64)).sum().backward()
        new = L.arange(40, dtype=L.float64) * 0.5
        L.nn.utils.vector_to_parameters(new, m.parameters())
        new[0] = 100.0              # the parameters now share new's memory
        return (v.detach(), name, [p.grad.tolist() for p in m[2].parameters()
                                   if p.grad is not None], [p.tolist() for p in m.parameters()])
    t, e = prog(torch), prog(ember)
    np.testing.assert_allclose(e[0]._data, t[0].numpy())
    assert t[1] == e[1] and t[3] == e[3]
    for a, b in zip(t[2], e[2]):
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_conversion_errors():
    check_error(lambda L: L.nn.utils.vector_to_parameters([1.0], model(L).parameters()))
    check_error(lambda L: L.nn.utils.parameters_to_vector([]))
