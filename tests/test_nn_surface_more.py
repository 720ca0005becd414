"""torch.nn.functional's and torch.nn's remaining public names (issue 14's coverage check in
tests/test_api_coverage.py): lp_pool1d/2d/3d and nn.LPPool1d/2d/3d, linear_cross_entropy,
nn.NLLLoss2d and nn.Container (deprecated, with torch's FutureWarnings), against torch:
values, gradients, grad_fn names, reprs, warnings."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check, check_error, gradcheck, gradgradcheck

import ember

R = np.random.default_rng(2)


def randn(*shape):
    return R.standard_normal(shape)


def F(L):
    return L.nn.functional


CW = np.abs(randn(5))
CASES = {
    "lp1d p2": (lambda L, x: F(L).lp_pool1d(x, 2, 3), [np.abs(randn(2, 3, 10)) + 0.1]),
    "lp1d stride ceil": (lambda L, x: F(L).lp_pool1d(x, 3.0, 2, 3, True),
                         [np.abs(randn(2, 3, 10)) + 0.1]),
    "lp2d p2": (lambda L, x: F(L).lp_pool2d(x, 2, 2), [randn(2, 3, 6, 6)]),
    "lp2d rect stride": (lambda L, x: F(L).lp_pool2d(x, 1.5, (2, 3), (1, 2)),
                         [np.abs(randn(1, 2, 5, 7)) + 0.1]),
    "lp2d negative p1.5 (NaN as torch)": (lambda L, x: F(L).lp_pool2d(x, 1.5, 2),
                                          [randn(1, 2, 4, 4)]),
    "lp3d": (lambda L, x: F(L).lp_pool3d(x, 2, 2), [randn(1, 2, 4, 4, 4)]),
    "lp3d tuple ceil": (lambda L, x: F(L).lp_pool3d(x, 3, (2, 1, 2), 2, True),
                        [np.abs(randn(1, 2, 5, 3, 5)) + 0.1]),
    "module LPPool1d": (lambda L, x: L.nn.LPPool1d(2, 3, 2)(x), [np.abs(randn(2, 3, 9)) + .1]),
    "module LPPool2d": (lambda L, x: L.nn.LPPool2d(2, 2)(x), [randn(2, 3, 6, 4)]),
    "module LPPool3d": (lambda L, x: L.nn.LPPool3d(1, 2)(x), [np.abs(randn(1, 2, 4, 4, 4))]),
    "linear_cross_entropy": (lambda L, x, w: F(L).linear_cross_entropy(
        x, w, L.tensor([0, 4, 2, 1])), [randn(4, 3), randn(5, 3)]),
    "linear_cross_entropy bias weight sum": (lambda L, x, w, b: F(L).linear_cross_entropy(
        x, w, L.tensor([0, 4, 2, 1]), linear_bias=b, weight=L.tensor(CW), reduction="sum"),
        [randn(4, 3), randn(5, 3), randn(5)]),
    "linear_cross_entropy ignore smoothing": (lambda L, x, w: F(L).linear_cross_entropy(
        x, w, L.tensor([0, 4, 2, 1]), ignore_index=2, label_smoothing=0.1,
        reduction="none"), [randn(4, 3), randn(5, 3)]),
    "linear_cross_entropy ignore None": (lambda L, x, w: F(L).linear_cross_entropy(
        x, w, L.tensor([0, 4, 2, 1]), ignore_index=None), [randn(4, 3), randn(5, 3)]),
}


@pytest.mark.parametrize("name", CASES)
def test_values_grads_names(name):
    fn, inputs = CASES[name]
    check(fn, *inputs)


def test_gradcheck():
    gradcheck(lambda x: ember.nn.functional.lp_pool2d(x, 2, 2), np.abs(randn(1, 1, 4, 4)) + .5)
    gradcheck(lambda x: ember.nn.functional.lp_pool1d(x, 3, 2, 1),
              np.abs(randn(1, 2, 5)) + .5)


def test_reprs():
    for make in (lambda L: L.nn.LPPool2d(2, 3), lambda L: L.nn.LPPool1d(1.5, 2, 1, True),
                 lambda L: L.nn.LPPool3d(2, (2, 1, 2))):
        assert repr(make(ember)) == repr(make(torch))


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = fn()
    return res, [(x.category.__name__, str(x.message)) for x in w]


def test_nllloss2d_and_container():
    x, t = randn(3, 4), np.array([0, 3, 1])
    out = {}
    for L in (torch, ember):
        m, w = _warned(lambda L=L: L.nn.NLLLoss2d(ignore_index=3))
        loss = m(L.tensor(x).log_softmax(1), L.tensor(t))
        c, wc = _warned(lambda L=L: L.nn.Container(a=L.nn.Linear(2, 3)))
        out[L] = (w, wc, isinstance(m, L.nn.NLLLoss), m.ignore_index, round(loss.item(), 12),
                  repr(c), [n for n, _ in c.named_parameters()])
    assert out[torch] == out[ember]


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax(hard):
    """The same draws as torch (ember's exponential_ follows torch's generator stream)."""
    logits = randn(3, 5)

    def fn(L, x):
        L.manual_seed(7)
        return L.nn.functional.gumbel_softmax(x, tau=0.5, hard=hard, dim=-1)
    check(fn, logits)
    check(lambda L, x: (L.manual_seed(3), L.nn.functional.gumbel_softmax(x, dim=0))[1],
          logits.astype(np.float32))


def test_gumbel_eps_warning_and_conv_tbc():
    for L in (torch, ember):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            L.nn.functional.gumbel_softmax(L.zeros(2, 3), eps=1e-5)
    assert ember.nn.functional.conv_tbc is ember.conv_tbc
    check(lambda L, x, w, b: L.nn.functional.conv_tbc(x, w, b, 1),
          randn(4, 2, 3), randn(3, 3, 2), randn(2))


# ---- fractional max pooling: windows from torch's random samples (torch.rand's stream)

def _seeded(fn, seed=0):
    def run(L, *a):
        L.manual_seed(seed)
        return fn(L, *a)
    return run


FRACTIONAL = {
    "2d size": (lambda L, x: F(L).fractional_max_pool2d(x, 3, (4, 5), return_indices=True),
                [randn(2, 3, 9, 10)]),
    "2d ratio tuple": (lambda L, x: F(L).fractional_max_pool2d(x, (2, 3), None, (0.5, 0.6),
                                                               True), [randn(2, 3, 9, 10)]),
    "2d unbatched": (lambda L, x: F(L).fractional_max_pool2d(x, 2, 3, return_indices=True),
                     [randn(3, 9, 10)]),
    "2d tight": (lambda L, x: F(L).fractional_max_pool2d(x, 2, (8, 9), return_indices=True),
                 [randn(2, 3, 9, 10)]),
    "2d out 1": (lambda L, x: F(L).fractional_max_pool2d(x, 2, 1), [randn(2, 3, 9, 10)]),
    "2d with_indices": (lambda L, x: F(L).fractional_max_pool2d_with_indices(x, 2, 3),
                        [randn(1, 2, 6, 6)]),
    "2d ties": (lambda L, x: F(L).fractional_max_pool2d(x, 3, 4, return_indices=True),
                [np.round(randn(2, 2, 8, 8))]),
    "2d samples given": (lambda L, x: F(L).fractional_max_pool2d(
        x, 2, 3, _random_samples=L.tensor([[[0.3, 0.9]] * 3] * 2, dtype=L.float64)),
        [randn(2, 3, 9, 10)]),
    "3d size": (lambda L, x: F(L).fractional_max_pool3d(x, 2, (3, 4, 5), return_indices=True),
                [randn(1, 2, 5, 6, 7)]),
    "3d ratio": (lambda L, x: F(L).fractional_max_pool3d(x, (1, 2, 3), None, 0.5, True),
                 [randn(1, 2, 5, 6, 7)]),
    "3d unbatched": (lambda L, x: F(L).fractional_max_pool3d(x, 2, 2), [randn(2, 4, 5, 4)]),
    "module 2d": (lambda L, x: L.nn.FractionalMaxPool2d(3, output_ratio=0.5,
                                                        return_indices=True)(x),
                  [randn(2, 3, 9, 10)]),
    "module 3d": (lambda L, x: L.nn.FractionalMaxPool3d(2, output_size=3)(x),
                  [randn(1, 2, 5, 6, 7)]),
}


@pytest.mark.parametrize("name", FRACTIONAL)
def test_fractional_max_pool(name):
    fn, inputs = FRACTIONAL[name]
    check(_seeded(fn), *inputs)
    if name in ("2d size", "3d size"):
        check(_seeded(fn), *[a.astype(np.float32) for a in inputs])


def test_fractional_double_backward():
    x = randn(1, 2, 6, 7)

    def graph(L):
        t = L.tensor(x, requires_grad=True)
        L.manual_seed(1)
        y = F(L).fractional_max_pool2d(t, 2, output_size=(3, 4))
        go = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)),
                      requires_grad=True)
        gx, = L.autograd.grad(y, t, go, create_graph=True)
        h, = L.autograd.grad((gx * gx).sum(), go)
        node = y.grad_fn
        return (type(node).__name__, type(gx.grad_fn).__name__,
                [type(f).__name__ for f, _ in gx.grad_fn.next_functions],
                tuple(node._saved_kernel_size), tuple(node._saved_output_size),
                gx.detach().tolist(), h.tolist())
    assert graph(torch) == graph(ember)
    s = ember.tensor([[[0.3, 0.7]] * 2])
    gradgradcheck(lambda t: ember.nn.functional.fractional_max_pool2d(
        t, 2, 3, _random_samples=s.double()) ** 2, randn(1, 2, 6, 6))


FRACTIONAL_ERRORS = {
    "no size": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 9, 9), 3),
    "too big": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 9, 9), 3, output_size=9),
    "kernel too big": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 9, 9), 11, 2),
    "3d too big": lambda L: F(L).fractional_max_pool3d(L.zeros(1, 2, 4, 9, 9), 3, (3, 3, 3)),
    "float ratio 2d": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 9, 9), 3,
                                                           output_ratio=0.5),
    "short ratio": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 9, 9), 3,
                                                        output_ratio=(0.5,)),
    "2-d input": lambda L: F(L).fractional_max_pool2d(L.zeros(9, 9), 3, output_size=2),
    "5-d input": lambda L: F(L).fractional_max_pool2d(L.zeros(1, 1, 1, 9, 9), 2, 2),
    "samples size": lambda L: F(L).fractional_max_pool2d(
        L.zeros(2, 3, 9, 9), 3, 2, _random_samples=L.rand(2, 3, 3)),
    "samples dtype": lambda L: F(L).fractional_max_pool2d(
        L.zeros(2, 3, 9, 9, dtype=L.float64), 3, 2, _random_samples=L.rand(2, 3, 2)),
    "module ratio": lambda L: L.nn.FractionalMaxPool2d(3, output_ratio=1.5),
    "module none": lambda L: L.nn.FractionalMaxPool2d(3),
    "module both": lambda L: L.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5),
    "module ratio 3d": lambda L: L.nn.FractionalMaxPool3d(3, output_ratio=(0.5, 0, 0.5)),
}


@pytest.mark.parametrize("case", list(FRACTIONAL_ERRORS))
def test_fractional_errors(case):
    check_error(FRACTIONAL_ERRORS[case])


def test_fractional_module_repr_and_state():
    for L in (torch, ember):
        m = L.nn.FractionalMaxPool2d(3, output_ratio=0.5)
        assert repr(m) == "FractionalMaxPool2d()"
        assert (m.output_ratio, m.output_size, m.kernel_size) == ((0.5, 0.5), None, (3, 3))
        assert list(m.state_dict()) == []


# ---- LinearCrossEntropyLoss / Options (torch 2.13)

def test_linear_cross_entropy_module():
    x, t = randn(6, 3), np.array([0, 4, 2, 1, 3, 3])
    x1 = randn(3)
    t3 = R.integers(0, 5, (6, 4, 2))
    cw = np.abs(randn(5))
    out = {}
    for L in (torch, ember):
        L.manual_seed(0)
        m = L.nn.LinearCrossEntropyLoss(3, 5)
        a = m(L.tensor(x, dtype=L.float32), L.tensor(t))
        L.manual_seed(0)
        m2 = L.nn.LinearCrossEntropyLoss(3, 5, out_features=(4, 2), bias=True,
                                         weight=L.tensor(cw, dtype=L.float32),
                                         reduction="sum", label_smoothing=0.1)
        b = m2(L.tensor(x, dtype=L.float32), L.tensor(t3))
        b.backward()
        L.manual_seed(0)
        m3 = L.nn.LinearCrossEntropyLoss(3, 5, dtype=L.float64, ignore_index=2,
                                         options=L.nn.LinearCrossEntropyOptions())
        c = m3(L.tensor(x1), L.tensor(2))
        out[L] = (repr(m), repr(m2), repr(m3), [n for n, _ in m2.named_parameters()],
                  [n for n, _ in m2.named_buffers()], round(a.item(), 4), round(b.item(), 3),
                  type(b.grad_fn).__name__, np.round(m2.linear.weight.grad.numpy(), 4).tolist(),
                  c.item() if c.item() == c.item() else "nan")
    assert out[torch] == out[ember]
    check_error(lambda L: L.nn.LinearCrossEntropyLoss(3, 5)(L.zeros(2, 6, 3),
                                                           L.zeros(2, 6, dtype=L.long)))
    check_error(lambda L: L.nn.functional.linear_cross_entropy(
        L.zeros(2, 6, 3), L.zeros(5, 3), L.zeros(2, 6, dtype=L.long)))


OPTIONS = [{}, {"batch_chunk_size": 4}, {"batch_chunk_size": 0},
           {"batch_chunk_size": -1}, {"chunking_method": "aspect_ratio:2"},
           {"chunking_method": "aspect_ratio"}, {"chunking_method": None},
           {"chunking_method": "aspect_ratio:1.5"}, {"chunking_method": "fixed"},
           {"acc_policy": "compact"}, {"acc_policy": "accurate"}, {"acc_policy": "full"},
           {"acc_policy": None}, {"allow_retain_graph": True, "acc_dtype": None}]


@pytest.mark.parametrize("kw", OPTIONS, ids=[str(k) for k in OPTIONS])
def test_linear_cross_entropy_options(kw):
    def run(L):
        try:
            return repr(L.nn.LinearCrossEntropyOptions(**kw))
        except ValueError as e:
            return "ValueError: " + str(e)
    assert run(ember) == run(torch)
    a, b = torch.nn.LinearCrossEntropyOptions(), ember.nn.LinearCrossEntropyOptions()
    assert (a == torch.nn.LinearCrossEntropyOptions()) and (b == ember.nn.LinearCrossEntropyOptions())


# ---- AdaptiveLogSoftmaxWithLoss

def _asm(L, seed=0, *args, **kw):
    L.manual_seed(seed)
    return L.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw)


def test_adaptive_log_softmax():
    x = R.standard_normal((5, 8)).astype(np.float32)
    x2 = R.standard_normal((4, 6))
    out = {}
    for L in (torch, ember):
        m = _asm(L, 0, 8, 10, [3, 6], div_value=2.0)
        xt = L.tensor(x, requires_grad=True)
        r = m(xt, L.tensor([0, 4, 9, 2, 7]))
        r.loss.backward()
        lp = m.log_prob(xt)
        one = m(L.tensor(x[0]), L.tensor(8))
        m2 = _asm(L, 1, 6, 7, (2,), head_bias=True, div_value=1.0, dtype=L.float64)
        r2 = m2(L.tensor(x2), L.tensor([6, 0, 1, 5]))
        out[L] = {
            "reprs": (repr(m), repr(m2)),
            "params": sorted((n, tuple(p.shape)) for n, p in m.named_parameters()),
            "attrs": (m.cutoffs, m.shortlist_size, m.n_clusters, m.head_size, m.div_value),
            "names": (type(r).__name__, r._fields, type(r.output.grad_fn).__name__,
                   type(r.loss.grad_fn).__name__, type(lp.grad_fn).__name__,
                   type(one.output.grad_fn).__name__, tuple(one.output.shape)),
            "vals": [t.detach().double().numpy() for t in (r.output, r.loss, xt.grad,
                                                         m.tail[1][0].weight.grad, lp,
                                                         one.output, r2.output,
                                                         m2.log_prob(L.tensor(x2)))],
            "pred": (m.predict(xt).tolist(), m2.predict(L.tensor(x2)).tolist())}
    t, e = out[torch], out[ember]
    for k in ("reprs", "params", "attrs", "names", "pred"):
        assert t[k] == e[k], k
    for a, b in zip(t["vals"], e["vals"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


ASM_ERRORS = {
    "batch sizes": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(5, 8), L.tensor([0, 1])),
    "target too big": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(5, 8),
                                                          L.tensor([0, 1, 2, 3, 10])),
    "negative target": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(5, 8),
                                                           L.tensor([0, 1, 2, 3, -1])),
    "2-d target": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(5, 8),
                                                      L.zeros(5, 2, dtype=L.long)),
    "3-d input": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(1, 5, 8), L.zeros(1, dtype=L.long)),
    "0-d target, 2-d input": lambda L: _asm(L, 0, 8, 10, [3, 6])(L.zeros(5, 8), L.tensor(1)),
    "predict 1-d": lambda L: _asm(L, 0, 8, 10, [3, 6]).predict(L.zeros(8)),
    "cutoffs with n_classes": lambda L: _asm(L, 0, 8, 10, [3, 6, 10]),
    "cutoffs unsorted": lambda L: _asm(L, 0, 8, 10, [6, 3]),
    "cutoffs repeated": lambda L: _asm(L, 0, 8, 10, [3, 3]),
    "cutoffs zero": lambda L: _asm(L, 0, 8, 10, [0, 3]),
    "cutoffs empty": lambda L: _asm(L, 0, 8, 10, []),
    "cutoffs float": lambda L: _asm(L, 0, 8, 10, [2.5]),
}


@pytest.mark.parametrize("case", list(ASM_ERRORS))
def test_adaptive_log_softmax_errors(case):
    check_error(ASM_ERRORS[case])
