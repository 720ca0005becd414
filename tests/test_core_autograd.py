"""Issue 2: autograd semantics, graph nodes and the engine, compared with torch."""
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

LIBS = [torch, ember]


def names(fn, depth=6):
    """The graph below a grad_fn as nested (name, [children]) for structural comparison."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__,
            [(names(n, depth - 1), i) for n, i in fn.next_functions])


# ---------------------------------------------------------------- requires_grad and leaves

def test_requires_grad_rules():
    for lib in LIBS:
        x = lib.ones(2)
        assert not x.requires_grad and x.is_leaf and x.grad_fn is None
        assert x.requires_grad_() is x and x.requires_grad
        x.requires_grad = False
        assert not x.requires_grad
        y = lib.ones(2, requires_grad=True) * 2
        assert y.requires_grad and not y.is_leaf
        assert y.requires_grad_(True) is y
        with lib.no_grad():
            z = y * 2
        assert z.grad_fn is None and z.is_leaf and not z.requires_grad
        c = lib.ones(2, dtype=lib.complex64, requires_grad=True)
        assert c.requires_grad
    check_error(lambda L: L.ones(2, dtype=L.int64).requires_grad_())
    check_error(lambda L: setattr(L.ones(2, requires_grad=True) * 2, "requires_grad", False))
    check_error(lambda L: L.ones(2, dtype=L.bool).requires_grad_())


def test_grad_of_non_leaf_warns_and_retain_grad_keeps_it():
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert y.grad is None
        assert len(w) == 1 and w[0].category is UserWarning
        assert "is not a leaf Tensor is being accessed" in str(w[0].message)
        y.retain_grad()
        assert y.retains_grad
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad.tolist() == [2.0, 2.0]
        assert x.grad.tolist() == [4.0, 4.0]


def test_warning_text_matches_torch():
    msgs = {}
    for lib in LIBS:
        y = lib.ones(1, requires_grad=True) * 1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y.grad
        msgs[lib] = str(w[0].message).split(" (Triggered internally")[0]
    assert msgs[torch] == msgs[ember]


# ---------------------------------------------------------------- backward arguments

def test_backward_errors_match_torch():
    check_error(lambda L: L.ones(2).backward())
    check_error(lambda L: (L.ones(2, requires_grad=True) * 2).backward())
    check_error(lambda L: (L.ones(2, requires_grad=True) * 2).backward(L.ones(3)))
    check_error(lambda L: (L.ones(2, requires_grad=True) * 2).sum().backward(L.ones(4, 4)))
    check_error(lambda L: (L.ones(2, requires_grad=True) * 2).backward([1.0, 2.0]),
                match_message=False)


def _second(L, make):
    x = L.ones(2, requires_grad=True)
    y = make(x)
    y.sum().backward()
    y.sum().backward()
    return x.grad


@pytest.mark.parametrize("make", [lambda x: x * 2, lambda x: x / 2, lambda x: x ** 2,
                                  lambda x: x * x, lambda x: x.exp(), lambda x: x.norm()])
def test_second_backward_through_freed_buffers_raises(make):
    check_error(lambda L: _second(L, make))


@pytest.mark.parametrize("make", [lambda x: x + 2, lambda x: -x, lambda x: x.view(2),
                                  lambda x: x.sum(), lambda x: x.mean(), lambda x: 2 - x])
def test_second_backward_without_saved_tensors_is_allowed(make):
    check(lambda L, x: _second(L, make), np.ones(1), grad=False)


def test_retain_graph_allows_repeat_and_accumulates():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [4.0, 8.0]
        x.grad.zero_()
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
        x.grad.data.zero_()
        assert x.grad.tolist() == [0.0, 0.0]
        x.grad = None
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


def test_backward_gradient_argument_is_weighted_and_not_aliased():
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = lib.tensor([1.0, 0.1, 0.01])
        (x + 0).backward(v)
        assert x.grad is not v
        x.grad.zero_()
        assert v.tolist() == pytest.approx([1.0, 0.1, 0.01])
        y = x * 2
        y.backward(lib.ones(3, dtype=lib.float64))     # cast to the output's dtype
        assert x.grad.dtype == lib.float32


def test_backward_inputs_argument():
    def run(L, a, b):
        a, b = a, b
        (a * b).sum().backward(inputs=[a])
        return a.grad, b.grad
    for lib in LIBS:
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True) * 3
        c = lib.ones(2, requires_grad=True)
        (a * b * c).sum().backward(inputs=[a, b])
        assert a.grad.tolist() == [3.0, 3.0] and c.grad is None
        assert b.grad.tolist() == [1.0, 1.0]
    check_error(lambda L: L.ones(1, requires_grad=True).sum().backward(inputs=[]))


def test_autograd_grad_matches_torch():
    def run(L, x, y):
        x.requires_grad_()
        y.requires_grad_()
        z = (x * y).sum() + (x ** 3).sum()
        gx, gy = L.autograd.grad(z, (x, y), create_graph=True)
        (ggx,) = L.autograd.grad(gx.sum(), x)
        return gx, gy, ggx
    check(run, np.array([1.0, 2.0]), np.array([3.0, -1.0]), grad=False, names=False)
    check_error(lambda L: L.autograd.grad((L.ones(1, requires_grad=True) * 2).sum(),
                                          [L.ones(1, requires_grad=True)]))
    for lib in LIBS:
        a = lib.ones(1, requires_grad=True)
        b = lib.ones(1, requires_grad=True)
        g = lib.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
        assert g[1] is None and a.grad is None
        g = lib.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
        assert g[1].tolist() == [0.0]


# ---------------------------------------------------------------- detach and .data

def test_detach_and_data_semantics():
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        d = x.detach()
        assert not d.requires_grad and d.is_leaf and d.grad_fn is None
        d.numpy()[0] = 5
        assert x.tolist()[0] == 5.0
        assert not x.data.requires_grad
        y = 2 * x
        x.data *= 100
        y.backward(lib.ones(2))
        assert x.tolist() == [500.0, 100.0] and x.grad.tolist() == [2.0, 2.0]
        z = x * 1
        z.detach_()
        assert z.grad_fn is None and not z.requires_grad
        x.data = lib.zeros(3)
        assert x.shape == (3,) and x.requires_grad


# ---------------------------------------------------------------- grad modes

def test_grad_mode_context_managers_and_decorators():
    for lib in LIBS:
        x = lib.ones(1, requires_grad=True)
        assert lib.is_grad_enabled()
        with lib.no_grad():
            assert not lib.is_grad_enabled()
            assert not (x * 2).requires_grad
            with lib.enable_grad():
                assert (x * 2).requires_grad
            assert not lib.is_grad_enabled()
        assert lib.is_grad_enabled()
        with lib.set_grad_enabled(False):
            assert not (x * 2).requires_grad
        lib.set_grad_enabled(False)
        assert not lib.is_grad_enabled()
        lib.set_grad_enabled(True)
        with lib.inference_mode():
            assert not (x * 2).requires_grad

        @lib.no_grad()
        def f(t):
            return t * 2

        @lib.no_grad
        def g(t):
            return t * 2

        @lib.enable_grad()
        def h(t):
            return t * 2

        assert not f(x).requires_grad and not g(x).requires_grad
        with lib.no_grad():
            assert h(x).requires_grad

        @lib.no_grad()
        def gen():
            yield lib.is_grad_enabled()
            yield lib.is_grad_enabled()
        assert list(gen()) == [False, False] and lib.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(ember.is_grad_enabled())
    with ember.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not ember.is_grad_enabled()
    assert seen == [True]


def test_exception_inside_no_grad_restores_mode():
    with pytest.raises(ValueError):
        with ember.no_grad():
            raise ValueError
    assert ember.is_grad_enabled()


# ---------------------------------------------------------------- graph nodes

GRAPHS = [
    lambda L, x, w: x + 2, lambda L, x, w: (x + 2) * (x + 2) * 3,
    lambda L, x, w: ((x * 3) / (x - 1)).sum(), lambda L, x, w: (x * w).mean(),
    lambda L, x, w: x.view(4) * 2, lambda L, x, w: x ** 2 + w ** 3,
    lambda L, x, w: 2 - x / w, lambda L, x, w: 2 / x, lambda L, x, w: x.norm(),
    lambda L, x, w: (x - w).sum(0), lambda L, x, w: x.mean(1, keepdim=True),
    lambda L, x, w: -x, lambda L, x, w: x * 1.5 + w.double(),
]


@pytest.mark.parametrize("g", range(len(GRAPHS)))
def test_graph_structure_and_values_match_torch(g):
    r = np.random.default_rng(g)
    x, w = r.uniform(1.5, 2.5, (2, 2)), r.uniform(0.5, 1.5, (2, 2))
    tout, eout = check(GRAPHS[g], x.astype(np.float32), w.astype(np.float32))
    assert names(tout.grad_fn) == names(eout.grad_fn)


def test_node_repr_name_and_next_functions():
    x = ember.ones(2, 2, requires_grad=True)
    y = x * 2
    r = repr(y.grad_fn)
    assert r.startswith("<MulBackward0 object at 0x") and r.endswith(">")
    assert y.grad_fn.name() == "MulBackward0"
    (acc, i), (none, j) = y.grad_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and i == 0
    assert none is None and j == 0
    assert (x * 3).grad_fn.next_functions[0][0] is acc      # one accumulator per leaf
    assert y.grad_fn._saved_other == 2


def test_diamond_graph_sums_gradients():
    def run(L, x):
        a = x * 2
        b = a + a * a
        c = a.sum() + b.mean() + (a - b).sum()
        return c
    check(run, np.array([[1.0, 2.0], [3.0, 4.0]]))


def test_dynamic_graph_from_control_flow():
    def run(L, x):
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        return y
    check(run, np.array([0.5, -1.25, 2.0], np.float32))


def test_create_graph_gives_second_derivatives():
    def run(L, x):
        x.requires_grad_()
        y = (x ** 3 + 2 * x * x).sum()
        y.backward(create_graph=True)
        g = x.grad
        assert g.requires_grad and g.grad_fn is not None
        x.grad = None
        g.sum().backward()
        return x.grad
    check(run, np.array([1.0, -2.0, 0.5]), grad=False)


def test_hooks_run_in_torchs_order_and_can_replace_grads():
    def run(L):
        calls = []
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * 3
        x.register_hook(lambda g: calls.append(("x", g.tolist())))
        y.register_hook(lambda g: calls.append(("y", g.tolist())) or g * 10)
        h = z.register_hook(lambda g: calls.append(("z", g.tolist())))
        z.sum().backward()
        h.remove()
        return calls, x.grad.tolist()
    assert run(torch) == run(ember)


# ---------------------------------------------------------------- engine properties

def test_million_op_chain_backpropagates_without_recursion():
    x = ember.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0
    y.backward()
    assert x.grad.tolist() == [1.0]


def test_saved_arrays_are_freed_after_backward():
    x = ember.ones(1000, requires_grad=True)
    y = x * 2
    z = (y * y).exp()
    out = z.sum()
    node = z.grad_fn
    saved = weakref.ref(node._saved_result._data)
    mul = z.grad_fn.next_functions[0][0]
    saved_y = weakref.ref(mul._saved_self)
    del y, z
    out.backward()
    gc.collect()
    assert saved() is None and saved_y() is None
    with pytest.raises(RuntimeError, match="directly access saved tensors after they have "
                       "already been freed"):
        node._saved_result     # (Note [Freed reads])
    for lib in LIBS:   # and reading them again is torch's error
        check_error(lambda L: _second(L, lambda t: (t * t).exp()))


def test_retain_graph_keeps_saved_arrays():
    x = ember.ones(3, requires_grad=True)
    z = (x * x).exp()
    z.sum().backward(retain_graph=True)
    assert z.grad_fn._saved_result is not None
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx([2 * np.e * 2] * 3)


def test_no_graph_is_recorded_without_create_graph():
    x = ember.ones(3, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.grad_fn is None and not x.grad.requires_grad


def test_create_graph_backward_warns_once_like_torch():
    import ember.autograd.graph as g
    g._CYCLE_WARNED = False
    msgs = {}
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            (x * x).sum().backward(create_graph=True)
            (x * x).sum().backward(create_graph=True)
        msgs[lib] = [str(m.message).split(" (Triggered")[0] for m in w
                     if "reference cycle" in str(m.message)]
    assert len(msgs[ember]) == 1 and (not msgs[torch] or msgs[torch] == msgs[ember])


def test_grad_takes_fresh_gradients_without_copying(monkeypatch):
    """.grad steals an unshared gradient (as torch does): a linear layer's weight and bias
    gradients, and a plain product's, reach .grad with no clone."""
    calls = []
    orig = ember.autograd.graph.copy_grad
    monkeypatch.setattr(ember.autograd.graph, "copy_grad", lambda a: calls.append(1) or orig(a))
    F = ember.nn.functional
    x = ember.randn(8, 5)
    w = ember.randn(3, 5, requires_grad=True)
    b = ember.randn(3, requires_grad=True)
    F.relu(F.linear(x, w, b)).sum().backward()
    (w * 2).sum().backward()
    assert calls == [] and w.grad.shape == (3, 5) and b.grad.shape == (3,)
    v = ember.ones(3)
    y = ember.ones(3, requires_grad=True)
    (y + 0).backward(v)          # a gradient the caller still holds is copied
    assert calls == [1] and y.grad._data is not v._data


def test_backward_restores_the_garbage_collector_state():
    assert gc.isenabled()
    x = ember.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    assert gc.isenabled()
    gc.disable()
    try:
        (x * 2).sum().backward()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        (x * 2).sum().backward(ember.ones(3))
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError):
        y.sum().backward()              # raised inside the engine loop
    assert gc.isenabled()
