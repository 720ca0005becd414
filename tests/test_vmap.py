"""ember.func.vmap with batching rules, differential against torch.func.vmap: an op table
(every op with a rule, in_dims 0/1/-1/None, out_dims, nested vmap), proof that the rules run
(the function body runs once, no fallback warning), per-sample gradients, grad of vmap, the
loop fallback and its warning, randomness, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember

SLOW = "There is a performance drop"


def _np(t):
    return t.detach().numpy()


def _same(a, b, tol=1e-10):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    np.testing.assert_allclose(_np(b), _np(a), rtol=tol, atol=tol)


def _arr(shape, seed, dtype=np.float64, kind="f"):
    rng = np.random.default_rng(seed)
    if kind == "i":
        return rng.integers(0, 3, shape).astype(np.int64)
    if kind == "b":
        return rng.random(shape) > 0.5
    if kind == "s":
        return rng.standard_normal(shape).astype(np.float32)
    return rng.standard_normal(shape).astype(dtype)


def _run(lib, fn, arrays, **kw):
    xs = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
    return lib.func.vmap(lambda *a: fn(lib, *a), **kw)(*xs)


def _check(fn, arrays, tol=1e-10, rules=True, **kw):
    want = _run(torch, fn, arrays, **kw)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = _run(ember, fn, arrays, **kw)
    _same(want, got, tol)
    if rules:
        assert not [x for x in w if SLOW in str(x.message)], [str(x.message) for x in w]


B = 4
# name -> (function of (lib, *per-sample args), per-sample shapes, kinds)
OPS = {
    # pointwise unary / binary (broadcasting, Python scalars, 0-dim samples)
    "sin": (lambda L, a: L.sin(a), [(3, 2)]),
    "exp_method": (lambda L, a: a.exp() - 1, [(3, 2)]),
    "tanh_sigmoid": (lambda L, a: L.tanh(a) * L.sigmoid(a), [(3,)]),
    "abs_neg_pow": (lambda L, a: (-a).abs() ** 1.5, [(2, 3)]),
    "add_bcast": (lambda L, a, b: a + b, [(3, 2), (2,)]),
    "mul_scalar_sample": (lambda L, a, b: a * b, [(), (3,)]),
    "div_rsub": (lambda L, a, b: (1 - a) / (b.abs() + 1), [(2, 3), (3,)]),
    "promote_0dim_sample": (lambda L, a, b: a * b + (b < a), [(), (3,)], "fs"),
    "promote_int_sample": (lambda L, a, b: a + b, [(), (3,)], "is"),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(3,), (3,)]),
    "atan2": (lambda L, a, b: L.atan2(a, b), [(2, 3), (2, 3)]),
    "compare_where": (lambda L, a, b: L.where(a > b, a, b), [(3,), (3,)]),
    "clamp": (lambda L, a: a.clamp(-0.5, 0.5), [(2, 3)]),
    "clamp_tensor": (lambda L, a, b: L.clamp(a, min=b), [(2, 3), (3,)]),
    "lerp": (lambda L, a, b: L.lerp(a, b, 0.25), [(3,), (3,)]),
    "pow_tensor": (lambda L, a, b: a.abs() ** b, [(3,), (3,)]),
    # reductions
    "sum_all": (lambda L, a: a.sum(), [(3, 2)]),
    "sum_dim": (lambda L, a: a.sum(1), [(3, 2)]),
    "sum_keepdim_neg": (lambda L, a: a.sum(-2, keepdim=True), [(3, 2)]),
    "sum_dims": (lambda L, a: L.sum(a, (0, 2)), [(2, 3, 2)]),
    "mean": (lambda L, a: a.mean(0), [(3, 2)]),
    "prod": (lambda L, a: a.prod(), [(3, 2)]),
    "prod_dim": (lambda L, a: a.prod(1, keepdim=True), [(3, 2)]),
    "amax_amin": (lambda L, a: a.amax(0) - a.amin(-1).sum(), [(3, 2)]),
    "max_all": (lambda L, a: a.max(), [(3, 2)]),
    "max_dim": (lambda L, a: tuple(a.max(1)), [(3, 2)]),
    "min_dim_keep": (lambda L, a: tuple(L.min(a, 0, keepdim=True)), [(3, 2)]),
    "logsumexp": (lambda L, a: L.logsumexp(a, 1), [(3, 2)]),
    "softmax": (lambda L, a: L.softmax(a, -1), [(3, 2)]),
    "log_softmax": (lambda L, a: a.log_softmax(0), [(3, 2)]),
    "var_std": (lambda L, a: a.var(0) + a.std(1, correction=0).sum(), [(3, 2)]),
    "var_all": (lambda L, a: a.var(), [(3, 2)]),
    "norm": (lambda L, a: a.norm(), [(3, 2)]),
    "norm_dim": (lambda L, a: L.norm(a, 2, 1), [(3, 2)]),
    "sum_scalar_sample": (lambda L, a: a.sum(0), [()]),
    "argmax": (lambda L, a: a.argmax(1), [(3, 2)]),
    # matmul family
    "matmul_mm": (lambda L, a, b: a @ b, [(2, 3), (3, 4)]),
    "matmul_mv": (lambda L, a, b: L.matmul(a, b), [(2, 3), (3,)]),
    "matmul_vm": (lambda L, a, b: L.matmul(a, b), [(3,), (3, 2)]),
    "matmul_batched_nd": (lambda L, a, b: L.matmul(a, b), [(2, 2, 3), (3, 2)]),
    "mm": (lambda L, a, b: L.mm(a, b), [(2, 3), (3, 2)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 2, 3), (2, 3, 2)]),
    "mv": (lambda L, a, b: L.mv(a, b), [(2, 3), (3,)]),
    "dot": (lambda L, a, b: L.dot(a, b), [(3,), (3,)]),
    "outer": (lambda L, a, b: L.outer(a, b), [(3,), (2,)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2.0), [(2,), (2, 3), (3, 2)]),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    "einsum_implicit": (lambda L, a, b: L.einsum("ij,j", a, b), [(2, 3), (3,)]),
    "einsum_ellipsis": (lambda L, a: L.einsum("...ij->...ji", a), [(2, 2, 3)]),
    # shape ops
    "view_reshape": (lambda L, a: a.reshape(6).view(3, -1), [(2, 3)]),
    "flatten": (lambda L, a: a.flatten(), [(2, 3, 2)]),
    "flatten_range": (lambda L, a: L.flatten(a, 1), [(2, 3, 2)]),
    "permute": (lambda L, a: a.permute(2, 0, 1), [(2, 3, 2)]),
    "transpose_t": (lambda L, a: a.transpose(0, 1).t(), [(2, 3)]),
    "T_mT": (lambda L, a: a.mT, [(2, 3, 2)]),
    "unsqueeze": (lambda L, a: a.unsqueeze(0).unsqueeze(-1), [(2, 3)]),
    "squeeze": (lambda L, a: a.squeeze(), [(1, 3, 1)]),
    "squeeze_dim": (lambda L, a: a.squeeze(0), [(1, 3)]),
    "expand": (lambda L, a: a.expand(2, 3, 2), [(3, 1)]),
    "expand_as": (lambda L, a, b: a.expand_as(b), [(3, 1), (3, 2)]),
    "movedim": (lambda L, a: L.movedim(a, 0, -1), [(2, 3, 2)]),
    "select": (lambda L, a: a.select(1, 0), [(2, 3)]),
    "narrow": (lambda L, a: a.narrow(1, 1, 2), [(2, 3)]),
    "getitem": (lambda L, a: a[1:, None, ::2], [(3, 4)]),
    "getitem_int_ellipsis": (lambda L, a: a[..., 1], [(3, 4)]),
    "getitem_tensor": (lambda L, a: a[1:, L.tensor([0, 2, 2])], [(3, 4)]),
    "getitem_mask": (lambda L, a: a[:, L.tensor([True, False, True, True])], [(3, 4)]),
    "repeat": (lambda L, a: a.repeat(2, 1, 2), [(3, 2)]),
    "sort_topk": (lambda L, a: (a.sort(0).values, L.topk(a, 2).indices, a.argsort(-1)),
                  [(3, 4)]),
    "new_zeros": (lambda L, a: a + a.new_zeros(4).sum(), [(3, 4)]),
    "cat": (lambda L, a, b: L.cat([a, b], 0), [(2, 3), (1, 3)]),
    "cat_dim": (lambda L, a, b: L.cat([a, b], -1), [(2, 3), (2, 1)]),
    "stack": (lambda L, a, b: L.stack([a, b], 1), [(2, 3), (2, 3)]),
    "split": (lambda L, a: tuple(a.split(2, 1)), [(2, 5)]),
    "chunk": (lambda L, a: tuple(L.chunk(a, 2, 0)), [(4, 3)]),
    "unbind": (lambda L, a: tuple(a.unbind(1)), [(2, 3)]),
    # indexing with tensors
    "gather": (lambda L, a, i: L.gather(a, 1, i), [(3, 4), (3, 2)], "fi"),
    "index_select": (lambda L, a, i: L.index_select(a, 1, i), [(3, 4), (2,)], "fi"),
    # indexing with several tensors (each batched or not), ints, slices, None, Ellipsis
    "index_two": (lambda L, a, i, j: a[i, j], [(3, 4), (2,), (2,)], "fii"),
    "index_apart": (lambda L, a, i, j: a[i, :, j], [(3, 4, 3), (2, 1), (2,)], "fii"),
    "index_after_slice": (lambda L, a, i, j: a[None, :, i, j], [(2, 3, 3), (2,), (2,)], "fii"),
    "index_int_ellipsis": (lambda L, a, i, j: a[1, ..., i, j], [(2, 2, 3, 3), (2,), (1,)],
                           "fii"),
    "index_int_between": (lambda L, a, i, j: a[i, 1, j], [(3, 2, 3), (2,), (2,)], "fii"),
    # joins and repeats composed of other ops
    "trace": (lambda L, a: L.trace(a), [(3, 4)]),
    "hstack": (lambda L, a, b: L.hstack([a, b]), [(2, 3), (2, 1)]),
    "hstack_1d": (lambda L, a, b: L.hstack((a, b)), [(3,), ()]),
    "vstack": (lambda L, a, b: L.vstack([a, b]), [(3,), (2, 3)]),
    "dstack": (lambda L, a, b: L.dstack([a, b]), [(2, 3), (2, 3)]),
    "tile": (lambda L, a: (L.tile(a, (2,)), a.tile(2, 1, 2)), [(2, 3)]),
    # convolution (batched input: folded into N; batched weight/bias: one group per sample)
    "conv2d": (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1),
               [(2, 2, 4, 4), (3, 2, 3, 3), (3,)]),
    "conv1d_unbatched_groups": (lambda L, x, w, b: L.conv1d(x, w, b, groups=2),
                                [(4, 6), (4, 2, 2), (4,)]),
    "conv3d": (lambda L, x, w: L.nn.functional.conv3d(x, w, stride=2),
               [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)]),
    "conv_transpose2d": (lambda L, x, w, b: L.nn.functional.conv_transpose2d(x, w, b, groups=2),
                         [(2, 4, 3, 3), (4, 3, 2, 2), (6,)]),
    "conv_transpose1d": (lambda L, x, w: L.nn.functional.conv_transpose1d(
        x, w, stride=2, output_padding=1), [(4, 5), (4, 2, 3)]),
    "conv_transpose3d": (lambda L, x, w: L.nn.functional.conv_transpose3d(x, w),
                         [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)]),
    # pooling (the batch folded into N)
    "max_pool2d_indices": (lambda L, a: tuple(L.nn.functional.max_pool2d(
        a, 2, return_indices=True)), [(2, 3, 4, 4)]),
    "max_pool1d": (lambda L, a: L.nn.functional.max_pool1d(a, 2, 1), [(3, 6)]),
    "max_pool3d": (lambda L, a: L.nn.functional.max_pool3d(a, 2), [(2, 4, 4, 4)]),
    "avg_pool2d": (lambda L, a: L.nn.functional.avg_pool2d(a, 3, 1, 1, count_include_pad=False),
                   [(2, 3, 4, 4)]),
    "avg_pool1d": (lambda L, a: L.nn.functional.avg_pool1d(a, 2), [(2, 3, 6)]),
    "avg_pool3d": (lambda L, a: L.nn.functional.avg_pool3d(a, 2), [(2, 4, 4, 4)]),
    "adaptive_avg_pools": (lambda L, a: (L.nn.functional.adaptive_avg_pool1d(a[0], 3),
                                         L.nn.functional.adaptive_avg_pool2d(a, (2, 3)),
                                         L.nn.functional.adaptive_avg_pool3d(a[None], 2)),
                           [(2, 5, 5)]),
    "adaptive_max_pools": (lambda L, a: (L.nn.functional.adaptive_max_pool1d(a[0], 3),
                                         *L.nn.functional.adaptive_max_pool2d(
                                             a, 2, return_indices=True)), [(2, 5, 5)]),
    # nn.functional
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)]),
    "relu_gelu": (lambda L, a: L.nn.functional.relu(a) + L.nn.functional.gelu(a), [(3,)]),
    "F_softmax": (lambda L, a: L.nn.functional.softmax(a, dim=1), [(2, 3)]),
    "layer_norm_normalize": (lambda L, a, w: L.nn.functional.layer_norm(a, (3,), w) +
                             L.nn.functional.normalize(a), [(2, 3), (3,)]),
    "F_log_softmax": (lambda L, a: L.nn.functional.log_softmax(a, 0), [(2, 3)]),
    "cross_entropy": (lambda L, a, t: L.nn.functional.cross_entropy(a, t), [(4, 3), (4,)],
                      "fi"),
    "cross_entropy_1d": (lambda L, a, t: L.nn.functional.cross_entropy(a, t), [(3,), ()],
                         "fi"),
    "cross_entropy_sum": (lambda L, a, t: L.nn.functional.cross_entropy(a, t,
                                                                        reduction="sum"),
                          [(4, 3), (4,)], "fi"),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), [(2, 3), (2, 3)]),
    "mse_loss_none": (lambda L, a, b: L.nn.functional.mse_loss(a, b, reduction="none"),
                      [(2, 3), (2, 3)]),
    # creation *_like
    "zeros_ones_like": (lambda L, a: L.zeros_like(a) + L.ones_like(a) * 2, [(2, 3)]),
    "full_like": (lambda L, a: L.full_like(a, 7.0), [(2,)]),
    # questions about the tensor (answered for the samples, no loop)
    "meta": (lambda L, a: a * (a.is_floating_point() + L.is_tensor(a) + a.is_complex()),
             [(2,)]),
}


def _inputs(shapes, kinds, dims, seed=0):
    arrays = []
    for k, (s, d) in enumerate(zip(shapes, dims)):
        kind = kinds[k] if kinds else "f"
        if d is None:
            arrays.append(_arr(s, seed + k, kind=kind))
            continue
        full = list(s)
        full.insert(d % (len(s) + 1), B)
        a = _arr(tuple(full), seed + k, kind=kind)
        if kind == "i":
            bound = 3 if k == 1 and len(shapes[0]) else 3
            a = a % bound
        arrays.append(a)
    return arrays


def _cases():
    for name, entry in OPS.items():
        fn, shapes = entry[0], entry[1]
        kinds = entry[2] if len(entry) > 2 else None
        n = len(shapes)
        variants = {"0": (0,) * n, "-1": (-1,) * n}
        if all(len(s) >= 1 for s in shapes):
            variants["1"] = (1,) * n
        if n > 1:
            variants["none_first"] = (None,) + (0,) * (n - 1)
            variants["none_rest"] = (0,) + (None,) * (n - 1)
        for vname, dims in variants.items():
            yield pytest.param(fn, shapes, kinds, dims, id=f"{name}-{vname}")


@pytest.mark.parametrize("fn,shapes,kinds,dims", list(_cases()))
def test_op_table(fn, shapes, kinds, dims):
    arrays = _inputs(shapes, kinds, dims)
    _check(fn, arrays, in_dims=dims)


@pytest.mark.parametrize("out_dims", [1, -1, (0, 1)])
def test_out_dims(out_dims):
    arrays = [_arr((B, 2, 3), 0)]
    _check(lambda L, a: (a.sin(), a.sum(0)), arrays, out_dims=out_dims)


@pytest.mark.parametrize("name", ["sin", "add_bcast", "sum_dim", "matmul_mm", "cat", "linear",
                                  "softmax", "getitem", "einsum", "gather", "cross_entropy"])
def test_nested(name):
    entry = OPS[name]
    fn, shapes = entry[0], entry[1]
    kinds = entry[2] if len(entry) > 2 else None
    arrays = []
    for k, s in enumerate(shapes):
        a = _arr((3, B) + tuple(s), k, kind=kinds[k] if kinds else "f")
        arrays.append(a)
    for lib_dims in [(0, 1), (0, 0)]:
        outs = []
        for lib in (torch, ember):
            xs = [lib.tensor(a) for a in arrays]
            inner = lib.func.vmap(lambda *a, lib=lib: fn(lib, *a), in_dims=lib_dims[0])
            outs.append(lib.func.vmap(inner, in_dims=lib_dims[1])(*xs))
        _same(*outs)


def test_nested_unbatched_inner():
    """An inner vmap over one argument, the outer one over another (levels mix in one op)."""
    a, b = _arr((3, 4), 0), _arr((5, 4), 1)
    outs = []
    for lib in (torch, ember):
        f = lib.func.vmap(lib.func.vmap(lambda x, y: (x * y).sum(), in_dims=(None, 0)),
                          in_dims=(0, None))
        outs.append(f(lib.tensor(a), lib.tensor(b)))
    _same(*outs)


def test_rules_run_once():
    """The function body runs once for the whole batch (not once per sample)."""
    calls = []

    def f(x, w):
        calls.append(1)
        h = ember.nn.functional.relu(x @ w)
        return (h.softmax(-1) * h).sum(-1).mean()
    x = ember.randn(64, 5, 3)
    w = ember.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ember.func.vmap(f, in_dims=(0, None))(x, w)
    assert len(calls) == 1 and tuple(out.shape) == (64,)


def _mlp(lib):
    rng = np.random.default_rng(5)
    params = tuple(lib.tensor(rng.standard_normal(s)) for s in [(8, 4), (8,), (3, 8), (3,)])
    x = lib.tensor(rng.standard_normal((6, 4)))
    y = lib.tensor(np.array([0, 1, 2, 0, 1, 2]))
    F = lib.nn.functional

    def loss(p, xi, yi):
        h = F.gelu(F.linear(xi, p[0], p[1]))
        out = F.linear(h, p[2], p[3])
        return F.cross_entropy(out.unsqueeze(0), yi.unsqueeze(0)) + (p[0] ** 2).sum() * 1e-3
    return loss, params, x, y


def test_per_sample_grads():
    got = []
    for lib in (torch, ember):
        loss, params, x, y = _mlp(lib)
        got.append(lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y))
    _same(*got)
    # each row is that sample's gradient (autograd one sample at a time)
    loss, params, x, y = _mlp(ember)
    for i in range(x.shape[0]):
        ps = [p.detach().requires_grad_() for p in params]
        gs = ember.autograd.grad(loss(ps, x[i], y[i]), ps)
        for g, b in zip(gs, got[1]):
            np.testing.assert_allclose(_np(b[i]), _np(g), rtol=1e-10, atol=1e-12)


def test_per_sample_grads_module():
    """functional_call over an nn.Module's parameters (the usual per-sample-gradient recipe)."""
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Linear(6, 2))
        params = {k: v.detach() for k, v in model.named_parameters()}
        x = lib.tensor(_arr((5, 4), 1, np.float32))
        t = lib.tensor(_arr((5, 2), 2, np.float32))

        def loss(p, xi, ti, lib=lib, model=model):
            out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
            return lib.nn.functional.mse_loss(out, ti.unsqueeze(0))
        g = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, t)
        outs.append([g[k] for k in sorted(g)])
    _same(*outs, tol=1e-5)


def test_grad_of_vmap():
    outs = []
    for lib in (torch, ember):
        x = lib.tensor(_arr((4, 3), 0), requires_grad=True)
        w = lib.tensor(_arr((3, 2), 1), requires_grad=True)
        y = lib.func.vmap(lambda r: (lib.tanh(r @ w) ** 2).sum())(x)
        (y * lib.arange(4.0, dtype=lib.float64)).sum().backward()
        outs.append((x.grad, w.grad))
    _same(*outs)


def test_grad_of_per_sample_grads_and_hessians():
    """Backward through vmap(grad(f)) (a meta-gradient) and vmap of hessian."""
    outs = []
    for lib in (torch, ember):
        w = lib.tensor(np.linspace(-1, 1, 6).reshape(3, 2), requires_grad=True)
        x = lib.tensor(np.linspace(0, 2, 8).reshape(4, 2))
        f = lambda w, xi, lib=lib: (lib.tanh(w @ xi) ** 2).sum()     # noqa: E731
        g = lib.func.vmap(lib.func.grad(f), in_dims=(None, 0))(w, x)
        (g ** 2).sum().backward()
        h = lib.func.vmap(lib.func.hessian(lambda xi, lib=lib: (lib.sin(xi) * xi).sum()))(x)
        outs.append((g, w.grad, h))
    _same(*outs)


def test_jacrev_jacfwd_in_vmap():
    outs = []
    for lib in (torch, ember):
        x = lib.tensor(_arr((4, 3), 0))
        f = lambda r, lib=lib: lib.sin(r) * r.sum()   # noqa: E731
        outs.append((lib.func.vmap(lib.func.jacrev(f))(x), lib.func.vmap(lib.func.jacfwd(f))(x),
                     lib.func.jacrev(f)(x[0]), lib.func.jacfwd(f)(x[0])))
    _same(*outs)


def test_fallback_loops_and_warns_once():
    ember.func._batching._WARNED.discard("argwhere")
    x = _arr((B, 2, 2), 0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = ember.func.vmap(lambda a: ember.argwhere(a > -10))(ember.tensor(x))
        ember.func.vmap(lambda a: ember.argwhere(a.t() < 10))(ember.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # (torch's fallback loops too, and warns)
        want = torch.func.vmap(lambda a: torch.argwhere(a > -10))(torch.tensor(x))
    _same(want, got)
    msgs = [str(m.message) for m in w if SLOW in str(m.message)]
    assert msgs == ["There is a performance drop because we have not yet implemented the "
                    "batching rule for aten::argwhere. Please file us an issue on GitHub so "
                    "that "
                    "we can prioritize its implementation."]


def test_fallback_in_place_writes_through():
    x = _arr((B, 3), 0)
    outs = []
    for lib in (torch, ember):
        t = lib.tensor(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.func.vmap(lambda a, lib=lib: a.cauchy_() if False else a.mul_(2).add_(1))(t)
        outs.append(t)
    _same(*outs)


@pytest.mark.parametrize("chunk_size", [1, 3, 10])
def test_chunk_size(chunk_size):
    arrays = [_arr((7, 3), 0), _arr((3,), 1)]
    _check(lambda L, a, b: (a * b).sum() + a, arrays, in_dims=(0, None), chunk_size=chunk_size)


def test_setitem_and_max_other():
    x, v = _arr((B, 3, 4), 0), _arr((B, 4), 1)

    def f(L, a, b):
        a = a.clone()
        a[1] = b
        a[0, 1:] = 0.5
        return L.max(a, other=b) + a
    _check(f, [x, v])
    _errors(lambda L, a, b: b.__setitem__(0, a), _arr((B,), 2), _arr((3,), 3),
            in_dims=(0, None))


def test_randomness():
    x = ember.zeros(4, 3)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        ember.func.vmap(lambda a: a + ember.rand(3))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        ember.func.vmap(lambda a: ember.rand_like(a))(x)
    same = ember.func.vmap(lambda a: a + ember.rand(3), randomness="same")(x)
    assert tuple(same.shape) == (4, 3) and bool((same[0] == same[1]).all())
    diff = ember.func.vmap(lambda a: a + ember.randn_like(a), randomness="different")(x)
    assert tuple(diff.shape) == (4, 3) and not bool((diff[0] == diff[1]).all())
    diff = ember.func.vmap(lambda a: a + ember.rand(3), randomness="different")(x)
    assert not bool((diff[0] == diff[1]).all())


@pytest.mark.parametrize("randomness", ["same", "different"])
@pytest.mark.parametrize("name", ["rand", "randn_like", "dropout", "bernoulli", "rand_scalar"])
def test_random_draws_match_torch(name, randomness):
    """Random ops in vmap draw what torch draws (ember's generator matches torch's stream)."""
    fns = {"rand": lambda L, a: a + L.rand(3),
           "randn_like": lambda L, a: a + L.randn_like(a),
           "dropout": lambda L, a: L.nn.functional.dropout(a, 0.5),
           "bernoulli": lambda L, a: L.bernoulli(a * 0.5),
           "rand_scalar": lambda L, a: a * L.rand(())}
    if name == "bernoulli" and randomness == "same":
        _errors(fns[name], np.ones((4, 3)), randomness=randomness)
        return
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs.append(lib.func.vmap(lambda a, lib=lib: fns[name](lib, a),
                                      randomness=randomness)(lib.ones(4, 3)))
    _same(*outs)


def _errors(fn, *args, **kw):
    res = []
    for lib in (torch, ember):
        xs = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        with pytest.raises(Exception) as e:
            lib.func.vmap(lambda *a, lib=lib: fn(lib, *a), **kw)(*xs)
        res.append(e)
    t, e = res
    assert type(t.value) is type(e.value), (t.value, e.value)
    assert str(t.value) == str(e.value).replace("ember", "torch")


def test_errors_match_torch():
    x = _arr((3, 4), 0)
    y = _arr((2, 4), 1)
    _errors(lambda L, a: a, x, in_dims=2)
    _errors(lambda L, a, b: a + b, x, y)
    _errors(lambda L, a: a, x, in_dims=(0, 0))
    _errors(lambda L, a: a, x, in_dims="a")
    _errors(lambda L, a: a.item(), x)
    _errors(lambda L, a: a.sum() > 0 and a, x)
    _errors(lambda L, a: (a, a), x, out_dims=(0, 0, 0))
    _errors(lambda L, a: a, x, out_dims=3)
    _errors(lambda L, a, b: b.add_(a), x, _arr((4,), 2), in_dims=(0, None))
    _errors(lambda L, a, b: b.mul_(a), x, _arr((4,), 2), in_dims=(0, None))
    _errors(lambda L, a, b: b.atan2_(a), x, _arr((4,), 2), in_dims=(0, None))
    _errors(lambda L, a, b: b.copy_(a), x, _arr((4,), 2), in_dims=(0, None))
    _errors(lambda L, a, b: b.clamp_(min=a), x, _arr((4,), 2), in_dims=(0, None))


def test_torch_vmap_alias():
    assert ember.vmap is ember.func.vmap


def test_normal_path_untouched():
    """Out of vmap the module functions are the plain ones (no dispatch cost)."""
    ember.func.vmap(lambda a: a.sin())(ember.ones(2, 2))
    from ember.ops import unary
    assert ember.sin is unary.sin and ember.Tensor.sin is unary.sin
    assert not hasattr(ember.sin, "_vmap_dispatch")
    assert ember.nn.functional.linear.__module__ == "ember.nn.functional"


def test_function_vmap_staticmethod_is_called_with_torchs_arguments():
    def run(L):
        calls = []

        class Double(L.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

            @staticmethod
            def vmap(info, in_dims, x, k):
                # (torch passes the physical tensor with the batch dim where in_dims says;
                # ember's is always at 0: both are what the staticmethod's contract allows)
                calls.append((info.batch_size, info.randomness, in_dims[1],
                              tuple(x.movedim(in_dims[0], 0).shape)))
                return x * k + 1, in_dims[0]
        x = L.arange(6.0).view(2, 3)
        out = L.func.vmap(Double.apply, in_dims=(1, None))(x, 3.0)
        return out.tolist(), calls
    assert run(ember) == run(torch)


def _set_two(L, a, i, j, v):
    a = a.clone()
    a[i, j] = v
    return a


def _set_after_slice(L, a, i, j, v):
    a = a.clone()
    a[:, i % 4, j] = 1.5
    return a


def _set_apart(L, a, i, j, v):
    a = a.clone()
    a[i, :, j % 6] = v[:, :5]
    return a


def _index_put_acc(L, a, i, j, v):
    return a.clone().index_put_((i, j), v, accumulate=True)


@pytest.mark.parametrize("fn,dims", [
    (_set_two, (0, 0, 0, 0)), (_set_two, (0, None, None, None)), (_set_two, (0, 0, None, 0)),
    (_set_after_slice, (0, 0, 0, 0)), (_set_apart, (0, 0, 0, 0)),
    (_index_put_acc, (0, 0, 0, 0)), (_index_put_acc, (0, None, 0, None)),
    (lambda L, a, i, j, v: L.index_put(a, (i, j), v), (0, 0, 0, 0))])
def test_setitem_and_index_put_with_tensor_indices(fn, dims):
    """Writes through several tensor indices (batched or not) run as one write on the value,
    with torch's values (and repeated indices accumulate with accumulate=True)."""
    arrays = [_arr((3, 4, 5, 6), 0), _arr((3, 2), 1, kind="i") + 1, _arr((3, 2), 2, kind="i"),
              _arr((3, 2, 6), 3)]
    arrays = [a if d == 0 else a[0] for a, d in zip(arrays, dims)]
    _check(fn, arrays, in_dims=dims)


def test_per_sample_grads_conv_net():
    """Per-sample gradients of a small CNN (conv2d, max_pool2d, conv_transpose2d, avg_pool2d,
    linear): the lifted weights make each conv a grouped one; no op loops."""
    rng = np.random.default_rng(3)
    ws = [rng.standard_normal(s) * 0.3 for s in [(3, 2, 3, 3), (3,), (3, 2, 2, 2), (4, 8)]]
    x = rng.standard_normal((B, 2, 6, 6))
    y = rng.integers(0, 4, B)
    outs = []
    for lib in (torch, ember):
        F = lib.nn.functional

        def loss(p, xi, yi, F=F):
            h = F.max_pool2d(F.conv2d(xi.unsqueeze(0), p[0], p[1], padding=1).tanh(), 2)
            h = F.avg_pool2d(F.conv_transpose2d(h, p[2], stride=2), 3)
            return F.cross_entropy(F.linear(h.flatten(1), p[3]), yi.unsqueeze(0))
        p = tuple(lib.tensor(w) for w in ws)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            outs.append(lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(
                p, lib.tensor(x), lib.tensor(y)))
        if lib is ember:
            assert not [m for m in w if SLOW in str(m.message)]
    _same(*outs)
