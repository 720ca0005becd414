"""The backward engine's array pass (no create_graph): graphs whose shape exercises its paths
(chains handed over without dependency counts, fan-in, consumers outside the graph,
multi-output nodes, several roots, hooks), each run through torch and ember with the same
program, comparing gradients and the order in which hooks fire."""
import numpy as np
import pytest
import torch

import ember


def both(program, exact=False):
    """program(lib, log) -> list of tensors; run in torch and ember, compare results (to the
    last bit if exact) and logs."""
    results = {}
    for lib in (torch, ember):
        log = []
        out = program(lib, log)
        results[lib.__name__] = ([np.asarray(t.detach().numpy()) for t in out], log)
    (t_vals, t_log), (e_vals, e_log) = results["torch"], results["ember"]
    assert e_log == t_log
    assert len(e_vals) == len(t_vals)
    for a, b in zip(t_vals, e_vals):
        assert a.shape == b.shape and a.dtype == b.dtype
        if exact:
            np.testing.assert_array_equal(b, a)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def x3(lib):
    return lib.tensor([0.5, -1.0, 2.0], requires_grad=True)


def test_chain_of_single_use_nodes():
    def program(lib, log):
        x = x3(lib)
        y = x
        for _ in range(50):
            y = ((y * 0.9 + 0.1).tanh() - 0.05).exp()
        y.sum().backward()
        return [x.grad]
    both(program)


def test_consumer_outside_the_graph_and_dead_consumer():
    def program(lib, log):
        x = x3(lib)
        a = x * 2
        b = a + 1                  # a consumer of a that the backward never reaches
        c = a * 3
        c.sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        a = x * 2
        d = a + 1
        del d                      # a consumer that died before the backward
        a.tanh().sum().backward()
        return [g1, x.grad, b]
    both(program)


def test_fan_in_and_shared_leaves():
    def program(lib, log):
        x = x3(lib)
        w = lib.tensor([1.5, 0.25, -0.5], requires_grad=True)
        a = x * w
        s = (a.tanh() + a.exp() + a * a + x).sum()
        s.backward()
        return [x.grad, w.grad]
    both(program)


def test_multi_output_node_with_one_consumer():
    def program(lib, log):
        m = lib.arange(6.).reshape(2, 3).requires_grad_()
        v, _ = m.max(dim=0)
        (v * 2).sum().backward()
        g1 = m.grad.clone()
        m.grad = None
        p, q = m.split(1)
        (q * 3).sum().backward()
        return [g1, m.grad]
    both(program)


def test_several_roots_one_depending_on_another():
    def program(lib, log):
        x = x3(lib)
        y = x * 2
        z = y * y
        lib.autograd.backward([y.sum(), z.sum()])
        g1 = x.grad.clone()
        x.grad = None
        y = x * 2
        lib.autograd.backward([y, y.exp()], [lib.ones(3), lib.full((3,), 0.5)])
        return [g1, x.grad]
    both(program)


def test_hooks_fire_in_torch_order():
    def program(lib, log):
        x = x3(lib)
        w = lib.tensor([1.5, 0.25, -0.5], requires_grad=True)
        a = x * w
        a.register_hook(lambda g: log.append("a"))
        b = a.tanh()
        b.register_hook(lambda g: log.append("b"))
        c = a.exp()
        c.register_hook(lambda g: log.append("c"))
        x.register_hook(lambda g: log.append("x"))
        w.register_hook(lambda g: log.append("w"))
        (b + c).sum().backward()
        return [x.grad, w.grad]
    both(program)


def test_node_hooks_see_every_input_of_a_number_op():
    """x + 2 has two inputs in torch: its node's hooks get grad_inputs of length 2."""
    def program(lib, log):
        x = x3(lib)
        y = x + 2.0
        y.grad_fn.register_prehook(lambda go: log.append(("pre", len(go))))
        y.grad_fn.register_hook(
            lambda gi, go: log.append(("post", len(gi), gi[1] is None)))
        (y * 3.0).sum().backward()
        return [x.grad]
    both(program)


def test_second_backward_through_nodes_without_saved_tensors():
    def program(lib, log):
        x = x3(lib)
        s = (x + 1).sum()
        s.backward()
        s.backward()               # nothing saved, nothing freed: torch allows it
        return [x.grad]
    both(program)


def test_second_backward_through_saved_tensors_raises():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    s = (x * x).sum()
    s.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        s.backward()


@pytest.mark.parametrize("shape", [(2, 2), (70, 70)])      # filled, and a broadcast view
@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_full_reduction_gradient_reaches_leaf_writable(shape, reduce):
    def program(lib, log):
        x = lib.ones(*shape, requires_grad=True)
        getattr(x * 1.5, reduce)().backward()
        getattr(x, reduce)().backward()
        x.grad.mul_(2)             # .grad is an ordinary tensor of its own
        return [x.grad]
    both(program)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_gradient_is_a_select_not_a_product(dtype):
    """+0 (never -0, never nan) where the result is <= 0, whatever the incoming gradient;
    the gradient itself where the result is positive or nan (torch's threshold_backward)."""
    vals, grads = [-1.0, 2.0, 0.0, float("nan"), 3.0, -0.0], \
        [-3.0, -3.0, float("inf"), 5.0, float("-inf"), float("nan")]
    out = {}
    for lib in (torch, ember):
        x = lib.tensor(vals, dtype=getattr(lib, dtype), requires_grad=True)
        lib.relu(x).backward(lib.tensor(grads, dtype=getattr(lib, dtype)))
        out[lib.__name__] = (x.grad.detach().numpy(), repr(x.grad))
    (t, t_repr), (e, e_repr) = out["torch"], out["ember"]
    np.testing.assert_array_equal(e, t)
    assert np.array_equal(np.signbit(e), np.signbit(t)) and e_repr == t_repr


def test_fan_in_with_a_consumer_outside_the_graph_keeps_torch_order():
    """a is used by b, c (in the graph) and d (not): its node cannot know from its use
    count that it is complete; hooks must still fire in torch's order."""
    def program(lib, log):
        x = x3(lib)
        a = x * 2
        a.register_hook(lambda g: log.append("a"))
        b = a.tanh()
        b.register_hook(lambda g: log.append("b"))
        c = a.exp()
        c.register_hook(lambda g: log.append("c"))
        d = a + 1                             # never differentiated
        e = x * 3
        e.register_hook(lambda g: log.append("e"))
        f = e.sin()
        f.register_hook(lambda g: log.append("f"))
        x.register_hook(lambda g: log.append("x"))
        (b + c + f).sum().backward()
        return [x.grad, d]
    both(program)


def test_leaf_shared_with_an_older_graph():
    """A leaf's node outlives one graph while the next is built (a training loop keeps the
    previous loss until it is reassigned): its use count is then too high."""
    def program(lib, log):
        w = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        w.register_hook(lambda g: log.append("w"))
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x.register_hook(lambda g: log.append("x"))
        grads = []
        loss = None
        for _ in range(3):
            h = (x * w).tanh()
            h.register_hook(lambda g: log.append("h"))
            loss = (h * w).sum()       # the previous loss (and graph) dies here
            loss.backward()
            grads += [w.grad.clone(), x.grad.clone()]
        return grads
    both(program)


def test_many_way_fan_in_sums_in_torch_order():
    """Six contributions to one node: float32 sums (rounded at each step) in arrival order,
    as torch adds them (exact ops only, so that the order alone could make a difference)."""
    def program(lib, log):
        x = lib.tensor(np.linspace(-2, 2, 7, dtype=np.float32), requires_grad=True)
        a = x * 1.3
        parts = [a * 1.7, (a * -0.3) * 3.1, a * 1e3, a * 1e-3, a + 0.1, a * 0.7]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        total.sum().backward()
        return [x.grad]
    both(program, exact=True)


# ---------------------------------------------------------------- the two passes agree
# A node's np_apply (the pass without create_graph) and its apply (the Tensor formulas that
# create_graph records) must give the same gradients, to the bit: each program goes through
# both. The programs must together run every statement of every np_apply in ember (checked
# below by tracing them), so a second formula cannot drift from the first unnoticed.

R = np.random.default_rng(7)


def _arr(*shape, dtype=np.float32):
    return R.standard_normal(shape).astype(dtype)


def _F(E):
    return E.nn.functional


def _inplace_views(E, x):
    y = x * 1
    y[0].zero_()                               # CopySlices around ZeroBackward0
    y[1:3].mul_(x[1:3])                        # CopySlices around MulBackward0
    z = y * 1
    z[..., 0] = x[0, 0]                        # FillBackward3 under CopySlices
    w = x * 2
    w.fill_(3.0)                               # FillBackward2
    v = z[::2]                                 # a view regenerated after z is written
    z.copy_(x * 3)                             # CopyBackwards
    u = x * 1
    u[:, 1].copy_(x[0] * 0.0)                  # CopyBackwards under CopySlices, no self edge
    return (y * y).sum() + (z * v.sum()).sum() + w.sum() + u.sum()


def _overlapping_view(E, x):
    t = x * 3
    e = t[0].expand(3, 4)                      # overlapping view, regenerated below
    t.add_(1)
    return (e * e).sum()


def _promoted(E, x):
    c = E.tensor([2, 3, 4, 5])                # an integer constant: mul falls back
    d = x.double()
    return (x * c).sum() + (x * d).sum() + (x * x.double()).sum()


def _complex(E, x):
    z = E.view_as_complex(E.stack([x, x * 2], -1))
    r = z.exp() * z.tanh() + z.mean()
    return E.view_as_real(r).sum()


def _zero_dim(E, x):
    s = x[0, 0]
    return E.relu(s) + s.tanh() + E.softmax(s, 0) + E.log_softmax(s, 0) + s.exp()


def _det(E, x):
    return E.linalg.det(x) + E.linalg.det(x[:2, :2].detach().requires_grad_() * 0 + x[:2, :2])


# ---- conv family (ember/ops/conv.py, pool.py, pad.py, resize.py)
def _convolutions(E, x):
    x4, w = x.reshape(1, 1, 4, 4), x[:2, :3].reshape(1, 1, 2, 3)
    cols = _F(E).unfold(x4, 2, padding=1)
    return (_F(E).conv2d(x4, w, x[0, :1], padding=1).sum() +
            (_F(E).conv_transpose2d(x4, w.reshape(1, 1, 3, 2), stride=2) ** 2).sum() +
            (_F(E).fold(cols * cols, (4, 4), 2, padding=1) * x4).sum())


def _pools(E, x):
    x4 = x.reshape(1, 1, 4, 4) * x.reshape(1, 1, 4, 4)
    y, i = _F(E).max_pool2d(x4, 2, return_indices=True)
    return (_F(E).max_pool2d(x4, 3, 1, 1).sum() + _F(E).avg_pool2d(x4, 3, 2, 1).sum() +
            (_F(E).adaptive_avg_pool2d(x4, 3) * x[:3, :3]).sum() +
            (_F(E).adaptive_max_pool2d(x4, (2, 3)) * x[:2, :3]).sum() +
            (_F(E).max_unpool2d(y * 3, i, 2) * x).sum())


def _pools3d(E, x):
    # the 3-d adaptive max pool and unpool, fractional max pooling (fixed samples)
    x5 = (x * x).reshape(1, 1, 2, 2, 4)
    y, i = _F(E).max_pool3d(x5, (1, 2, 2), return_indices=True)
    s = E.tensor([[[0.3, 0.7]]], dtype=x.dtype)
    x4 = x.reshape(1, 1, 4, 4) * x.reshape(1, 1, 4, 4)
    return ((_F(E).adaptive_max_pool3d(x5, (1, 2, 3)) * x[:2, :3].reshape(1, 1, 1, 2, 3)).sum() +
            (_F(E).max_unpool3d(y * 3, i, (1, 2, 2)) * x5).sum() +
            (_F(E).fractional_max_pool2d(x4, 2, 3, _random_samples=s) * x[:3, :3]).sum())


def _pads_and_resampling(E, x):
    x3, x4 = x.reshape(1, 4, 4), x.reshape(1, 4, 2, 2)
    return ((_F(E).pad(x3, (1, 2), value=2.0) * _F(E).pad(x3, (1, 2), "reflect")).sum() +
            (_F(E).pad(x3, (2, 1, 0, 1), "replicate") ** 2).sum() +
            (_F(E).interpolate(x3, scale_factor=1.5, mode="linear") ** 2).sum() +
            (_F(E).pixel_unshuffle(_F(E).pixel_shuffle(x4, 2) ** 2, 2) * x4).sum())


def _lstm(E, x):
    # a bidirectional LSTM (MkldnnRnnLayerBackward0 per direction in float32) and packing
    w, b = x.repeat(4, 1) * 0.3, x.reshape(-1) * 0.1
    seq = x.reshape(2, 2, 4)
    out, h, c = E.lstm(seq, (seq * 0.5, seq * 0.25), [w, w * 0.5, b, b * 2, w * 0.7, w, b * 3,
                                                        b], True, 1, 0.0, True, True, False)
    packed = E.nn.utils.rnn.pack_padded_sequence(seq, [2, 1]).data
    return (out * out).sum() + h.sum() + (c * seq).sum() + (packed * packed).sum()


PASS_PROGRAMS = {
    "convolutions": _convolutions,
    "pools": _pools, "pools3d": _pools3d,
    "pads and resampling": _pads_and_resampling,
    "scalar arithmetic": lambda E, x: ((x + 2.0) * 3.0 - 0.5).sum(),
    "tensor arithmetic": lambda E, x: (x * x.exp() + x.tanh() - x * 2).mean(),
    "alpha": lambda E, x: (E.add(x, x.t(), alpha=2) + E.sub(x, x * x, alpha=3)).sum(),
    "broadcast": lambda E, x: (x * E.linspace(-1, 1, x.shape[-1], dtype=x.dtype)
                               + x[:1]).sum(),
    "relu": lambda E, x: (E.relu(x * 3.0) * x).sum(),
    "reductions": lambda E, x: x.sum() * x.mean(),
    "empty mean": lambda E, x: x[:0].mean() * 0 + x.sum(),
    "matmul": lambda E, x: (x @ x.t()).tanh().sum() + (x[0] @ x).sum() + (x @ x[0]).sum()
    + (x.reshape(2, 2, 4) @ x).sum(),
    "mm and addmm": lambda E, x: E.addmm(x[0], x, x.t().exp(), beta=0.5, alpha=2.0).sum()
    + E.mm(x, x.t()).mean() + E.addmm(x[0], x, x * 2).sum()
    + E.addmm(x[0], x, x, beta=np.float64(0.5)).sum(),
    "mm one input": lambda E, x: E.mm(x, x.detach()).sum() + E.mm(x.detach(), x).sum()
    + E.addmm(x[0].detach(), x.detach(), x).sum(),
    "bmm and mv": lambda E, x: E.bmm(x.reshape(2, 2, 4), x.reshape(2, 4, 2)).sum()
    + E.mv(x, x[0]).sum() + E.mv(x.detach(), x[1]).sum(),
    "linear and cross_entropy": lambda E, x: _F(E).cross_entropy(
        _F(E).linear(x, x * 0.5, x[0]), E.tensor([0, 1, 2, 1])),
    "softmax": lambda E, x: (E.softmax(x, 1) * x).sum() + E.log_softmax(x, 0).mean(),
    "nll_loss": lambda E, x: _F(E).nll_loss(E.log_softmax(x, 1), E.tensor([3, 0, 1, 2]),
                                          reduction="sum")
    + (_F(E).nll_loss(x, E.tensor([3, 0, 1, 2]), reduction="none") * x[0]).sum()
    + _F(E).nll_loss(x.double(), E.tensor([3, 0, 1, 2])).float(),
    "indexing": lambda E, x: (x[E.tensor([0, 2, 2])] * x[:3]).sum() + x[[1, 1], [0, 0]].sum(),
    "in-place through views": _inplace_views,
    "overlapping view": _overlapping_view,
    "promotion": _promoted,
    "complex": _complex,
    "0-d": _zero_dim,
    "matrix_exp": lambda E, x: E.linalg.matrix_exp(x * 0.1).sum(),
    "cumsum": lambda E, x: (x.cumsum(0) * x).sum() + (x[:1].cumsum(0) * x[0]).sum()
    + x[0, 0].cumsum(0) * 2,
    "det": _det,
    # an as_strided view reaching storage outside its (view) input's elements
    "as_strided outside its input": lambda E, x: (E.as_strided(x.reshape(-1)[2:], (3,), (1,), 0)
                                                  * x.reshape(-1)[:3]).sum(),
    "embedding": lambda E, x: (_F(E).embedding(E.tensor([[1, 2, 2], [0, 3, 1]]), x,
                                               padding_idx=2, scale_grad_by_freq=True).tanh()
                               + _F(E).embedding(E.tensor([3, 3]), x).sum()).sum(),
    "lstm and packing": _lstm,
}


@pytest.mark.parametrize("name", sorted(PASS_PROGRAMS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_pass_matches_tensor_pass(name, dtype):
    xa = _arr(4, 4, dtype=dtype)
    program = PASS_PROGRAMS[name]
    x = ember.tensor(xa, requires_grad=True)
    program(ember, x).backward()                                  # the array pass
    y = ember.tensor(xa, requires_grad=True)
    g, = ember.autograd.grad(program(ember, y), y, create_graph=True)   # Tensor formulas
    np.testing.assert_array_equal(x.grad.numpy(), g.detach().numpy())


def test_det_of_a_singular_matrix_takes_each_pass_from_torch():
    """torch's two formulas for det differ at a singular matrix: zeros unrecorded, the
    adjugate (through an SVD) when recorded; each pass matches its torch counterpart, and
    the recorded one differentiates again."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    got = {}
    for L in (torch, ember):
        x = L.tensor(a, requires_grad=True)
        L.linalg.det(x).backward()
        y = L.tensor(a, requires_grad=True)
        g, = L.autograd.grad(L.linalg.det(y), y, create_graph=True)
        gg, = L.autograd.grad(g.sum(), y)
        got[L] = (x.grad.numpy(), g.detach().numpy(), gg.numpy())
    for t, e in zip(got[torch], got[ember]):
        np.testing.assert_allclose(e, t, atol=1e-12)


def _np_apply_classes():
    from ember.autograd.graph import Node, AccumulateGrad
    out, stack = [], [Node]
    while stack:
        c = stack.pop()
        for s in c.__subclasses__():
            stack.append(s)
            if "np_apply" in s.__dict__ and s is not AccumulateGrad:
                out.append(s)
    return out


def test_programs_run_every_statement_of_every_np_apply():
    import ast
    import inspect
    import sys
    import textwrap
    codes = {}
    for cls in _np_apply_classes():
        fn = cls.__dict__["np_apply"]
        src = textwrap.dedent(inspect.getsource(fn))
        body = ast.parse(src).body[0].body
        first = fn.__code__.co_firstlineno
        lines = {n.lineno + first - 1 for stmt in body for n in ast.walk(stmt)
                 if isinstance(n, ast.stmt)}
        codes[fn.__code__] = (cls, lines)
    ran = {code: set() for code in codes}

    def local(frame, event, arg):
        if event == "line":
            ran[frame.f_code].add(frame.f_lineno)
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code in codes else None

    sys.settrace(tracer)
    try:
        for program in PASS_PROGRAMS.values():
            for dtype in (np.float32, np.float64):
                x = ember.tensor(_arr(4, 4, dtype=dtype), requires_grad=True)
                program(ember, x).backward()
        x = ember.tensor([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]],
                         requires_grad=True)
        ember.linalg.det(x).sum().backward()                # a singular matrix in a batch
    finally:
        sys.settrace(None)
    missing = {f"{cls.__module__}.{cls.__name__}": sorted(lines - ran[code])
               for code, (cls, lines) in codes.items() if lines - ran[code]}
    assert not missing, f"np_apply statements no program runs (file lines): {missing}"
