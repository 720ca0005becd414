"""Issue 12: autograd.grad(is_grads_batched=True) runs ONE backward pass with the batch carried
by vmap through every backward formula (Note [Batched backward] in ember/autograd/__init__.py),
as torch does: values equal torch's and the per-row loop's over a table of ops, a custom
Function's backward runs once on batched gradients, .item() there fails with torch's error,
retain_graph and create_graph behave as torch's, and nodes whose formula cannot run batched
fall back to the per-row loop without a warning (torch's legacy fallback warnings are off)."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check_error

import ember

RNG = np.random.default_rng(1212)
X = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 4))
B = 5


def _fn(L):
    class Cube(L.autograd.Function):
        calls = 0

        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a ** 3 * b

        @staticmethod
        def backward(ctx, g):
            Cube.calls += 1
            a, b = ctx.saved_tensors
            return 3 * a ** 2 * b * g, (a ** 3 * g).sum(0)
    return Cube


OPS = {
    "sin_mul": lambda L, x, w: x.sin() * x,
    "mm_tanh": lambda L, x, w: (x @ w).tanh(),
    "softmax": lambda L, x, w: L.nn.functional.softmax(x, -1),
    "log_softmax": lambda L, x, w: L.nn.functional.log_softmax(x @ w, 0),
    "index": lambda L, x, w: x[[0, 2, 2]] * 2,
    "select": lambda L, x, w: x[1] * w[2],
    "gather": lambda L, x, w: x.gather(1, L.tensor([[0, 1], [3, 3], [2, 0]])),
    "cumsum": lambda L, x, w: x.cumsum(1) * w[0],
    "max": lambda L, x, w: x.max(1).values,
    "sort": lambda L, x, w: x.sort(1).values,
    "clamp_abs": lambda L, x, w: x.clamp(-0.5, 0.5) + x.abs(),
    "where": lambda L, x, w: L.where(x > 0, x * w[:3], x.exp()),
    "norm": lambda L, x, w: x.norm(dim=1),
    "linear_relu": lambda L, x, w: L.nn.functional.relu(L.nn.functional.linear(x, w, w[0])),
    "pow_div": lambda L, x, w: x.pow(3) / (w[:3] ** 2 + 1),
    "var_mean": lambda L, x, w: x.var(0) + x.mean(1).sum(),
    "cat": lambda L, x, w: L.cat([x, w], 0),
    "broadcast": lambda L, x, w: x[:, None, :] * w,
    "permute": lambda L, x, w: x.reshape(2, 6).t().contiguous() * 3,
    "unbind": lambda L, x, w: x.unbind(0)[1],
    "split": lambda L, x, w: L.stack(x.split(2, 1)[::-1]),
    "to_float32": lambda L, x, w: (x * w.sum(0)).to(L.float32),
    "hardswish": lambda L, x, w: L.nn.functional.hardswish(x * 3),
    "embedding": lambda L, x, w: L.nn.functional.embedding(L.tensor([0, 3, 3]), w),
    "pdist": lambda L, x, w: L.nn.functional.pdist(x),
    "conv1d": lambda L, x, w: L.nn.functional.conv1d(x[None], w[None, :3, :2]),
    "logdet": lambda L, x, w: L.logdet(w @ w.t() + L.eye(4, dtype=L.float64))[None],
    "kron": lambda L, x, w: L.kron(x, w[:2, :2]),
    "rfft_abs": lambda L, x, w: L.fft.rfft(x).abs(),
    "function": lambda L, x, w: _fn(L).apply(x, w[0]),
}


def _np(t):
    return None if t is None else t.detach().numpy()


def _run(L, f, create_graph=False):
    x = L.tensor(X, dtype=L.float64, requires_grad=True)
    w = L.tensor(W, dtype=L.float64, requires_grad=True)
    y = f(L, x, w)
    g = L.tensor(np.random.default_rng(7).standard_normal((B,) + tuple(y.shape)), dtype=y.dtype)
    got = L.autograd.grad(y, [x, w], g, is_grads_batched=True, allow_unused=True,
                          retain_graph=True, create_graph=create_graph)
    return x, w, y, g, got


@pytest.mark.parametrize("name", sorted(OPS))
def test_values_match_torch_and_the_row_loop(name):
    f = OPS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # (neither library warns here)
        *_, want = _run(torch, f)
        _, _, y, g, got = _run(ember, f)
    for a, b in zip(want, got):
        assert (a is None) == (b is None)
        if a is not None:
            assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
            assert b.grad_fn is None and not b.requires_grad
            np.testing.assert_allclose(_np(b), _np(a), rtol=1e-10, atol=1e-12)
    # the per-row loop (one autograd.grad per grad output) gives the same values
    x = ember.tensor(X, dtype=ember.float64, requires_grad=True)
    w = ember.tensor(W, dtype=ember.float64, requires_grad=True)
    y = f(ember, x, w)
    for k in range(B):
        row = ember.autograd.grad(y, [x, w], g[k], allow_unused=True, retain_graph=True)
        for r, b in zip(row, got):
            if r is not None:
                np.testing.assert_allclose(_np(b)[k], _np(r), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["sin_mul", "mm_tanh", "softmax", "index", "cumsum",
                                  "broadcast", "function", "linear_relu", "norm"])
def test_create_graph_second_order_matches_torch(name):
    f = OPS[name]
    res = {}
    for L in (torch, ember):
        x, w, _, _, got = _run(L, f, create_graph=True)
        used = [(t, i) for t, i in zip(got, (x, w)) if t is not None]
        s = sum((t * t).sum() for t, _ in used)
        try:
            res[L] = L.autograd.grad(s, [i for _, i in used], allow_unused=True)
        except RuntimeError as e:   # (a gradient linear in the grad outputs: torch's error)
            res[L] = str(e)
    if isinstance(res[torch], str):
        assert res[ember] == res[torch]
        return
    for a, b in zip(res[torch], res[ember]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np(b), _np(a), rtol=1e-9, atol=1e-12)


def test_function_backward_runs_once_on_batched_grads():
    """torch calls a custom Function's backward once, on the whole batch of gradients."""
    seen = {}
    for L in (torch, ember):
        F = _fn(L)
        shapes = []

        class Spy(F):
            @staticmethod
            def backward(ctx, g, F=F, shapes=shapes):
                shapes.append(tuple(g.shape))
                return F.backward(ctx, g)
        x = L.tensor(X, dtype=L.float64, requires_grad=True)
        w = L.tensor(W[0], dtype=L.float64, requires_grad=True)
        y = Spy.apply(x, w)
        got = L.autograd.grad(y, [x, w], L.ones(B, 3, 4, dtype=L.float64),
                              is_grads_batched=True)
        seen[L] = (shapes, [tuple(t.shape) for t in got])
    assert seen[ember] == seen[torch] == ([(3, 4)], [(B, 3, 4), (B, 4)])


def test_item_in_backward_fails_as_torch():
    def prog(L):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * (g.sum().item() * 0 + 2)
        x = L.ones(3, requires_grad=True)
        return L.autograd.grad(F.apply(x), x, L.eye(3), is_grads_batched=True)
    check_error(prog)


def test_retain_graph_as_torch():
    def prog(L, retain):
        x = L.tensor(X, requires_grad=True)
        y = (x.exp() * x).sum(0)
        g = L.ones(2, 4)
        L.autograd.grad(y, x, g, is_grads_batched=True, retain_graph=retain)
        return L.autograd.grad(y, x, g, is_grads_batched=True)
    check_error(lambda L: prog(L, False))
    np.testing.assert_allclose(_np(prog(ember, True)[0]), _np(prog(torch, True)[0]),
                               rtol=1e-6)


def _counting(L):
    """An identity Function that counts its backward calls (one per backward pass)."""
    class Ident(L.autograd.Function):
        calls = 0

        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            Ident.calls += 1
            return g
    return Ident


def test_fallback_restores_saved_tensors():
    """A node whose formula cannot run batched makes the pass fall back, whole, to one
    backward per row; the saved tensors the first attempt freed are put back first."""
    res = {}
    for L in (torch, ember):
        Ident = _counting(L)
        x = L.tensor(X, dtype=L.float64, requires_grad=True)
        # exp's node runs (and frees its result) before pdist's formula (ember: reads data)
        y = L.nn.functional.pdist(Ident.apply(x).exp() * x)
        g = L.tensor(np.random.default_rng(3).standard_normal((B, 3)))
        got, = L.autograd.grad(y, x, g, is_grads_batched=True)
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
            L.autograd.grad(y, x, g, is_grads_batched=True)
        res[L] = got, Ident.calls
    np.testing.assert_allclose(_np(res[ember][0]), _np(res[torch][0]), rtol=1e-12)
    assert res[torch][1] == 1 and res[ember][1] == B     # (ember: the row loop)


@pytest.mark.parametrize("name", ["sin_mul", "mm_tanh", "broadcast", "var_mean", "permute",
                                  "to_float32", "softmax", "log_softmax", "select", "cumsum",
                                  "cat", "where", "pow_div", "function", "unbind", "split",
                                  "linear_relu", "index", "norm", "kron", "max", "sort",
                                  "gather", "hardswish", "conv1d", "rfft_abs",
                                  "clamp_abs"])
def test_one_pass_for_common_formulas(name):
    """The formulas jacrev of an MLP meets run batched, in one pass (no fallback)."""
    Ident = _counting(ember)
    x = ember.tensor(X, dtype=ember.float64, requires_grad=True)
    w = ember.tensor(W, dtype=ember.float64, requires_grad=True)
    y = OPS[name](ember, Ident.apply(x), w)
    g = ember.ones((B,) + tuple(y.shape), dtype=y.dtype)
    ember.autograd.grad(y, [x, w], g, is_grads_batched=True, allow_unused=True)
    assert Ident.calls == 1


def test_ops_without_rules_do_not_warn(monkeypatch):
    """torch's legacy vmap (is_grads_batched) keeps its fallback warnings off: a backward that
    uses ops without batching rules warns in neither library."""
    import ember.func._batching as batching
    monkeypatch.setattr(batching, "_WARNED", set())     # (ember.func.vmap warns once per op)
    res = {}
    for L in (torch, ember):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g, L=L):
                return L.kron(g, L.ones(1, dtype=L.float64)) + g.cummax(0).values * 3
        x = L.ones(3, dtype=L.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got, = L.autograd.grad(F.apply(x), x, L.eye(3, dtype=L.float64),
                                   is_grads_batched=True)
        res[L] = got, [str(m.message) for m in w]
    assert res[ember][1] == res[torch][1] == []
    np.testing.assert_allclose(_np(res[ember][0]), _np(res[torch][0]), rtol=1e-12)
