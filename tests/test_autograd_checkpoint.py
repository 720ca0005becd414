"""Issue 12: torch.utils.checkpoint (both variants), compared with torch: outputs, grad_fn
names, gradients (dropout inside: the RNG state is replayed), and the memory it saves."""
import tracemalloc
import warnings

import numpy as np
import pytest
import torch

import ember

X = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)


def run(L, reentrant, sequential):
    L.manual_seed(0)
    m = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.Tanh(), L.nn.Dropout(0.5), L.nn.Linear(8, 8),
                        L.nn.Sigmoid(), L.nn.Linear(8, 2))
    x = L.tensor(X, requires_grad=True)
    L.manual_seed(1)
    if sequential:
        y = L.utils.checkpoint.checkpoint_sequential(m, 2, x, use_reentrant=reentrant)
    else:
        y = L.utils.checkpoint.checkpoint(lambda a, k: m(a).exp() * k, x, 2.0,
                                          use_reentrant=reentrant)
    after = L.rand(2)           # checkpointing leaves the RNG where the forward left it
    (y * y).sum().backward()
    return [type(y.grad_fn).__name__, y, x.grad, m[0].weight.grad, m[5].bias.grad, after]


@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize("sequential", [False, True])
def test_checkpoint_matches_torch(reentrant, sequential):
    t, e = run(torch, reentrant, sequential), run(ember, reentrant, sequential)
    assert t[0] == e[0]
    for a, b in zip(t[1:], e[1:]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_checkpoint_default_warns_as_torch():
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed"):
        ember.utils.checkpoint.checkpoint(lambda a: a * 2, ember.ones(2, requires_grad=True))


def test_non_reentrant_checkpoint_second_order_and_retain_graph():
    outs = {}
    for L in (torch, ember):
        x = L.tensor(X[0].astype(np.float64), requires_grad=True)
        y = L.utils.checkpoint.checkpoint(lambda a: (a.sin() * a).exp().sum(), x,
                                          use_reentrant=False)
        g, = L.autograd.grad(y, x, create_graph=True)
        h, = L.autograd.grad(g.sum(), x)
        y2 = L.utils.checkpoint.checkpoint(lambda a: a.exp().cumsum(0), x, use_reentrant=False)
        y2.sum().backward(retain_graph=True)
        y2.sum().backward()
        outs[L] = [g.detach().numpy(), h.numpy(), x.grad.numpy()]
    for a, b in zip(outs[torch], outs[ember]):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def _held_after_forward(L, use_checkpoint):
    """Bytes the graph keeps between forward and backward for a chain of 8 tanh layers."""
    x = L.ones(256, 256, dtype=L.float64, requires_grad=True)

    def block(a):
        for _ in range(8):
            a = (a * 0.5).tanh()
        return a
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    if use_checkpoint:
        y = L.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
    else:
        y = block(x)
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    y.sum().backward()
    return held


def test_checkpoint_keeps_less_memory():
    _held_after_forward(ember, True)        # warm-up: first calls import and cache things
    plain = _held_after_forward(ember, False)
    ckpt = _held_after_forward(ember, True)
    one = 256 * 256 * 8
    assert plain >= 8 * one         # every tanh output is saved
    assert ckpt <= 2 * one          # only the output itself (plus small bookkeeping)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.utils.checkpoint.checkpoint(lambda a: a * 2, ember.ones(2), use_reentrant=False)


def test_context_fn_runs_around_forward_and_recomputation():
    import contextlib
    logs = {}
    for L in (torch, ember):
        log = logs[L] = []

        @contextlib.contextmanager
        def ctx(name):
            log.append(name + " in")
            yield
            log.append(name + " out")
        x = L.ones(2, requires_grad=True)
        y = L.utils.checkpoint.checkpoint(lambda a: a.exp() * a, x, use_reentrant=False,
                                          context_fn=lambda: (ctx("fwd"), ctx("re")))
        y.sum().backward()
        log.append([round(g, 5) for g in x.grad.tolist()])
        assert L.utils.checkpoint.get_device_states(x) == ([], [])
    # (torch leaves the recompute context open until it is collected: its exit is not
    # compared)
    assert logs[torch][:3] == logs[ember][:3] == ["fwd in", "fwd out", "re in"]
    assert logs[torch][-1] == logs[ember][-1]
