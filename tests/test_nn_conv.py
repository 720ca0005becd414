"""ember's convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) and F.unfold / F.fold against
torch: values, gradients, grad_fn names (first and second order), saved attributes,
double backward (numerically, float64), and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradgradcheck, graph_names as _names

R = np.random.default_rng(3)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def F(lib):
    return lib.nn.functional


# name -> (fn(lib, *tensors), inputs)
CASES = {
    "conv2d": (lambda L, x, w, b: F(L).conv2d(x, w, b),
               [randn(2, 3, 7, 6), randn(4, 3, 3, 2), randn(4)]),
    "conv2d_no_bias": (lambda L, x, w: F(L).conv2d(x, w), [randn(2, 3, 5, 5), randn(4, 3, 3, 3)]),
    "conv2d_stride_pad_dil": (lambda L, x, w, b: F(L).conv2d(x, w, b, (2, 1), (1, 2), (2, 1)),
                              [randn(2, 3, 9, 7), randn(4, 3, 3, 2), randn(4)]),
    "conv2d_groups": (lambda L, x, w, b: F(L).conv2d(x, w, b, 1, 1, 1, 2),
                      [randn(2, 4, 6, 5), randn(6, 2, 3, 3), randn(6)]),
    "conv2d_depthwise": (lambda L, x, w: F(L).conv2d(x, w, None, 2, 1, 1, 3),
                         [randn(2, 3, 7, 7), randn(3, 1, 3, 3)]),
    "conv2d_depthwise_multiplier": (lambda L, x, w, b: F(L).conv2d(x, w, b, 1, (1, 2), 2, 3),
                                    [randn(2, 3, 7, 6), randn(6, 1, 3, 2), randn(6)]),
    "conv2d_wide": (lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1),   # per-sample layout
                    [randn(2, 2, 5, 20), randn(3, 2, 3, 3), randn(3)]),
    "conv2d_batch1": (lambda L, x, w, b: F(L).conv2d(x, w, b), [randn(1, 2, 6, 6),
                                                                 randn(3, 2, 3, 3), randn(3)]),
    "conv2d_1x1": (lambda L, x, w, b: F(L).conv2d(x, w, b), [randn(2, 3, 4, 5),
                                                              randn(5, 3, 1, 1), randn(5)]),
    "conv2d_stride_gt_kernel": (lambda L, x, w: F(L).conv2d(x, w, stride=3),
                                [randn(2, 2, 8, 7), randn(2, 2, 2, 2)]),
    "conv2d_same": (lambda L, x, w, b: F(L).conv2d(x, w, b, padding="same"),
                    [randn(2, 2, 6, 5), randn(3, 2, 3, 3), randn(3)]),
    "conv2d_same_dilated": (lambda L, x, w: F(L).conv2d(x, w, padding="same", dilation=2),
                            [randn(2, 2, 6, 5), randn(3, 2, 3, 3)]),
    "conv2d_valid": (lambda L, x, w: F(L).conv2d(x, w, padding="valid"),
                     [randn(2, 2, 6, 5), randn(3, 2, 3, 3)]),
    "conv2d_unbatched": (lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1),
                         [randn(3, 5, 5), randn(2, 3, 3, 3), randn(2)]),
    "conv2d_input_only": (lambda L, x, w: F(L).conv2d(x, w), [randn(2, 3, 5, 5),
                                                              randn(4, 3, 3, 3)]),
    "conv2d_empty_batch": (lambda L, x, w, b: F(L).conv2d(x, w, b),
                           [randn(0, 3, 5, 5), randn(4, 3, 3, 3), randn(4)]),
    "conv1d": (lambda L, x, w, b: F(L).conv1d(x, w, b, 2, 1, 2, 2),
               [randn(2, 4, 11), randn(6, 2, 3), randn(6)]),
    "conv1d_unbatched": (lambda L, x, w, b: F(L).conv1d(x, w, b),
                         [randn(4, 9), randn(3, 4, 3), randn(3)]),
    "conv1d_same_even": (lambda L, x, w: F(L).conv1d(x, w, padding="same"),
                         [randn(2, 2, 7), randn(3, 2, 4)]),
    "conv3d": (lambda L, x, w, b: F(L).conv3d(x, w, b, 1, 1, 1, 2),
               [randn(2, 4, 4, 3, 5), randn(4, 2, 3, 2, 3), randn(4)]),
    "conv_transpose2d": (lambda L, x, w, b: F(L).conv_transpose2d(x, w, b),
                         [randn(2, 3, 4, 5), randn(3, 2, 3, 3), randn(2)]),
    "conv_transpose2d_all": (
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b, (2, 3), (1, 0), (1, 2), 2, (1, 2)),
        [randn(2, 4, 4, 5), randn(4, 3, 3, 2), randn(6)]),
    "conv_transpose2d_outpad_dil": (
        lambda L, x, w: F(L).conv_transpose2d(x, w, None, 1, 0, 1, 1, 2),
        [randn(2, 2, 4, 4), randn(2, 3, 3, 3)]),
    "conv_transpose2d_wide": (lambda L, x, w, b: F(L).conv_transpose2d(x, w, b, 2, 1, 1),
                              [randn(2, 3, 4, 18), randn(3, 2, 3, 3), randn(2)]),
    "conv_transpose2d_unbatched": (lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2),
                                   [randn(3, 4, 4), randn(3, 2, 2, 2)]),
    "conv_transpose1d": (lambda L, x, w, b: F(L).conv_transpose1d(x, w, b, 2, 1, 1),
                         [randn(2, 4, 5), randn(4, 3, 3), randn(3)]),
    "conv_transpose3d": (lambda L, x, w: F(L).conv_transpose3d(x, w, None, 2, 1, 1),
                         [randn(1, 2, 3, 2, 3), randn(2, 2, 3, 3, 2)]),
    "unfold": (lambda L, x: F(L).unfold(x, (2, 3), 1, 1, (2, 1)), [randn(2, 3, 5, 6)]),
    "unfold_dilated": (lambda L, x: F(L).unfold(x, 2, dilation=2, stride=2), [randn(2, 2, 7, 7)]),
    "unfold_unbatched": (lambda L, x: F(L).unfold(x, 2), [randn(3, 4, 4)]),
    "fold": (lambda L, x: F(L).fold(x, (5, 6), (2, 3), 1, 1, (2, 1)), [randn(2, 18, 18)]),
    "fold_unbatched": (lambda L, x: F(L).fold(x, 4, 2), [randn(12, 9)]),
    "fold_of_unfold": (lambda L, x: F(L).fold(F(L).unfold(x, 3, padding=1), (4, 5), 3,
                                              padding=1), [randn(2, 2, 4, 5)]),
}


@pytest.mark.parametrize("name", CASES)
def test_float64(name):
    fn, inputs = CASES[name]
    grad_inputs = [0] if name == "conv2d_input_only" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(fn, *inputs, grad_inputs=grad_inputs)


FLOAT32 = ["conv2d", "conv2d_groups", "conv2d_depthwise", "conv2d_stride_pad_dil", "conv2d_wide", "conv1d",
           "conv_transpose2d_all", "unfold", "fold"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32(name):
    fn, inputs = CASES[name]
    check(fn, *[a.astype(np.float32) for a in inputs], rtol=1e-4, atol=1e-5)


def test_lenet_sizes_float32():
    """LeNet's layers (batch-last layout for the small maps)."""
    check(lambda L, x, w1, b1, w2, b2: F(L).conv2d(F(L).conv2d(x, w1, b1).relu(), w2, b2),
          randn(8, 1, 16, 16, dtype=np.float32), randn(6, 1, 5, 5, dtype=np.float32),
          randn(6, dtype=np.float32), randn(16, 6, 5, 5, dtype=np.float32),
          randn(16, dtype=np.float32), rtol=1e-4, atol=2e-3)   # (sums of ~600 in float32)


def test_integer_conv():
    check(lambda L, x, w: F(L).conv2d(x, w, stride=2),
          R.integers(-5, 5, (2, 2, 5, 5)), R.integers(-3, 3, (3, 2, 2, 2)), grad=False)


def crandn(*shape):
    return R.standard_normal(shape) + 1j * R.standard_normal(shape)


def test_complex():
    """Complex convolutions are three real ones, as torch composes them (Gauss's trick)."""
    with warnings.catch_warnings():
        # (ember's engine warns when it casts a complex gradient for a real input: to fix there)
        warnings.simplefilter("ignore")
        check(lambda L, x, w, b: F(L).conv2d(x, w, b, padding=1), crandn(2, 2, 4, 4),
              crandn(3, 2, 3, 3), crandn(3), grad=False)
        check(lambda L, x, w, b: (F(L).conv2d(x, w, b, stride=2).abs() ** 2).sum(),
              crandn(2, 2, 5, 4), crandn(3, 2, 3, 3), crandn(3))
        check(lambda L, x, w: F(L).conv_transpose1d(x, w, stride=2).abs().sum(),
              crandn(2, 2, 3), crandn(2, 3, 3))


# ------------------------------------------------------------------ second order

def _double_names(lib, fn, arrays):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    go = lib.tensor(np.ones(tuple(y.shape)), requires_grad=True)
    gs = lib.autograd.grad(y, xs, go, create_graph=True)
    return [_names(g) for g in gs] + [[g.grad_fn is not None and g.output_nr] for g in gs]


# (not the unbatched forms: ember's SqueezeBackward1 differentiates as a view, torch's as an
# unsqueeze, a difference in ember/ops/shape.py)
DOUBLE = ["conv2d", "conv2d_no_bias", "conv1d", "conv_transpose2d", "unfold", "fold"]


@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_graph(name):
    fn, inputs = CASES[name]
    assert _double_names(torch, fn, inputs) == _double_names(ember, fn, inputs)


GRADGRAD = {
    "conv2d": (lambda x, w, b: ember.nn.functional.conv2d(x, w, b, (2, 1), 1, (1, 2), 2),
               [randn(1, 2, 4, 3), randn(2, 1, 2, 2), randn(2)]),
    "conv_transpose2d": (lambda x, w, b: ember.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1),
                         [randn(1, 2, 2, 3), randn(2, 2, 2, 2), randn(2)]),
    "conv1d_same": (lambda x, w: ember.nn.functional.conv1d(x, w, padding="same"),
                    [randn(2, 2, 5), randn(2, 2, 4)]),
    "unfold": (lambda x: ember.nn.functional.unfold(x, 2, padding=1) ** 2, [randn(1, 2, 3, 3)]),
    "fold": (lambda x: ember.nn.functional.fold(x, 3, 2) ** 2, [randn(1, 8, 4)]),
}


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    fn, inputs = GRADGRAD[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradgradcheck(fn, *inputs)


def test_triple_backward():
    """Third derivatives of a conv (through ConvolutionBackwardBackward0's own formulas)."""
    def run(lib):
        x = lib.tensor(randn_fixed(1, 2, 4, 4), requires_grad=True)
        w = lib.tensor(randn_fixed(2, 2, 3, 3), requires_grad=True)
        y = (F(lib).conv2d(x, w, padding=1) ** 2).sum()
        gx, = lib.autograd.grad(y, x, create_graph=True)
        gw, = lib.autograd.grad((gx ** 2).sum(), w, create_graph=True)
        gxx, = lib.autograd.grad((gw ** 2).sum(), x)
        return gxx.detach().numpy() if lib is torch else gxx._data
    np.testing.assert_allclose(run(ember), run(torch), rtol=1e-9, atol=1e-9)


def randn_fixed(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape)


def test_saved_attributes():
    x = randn(2, 3, 6, 6)
    for lib in (torch, ember):
        y = F(lib).conv2d(lib.tensor(x, requires_grad=True), lib.tensor(randn(4, 3, 3, 3)),
                          stride=2, padding=1)
        fn = y.grad_fn
        got = (fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_groups,
               fn._saved_transposed, tuple(fn._saved_output_padding),
               tuple(fn._saved_input.shape), tuple(fn._saved_weight.shape))
        if lib is torch:
            want = got
    assert got == want
    for lib in (torch, ember):
        fn = F(lib).unfold(lib.tensor(x, requires_grad=True), 2, 1, 0, 1).grad_fn
        got = (fn._saved_kernel_size, fn._saved_dilation, fn._saved_padding, fn._saved_stride,
               fn._saved_self_sym_argsize_minus_2, fn._saved_self_sym_argsize_minus_1)
        if lib is torch:
            want = got
    assert got == want


def test_same_warning_once():
    import ember.ops.conv as C
    C._SAME_WARNED = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(2):
            ember.nn.functional.conv2d(ember.zeros(1, 1, 5, 5), ember.zeros(1, 1, 2, 2),
                                       padding="same")
    assert [str(m.message) for m in w] == [
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created"]
    assert w[0].filename == __file__


# ------------------------------------------------------------------ errors

def _t(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype)


ERRORS = {
    "channels": lambda L: F(L).conv2d(_t(L, 1, 3, 28, 28), _t(L, 6, 1, 5, 5)),
    "channels_unbatched": lambda L: F(L).conv2d(_t(L, 3, 28, 28), _t(L, 6, 1, 5, 5)),
    "kernel_too_big": lambda L: F(L).conv2d(_t(L, 1, 1, 4, 4), _t(L, 6, 1, 5, 5)),
    "kernel_too_big_padded": lambda L: F(L).conv2d(_t(L, 1, 1, 2, 2), _t(L, 6, 1, 5, 5),
                                                   padding=1),
    "kernel_too_big_dilated_1d": lambda L: F(L).conv1d(_t(L, 1, 1, 6), _t(L, 1, 1, 3),
                                                       dilation=3),
    "input_dims": lambda L: F(L).conv2d(_t(L, 28, 28), _t(L, 6, 1, 5, 5)),
    "input_dims_5d": lambda L: F(L).conv2d(_t(L, 1, 1, 1, 8, 8), _t(L, 6, 1, 5, 5)),
    "conv1d_dims": lambda L: F(L).conv1d(_t(L, 3), _t(L, 2, 1, 3)),
    "weight_dims": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 6, 1, 5)),
    "weight_2d": lambda L: F(L).conv2d(_t(L, 1, 1, 5, 5), _t(L, 1, 1)),
    "stride_zero": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3), stride=0),
    # (batch 2: for some shapes torch's backend selection words this check differently)
    "dilation_zero": lambda L: F(L).conv2d(_t(L, 2, 1, 8, 8), _t(L, 1, 1, 3, 3), dilation=0),
    "padding_negative": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3), padding=-1),
    "groups_zero": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3), groups=0),
    "groups_first": lambda L: F(L).conv2d(_t(L, 1, 1, 2, 2), _t(L, 3, 1, 3, 3), groups=0,
                                          stride=0, dilation=0),
    "padding_before_stride": lambda L: F(L).conv2d(_t(L, 1, 1, 2, 2), _t(L, 1, 1, 3, 3),
                                                   stride=0, padding=-1),
    "groups_divide": lambda L: F(L).conv2d(_t(L, 1, 4, 8, 8), _t(L, 3, 2, 3, 3), groups=2),
    "groups_channels": lambda L: F(L).conv2d(_t(L, 1, 3, 8, 8), _t(L, 4, 2, 3, 3), groups=2),
    "weight_empty": lambda L: F(L).conv2d(_t(L, 1, 1, 5, 5), _t(L, 0, 1, 3, 3)),
    "kernel_zero": lambda L: F(L).conv2d(_t(L, 1, 1, 5, 5), _t(L, 1, 1, 0, 3)),
    "bias_size": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 6, 1, 5, 5), _t(L, 3)),
    "bias_2d": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 6, 1, 5, 5), _t(L, 6, 1)),
    "bias_dtype": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 6, 1, 5, 5),
                                        _t(L, 6, dtype=L.float64)),
    "dtype": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8, dtype=L.float64), _t(L, 6, 1, 5, 5)),
    "dtype_long": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8, dtype=L.long), _t(L, 6, 1, 5, 5)),
    "same_strided": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3), stride=2,
                                          padding="same"),
    "bad_padding_string": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3),
                                                padding="full"),
    "stride_length": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3),
                                           stride=(1, 1, 1)),
    "stride_float": lambda L: F(L).conv2d(_t(L, 1, 1, 8, 8), _t(L, 1, 1, 3, 3), stride=1.5),
    "input_not_tensor": lambda L: F(L).conv2d([1.0], _t(L, 1, 1, 3, 3)),
    "transposed_channels": lambda L: F(L).conv_transpose2d(_t(L, 1, 3, 5, 5), _t(L, 1, 2, 3, 3)),
    "transposed_output_padding": lambda L: F(L).conv_transpose2d(
        _t(L, 1, 1, 5, 5), _t(L, 1, 2, 3, 3), output_padding=1),
    "transposed_output_padding_1d": lambda L: F(L).conv_transpose1d(
        _t(L, 1, 1, 5), _t(L, 1, 2, 3), output_padding=1),
    "transposed_output_padding_negative": lambda L: F(L).conv_transpose2d(
        _t(L, 1, 1, 5, 5), _t(L, 1, 2, 3, 3), output_padding=-1),
    "transposed_output_too_small": lambda L: F(L).conv_transpose2d(
        _t(L, 1, 1, 1, 1), _t(L, 1, 2, 1, 1), padding=1),
    "transposed_output_too_small_1d": lambda L: F(L).conv_transpose1d(
        _t(L, 1, 1, 1), _t(L, 1, 2, 1), padding=1),
    "transposed_bias": lambda L: F(L).conv_transpose2d(_t(L, 1, 1, 5, 5), _t(L, 1, 2, 3, 3),
                                                       _t(L, 3)),
    "transposed_dims": lambda L: F(L).conv_transpose2d(_t(L, 5, 5), _t(L, 1, 2, 3, 3)),
    "transposed_groups": lambda L: F(L).conv_transpose2d(_t(L, 1, 3, 5, 5), _t(L, 3, 2, 3, 3),
                                                         groups=2),
    "unfold_2d": lambda L: F(L).unfold(_t(L, 5, 5), 2),
    "unfold_5d": lambda L: F(L).unfold(_t(L, 1, 2, 3, 5, 5), 2),
    "unfold_kernel_too_big": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 6),
    "unfold_kernel_zero": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 0),
    "unfold_stride_zero": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 2, stride=0),
    "unfold_dilation_zero": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 2, dilation=0),
    "unfold_padding_negative": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 2, padding=-1),
    "unfold_kernel_3": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), (2, 2, 2)),
    "unfold_empty_channels": lambda L: F(L).unfold(_t(L, 2, 0, 5, 5), 2),
    "unfold_long": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5, dtype=L.long), 2),
    "unfold_float_kernel": lambda L: F(L).unfold(_t(L, 2, 3, 5, 5), 2.0),
    "fold_4d": lambda L: F(L).fold(_t(L, 1, 2, 12, 16), (5, 5), 2),
    "fold_blocks": lambda L: F(L).fold(_t(L, 2, 12, 16), (6, 6), 2),
    "fold_channels": lambda L: F(L).fold(_t(L, 2, 13, 16), (5, 5), 2),
    "fold_empty": lambda L: F(L).fold(_t(L, 2, 0, 16), (5, 5), 2),
    "fold_kernel_zero": lambda L: F(L).fold(_t(L, 2, 12, 16), (5, 5), 0),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    check_error(ERRORS[name])


def test_error_leaves_inputs_unchanged():
    x = ember.tensor(randn(1, 3, 6, 6), requires_grad=True)
    w = ember.tensor(randn(2, 1, 3, 3), requires_grad=True)
    before = x._data.copy(), w._data.copy()
    with pytest.raises(RuntimeError):
        ember.nn.functional.conv2d(x, w)
    assert np.array_equal(x._data, before[0]) and np.array_equal(w._data, before[1])
    assert x.grad is None and w.grad is None


# ------------------------------------------------------------------ the two passes agree
# Each node's np_apply (backward without create_graph) and apply (the Tensor formulas that
# create_graph records) give the same gradients, to the bit.

def _pool_unpool(E, x):
    y, i = E.nn.functional.max_pool2d(x, 2, return_indices=True)
    return E.nn.functional.max_unpool2d(y * 2, i, 2)


PASS_PROGRAMS = {
    "conv2d": lambda E, x: E.nn.functional.conv2d(x, x[:4, :2, :3, :3], x[0, 0, 0, :4],
                                                  padding=1, groups=2),
    "conv2d_batch_last": lambda E, x: E.nn.functional.conv2d(x, x[:3, :4, :2, :2]),
    "conv_transpose2d": lambda E, x: E.nn.functional.conv_transpose2d(
        x, x[:4, :2, :3, :3], stride=2, output_padding=1),
    "unfold_fold": lambda E, x: E.nn.functional.fold(
        E.nn.functional.unfold(x, 2, padding=1) * 2, (6, 6), 2, padding=1),
    "max_pool2d": lambda E, x: E.nn.functional.max_pool2d(x, 3, 2, 1),
    "avg_pool2d": lambda E, x: E.nn.functional.avg_pool2d(x, 3, 2, 1, True, False),
    "adaptive": lambda E, x: E.nn.functional.adaptive_avg_pool2d(x, (4, 3)) +
    E.nn.functional.adaptive_max_pool2d(x, (4, 3)),
    "max_unpool2d": _pool_unpool,
    "pads": lambda E, x: E.nn.functional.pad(x, (2, 1, 1, 3), "reflect") +
    E.nn.functional.pad(x, (2, 1, 1, 3), "replicate") + E.nn.functional.pad(x, (2, 1, 1, 3)),
    "interpolate": lambda E, x: E.nn.functional.interpolate(x, scale_factor=1.5,
                                                            mode="bicubic") +
    E.nn.functional.interpolate(x, size=(9, 9), mode="bilinear") +
    E.nn.functional.interpolate(x, size=(9, 9), mode="nearest-exact"),
    "pixel_shuffle": lambda E, x: E.nn.functional.pixel_unshuffle(
        E.nn.functional.pixel_shuffle(x, 2) * 3, 3),
}


@pytest.mark.parametrize("name", PASS_PROGRAMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_pass_matches_tensor_pass(name, dtype):
    xa = R.standard_normal((4, 4, 6, 6)).astype(dtype)
    w = ember.tensor(R.standard_normal(PASS_PROGRAMS[name](ember, ember.tensor(xa)).shape)
                     .astype(dtype))
    program = PASS_PROGRAMS[name]
    x = ember.tensor(xa, requires_grad=True)
    (program(ember, x) * w).sum().backward()                              # the array pass
    y = ember.tensor(xa, requires_grad=True)
    g, = ember.autograd.grad((program(ember, y) * w).sum(), y, create_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), g.detach().numpy())
