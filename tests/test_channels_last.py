"""Channels-last memory format and the gradient layout contract, against torch: the strides
contiguous()/to()/clone()/empty()/*_like give for each memory_format, the layouts the
convolution, pooling, normalisation, upsampling and padding kernels keep (forward and input
gradient), the .grad a leaf of any layout gets, dropout's mask drawn in memory order, and the
errors (Note [Channels last] in ember/ops/_args.py, Note [Gradient layout] in graph.py)."""
import itertools

import numpy as np
import pytest
import torch

import ember

LIBS = (torch, ember)


def both(fn):
    return [fn(lib) for lib in LIBS]


def outcome(fn, lib):
    try:
        return ("ok", fn(lib))
    except Exception as e:          # noqa: BLE001 - the exception is the result compared
        return (type(e).__name__, str(e).split("\n")[0])


def same_outcome(fn):
    t, e = outcome(fn, torch), outcome(fn, ember)
    assert t == e


def arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------- the conversions

CONVERSIONS = {
    "contiguous": lambda L, x: x.contiguous(memory_format=L.channels_last),
    "to": lambda L, x: x.to(memory_format=L.channels_last),
    "to_dtype": lambda L, x: x.to(L.float64, memory_format=L.channels_last),
    "double": lambda L, x: x.double(memory_format=L.channels_last),
    "clone": lambda L, x: x.clone(memory_format=L.channels_last),
    "back": lambda L, x: x.contiguous(memory_format=L.channels_last).contiguous(),
    "clone_contig": lambda L, x: x.contiguous(memory_format=L.channels_last).clone(
        memory_format=L.contiguous_format),
    "clone_preserve": lambda L, x: x.contiguous(memory_format=L.channels_last).clone(),
    "to_contig": lambda L, x: x.contiguous(memory_format=L.channels_last).to(
        memory_format=L.contiguous_format),
    "to_contig_permuted": lambda L, x: x.permute(0, 2, 1, 3).to(
        memory_format=L.contiguous_format),
    "float_cl": lambda L, x: x.float(memory_format=L.channels_last),
    "empty_like": lambda L, x: L.empty_like(x, memory_format=L.channels_last),
    "zeros_like": lambda L, x: L.zeros_like(x, memory_format=L.channels_last),
    "full_like": lambda L, x: L.full_like(x, 2.0, memory_format=L.channels_last),
    "like_preserve": lambda L, x: L.ones_like(x.contiguous(memory_format=L.channels_last)),
    "like_contig": lambda L, x: L.empty_like(x.contiguous(memory_format=L.channels_last),
                                             memory_format=L.contiguous_format),
}


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 1, 1), (2, 1, 4, 4), (1, 3, 4, 1)])
@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_conversion_layout_values_and_node(name, shape):
    a = arr(shape)
    res = []
    for L in LIBS:
        x = L.tensor(a, requires_grad=True)
        y = CONVERSIONS[name](L, x)
        res.append((y.stride(), y.is_contiguous(), y.is_contiguous(
            memory_format=L.channels_last), y.dtype.is_floating_point,
            None if y.grad_fn is None else type(y.grad_fn).__name__, y is x))
        if name not in ("empty_like", "like_contig"):
            assert np.array_equal(y.detach().numpy() if L is torch else y.detach()._data,
                                  CONVERSIONS[name](torch, torch.tensor(a)).numpy())
    assert res[0] == res[1]


def test_returns_self_when_already_in_the_format():
    for L in LIBS:
        y = L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
        assert y.contiguous(memory_format=L.channels_last) is y
        assert y.to(memory_format=L.channels_last) is y
        assert y.to(memory_format=L.channels_last, copy=True) is not y
        z = L.ones(2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d)
        assert z.contiguous(memory_format=L.channels_last_3d) is z


def test_channels_last_3d_strides():
    t, e = both(lambda L: (L.ones(2, 3, 4, 5, 6).contiguous(
        memory_format=L.channels_last_3d).stride(), L.empty(2, 3, 4, 5, 6,
        memory_format=L.channels_last_3d).stride()))
    assert t == e


def test_empty_and_random_like_in_the_format():
    for make in (lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last),
                 lambda L: L.empty(2, 3, 4, 5, memory_format=L.contiguous_format),
                 lambda L: L.empty(1, 3, 1, 1, memory_format=L.channels_last),
                 lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last,
                                   requires_grad=True)):
        assert make(torch).stride() == make(ember).stride()
    for name in ("rand_like", "randn_like"):
        vals = []
        for L in LIBS:
            L.manual_seed(3)
            y = getattr(L, name)(L.ones(2, 3, 4, 5), memory_format=L.channels_last)
            vals.append((y.stride(), y.tolist()))
        assert vals[0] == vals[1]
    vals = []
    for L in LIBS:
        L.manual_seed(4)
        y = L.randint_like(L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last), 9,
                           memory_format=L.contiguous_format)
        vals.append((y.stride(), y.tolist()))
    assert vals[0] == vals[1]


@pytest.mark.parametrize("fn", [
    lambda L: L.arange(3.).contiguous(memory_format=L.channels_last),
    lambda L: L.ones(2, 3, 4, 5, 6).to(memory_format=L.channels_last),
    lambda L: L.ones(2, 3, 4).clone(memory_format=L.channels_last),
    lambda L: L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last_3d),
    lambda L: L.empty(2, 3, 4, memory_format=L.channels_last),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.preserve_format),
    lambda L: L.empty(2, 3, 4, 5, memory_format=1),
    lambda L: L.empty_like(L.ones(2, 3, 4), memory_format=L.channels_last),
    lambda L: L.full_like(L.ones(2, 3, 4), 1, memory_format=L.channels_last),
    lambda L: L.rand_like(L.ones(2, 3, 4), memory_format=L.channels_last),
    lambda L: L.ones(2, 3, 4, 5).t().contiguous(memory_format=L.preserve_format),
    lambda L: L.ones(2, 3, 4, 5).transpose(1, 2).contiguous(memory_format=L.preserve_format),
    lambda L: L.zeros(2, 3, 4, 5, memory_format=L.channels_last),
    lambda L: L.ones(2, 3, 4, 5, memory_format=L.channels_last),
    lambda L: L.ones(2, 3).new_empty((2, 3, 4, 5), memory_format=L.channels_last),
    lambda L: L.ones(2, 3).new_zeros((2, 3), memory_format=L.channels_last),
    lambda L: L.nn.Conv3d(3, 4, 3).to(memory_format=L.channels_last),
], ids=lambda f: None)
def test_errors_as_torch(fn):
    same_outcome(fn)


def test_module_to_converts_only_4d_and_5d_tensors():
    res = []
    for L in LIBS:
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4))
        w = m[0].weight
        m.to(L.float64, memory_format=L.channels_last)
        res.append((m[0].weight.stride(), m[0].bias.stride(), m[0].weight.dtype.itemsize,
                    m[0].weight is w, m[0].weight.is_leaf, m[0].weight.requires_grad,
                    m[1].running_mean.stride()))
        y = m(L.ones(2, 3, 6, 6, dtype=L.float64).contiguous(memory_format=L.channels_last))
        res.append((y.stride(), y.is_contiguous(memory_format=L.channels_last)))
    assert res[:2] == res[2:]
    same_outcome(lambda L: L.nn.Conv2d(3, 4, 3).to(memory_format=3))


# ---------------------------------------------------------------- what the kernels keep

def _x(L, a, fmt):
    x = L.tensor(a)
    if fmt == "cl":
        x = x.contiguous(memory_format=L.channels_last if a.ndim == 4 else L.channels_last_3d)
    elif fmt == "perm":             # a layout that is neither (C fastest... but W slowest)
        x = x.permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1) if a.ndim == 4 else x
    elif fmt == "slice":            # channels last, not dense
        x = L.tensor(np.concatenate([a, a], axis=1))
        x = x.contiguous(memory_format=L.channels_last)[:, ::2]
    return x.requires_grad_()


def _layouts(L, fn, a, fmt, seed=1):
    x = _x(L, a, fmt)
    y = fn(L, x)
    outs = y if isinstance(y, tuple) else (y,)
    res = [o.stride() for o in outs]
    floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if floats:
        w = L.tensor(np.random.default_rng(seed).standard_normal(tuple(floats[0].shape))
                     .astype(np.float32))
        g = L.autograd.grad((floats[0] * w).sum(), x)[0]
        res.append(("grad", g.stride()))
        return res, np.asarray(g.detach().tolist())
    return res, None


def same_layouts(t, e):
    assert t[0] == e[0]
    assert (t[1] is None) == (e[1] is None)
    if t[1] is not None:
        np.testing.assert_allclose(e[1], t[1], rtol=1e-4, atol=1e-5)


F4 = {
    "conv2d": lambda L, x: L.nn.functional.conv2d(x, L.ones(4, 3, 3, 3)),
    "conv2d_1x1": lambda L, x: L.nn.functional.conv2d(x, L.ones(4, 3, 1, 1)),
    "conv2d_groups": lambda L, x: L.nn.functional.conv2d(x, L.ones(6, 1, 3, 3), groups=3),
    "conv_transpose2d": lambda L, x: L.nn.functional.conv_transpose2d(x, L.ones(3, 2, 2, 2)),
    "max_pool2d": lambda L, x: L.nn.functional.max_pool2d(x, 2),
    "max_pool2d_indices": lambda L, x: L.nn.functional.max_pool2d(x, 2, return_indices=True),
    "avg_pool2d": lambda L, x: L.nn.functional.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (2, 3)),
    "adaptive_avg_pool2d_1": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
    "adaptive_max_pool2d": lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (2, 3)),
    "lp_pool2d": lambda L, x: L.nn.functional.lp_pool2d(x, 2, 2),
    "batch_norm_train": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda L, x: L.nn.functional.batch_norm(x, L.zeros(3), L.ones(3)),
    "group_norm": lambda L, x: L.nn.functional.group_norm(x, 3),
    "instance_norm": lambda L, x: L.nn.functional.instance_norm(x),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (7,)),
    "local_response_norm": lambda L, x: L.nn.functional.local_response_norm(x, 2),
    "nearest": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2),
    "bilinear": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
    "bicubic": lambda L, x: L.nn.functional.interpolate(x, size=(5, 9), mode="bicubic"),
    "pad_constant": lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1)),
    "pad_reflect": lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect"),
    "pad_replicate": lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"),
    "pad_circular": lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode="circular"),
    "softmax": lambda L, x: L.softmax(x, 1),
    "log_softmax": lambda L, x: L.log_softmax(x, 3),
    "relu": lambda L, x: L.relu(x),
    "add_bias": lambda L, x: x + L.ones(3, 1, 1),
    "cat": lambda L, x: L.cat([x, x], 1),
    "dropout2d_eval": lambda L, x: L.nn.functional.dropout2d(x, training=False),
    "flatten": lambda L, x: x.flatten(1),
    "mean": lambda L, x: x.mean((2, 3), keepdim=True),
}


@pytest.mark.parametrize("fmt", ["contiguous", "cl", "perm", "slice"])
@pytest.mark.parametrize("name", sorted(F4))
def test_4d_kernel_layouts_as_torch(name, fmt):
    a = arr((2, 3, 6, 7))
    same_layouts(*(_layouts(L, F4[name], a, fmt) for L in LIBS))


F5 = {
    "conv3d": lambda L, x: L.nn.functional.conv3d(x, L.ones(2, 3, 1, 2, 2)),
    "max_pool3d": lambda L, x: L.nn.functional.max_pool3d(x, 2),
    "avg_pool3d": lambda L, x: L.nn.functional.avg_pool3d(x, 2),
    "adaptive_avg_pool3d": lambda L, x: L.nn.functional.adaptive_avg_pool3d(x, 2),
    "adaptive_max_pool3d": lambda L, x: L.nn.functional.adaptive_max_pool3d(x, 2),
    "trilinear": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2, mode="trilinear"),
    "nearest3d": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2),
    "batch_norm3d": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "group_norm3d": lambda L, x: L.nn.functional.group_norm(x, 3),
    "pad3d": lambda L, x: L.nn.functional.pad(x, (1, 1)),
}


@pytest.mark.parametrize("fmt", ["contiguous", "cl"])
@pytest.mark.parametrize("name", sorted(F5))
def test_5d_kernel_layouts_as_torch(name, fmt):
    a = arr((2, 3, 4, 6, 5))
    same_layouts(*(_layouts(L, F5[name], a, fmt) for L in LIBS))


@pytest.mark.parametrize("xcl,wcl", list(itertools.product((0, 1), repeat=2)))
@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_layouts_of_result_and_both_gradients(xcl, wcl, transposed):
    res = []
    for L in LIBS:
        x = L.tensor(arr((2, 3, 6, 7)))
        w = L.tensor(arr((3, 4, 3, 3) if transposed else (4, 3, 3, 3), 1))
        if xcl:
            x = x.contiguous(memory_format=L.channels_last)
        if wcl:
            w = w.contiguous(memory_format=L.channels_last)
        x.requires_grad_()
        w.requires_grad_()
        f = L.nn.functional.conv_transpose2d if transposed else L.nn.functional.conv2d
        y = f(x, w)
        g = L.autograd.grad((y * L.tensor(arr(tuple(y.shape), 2))).sum(), (x, w),
                            retain_graph=True)
        (y * L.tensor(arr(tuple(y.shape), 2))).sum().backward()
        res.append(((y.stride(), g[0].stride(), g[1].stride(), x.grad.stride(),
                    w.grad.stride()), np.asarray(g[1].tolist())))
    same_layouts(*res)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(4))))
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 1, 5), (2, 1, 4, 5), (1, 3, 4, 5),
                                   (2, 3, 1, 1)])
def test_suggested_format_rule_as_torch(shape, perm):
    """Which layouts make a convolution's result channels last: every dim order, with
    size-1 dims (torch's stride rule in Note [Channels last])."""
    inv = np.argsort(perm)
    res = []
    for L in LIBS:
        base = L.tensor(arr(tuple(shape[p] for p in perm)))
        x = base.permute(*inv)
        y = L.nn.functional.conv2d(x, L.ones(2, shape[1], 1, 1))
        res.append((x.stride(), y.stride(), y.is_contiguous(memory_format=L.channels_last)))
    assert res[0] == res[1]


# ---------------------------------------------------------------- the .grad layout contract

LEAVES = {
    "transposed": lambda L: L.tensor(arr((3, 4))).t(),
    "sliced": lambda L: L.tensor(arr((3, 4)))[:, ::2],
    "channels_last": lambda L: L.tensor(arr((2, 3, 4, 5))).contiguous(
        memory_format=L.channels_last),
    "permuted3d": lambda L: L.tensor(arr((2, 3, 4))).permute(2, 0, 1),
    "contiguous": lambda L: L.tensor(arr((3, 4))),
}
USES = {
    "mul": lambda L, x: (x * 2).sum(),
    "exp": lambda L, x: x.exp().sum(),
    "sum": lambda L, x: x.sum(),
    "matmul": lambda L, x: (x.reshape(x.shape[0], -1) @ L.ones(x[0].numel(), 2)).sum(),
    "twice": lambda L, x: (x * 2).sum() + x.exp().sum(),
}


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_leaf_grad_follows_the_leaf_layout(leaf, use):
    res = []
    for L in LIBS:
        x = LEAVES[leaf](L).requires_grad_()
        USES[use](L, x).backward()
        res.append(((x.grad.stride(),), np.asarray(x.grad.tolist())))
        USES[use](L, x).backward()      # accumulating keeps the first layout
        res[-1] = ((x.grad.stride(),) + res[-1][0], res[-1][1])
    same_layouts(*res)


def test_leaf_grad_layout_under_create_graph():
    res = []
    for L in LIBS:
        x = L.tensor(arr((4, 3))).t().requires_grad_()
        (x.exp()).sum().backward(create_graph=True)
        res.append((x.grad.stride(), x.grad.requires_grad))
    assert res[0] == res[1]


# ---------------------------------------------------------------- dropout's mask

@pytest.mark.parametrize("make", [
    lambda L: L.arange(1., 13.).reshape(3, 4).t(),
    lambda L: L.arange(1., 121.).reshape(2, 3, 4, 5).contiguous(memory_format=L.channels_last),
    lambda L: L.arange(1., 121.).reshape(2, 3, 4, 5)[:, :, ::2],
    lambda L: L.arange(1., 121.).reshape(2, 3, 4, 5).permute(3, 1, 0, 2),
])
def test_dropout_mask_drawn_in_memory_order(make):
    res = []
    for L in LIBS:
        L.manual_seed(0)
        y = L.nn.functional.dropout(make(L))
        res.append((y.stride(), y.tolist()))
    assert res[0] == res[1]
