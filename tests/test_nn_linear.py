"""Linear, Bilinear, Identity, Flatten, Unflatten, Embedding, EmbeddingBag and their functional
forms (F.bilinear, F.embedding, F.embedding_bag) against torch: values, grad_fn names and
chains, input and parameter gradients (float32 and float64), double backward, reprs, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck, gradgradcheck

R = np.random.default_rng(11)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def ids(n, *shape):
    return R.integers(0, n, shape)


def F(lib):
    return lib.nn.functional


def chain(t):
    """The grad_fn graph below t as nested (name, [children]) (AccumulateGrad included)."""
    def walk(fn):
        if fn is None:
            return None
        return (type(fn).__name__, [walk(f) for f, _ in fn.next_functions])
    return walk(t.grad_fn)


# ---------------------------------------------------------------- functional forms

BAGS = np.array([1, 2, 4, 5, 4, 3, 2, 9])
OFFS = np.array([0, 3, 3, 6])       # a middle bag is empty

# name -> (fn(lib, *tensors), sample inputs (float64), indices of inputs that require grad)
CASES = {
    "bilinear": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
                 [randn(3, 4), randn(3, 5), randn(2, 4, 5), randn(2)], None),
    "bilinear_nobias": (lambda L, a, b, w: F(L).bilinear(a, b, w),
                        [randn(3, 4), randn(3, 5), randn(2, 4, 5)], None),
    "bilinear_1d": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
                    [randn(4), randn(5), randn(2, 4, 5), randn(2)], None),
    "bilinear_3d": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
                    [randn(2, 3, 4), randn(2, 3, 5), randn(2, 4, 5), randn(2)], None),
    "bilinear_x2_const": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
                          [randn(3, 4), randn(3, 5), randn(2, 4, 5), randn(2)], [0, 2, 3]),
    "bilinear_empty": (lambda L, a, b, w, c: F(L).bilinear(a, b, w, c),
                       [randn(0, 4), randn(0, 5), randn(2, 4, 5), randn(2)], None),
    "embedding": (lambda L, i, w: F(L).embedding(i, w), [ids(6, 2, 3), randn(6, 4)], None),
    "embedding_0d": (lambda L, i, w: F(L).embedding(i, w), [np.array(3), randn(6, 4)], None),
    "embedding_repeat": (lambda L, i, w: F(L).embedding(i, w),
                         [np.array([1, 1, 2, 1]), randn(6, 4)], None),
    "embedding_int32": (lambda L, i, w: F(L).embedding(i, w),
                        [np.array([0, 5, 2], np.int32), randn(6, 4)], None),
    "embedding_padding": (lambda L, i, w: F(L).embedding(i, w, padding_idx=1),
                          [np.array([[1, 2], [1, 0]]), randn(6, 4)], None),
    "embedding_padding_neg": (lambda L, i, w: F(L).embedding(i, w, padding_idx=-1),
                              [np.array([5, 2, 5]), randn(6, 4)], None),
    "embedding_freq": (lambda L, i, w: F(L).embedding(i, w, scale_grad_by_freq=True),
                       [np.array([1, 1, 2, 1, 4]), randn(6, 4)], None),
    "embedding_freq_padding": (lambda L, i, w: F(L).embedding(i, w, padding_idx=2,
                                                              scale_grad_by_freq=True),
                               [np.array([1, 2, 2, 1, 4]), randn(6, 4)], None),
    "embedding_empty": (lambda L, i, w: F(L).embedding(i, w),
                        [np.zeros((0, 2), np.int64), randn(6, 4)], None),
    "bag_sum": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="sum"),
                [BAGS, randn(10, 3), OFFS], None),
    "bag_mean": (lambda L, i, w, o: F(L).embedding_bag(i, w, o), [BAGS, randn(10, 3), OFFS],
                 None),
    "bag_max": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="max"),
                [BAGS, randn(10, 3), OFFS], None),
    "bag_2d_mean": (lambda L, i, w: F(L).embedding_bag(i, w), [ids(10, 3, 4), randn(10, 3)],
                    None),
    "bag_2d_max": (lambda L, i, w: F(L).embedding_bag(i, w, mode="max"),
                   [ids(10, 3, 4), randn(10, 3)], None),
    "bag_last_offset": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="sum",
                                                              include_last_offset=True),
                        [BAGS, randn(10, 3), np.array([0, 2, 5, 8])], None),
    "bag_last_offset_short": (lambda L, i, w, o: F(L).embedding_bag(
        i, w.double(), o, mode="mean", include_last_offset=True),
        [BAGS, randn(10, 3), np.array([0, 2, 5, 7])], None),
    "bag_psw": (lambda L, i, w, o, p: F(L).embedding_bag(i, w, o, mode="sum",
                                                         per_sample_weights=p),
                [BAGS, randn(10, 3), OFFS, randn(8)], None),
    "bag_psw_only": (lambda L, i, w, o, p: F(L).embedding_bag(i, w, o, mode="sum",
                                                              per_sample_weights=p),
                     [BAGS, randn(10, 3), OFFS, randn(8)], [3]),
    "bag_psw_2d": (lambda L, i, w, p: F(L).embedding_bag(i, w, mode="sum",
                                                         per_sample_weights=p),
                   [ids(10, 2, 3), randn(10, 3), randn(2, 3)], None),
    "bag_padding_sum": (lambda L, i, w, o, p: F(L).embedding_bag(
        i, w, o, mode="sum", padding_idx=2, per_sample_weights=p),
        [BAGS, randn(10, 3), OFFS, randn(8)], None),
    "bag_padding_mean": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, padding_idx=4),
                         [BAGS, randn(10, 3), OFFS], None),
    "bag_padding_max": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="max",
                                                              padding_idx=2),
                        [np.array([2, 2, 4, 5]), randn(10, 3), np.array([0, 2])], None),
    "bag_padding_neg": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, padding_idx=-1),
                        [np.array([9, 2, 9, 5]), randn(10, 3), np.array([0, 1])], None),
    "bag_freq": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, scale_grad_by_freq=True),
                 [BAGS, randn(10, 3), OFFS], None),
    "bag_freq_sum": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="sum",
                                                           scale_grad_by_freq=True),
                     [BAGS, randn(10, 3), OFFS], None),
    "bag_freq_padding": (lambda L, i, w, o: F(L).embedding_bag(i, w, o, mode="sum",
                                                               scale_grad_by_freq=True,
                                                               padding_idx=4),
                         [BAGS, randn(10, 3), np.arange(8)], None),
    "bag_freq_padding_low": (lambda L, i, w, o: F(L).embedding_bag(
        i, w, o, scale_grad_by_freq=True, padding_idx=1),
        [np.array([3, 1, 1, 0, 3, 3]), randn(10, 3), np.array([0, 2])], None),
    "bag_int32": (lambda L, i, w, o: F(L).embedding_bag(i, w, o),
                  [BAGS.astype(np.int32), randn(10, 3), OFFS.astype(np.int32)], None),
    "bag_empty_input": (lambda L, i, w, o: F(L).embedding_bag(i, w, o),
                        [np.zeros(0, np.int64), randn(10, 3), np.array([0, 0])], None),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_functional(name, dtype):
    fn, inputs, grad_inputs = CASES[name]
    inputs = [x.astype(dtype) if x.dtype == np.float64 else x for x in inputs]
    check(fn, *inputs, grad_inputs=grad_inputs)


@pytest.mark.parametrize("name", ["bilinear", "bilinear_1d", "bilinear_x2_const"])
def test_bilinear_grad_fn_chain(name):
    fn, inputs, grad_inputs = CASES[name]
    t, e = check(fn, *inputs, grad_inputs=grad_inputs)
    assert chain(t) == chain(e)


GRADCHECK = {
    "bilinear": (lambda a, b, w, c: ember.nn.functional.bilinear(a, b, w, c),
                 [randn(2, 3), randn(2, 2), randn(2, 3, 2), randn(2)]),
    # (scale_grad_by_freq is not a derivative: checked against torch only)
    "embedding": (lambda w: ember.nn.functional.embedding(
        ember.tensor([1, 2, 2, 1, 4]), w) ** 2, [randn(6, 2)]),
    "bag_mean": (lambda w: ember.nn.functional.embedding_bag(
        ember.tensor(BAGS), w, ember.tensor(OFFS)) ** 2, [randn(10, 2)]),
    "bag_max": (lambda w: ember.nn.functional.embedding_bag(
        ember.tensor(BAGS), w, ember.tensor(OFFS), mode="max") ** 2, [randn(10, 2)]),
    "bag_psw": (lambda w, p: ember.nn.functional.embedding_bag(
        ember.tensor(BAGS), w, ember.tensor(OFFS), mode="sum", per_sample_weights=p,
        ) ** 2, [randn(10, 2), randn(8)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    fn, arrays = GRADCHECK[name]
    gradcheck(fn, *arrays)
    gradgradcheck(fn, *arrays)


def test_embedding_max_norm_renormalises_weight():
    def prog(L, i, w):
        out = F(L).embedding(i, w, max_norm=1.0)
        return out, w.detach().clone()      # the used rows of w were scaled in place
    w = randn(6, 4) * 2
    w[3] *= 0.01                            # a row under the limit stays as it is
    check(prog, np.array([[1, 3], [5, 1]]), w.astype(np.float32))
    check(lambda L, i, w: (F(L).embedding(i, w, max_norm=0.5, norm_type=1), w.detach() * 1),
          np.array([1, 2]), w)
    check(lambda L, i, w: (F(L).embedding_bag(i, w, max_norm=0.5, mode="max"),
                           w.detach() * 1), np.array([[1, 2], [2, 5]]), w)


def test_embedding_max_norm_bumps_version():
    w = ember.randn(5, 3, requires_grad=True)
    v = w._version
    ember.nn.functional.embedding(ember.tensor([1]), w * 1, max_norm=0.1)
    ember.nn.functional.embedding(ember.tensor([1]), w, max_norm=0.1)
    assert w._version > v and w.is_leaf and w.grad_fn is None


def test_saved_values():
    def prog(L):
        i, w = L.tensor([1, 2, 2]), L.ones(6, 4, requires_grad=True)
        fn = F(L).embedding(i, w, padding_idx=2, scale_grad_by_freq=True).grad_fn
        return (fn._saved_padding_idx, fn._saved_scale_grad_by_freq,
                fn._saved_weight_sym_argsize_0, fn._saved_sparse,
                F(L).embedding(i, w).grad_fn._saved_padding_idx,
                F(L).embedding_bag(i, w, L.tensor([0, 1])).grad_fn._saved_mode,
                F(L).embedding_bag(i, w, L.tensor([0, 1]), mode="max").grad_fn._saved_mode)
    assert prog(torch) == prog(ember)


@pytest.mark.parametrize("call", [
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(2, 3, 5), L.randn(2, 4, 5)),
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(2, 5), L.randn(2, 4, 5)),
    lambda L: F(L).bilinear(L.randn(3, 3), L.randn(3, 5), L.randn(2, 4, 5)),
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(3, 6), L.randn(2, 4, 5)),
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(3, 5), L.randn(2, 4, 5), L.randn(3)),
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(3, 5), L.randn(2, 4, 5, 1)),
    lambda L: F(L).bilinear(L.randn(3, 4).double(), L.randn(3, 5), L.randn(2, 4, 5)),
    lambda L: F(L).bilinear(L.randn(3, 4), L.randn(3, 5), L.randn(2, 4, 5),
                            L.randn(2).double()),
    lambda L: F(L).bilinear(L.tensor(1.0), L.tensor(1.0), L.randn(2, 4, 5)),
    lambda L: F(L).embedding(L.tensor([10]), L.randn(10, 3)),
    lambda L: F(L).embedding(L.tensor([-1]), L.randn(10, 3)),
    lambda L: F(L).embedding(L.tensor([1.0]), L.randn(10, 3)),
    lambda L: F(L).embedding(L.tensor([1]), L.randn(10, 3), padding_idx=10),
    lambda L: F(L).embedding(L.tensor([1]), L.randn(10, 3), padding_idx=-11),
    lambda L: F(L).embedding(L.tensor([1]), L.randn(10)),
    lambda L: F(L).embedding_bag(L.tensor([[[1]]]), L.randn(10, 3)),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([[0]])),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10)),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3)),
    lambda L: F(L).embedding_bag(L.tensor([[1, 2]]), L.randn(10, 3), L.tensor([0])),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 padding_idx=10),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 padding_idx=-11),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 per_sample_weights=L.ones(2)),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 mode="max", per_sample_weights=L.ones(2)),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 mode="sum", per_sample_weights=L.ones(3)),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 mode="foo"),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0]),
                                 mode="max", scale_grad_by_freq=True),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([1])),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0, 5])),
    lambda L: F(L).embedding_bag(L.tensor([1, 12]), L.randn(10, 3), L.tensor([0])),
    lambda L: F(L).embedding_bag(L.tensor([1.0, 2.0]), L.randn(10, 3), L.tensor([0])),
    lambda L: F(L).embedding_bag(L.tensor([1, 2]), L.randn(10, 3), L.tensor([0.0])),
    lambda L: L.nn.Embedding(10, 3, padding_idx=12),
    lambda L: L.nn.Embedding(10, 3, padding_idx=-11),
    lambda L: L.nn.Embedding(10, 3, _weight=L.ones(2, 2)),
    lambda L: L.nn.Embedding.from_pretrained(L.ones(2)),
    lambda L: L.nn.EmbeddingBag(10, 3, padding_idx=-12),
    lambda L: L.nn.EmbeddingBag.from_pretrained(L.ones(2)),
    lambda L: L.nn.Linear(3, 2)(L.ones(2, 4)),
    lambda L: L.nn.Linear(3, 2)(L.ones(4)),
    lambda L: L.nn.Unflatten(1, 3),
    lambda L: L.nn.Unflatten(1, (2, 1.5)),
    lambda L: L.nn.Unflatten(1, (2, 3))(L.ones(2, 5)),
    lambda L: L.nn.Flatten(2)(L.ones(2)),
])
def test_errors(call):
    check_error(call)


# ---------------------------------------------------------------- modules

def copy_weights(tmod, emod):
    emod.load_state_dict({k: ember.tensor(v.detach().numpy().copy())
                          for k, v in tmod.state_dict().items()})


MODULES = {
    # name -> (constructor(lib), inputs (numpy), call(module, *tensors) or None)
    "linear": (lambda L: L.nn.Linear(4, 3), [randn(5, 4)], None),
    "linear_1d": (lambda L: L.nn.Linear(4, 3), [randn(4)], None),
    "linear_3d": (lambda L: L.nn.Linear(4, 3), [randn(2, 5, 4)], None),
    "linear_nobias": (lambda L: L.nn.Linear(4, 3, bias=False), [randn(5, 4)], None),
    "bilinear": (lambda L: L.nn.Bilinear(4, 5, 3), [randn(6, 4), randn(6, 5)], None),
    "bilinear_1d": (lambda L: L.nn.Bilinear(4, 5, 3), [randn(4), randn(5)], None),
    "bilinear_nobias": (lambda L: L.nn.Bilinear(4, 5, 3, bias=False),
                        [randn(6, 4), randn(6, 5)], None),
    "identity": (lambda L: L.nn.Identity(3, unused=4), [randn(2, 3)], None),
    "flatten": (lambda L: L.nn.Flatten(), [randn(2, 3, 4)], None),
    "flatten_0": (lambda L: L.nn.Flatten(0, 1), [randn(2, 3, 4)], None),
    "unflatten": (lambda L: L.nn.Unflatten(1, (2, 6)), [randn(3, 12)], None),
    "unflatten_neg": (lambda L: L.nn.Unflatten(-1, [3, -1]), [randn(3, 12)], None),
    "embedding": (lambda L: L.nn.Embedding(7, 3), [ids(7, 2, 4)], None),
    "embedding_padding": (lambda L: L.nn.Embedding(7, 3, padding_idx=-2),
                          [np.array([5, 1, 5])], None),
    "embedding_max_norm": (lambda L: L.nn.Embedding(7, 3, max_norm=0.5),
                           [np.array([[5, 1], [0, 5]])], None),
    "embedding_bag_mean": (lambda L: L.nn.EmbeddingBag(10, 3), [BAGS, OFFS],
                           lambda m, i, o: m(i, o)),
    "embedding_bag_sum_psw": (lambda L: L.nn.EmbeddingBag(10, 3, mode="sum"),
                              [BAGS, OFFS, randn(8)],
                              lambda m, i, o, p: m(i, o, per_sample_weights=p)),
    "embedding_bag_max_2d": (lambda L: L.nn.EmbeddingBag(10, 3, mode="max", padding_idx=3),
                             [ids(10, 3, 4)], None),
    "embedding_bag_last": (lambda L: L.nn.EmbeddingBag(10, 3, include_last_offset=True),
                           [BAGS, np.array([0, 2, 8])], lambda m, i, o: m(i, o)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_module(name, dtype):
    make, inputs, call = MODULES[name]
    mods = {}

    def fn(L, *xs):
        m = make(L)
        if dtype == np.float64:
            m = m.double()
        mods[L] = m
        if L is ember:
            copy_weights(mods[torch], m)
        out = call(m, *xs) if call else m(*xs)
        return out
    inputs = [x.astype(dtype) if x.dtype == np.float64 else x for x in inputs]
    check(fn, *inputs)
    tm, em = mods[torch], mods[ember]
    assert repr(tm) == repr(em)
    for (n, tp), (en, ep) in zip(tm.named_parameters(), em.named_parameters()):
        assert n == en
        assert str(tp.dtype) == str(ep.dtype)
        tol = 1e-5 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(ep._data, tp.detach().numpy(), rtol=tol, atol=tol,
                                   err_msg=n)      # max_norm renormalises the weight in place
        np.testing.assert_allclose(ep.grad._data, tp.grad.numpy(), rtol=tol, atol=tol,
                                   err_msg=n + " grad")


REPRS = [
    lambda L: L.nn.Linear(3, 4),
    lambda L: L.nn.Linear(3, 4, bias=False),
    lambda L: L.nn.Bilinear(2, 3, 4),
    lambda L: L.nn.Bilinear(2, 3, 4, bias=False),
    lambda L: L.nn.Identity(),
    lambda L: L.nn.Flatten(),
    lambda L: L.nn.Flatten(0, 2),
    lambda L: L.nn.Unflatten(1, (2, 3)),
    lambda L: L.nn.Unflatten(-1, [2, 3]),
    lambda L: L.nn.Embedding(10, 3),
    lambda L: L.nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0,
                             scale_grad_by_freq=True),
    lambda L: L.nn.Embedding.from_pretrained(L.ones(2, 2)),
    lambda L: L.nn.EmbeddingBag(10, 3),
    lambda L: L.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=3, scale_grad_by_freq=True,
                                mode="sum", padding_idx=-1, include_last_offset=True),
    lambda L: L.nn.EmbeddingBag.from_pretrained(L.ones(2, 2), mode="max"),
]


@pytest.mark.parametrize("make", REPRS)
def test_reprs(make):
    assert repr(make(torch)) == repr(make(ember))


def test_module_attributes():
    def attrs(L):
        e = L.nn.Embedding(10, 3, padding_idx=-1)
        b = L.nn.EmbeddingBag(10, 3, padding_idx=-2)
        p = L.nn.Embedding.from_pretrained(L.ones(2, 2))
        q = L.nn.Embedding.from_pretrained(L.ones(2, 2), freeze=False)
        bp = L.nn.EmbeddingBag.from_pretrained(L.ones(2, 2))
        lin = L.nn.Linear(3, 4, bias=False)
        return (e.padding_idx, b.padding_idx, p.weight.requires_grad, q.weight.requires_grad,
                bp.weight.requires_grad, lin.bias, lin.in_features, lin.out_features,
                e.weight[e.padding_idx].tolist(), e.sparse, b.mode, b.include_last_offset,
                [k for k, _ in L.nn.Bilinear(2, 3, 4).named_parameters()],
                L.nn.Linear(2, 3).weight.shape, L.nn.Bilinear(2, 3, 4).weight.shape,
                str(L.nn.Linear(2, 3, dtype=L.float64).weight.dtype))
    assert attrs(torch) == tuple(x if not isinstance(x, ember.Size) else x
                                 for x in attrs(ember))


def test_from_pretrained_shares_memory():
    w = ember.randn(3, 2)
    e = ember.nn.Embedding.from_pretrained(w)
    assert e.weight.data_ptr() == w.data_ptr()


def test_sparse_unsupported():
    with pytest.raises(RuntimeError, match="sparse"):
        ember.nn.Embedding(3, 2, sparse=True)(ember.tensor([1]))


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_array_pass_matches_tensor_pass(kwargs, dtype):
    w0 = randn(6, 3, dtype=dtype)
    idx = ember.tensor(np.array([[1, 2, 2], [5, 1, 0]]))
    g = ember.tensor(randn(2, 3, 3, dtype=dtype))
    w = ember.tensor(w0, requires_grad=True)
    ember.nn.functional.embedding(idx, w, **kwargs).backward(g)       # the array pass
    v = ember.tensor(w0, requires_grad=True)
    gv, = ember.autograd.grad(ember.nn.functional.embedding(idx, v, **kwargs), v, g,
                              create_graph=True)                     # the Tensor formulas
    np.testing.assert_array_equal(w.grad._data, gv._data)
