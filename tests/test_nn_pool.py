"""ember's pooling (max/avg/adaptive, 1-D and 2-D, with indices) and max unpooling against
torch: values, indices, gradients, grad_fn names (first and second order), double backward
(numerically, float64), and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradgradcheck, graph_names as _names

R = np.random.default_rng(5)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def ties(*shape):
    """Small integers as floats: many equal values in a window (which index wins)."""
    return R.integers(-2, 3, shape).astype(np.float64)


def F(lib):
    return lib.nn.functional


def _unpool(L, x, k, s, p, output_size=None):
    y, i = F(L).max_pool2d(x, k, s, p, return_indices=True)
    return F(L).max_unpool2d(y, i, k, s, p, output_size)


CASES = {
    "max_pool2d": (lambda L, x: F(L).max_pool2d(x, 2), [randn(2, 3, 8, 6)]),
    "max_pool2d_k3s2p1": (lambda L, x: F(L).max_pool2d(x, 3, 2, 1), [randn(2, 3, 7, 8)]),
    "max_pool2d_overlap": (lambda L, x: F(L).max_pool2d(x, (3, 2), 1), [randn(2, 2, 5, 6)]),
    "max_pool2d_dilation": (lambda L, x: F(L).max_pool2d(x, 2, 1, 1, 2), [randn(2, 2, 6, 7)]),
    "max_pool2d_ceil": (lambda L, x: F(L).max_pool2d(x, 2, 2, 1, ceil_mode=True),
                        [randn(2, 2, 5, 6)]),
    "max_pool2d_ceil_no_pad": (lambda L, x: F(L).max_pool2d(x, 3, 2, ceil_mode=True),
                               [randn(1, 2, 6, 7)]),
    "max_pool2d_indices": (lambda L, x: F(L).max_pool2d(x, 3, 2, 1, return_indices=True),
                           [randn(2, 3, 7, 7)]),
    "max_pool2d_ties": (lambda L, x: F(L).max_pool2d(x, 3, 1, 1, return_indices=True),
                        [ties(2, 2, 6, 6)]),
    "max_pool2d_unbatched": (lambda L, x: F(L).max_pool2d(x, 2, return_indices=True),
                             [randn(3, 6, 4)]),
    "max_pool2d_empty_batch": (lambda L, x: F(L).max_pool2d(x, 2), [randn(0, 3, 4, 4)]),
    "max_pool1d": (lambda L, x: F(L).max_pool1d(x, 3, 2, 1), [randn(2, 3, 9)]),
    "max_pool1d_indices": (lambda L, x: F(L).max_pool1d(x, 2, return_indices=True),
                           [randn(2, 3, 8)]),
    "max_pool1d_unbatched_ceil": (lambda L, x: F(L).max_pool1d(x, 2, ceil_mode=True),
                                  [randn(3, 7)]),
    "max_pool2d_with_indices": (lambda L, x: F(L).max_pool2d_with_indices(x, 2),
                                [randn(1, 2, 4, 4)]),
    "avg_pool2d": (lambda L, x: F(L).avg_pool2d(x, 2), [randn(2, 3, 8, 6)]),
    "avg_pool2d_pad": (lambda L, x: F(L).avg_pool2d(x, 3, 2, 1), [randn(2, 2, 7, 8)]),
    "avg_pool2d_exclude_pad": (lambda L, x: F(L).avg_pool2d(x, 3, 2, 1,
                                                            count_include_pad=False),
                               [randn(2, 2, 7, 8)]),
    "avg_pool2d_ceil": (lambda L, x: F(L).avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                        [randn(2, 2, 6, 8)]),
    "avg_pool2d_ceil_exclude": (lambda L, x: F(L).avg_pool2d(x, 2, 2, 1, True, False),
                                [randn(1, 2, 5, 6)]),
    "avg_pool2d_divisor": (lambda L, x: F(L).avg_pool2d(x, 2, 1, divisor_override=3),
                           [randn(2, 2, 5, 5)]),
    "avg_pool2d_unbatched": (lambda L, x: F(L).avg_pool2d(x, (2, 3)), [randn(3, 6, 6)]),
    "avg_pool1d": (lambda L, x: F(L).avg_pool1d(x, 3, 2, 1, count_include_pad=False),
                   [randn(2, 3, 9)]),
    "avg_pool1d_unbatched": (lambda L, x: F(L).avg_pool1d(x, 2), [randn(3, 8)]),
    "adaptive_avg_pool2d": (lambda L, x: F(L).adaptive_avg_pool2d(x, (3, 4)),
                            [randn(2, 3, 7, 9)]),
    "adaptive_avg_pool2d_none": (lambda L, x: F(L).adaptive_avg_pool2d(x, (2, None)),
                                 [randn(2, 3, 5, 4)]),
    "adaptive_avg_pool2d_1": (lambda L, x: F(L).adaptive_avg_pool2d(x, 1), [randn(2, 3, 5, 4)]),
    "adaptive_avg_pool2d_up": (lambda L, x: F(L).adaptive_avg_pool2d(x, (7, 5)),
                               [randn(2, 2, 3, 4)]),
    "adaptive_avg_pool2d_unbatched": (lambda L, x: F(L).adaptive_avg_pool2d(x, 2),
                                      [randn(3, 5, 5)]),
    "adaptive_avg_pool1d": (lambda L, x: F(L).adaptive_avg_pool1d(x, 4), [randn(2, 3, 10)]),
    "adaptive_avg_pool1d_1": (lambda L, x: F(L).adaptive_avg_pool1d(x, 1), [randn(2, 3, 10)]),
    "adaptive_avg_pool3d": (lambda L, x: F(L).adaptive_avg_pool3d(x, (2, 3, 2)),
                            [randn(2, 2, 5, 4, 3)]),
    "adaptive_max_pool2d": (lambda L, x: F(L).adaptive_max_pool2d(x, (3, 4), True),
                            [randn(2, 3, 7, 9)]),
    "adaptive_max_pool2d_ties": (lambda L, x: F(L).adaptive_max_pool2d(x, 3, True),
                                 [ties(2, 2, 5, 5)]),
    "adaptive_max_pool2d_up": (lambda L, x: F(L).adaptive_max_pool2d(x, (5, 6)),
                               [randn(2, 2, 3, 4)]),
    "adaptive_max_pool2d_unbatched": (lambda L, x: F(L).adaptive_max_pool2d(x, (2, None)),
                                      [randn(3, 5, 4)]),
    "adaptive_max_pool1d": (lambda L, x: F(L).adaptive_max_pool1d(x, 3, return_indices=True),
                            [randn(2, 3, 8)]),
    "max_unpool2d": (lambda L, x: _unpool(L, x, 2, 2, 0), [randn(2, 3, 6, 4)]),
    "max_unpool2d_pad": (lambda L, x: _unpool(L, x, 3, 2, 1), [randn(2, 2, 7, 7)]),
    "max_unpool2d_size": (lambda L, x: _unpool(L, x, 2, 2, 0, (7, 5)), [randn(2, 2, 6, 4)]),
    "max_unpool2d_size4": (lambda L, x: _unpool(L, x, 2, 2, 0, [2, 2, 7, 5]),
                           [randn(2, 2, 6, 4)]),
    "max_unpool2d_unbatched": (lambda L, x: _unpool(L, x, 2, 2, 0), [randn(3, 4, 4)]),
    "max_unpool1d": (lambda L, x: F(L).max_unpool1d(*F(L).max_pool1d(x, 2, return_indices=True),
                                                    2), [randn(2, 3, 8)]),
    "max_unpool2d_leaf": (lambda L, x, i: F(L).max_unpool2d(x, i, 2),
                          [randn(1, 2, 2, 2), np.array([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]])]),
}


@pytest.mark.parametrize("name", CASES)
def test_float64(name):
    fn, inputs = CASES[name]
    check(fn, *inputs)


FLOAT32 = ["max_pool2d_k3s2p1", "avg_pool2d_exclude_pad", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "max_unpool2d_pad"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32(name):
    fn, inputs = CASES[name]
    check(fn, *[a.astype(np.float32) for a in inputs])


def test_integers():
    x = R.integers(-9, 9, (2, 2, 5, 5))
    check(lambda L, x: F(L).max_pool2d(x, 2, 1, 1, return_indices=True), x, grad=False)
    check(lambda L, x: F(L).avg_pool2d(x, 2, 1, 1), x, grad=False)    # truncating division
    check(lambda L, x: F(L).avg_pool2d(x, 3, divisor_override=2), x, grad=False)


def test_max_pool_nan_and_lowest():
    """A NaN wins its window (the last NaN's index); a window of -inf keeps its first element
    inside the input, not a padded position."""
    nan, inf = float("nan"), float("inf")
    x = np.array([[[[nan, 1, 2, nan], [nan, 7, 3, 4], [-inf, -inf, 0, 1], [-inf, -inf, 5, 6]]]])
    check(lambda L, x: F(L).max_pool2d(x, 2, return_indices=True), x, grad=False)
    check(lambda L, x: F(L).max_pool2d(x, 2, 2, 1, return_indices=True), x, grad=False)
    check(lambda L, x: F(L).adaptive_max_pool2d(x, 3, return_indices=True), x, grad=False)


# ------------------------------------------------------------------ second order

def _double_names(lib, fn, arrays):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    y = y[0] if isinstance(y, tuple) else y
    go = lib.tensor(np.ones(tuple(y.shape)), requires_grad=True)
    gs = lib.autograd.grad(y, xs, go, create_graph=True)
    return [_names(g) for g in gs]


# (not the 1-D forms: ember's SqueezeBackward1 differentiates as a view, torch's as an
# unsqueeze; nor adaptive_avg_pool2d(x, 1), a mean, whose backward ember's MeanBackward1 writes
# with DivBackward0 where torch has DivBackward1: differences in ember/ops/shape.py, reduce.py)
DOUBLE = ["max_pool2d_k3s2p1", "avg_pool2d_pad", "adaptive_avg_pool2d", "adaptive_max_pool2d",
          "adaptive_avg_pool3d"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_graph(name):
    fn, inputs = CASES[name]
    assert _double_names(torch, fn, inputs) == _double_names(ember, fn, inputs)


def test_unpool_double_backward_graph():
    x = randn(1, 2, 4, 4)

    def names(lib):
        y, i = F(lib).max_pool2d(lib.tensor(x), 2, return_indices=True)
        y.requires_grad_(True)
        out = F(lib).max_unpool2d(y, i, 2)
        go = lib.tensor(np.ones(tuple(out.shape)), requires_grad=True)
        g, = lib.autograd.grad(out, y, go, create_graph=True)
        return _names(g, 1)
    assert names(torch) == names(ember)


GRADGRAD = {
    "max_pool2d": (lambda x: ember.nn.functional.max_pool2d(x, 3, 2, 1) ** 2,
                   [randn(1, 2, 5, 5)]),
    "avg_pool2d": (lambda x: ember.nn.functional.avg_pool2d(x, 3, 2, 1, True, False) ** 2,
                   [randn(1, 2, 5, 4)]),
    "adaptive_avg_pool2d": (lambda x: ember.nn.functional.adaptive_avg_pool2d(x, (2, 3)) ** 2,
                            [randn(1, 2, 5, 4)]),
    "adaptive_max_pool2d": (lambda x: ember.nn.functional.adaptive_max_pool2d(x, 2) ** 2,
                            [randn(1, 2, 5, 4)]),
    "max_pool1d": (lambda x: ember.nn.functional.max_pool1d(x, 2) ** 2, [randn(2, 2, 6)]),
}


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    fn, inputs = GRADGRAD[name]
    gradgradcheck(fn, *inputs)


def test_saved_attributes():
    x = randn(2, 3, 6, 6)
    for lib in (torch, ember):
        t = lib.tensor(x, requires_grad=True)
        mp = F(lib).max_pool2d(t, 3, 2, 1).grad_fn
        ap = F(lib).avg_pool2d(t, 2).grad_fn
        got = (mp._saved_kernel_size, mp._saved_stride, mp._saved_padding, mp._saved_dilation,
               mp._saved_ceil_mode, tuple(mp._saved_result1.shape), ap._saved_kernel_size,
               ap._saved_stride, ap._saved_padding, ap._saved_count_include_pad,
               ap._saved_divisor_override)
        if lib is torch:
            want = got
    assert got == want


# ------------------------------------------------------------------ errors

def _t(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype)


def _idx(lib, *shape):
    return lib.zeros(*shape, dtype=lib.long)


ERRORS = {
    "max_pad_too_big": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 2, 2, 2),
    "max_kernel_zero": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 0),
    "max_stride_zero": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 2, 0),
    "max_dilation_zero": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 2, dilation=0),
    "max_pad_negative": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 2, padding=-1),
    "max_output_too_small": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 9),
    "max_2d_input": lambda L: F(L).max_pool2d(_t(L, 8, 8), 2),
    "max_5d_input": lambda L: F(L).max_pool2d(_t(L, 1, 2, 3, 8, 8), 2),
    "max_kernel_3": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), (2, 2, 2)),
    "max_empty_channels": lambda L: F(L).max_pool2d(_t(L, 2, 0, 8, 8), 2),
    "max_kernel_float": lambda L: F(L).max_pool2d(_t(L, 2, 3, 8, 8), 1.5),
    "max_not_tensor": lambda L: F(L).max_pool2d([1.0], 2),
    "max1d_4d": lambda L: F(L).max_pool1d(_t(L, 2, 3, 8, 8), 3),
    "max1d_kernel_too_big": lambda L: F(L).max_pool1d(_t(L, 2, 3, 2), 3),
    "max1d_pad_too_big": lambda L: F(L).max_pool1d(_t(L, 2, 3, 8), 2, padding=2),
    "max1d_stride_zero": lambda L: F(L).max_pool1d(_t(L, 2, 3, 8), 2, 0),
    "max1d_kernel_zero": lambda L: F(L).max_pool1d(_t(L, 2, 3, 8), 0),
    "avg_pad_too_big": lambda L: F(L).avg_pool2d(_t(L, 2, 3, 8, 8), 2, 2, 2),
    "avg_output_too_small": lambda L: F(L).avg_pool2d(_t(L, 2, 3, 8, 8), 9),
    "avg_2d_input": lambda L: F(L).avg_pool2d(_t(L, 8, 8), 2),
    "avg_divisor_zero": lambda L: F(L).avg_pool2d(_t(L, 2, 3, 8, 8), 2, divisor_override=0),
    "avg_kernel_float": lambda L: F(L).avg_pool2d(_t(L, 2, 3, 8, 8), 2.0),
    "avg1d_4d": lambda L: F(L).avg_pool1d(_t(L, 2, 3, 8, 8), 3),
    "avg1d_kernel_too_big": lambda L: F(L).avg_pool1d(_t(L, 2, 3, 2), 3),
    "aavg_negative": lambda L: F(L).adaptive_avg_pool2d(_t(L, 2, 3, 8, 8), -1),
    "aavg_2d_input": lambda L: F(L).adaptive_avg_pool2d(_t(L, 8, 8), 2),
    "aavg_size_3": lambda L: F(L).adaptive_avg_pool2d(_t(L, 2, 3, 8, 8), (2, 2, 2)),
    "aavg_empty": lambda L: F(L).adaptive_avg_pool2d(_t(L, 2, 3, 0, 8), 2),
    "aavg_long": lambda L: F(L).adaptive_avg_pool2d(_t(L, 3, 8, 8, dtype=L.long), 2),
    "aavg1d_4d": lambda L: F(L).adaptive_avg_pool1d(_t(L, 2, 3, 8, 8), 3),
    "aavg1d_size_2": lambda L: F(L).adaptive_avg_pool1d(_t(L, 2, 3, 8), (3, 3)),
    "amax_2d_input": lambda L: F(L).adaptive_max_pool2d(_t(L, 8, 8), 2),
    "amax1d_4d": lambda L: F(L).adaptive_max_pool1d(_t(L, 2, 3, 8, 8), 3),
    "amax_long": lambda L: F(L).adaptive_max_pool2d(_t(L, 2, 3, 8, 8, dtype=L.long), 2),
    "unpool_size": lambda L: F(L).max_unpool2d(_t(L, 2, 3, 4, 4), _idx(L, 2, 3, 4, 4), 2,
                                               output_size=(12, 12)),
    "unpool_size_length": lambda L: F(L).max_unpool2d(_t(L, 2, 3, 4, 4), _idx(L, 2, 3, 4, 4), 2,
                                                      output_size=(1, 9, 9, 9, 9)),
    "unpool_bad_index": lambda L: F(L).max_unpool2d(_t(L, 1, 1, 2, 2),
                                                    L.full((1, 1, 2, 2), 100), 2),
    "unpool_index_shape": lambda L: F(L).max_unpool2d(_t(L, 2, 3, 4, 4), _idx(L, 2, 1, 4, 4),
                                                      2),
    "unpool_index_dtype": lambda L: F(L).max_unpool2d(
        _t(L, 2, 3, 4, 4), L.zeros(2, 3, 4, 4, dtype=L.int32), 2),
    "unpool_2d_input": lambda L: F(L).max_unpool2d(_t(L, 4, 4), _idx(L, 4, 4), 2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    check_error(ERRORS[name])
