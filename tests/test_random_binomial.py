"""torch.binomial bit for bit (ember/random.py, _binomial_run): the values and the generator
state after (how many uniforms each element consumed) for both of torch's branches
(inversion below count * q = 10, BTRS above), prob above and below 0.5, the edge cases
(count <= 0, prob <= 0, prob >= 1, NaN prob), float and double, broadcasting, layouts, the
NotImplemented gradient node and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error
from test_random import same

RNG = np.random.default_rng(2026)


def _pair(n, cmax, dtype, integral=True):
    c = RNG.uniform(0, cmax, n)
    if integral:
        c = np.floor(c)
    p = RNG.uniform(0, 1, n)
    return c.astype(dtype), p.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cmax", [5, 30, 200, 1e4, 1e7])
def test_binomial_values_and_draws(dtype, cmax):
    for seed in range(6):
        c, p = _pair(500, cmax, dtype, integral=seed % 2 == 0)
        same(lambda L, c=c, p=p: L.binomial(L.tensor(c), L.tensor(p)), seed=seed,
             what=f"binomial {dtype} cmax={cmax} seed={seed}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_branch_edges(dtype):
    # count * q right at 10 (the branch switch), q at 0.5 from both sides, tiny and huge
    # probabilities, and the early returns
    c = np.array([20, 20, 10, 40, 100, 100, 1e9, 1e9, 3, 0, -4, 5, 5, 5, 5, 1, 2.5, 1e6,
                  7.5], dtype)
    p = np.array([0.5, 0.5 + 1e-7, 1.0, 0.25, 0.1, 0.9, 1e-9, 1 - 1e-8, 0.7, 0.5, 0.5, 0.0,
                  -0.3, 1.0, 1.5, 0.5, 0.999, 1e-5, 0.2], dtype)
    for seed in range(20):
        same(lambda L: L.binomial(L.tensor(c), L.tensor(p)), seed=seed)
    same(lambda L: L.binomial(L.tensor([5.0, 7.0]), L.tensor([float("nan"), 0.4])))


def test_binomial_when_the_uniforms_drawn_ahead_run_out(monkeypatch):
    import importlib
    R = importlib.import_module("ember.random")
    monkeypatch.setattr(R, "sample_binomial", lambda g, c, p, f32: np.array(
        R._sequential(g, list(zip(c.tolist(), p.tolist())),
                      lambda chunk, u: R._binomial_run(chunk, u, f32), lambda chunk: 1),
        np.float64))
    same(lambda L: L.binomial(L.tensor([30.0] * 300 + [400.0] * 300), L.tensor([0.2] * 600)))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_binomial_shapes_layouts_and_generators():
    c = np.array([[10.0, 20.0], [30.0, 40.0]])
    p = np.array([[0.3, 0.4], [0.5, 0.6]])
    same(lambda L: L.binomial(L.tensor(c).t(), L.tensor(p)))          # drawn in C order
    same(lambda L: L.binomial(L.tensor(c), L.tensor(p).t()))
    same(lambda L: L.binomial(L.tensor(7.0), L.tensor(0.3)))          # 0-d
    same(lambda L: L.binomial(L.zeros(0), L.zeros(0)))
    same(lambda L: L.binomial(L.tensor([50.0]).expand(3), L.tensor([0.3, 0.4, 0.5])))
    g1, g2 = torch.Generator().manual_seed(3), ember.Generator().manual_seed(3)
    a = torch.binomial(torch.tensor(c), torch.tensor(p), generator=g1)
    b = ember.binomial(ember.tensor(c), ember.tensor(p), generator=g2)
    assert a.tolist() == b.tolist()
    assert np.array_equal(g1.get_state().numpy(), g2.get_state()._data)
    # a prob that broadcasts the result beyond count's shape: torch resizes its output and
    # warns
    for L in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.manual_seed(0)
            r = L.binomial(L.tensor([[5.0], [6.0]]), L.tensor([[0.3, 0.2]]))
        assert tuple(r.shape) == (2, 2)
        assert any("was resized since it had shape [2, 1]" in str(x.message) for x in w)
    same(lambda L: L.binomial(L.tensor([[5.0], [6.0]]), L.tensor([[0.3, 0.2]])))


def test_binomial_gradient_node():
    for L in (torch, ember):
        c = L.tensor([5.0, 9.0], requires_grad=True)
        r = L.binomial(c, L.tensor([0.3, 0.5]))
        assert r.requires_grad and r.grad_fn is not None
        assert type(r.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::binomial is not "
                                               "implemented"):
            r.sum().backward()
        with L.no_grad():
            assert not L.binomial(c, L.tensor([0.3, 0.5])).requires_grad
        r = L.binomial(L.tensor([5.0]), L.tensor([0.3], requires_grad=True))
        assert type(r.grad_fn).__name__ == "NotImplemented"
        assert len(r.grad_fn.next_functions) == 1      # edges only to inputs needing grad
        r = L.binomial(c, L.tensor([0.3, 0.5], requires_grad=True))
        assert len(r.grad_fn.next_functions) == 2


def test_binomial_errors():
    check_error(lambda L: L.binomial(L.tensor([5]), L.tensor([0.3])))
    check_error(lambda L: L.binomial(L.tensor([True]), L.tensor([0.3])))
    check_error(lambda L: L.binomial(L.tensor([5.0]), L.tensor([1])))
    check_error(lambda L: L.binomial(L.tensor([5.0]), L.tensor([0.3], dtype=L.float64)))
    check_error(lambda L: L.binomial(L.tensor([5.0], dtype=L.float64), L.tensor([0.3])))
    check_error(lambda L: L.binomial(L.tensor([5.0], dtype=L.float16),
                                     L.tensor([0.3], dtype=L.float16)))
    check_error(lambda L: L.binomial(L.tensor([5.0], dtype=L.float16), L.tensor([0.3])))
    check_error(lambda L: L.binomial(L.tensor([5.0, 6.0]), L.tensor([0.3, 0.2, 0.1])))
    check_error(lambda L: L.binomial(5.0, L.tensor([0.3])))
    check_error(lambda L: L.binomial(L.tensor([5.0]), 0.3))
    check_error(lambda L: L.binomial(L.tensor([5.0 + 0j]), L.tensor([0.3 + 0j])))


def test_binomial_refuses_a_count_torch_never_finishes():
    # torch's CPU sampler loops forever on a NaN or +inf count with 0 < prob < 1
    for bad in (float("nan"), float("inf")):
        with pytest.raises(RuntimeError, match="count must be finite"):
            ember.binomial(ember.tensor([5.0, bad]), ember.tensor([0.3, 0.4]))
    same(lambda L: L.binomial(L.tensor([float("-inf"), float("nan")]),
                              L.tensor([0.3, 0.0])))
