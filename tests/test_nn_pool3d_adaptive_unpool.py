"""adaptive_max_pool3d (+ return_indices, nn.AdaptiveMaxPool3d) and max_unpool3d
(nn.MaxUnpool3d) against torch: values, indices, gradients, grad_fn names (first and second
order), double backward numerically (float64), module reprs and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck, gradgradcheck

R = np.random.default_rng(14)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def ties(*shape):
    return R.integers(-2, 3, shape).astype(np.float64)


def F(lib):
    return lib.nn.functional


def _unpool(L, x, k, s, p, output_size=None):
    y, i = F(L).max_pool3d(x, k, s, p, return_indices=True)
    return F(L).max_unpool3d(y, i, k, s, p, output_size)


CASES = {
    "amax3d": (lambda L, x: F(L).adaptive_max_pool3d(x, (2, 3, 4), True), [randn(2, 3, 5, 6, 7)]),
    "amax3d_int": (lambda L, x: F(L).adaptive_max_pool3d(x, 2), [randn(1, 2, 4, 5, 3)]),
    "amax3d_ties": (lambda L, x: F(L).adaptive_max_pool3d(x, 3, True), [ties(2, 2, 5, 4, 5)]),
    "amax3d_up": (lambda L, x: F(L).adaptive_max_pool3d(x, (4, 5, 3), True),
                  [randn(1, 2, 2, 3, 2)]),
    "amax3d_unbatched_none": (lambda L, x: F(L).adaptive_max_pool3d(x, (None, 2, 1), True),
                              [randn(3, 4, 5, 4)]),
    "amax3d_empty_batch": (lambda L, x: F(L).adaptive_max_pool3d(x, 2, True),
                           [randn(0, 2, 3, 3, 3)]),
    "amax3d_with_indices": (lambda L, x: F(L).adaptive_max_pool3d_with_indices(x, 2),
                            [randn(1, 2, 3, 4, 5)]),
    "unpool3d": (lambda L, x: _unpool(L, x, 2, 2, 0), [randn(2, 3, 4, 6, 6)]),
    "unpool3d_pad": (lambda L, x: _unpool(L, x, 3, 2, 1), [randn(1, 2, 5, 5, 5)]),
    "unpool3d_stride": (lambda L, x: _unpool(L, x, (2, 3, 2), (1, 2, 2), 0),
                        [randn(1, 2, 4, 5, 4)]),
    "unpool3d_size": (lambda L, x: _unpool(L, x, 2, 2, 0, (5, 7, 6)), [randn(1, 2, 4, 6, 6)]),
    "unpool3d_size5": (lambda L, x: _unpool(L, x, 2, 2, 0, [1, 2, 5, 7, 6]),
                       [randn(1, 2, 4, 6, 6)]),
    "unpool3d_unbatched": (lambda L, x: _unpool(L, x, 2, 2, 0), [randn(3, 4, 4, 4)]),
    "unpool3d_leaf": (lambda L, x, i: F(L).max_unpool3d(x, i, 2),
                      [randn(1, 1, 1, 1, 2), np.array([[[[[3, 15]]]]])]),
    "module_amax3d": (lambda L, x: L.nn.AdaptiveMaxPool3d((2, None, 3), True)(x),
                      [randn(2, 3, 4, 5, 6)]),
    "module_unpool3d": (lambda L, x: L.nn.MaxUnpool3d(2)(*L.nn.MaxPool3d(2, return_indices=True)(x)),
                        [randn(2, 3, 4, 4, 6)]),
    "module_unpool3d_size": (lambda L, x: L.nn.MaxUnpool3d(2, 2)(
        *L.nn.MaxPool3d(2, return_indices=True)(x), output_size=(5, 5, 7)),
        [randn(2, 3, 4, 4, 6)]),
}


@pytest.mark.parametrize("name", CASES)
def test_float64(name):
    fn, inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("name", ["amax3d", "amax3d_up", "unpool3d_pad"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float32_float16(name, dtype):
    fn, inputs = CASES[name]
    check(fn, *[a.astype(dtype) if a.dtype.kind == "f" else a for a in inputs])


def test_empty_output():
    """An output size of 0 gives empty results (torch's backward then refuses the empty
    grad_output: not compared)."""
    check(lambda L, x: F(L).adaptive_max_pool3d(x, (0, 2, 3), True), randn(1, 2, 3, 3, 3),
          grad=False)


def test_nan_and_infinities():
    """A NaN wins its window (torch's rule), -inf windows keep their first element."""
    nan, inf = float("nan"), float("inf")
    x = randn(1, 2, 4, 4, 4)
    x[0, 0, 0, 0, 1] = nan
    x[0, 0, 1, 1, 0] = nan
    x[0, 1, :2, :2, :2] = -inf
    check(lambda L, x: F(L).adaptive_max_pool3d(x, (2, 3, 2), True), x, grad=False)


def test_module_reprs():
    for make in (lambda L: L.nn.AdaptiveMaxPool3d(2), lambda L: L.nn.AdaptiveMaxPool3d(
            (2, None, 3), return_indices=True), lambda L: L.nn.MaxUnpool3d(2),
            lambda L: L.nn.MaxUnpool3d((2, 3, 1), 1, (0, 1, 0))):
        assert repr(make(ember)) == repr(make(torch))


def _names(t, depth=2):
    out, level = [], [t.grad_fn]
    for _ in range(depth):
        out.append([None if f is None else type(f).__name__ for f in level])
        level = [e[0] for f in level if f is not None for e in f.next_functions]
    return out


@pytest.mark.parametrize("name", ["amax3d", "unpool3d_leaf"])
def test_double_backward_graph(name):
    fn, inputs = CASES[name]

    def names(lib):
        xs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
        y = fn(lib, *xs)
        y = y[0] if isinstance(y, tuple) else y
        go = lib.tensor(np.ones(tuple(y.shape)), requires_grad=True)
        g, = lib.autograd.grad(y, xs[0], go, create_graph=True)
        saved = sorted(a for a in dir(y.grad_fn) if a.startswith("_saved_"))
        return _names(g), saved
    assert names(torch) == names(ember)


def test_gradcheck_and_gradgradcheck():
    x = randn(1, 2, 4, 5, 3)
    gradcheck(lambda x: ember.nn.functional.adaptive_max_pool3d(x, (2, 3, 2)) ** 2, x)
    gradgradcheck(lambda x: ember.nn.functional.adaptive_max_pool3d(x, (2, 3, 2)) ** 2, x)
    y, i = ember.nn.functional.max_pool3d(ember.tensor(randn(1, 2, 4, 4, 4)), 2,
                                          return_indices=True)
    unpool = (lambda y: ember.nn.functional.max_unpool3d(y, i, 2) ** 2)
    gradcheck(unpool, y.numpy())
    gradgradcheck(unpool, y.numpy())


def _t(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype)


def _idx(lib, *shape):
    return lib.zeros(*shape, dtype=lib.long)


ERRORS = {
    "amax_3d_input": lambda L: F(L).adaptive_max_pool3d(_t(L, 2, 3, 4), 2),
    "amax_empty_channels": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 0, 2, 2), 1),
    "amax_size_2": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 1, 2, 2, 2), (1, 2)),
    "amax_size_4": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 2, 2, 2), (1, 2, 3, 4)),
    "amax_negative": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 1, 2, 2, 2), -1),
    "amax_negative_one": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 2, 2, 2), (1, -2, 3)),
    "amax_str": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 2, 2, 2), "a"),
    "amax_int": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 2, 2, 2, dtype=L.int32), 1),
    "amax_complex": lambda L: F(L).adaptive_max_pool3d(_t(L, 1, 2, 2, 2, dtype=L.complex64), 1),
    "unpool_3d_input": lambda L: F(L).max_unpool3d(_t(L, 2, 3, 4), _idx(L, 2, 3, 4), 2),
    "unpool_6d_input": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 3, 4, 5, 6),
                                                   _idx(L, 1, 2, 3, 4, 5, 6), 2),
    "unpool_2d_input": lambda L: F(L).max_unpool3d(_t(L, 4, 4), _idx(L, 4, 4), 2),
    "unpool_stride_zero": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                      _idx(L, 1, 2, 2, 2, 2), 2, stride=0),
    "unpool_negative_index": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                         _idx(L, 1, 2, 2, 2, 2) - 1, 2),
    "unpool_big_index": lambda L: F(L).max_unpool3d(_t(L, 1, 1, 2, 2, 2),
                                                    L.full((1, 1, 2, 2, 2), 100), 2),
    "unpool_index_dtype": lambda L: F(L).max_unpool3d(
        _t(L, 1, 2, 2, 2, 2), L.zeros(1, 2, 2, 2, 2, dtype=L.int32), 2),
    "unpool_index_shape": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                      _idx(L, 1, 2, 2, 2, 1), 2),
    "unpool_input_int": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2, dtype=L.int32),
                                                    _idx(L, 1, 2, 2, 2, 2), 2),
    "unpool_input_long": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2, dtype=L.long),
                                                     _idx(L, 1, 2, 2, 2, 2), 2),
    "unpool_kernel_2": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                   _idx(L, 1, 2, 2, 2, 2), (2, 2)),
    "unpool_size_length": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                      _idx(L, 1, 2, 2, 2, 2), 2,
                                                      output_size=(4, 4)),
    "unpool_size_range": lambda L: F(L).max_unpool3d(_t(L, 1, 2, 2, 2, 2),
                                                     _idx(L, 1, 2, 2, 2, 2), 2,
                                                     output_size=(9, 9, 9)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    check_error(ERRORS[name])
