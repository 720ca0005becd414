"""ember.nn.functional against torch.nn.functional: linear, activations, nll_loss,
cross_entropy, mse_loss (values, grad_fn names, gradients, double backward, errors)."""
import numpy as np
import pytest

import ember
from oracle import case_chains, check, check_error, ember_fn, gradcheck, gradgradcheck

R = np.random.default_rng(7)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def labels(n, c, *rest, ignore=None):
    t = R.integers(0, c, (n,) + rest)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return t


def F(lib):
    return lib.nn.functional


# name -> (fn(lib, *tensors), sample inputs, indices of inputs that require grad)
CASES = {
    "linear_2d_bias": (lambda L, x, w, b: F(L).linear(x, w, b),
                       [randn(3, 4), randn(5, 4), randn(5)], None),
    "linear_2d": (lambda L, x, w: F(L).linear(x, w), [randn(3, 4), randn(5, 4)], None),
    "linear_1d_bias": (lambda L, x, w, b: F(L).linear(x, w, b),
                       [randn(4), randn(5, 4), randn(5)], None),
    "linear_1d": (lambda L, x, w: F(L).linear(x, w), [randn(4), randn(5, 4)], None),
    "linear_3d_bias": (lambda L, x, w, b: F(L).linear(x, w, b),
                       [randn(2, 3, 4), randn(5, 4), randn(5)], None),
    "linear_3d": (lambda L, x, w: F(L).linear(x, w), [randn(2, 3, 4), randn(5, 4)], None),
    "linear_transposed_input": (lambda L, x, w, b: F(L).linear(x.t(), w, b),
                                [randn(4, 3), randn(5, 4), randn(5)], None),
    "linear_broadcast_bias": (lambda L, x, w, b: F(L).linear(x, w, b),
                              [randn(3, 4), randn(5, 4), randn(1)], None),
    "linear_input_only": (lambda L, x, w, b: F(L).linear(x, w, b),
                          [randn(3, 4), randn(5, 4), randn(5)], [0]),
    "linear_empty": (lambda L, x, w, b: F(L).linear(x, w, b),
                     [randn(0, 4), randn(5, 4), randn(5)], None),
    "relu": (lambda L, x: F(L).relu(x), [randn(3, 4)], None),
    "relu_zero": (lambda L, x: F(L).relu(x), [np.array([-1.0, 0.0, 2.0])], None),
    "tanh": (lambda L, x: F(L).tanh(x), [randn(3, 4)], None),
    "sigmoid": (lambda L, x: F(L).sigmoid(x), [randn(3, 4)], None),
    "softmax": (lambda L, x: F(L).softmax(x, dim=1), [randn(3, 4)], None),
    "softmax_neg_dim": (lambda L, x: F(L).softmax(x, -1), [randn(2, 3, 4)], None),
    "log_softmax": (lambda L, x: F(L).log_softmax(x, dim=0), [randn(3, 4)], None),
    "nll_mean": (lambda L, x, t: F(L).nll_loss(x, t), [randn(6, 5), labels(6, 5)], [0]),
    "nll_sum": (lambda L, x, t: F(L).nll_loss(x, t, reduction="sum"),
                [randn(6, 5), labels(6, 5)], [0]),
    "nll_none": (lambda L, x, t: F(L).nll_loss(x, t, reduction="none"),
                 [randn(6, 5), labels(6, 5)], [0]),
    "nll_weight_mean": (lambda L, x, t, w: F(L).nll_loss(x, t, weight=w),
                        [randn(6, 5), labels(6, 5), np.abs(randn(5))], [0]),
    "nll_weight_none": (lambda L, x, t, w: F(L).nll_loss(x, t, weight=w, reduction="none"),
                        [randn(6, 5), labels(6, 5), np.abs(randn(5))], [0]),
    "nll_ignore": (lambda L, x, t: F(L).nll_loss(x, t, ignore_index=-100),
                   [randn(6, 5), labels(6, 5, ignore=-100)], [0]),
    "nll_ignore_class": (lambda L, x, t, w: F(L).nll_loss(x, t, w, ignore_index=2),
                         [randn(6, 5), labels(6, 5), np.abs(randn(5))], [0]),
    "nll_ignore_none": (lambda L, x, t: F(L).nll_loss(x, t, ignore_index=1, reduction="none"),
                        [randn(6, 5), labels(6, 5, ignore=1)], [0]),
    "nll_1d": (lambda L, x, t: F(L).nll_loss(x, t), [randn(5), np.array(3)], [0]),
    "nll_1d_none": (lambda L, x, t: F(L).nll_loss(x, t, reduction="none"),
                    [randn(5), np.array(3)], [0]),
    "nll_4d": (lambda L, x, t: F(L).nll_loss(x, t), [randn(2, 4, 3, 3), labels(2, 4, 3, 3)],
               [0]),
    "nll_4d_none": (lambda L, x, t: F(L).nll_loss(x, t, reduction="none"),
                    [randn(2, 4, 3, 3), labels(2, 4, 3, 3)], [0]),
    "nll_3d_none": (lambda L, x, t: F(L).nll_loss(x, t, reduction="none"),
                    [randn(2, 4, 3), labels(2, 4, 3)], [0]),
    "nll_3d_sum": (lambda L, x, t: F(L).nll_loss(x, t, reduction="sum"),
                   [randn(2, 4, 3), labels(2, 4, 3)], [0]),
    "nll_5d_weight": (lambda L, x, t, w: F(L).nll_loss(x, t, w),
                      [randn(2, 3, 2, 2, 2), labels(2, 3, 2, 2, 2), np.abs(randn(3))], [0]),
    "nll_empty_sum": (lambda L, x, t: F(L).nll_loss(x, t, reduction="sum"),
                      [randn(0, 5), labels(0, 5)], [0]),
    "nll_empty_none": (lambda L, x, t: F(L).nll_loss(x, t, reduction="none"),
                       [randn(0, 5), labels(0, 5)], [0]),
    "nll_all_ignored_sum": (lambda L, x, t: F(L).nll_loss(x, t, reduction="sum"),
                            [randn(3, 5), np.full(3, -100)], [0]),
    "nll_uint8_target": (lambda L, x, t: F(L).nll_loss(x, t),
                         [randn(4, 5), labels(4, 5).astype(np.uint8)], [0]),
    "ce_mean": (lambda L, x, t: F(L).cross_entropy(x, t), [randn(6, 5), labels(6, 5)], [0]),
    "ce_sum": (lambda L, x, t: F(L).cross_entropy(x, t, reduction="sum"),
               [randn(6, 5), labels(6, 5)], [0]),
    "ce_none": (lambda L, x, t: F(L).cross_entropy(x, t, reduction="none"),
                [randn(6, 5), labels(6, 5)], [0]),
    "ce_weight": (lambda L, x, t, w: F(L).cross_entropy(x, t, w),
                  [randn(6, 5), labels(6, 5), np.abs(randn(5))], [0]),
    "ce_weight_ignore_none": (lambda L, x, t, w: F(L).cross_entropy(
        x, t, w, ignore_index=-1, reduction="none"),
        [randn(6, 5), labels(6, 5, ignore=-1), np.abs(randn(5))], [0]),
    "ce_1d": (lambda L, x, t: F(L).cross_entropy(x, t), [randn(5), np.array(2)], [0]),
    "ce_4d": (lambda L, x, t: F(L).cross_entropy(x, t), [randn(2, 4, 3, 2), labels(2, 4, 3, 2)],
              [0]),
    "ce_3d_none": (lambda L, x, t: F(L).cross_entropy(x, t, reduction="none"),
                   [randn(2, 4, 3), labels(2, 4, 3)], [0]),
    "ce_transposed": (lambda L, x, t: F(L).cross_entropy(x.t(), t),
                      [randn(5, 6), labels(6, 5)], [0]),
    "ce_large_logits": (lambda L, x, t: F(L).cross_entropy(x * 100, t),
                        [randn(6, 5), labels(6, 5)], [0]),
    "ce_smooth_mean": (lambda L, x, t: F(L).cross_entropy(x, t, label_smoothing=0.1),
                       [randn(6, 5), labels(6, 5, ignore=-100)], [0]),
    "ce_smooth_sum": (lambda L, x, t: F(L).cross_entropy(x, t, label_smoothing=0.2,
                                                         reduction="sum"),
                      [randn(6, 5), labels(6, 5, ignore=-100)], [0]),
    "ce_smooth_weight_mean": (lambda L, x, t, w: F(L).cross_entropy(
        x, t, w, ignore_index=2, label_smoothing=0.3), [randn(6, 5), labels(6, 5),
                                                        np.abs(randn(5))], [0]),
    "ce_smooth_weight_none": (lambda L, x, t, w: F(L).cross_entropy(
        x, t, w, reduction="none", label_smoothing=0.1),
        [randn(6, 5), labels(6, 5, ignore=-100), np.abs(randn(5))], [0]),
    "ce_smooth_4d": (lambda L, x, t: F(L).cross_entropy(x, t, label_smoothing=0.1),
                     [randn(2, 4, 3, 2), labels(2, 4, 3, 2)], [0]),
    "ce_smooth_1d": (lambda L, x, t: F(L).cross_entropy(x, t, label_smoothing=0.1),
                     [randn(5), np.array(2)], [0]),
    "ce_probs_mean": (lambda L, x, p: F(L).cross_entropy(x, p),
                      [randn(6, 5), np.abs(randn(6, 5))], [0]),
    "ce_probs_sum": (lambda L, x, p: F(L).cross_entropy(x, p, reduction="sum"),
                     [randn(6, 5), np.abs(randn(6, 5))], [0]),
    "ce_probs_none": (lambda L, x, p: F(L).cross_entropy(x, p, reduction="none"),
                      [randn(6, 5), np.abs(randn(6, 5))], [0]),
    "ce_probs_weight": (lambda L, x, p, w: F(L).cross_entropy(x, p, w),
                        [randn(6, 5), np.abs(randn(6, 5)), np.abs(randn(5))], [0]),
    "ce_probs_smooth": (lambda L, x, p: F(L).cross_entropy(x, p, label_smoothing=0.2),
                        [randn(6, 5), np.abs(randn(6, 5))], [0]),
    "ce_probs_3d": (lambda L, x, p: F(L).cross_entropy(x, p),
                    [randn(2, 4, 3), np.abs(randn(2, 4, 3))], [0]),
    "ce_probs_1d": (lambda L, x, p: F(L).cross_entropy(x, p), [randn(5), np.abs(randn(5))],
                    [0]),
    "ce_probs_target_grad": (lambda L, x, p: F(L).cross_entropy(x, p),
                             [randn(6, 5), np.abs(randn(6, 5))], None),
    "mse_mean": (lambda L, x, y: F(L).mse_loss(x, y), [randn(3, 4), randn(3, 4)], None),
    "mse_sum": (lambda L, x, y: F(L).mse_loss(x, y, reduction="sum"),
                [randn(3, 4), randn(3, 4)], None),
    "mse_none": (lambda L, x, y: F(L).mse_loss(x, y, reduction="none"),
                 [randn(3, 4), randn(3, 4)], None),
    "mse_input_only": (lambda L, x, y: F(L).mse_loss(x, y), [randn(3, 4), randn(3, 4)], [0]),
    "mse_0d": (lambda L, x, y: F(L).mse_loss(x, y), [randn(), randn()], None),
}


def _cast(inputs, dtype):
    return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
            for a in inputs]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_backward(name, dtype):
    fn, inputs, grad_inputs = CASES[name]
    check(fn, *_cast(inputs, dtype), grad_inputs=grad_inputs)


GRADCHECK = ["linear_2d_bias", "linear_3d", "linear_1d_bias", "nll_weight_mean",
             "ce_smooth_weight_mean", "ce_probs_weight", "ce_probs_target_grad",
             "nll_ignore_none", "nll_4d", "ce_mean", "ce_weight_ignore_none", "ce_3d_none",
             "mse_mean", "mse_none", "relu", "softmax"]


def _ember_fn(name):
    return ember_fn(*CASES[name])


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck(name):
    f, arrays = _ember_fn(name)
    gradcheck(f, *arrays)


@pytest.mark.parametrize("name", ["linear_2d_bias", "ce_mean", "ce_weight_ignore_none",
                                  "mse_mean", "softmax"])
def test_gradgradcheck(name):
    f, arrays = _ember_fn(name)
    gradgradcheck(f, *arrays)


@pytest.mark.parametrize("name", ["ce_mean", "ce_weight_ignore_none", "ce_smooth_mean",
                                  "ce_probs_mean", "linear_2d_bias", "mse_sum"])
def test_double_backward_vs_torch(name):
    fn, inputs, grad_inputs = CASES[name]

    def second(L, *ts):
        out = fn(L, *ts)
        diff = [t for i, t in enumerate(ts) if isinstance(t, L.Tensor) and t.requires_grad]
        w = L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gs = L.autograd.grad((out * w).sum(), diff, create_graph=True)
        return sum((g * g).sum() for g in gs)

    check(second, *inputs, grad_inputs=grad_inputs)


def test_grad_fn_chains():
    for name in ["linear_2d_bias", "linear_2d", "linear_1d_bias", "linear_3d_bias", "ce_mean",
                 "ce_3d_none", "nll_4d", "nll_5d_weight", "ce_smooth_mean",
                 "ce_smooth_weight_none", "ce_probs_weight", "ce_probs_none"]:
        fn, inputs, grad_inputs = CASES[name]
        got = case_chains(fn, inputs, grad_inputs, depth=5)
        assert got[0] == got[1], name


X = randn(3, 5, dtype=np.float32)
ERRORS = {
    "target_out_of_bounds": lambda L: F(L).nll_loss(L.tensor(X), L.tensor([1, 2, 7])),
    "target_negative": lambda L: F(L).cross_entropy(L.tensor(X), L.tensor([1, 2, -1])),
    "batch_mismatch": lambda L: F(L).nll_loss(L.tensor(X), L.tensor([1, 2])),
    "float_target": lambda L: F(L).nll_loss(L.tensor(X), L.tensor([1., 2, 3])),
    "bad_reduction": lambda L: F(L).cross_entropy(L.tensor(X), L.tensor([1, 2, 3]),
                                                  reduction="foo"),
    "weight_size": lambda L: F(L).nll_loss(L.tensor(X), L.tensor([1, 2, 3]), L.ones(4)),
    "weight_dtype": lambda L: F(L).nll_loss(L.tensor(X), L.tensor([1, 2, 3]),
                                            L.ones(5, dtype=L.float64)),
    "kdim_target_size": lambda L: F(L).nll_loss(L.tensor(randn(3, 5, 2)), L.tensor([1, 2, 3])),
    "nll_0d": lambda L: F(L).nll_loss(L.tensor(1.0), L.tensor(1)),
    "linear_shapes": lambda L: F(L).linear(L.tensor(X), L.tensor(randn(4, 3, dtype=np.float32))),
    "linear_bias_shape": lambda L: F(L).linear(L.tensor(X), L.ones(4, 5), L.ones(3)),
    "mse_broadcast": lambda L: F(L).mse_loss(L.ones(3, 2), L.ones(3, 4), reduction="none"),
}


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(ERRORS[name])


def test_legacy_reduction_args():
    import torch
    x, t = randn(4, 3), labels(4, 3)
    with pytest.warns(UserWarning) as rec:
        e = ember.nn.functional.nll_loss(ember.tensor(x), ember.tensor(t), size_average=False)
    with pytest.warns(UserWarning) as rec_t:
        r = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t), size_average=False)
    assert str(rec[0].message) == str(rec_t[0].message)
    np.testing.assert_allclose(e._data, r.numpy())


def test_mse_broadcast_warning():
    import torch
    msgs = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning) as rec:
            F(lib).mse_loss(lib.ones(3, 1), lib.ones(3, 4))
        msgs.append(str(rec[0].message))
    assert msgs[0] == msgs[1]


def test_softmax_implicit_dim_warning():
    import torch
    msgs = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning) as rec:
            out = F(lib).softmax(lib.ones(2, 3))
        msgs.append((str(rec[0].message), tuple(out.shape)))
    assert msgs[0] == msgs[1]
