"""torch.nn.functional's and torch.nn's remaining public names (issue 14's coverage check in
tests/test_api_coverage.py): lp_pool1d/2d/3d and nn.LPPool1d/2d/3d, linear_cross_entropy,
nn.NLLLoss2d and nn.Container (deprecated, with torch's FutureWarnings), against torch:
values, gradients, grad_fn names, reprs, warnings."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check, gradcheck

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
