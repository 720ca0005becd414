"""Bad input to nn modules and losses (issue 9's fidelity rule): ember raises torch's exception
type and message, and the module is left unchanged: parameters, buffers (running statistics,
num_batches_tracked), gradients and the training flag are what they were before the call, and
equal torch's afterwards."""
import numpy as np
import pytest
import torch

import ember
from nn_module_check import compare_state, make_pair
from oracle import check_error

R = np.random.default_rng(5)


def a(*shape):
    return R.standard_normal(shape).astype(np.float32)


def T(lib, x, dtype=None):
    """x (a NumPy array or nested list) as a tensor of lib."""
    t = lib.tensor(x)
    return t if dtype is None else t.to(getattr(lib, dtype))


X3 = a(2, 3)
IMG3 = a(1, 3, 28, 28)
SMALL = a(1, 1, 3, 3)
SEQ = a(5, 2, 4)

# name -> (module constructor(lib), inputs(lib) -> tuple of call arguments, training)
CASES = {
    # ---- shapes and channels
    "conv2d_channels": (lambda l: l.nn.Conv2d(1, 6, 5), lambda l: (T(l, IMG3),), True),
    "conv2d_kernel_too_large": (lambda l: l.nn.Conv2d(1, 1, 5), lambda l: (T(l, SMALL),), True),
    "conv2d_3d_unbatched_channels": (lambda l: l.nn.Conv2d(2, 1, 2),
                                     lambda l: (T(l, a(3, 4, 4)),), True),
    "conv2d_wrong_ndim": (lambda l: l.nn.Conv2d(1, 1, 2), lambda l: (T(l, a(4, 4)),), True),
    "conv2d_dtype": (lambda l: l.nn.Conv2d(1, 1, 2),
                     lambda l: (T(l, SMALL.astype(np.float64)),), True),
    "conv1d_wrong_ndim": (lambda l: l.nn.Conv1d(1, 1, 2), lambda l: (T(l, SMALL),), True),
    "conv1d_groups_channels": (lambda l: l.nn.Conv1d(4, 2, 2, groups=2),
                               lambda l: (T(l, a(1, 3, 5)),), True),
    "conv_transpose2d_channels": (lambda l: l.nn.ConvTranspose2d(2, 1, 2),
                                  lambda l: (T(l, a(1, 3, 2, 2)),), True),
    "linear_shape": (lambda l: l.nn.Linear(4, 5), lambda l: (T(l, X3),), True),
    "linear_dtype": (lambda l: l.nn.Linear(3, 2), lambda l: (T(l, X3.astype(np.float64)),),
                     True),
    "linear_int_input": (lambda l: l.nn.Linear(3, 2), lambda l: (T(l, [[1, 2, 3]]),), True),
    "bilinear_shape": (lambda l: l.nn.Bilinear(3, 2, 4),
                       lambda l: (T(l, X3), T(l, a(2, 3))), True),
    "max_pool2d_too_small": (lambda l: l.nn.MaxPool2d(5), lambda l: (T(l, SMALL),), True),
    "avg_pool2d_too_small": (lambda l: l.nn.AvgPool2d(4), lambda l: (T(l, SMALL),), True),
    "max_pool1d_pad_too_large": (lambda l: l.nn.MaxPool1d(2, padding=2),
                                 lambda l: (T(l, a(1, 1, 4)),), True),
    "pixel_shuffle_channels": (lambda l: l.nn.PixelShuffle(2), lambda l: (T(l, a(1, 3, 2, 2)),),
                               True),
    "embedding_out_of_range": (lambda l: l.nn.Embedding(4, 2), lambda l: (T(l, [1, 4]),), True),
    "embedding_max_norm_out_of_range": (lambda l: l.nn.Embedding(4, 2, max_norm=0.5),
                                        lambda l: (T(l, [0, 7]),), True),
    "embedding_max_norm_negative_out_of_range": (lambda l: l.nn.Embedding(4, 2, max_norm=0.5),
                                                 lambda l: (T(l, [-7, 0]),), True),
    "embedding_float_indices": (lambda l: l.nn.Embedding(4, 2), lambda l: (T(l, [1.0, 2.0]),),
                                True),
    "embedding_bag_offsets": (lambda l: l.nn.EmbeddingBag(4, 2),
                              lambda l: (T(l, [0, 1, 2]), T(l, [1, 0])), True),
    # ---- normalization (running statistics must not move)
    "batchnorm1d_one_value_per_channel": (lambda l: l.nn.BatchNorm1d(3),
                                          lambda l: (T(l, a(1, 3)),), True),
    "batchnorm1d_channels": (lambda l: l.nn.BatchNorm1d(3), lambda l: (T(l, a(4, 2)),), True),
    "batchnorm2d_channels": (lambda l: l.nn.BatchNorm2d(3), lambda l: (T(l, a(2, 4, 2, 2)),),
                             True),
    "batchnorm2d_eval_channels": (lambda l: l.nn.BatchNorm2d(3),
                                  lambda l: (T(l, a(2, 4, 2, 2)),), False),
    "batchnorm2d_ndim": (lambda l: l.nn.BatchNorm2d(3), lambda l: (T(l, a(2, 3, 2)),), True),
    "batchnorm1d_ndim": (lambda l: l.nn.BatchNorm1d(3), lambda l: (T(l, a(2, 3, 2, 2)),), True),
    "batchnorm1d_momentum_none_one_value": (lambda l: l.nn.BatchNorm1d(2, momentum=None),
                                            lambda l: (T(l, a(1, 2, 1)),), True),
    "instancenorm1d_one_spatial": (lambda l: l.nn.InstanceNorm1d(3, track_running_stats=True),
                                   lambda l: (T(l, a(2, 3, 1)),), True),
    "instancenorm2d_channels_tracked": (
        lambda l: l.nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
        lambda l: (T(l, a(2, 4, 2, 2)),), True),
    "layernorm_shape": (lambda l: l.nn.LayerNorm(4), lambda l: (T(l, X3),), True),
    "groupnorm_divisible": (lambda l: l.nn.GroupNorm(2, 4), lambda l: (T(l, a(2, 5, 3)),), True),
    "prelu_count": (lambda l: l.nn.PReLU(3), lambda l: (T(l, a(2, 4)),), True),
    # ---- recurrent and attention
    "lstm_input_size": (lambda l: l.nn.LSTM(3, 2), lambda l: (T(l, SEQ),), True),
    "gru_hidden_shape": (lambda l: l.nn.GRU(4, 3),
                         lambda l: (T(l, SEQ), T(l, a(1, 3, 3))), True),
    "lstm_cell_state": (lambda l: l.nn.LSTM(4, 3, num_layers=2),
                        lambda l: (T(l, SEQ), (T(l, a(2, 2, 3)), T(l, a(1, 2, 3)))), True),
    "rnn_wrong_ndim": (lambda l: l.nn.RNN(4, 3), lambda l: (T(l, a(5, 2, 4, 1)),), True),
    "lstmcell_input_size": (lambda l: l.nn.LSTMCell(3, 2), lambda l: (T(l, a(2, 4)),), True),
    "mha_embed_dim": (lambda l: l.nn.MultiheadAttention(4, 2),
                      lambda l: (T(l, a(3, 1, 3)),) * 3, True),
    "transformer_batch": (
        lambda l: l.nn.Transformer(4, 2, 1, 1, 8, dropout=0.0),
        lambda l: (T(l, a(3, 2, 4)), T(l, a(2, 3, 4))), True),
}

# ---- losses: (module constructor, (input, target...) makers)
LOSS = {
    "cross_entropy_target_out_of_range": (lambda l: l.nn.CrossEntropyLoss(),
                                          lambda l: (T(l, X3), T(l, [0, 5]))),
    "cross_entropy_negative_target": (lambda l: l.nn.CrossEntropyLoss(),
                                      lambda l: (T(l, X3), T(l, [0, -2]))),
    "cross_entropy_target_int32": (lambda l: l.nn.CrossEntropyLoss(),
                                   lambda l: (T(l, X3), T(l, [0, 1], "int32"))),
    "cross_entropy_target_float_shape": (lambda l: l.nn.CrossEntropyLoss(),
                                         lambda l: (T(l, X3), T(l, [0.0, 1.0]))),
    "cross_entropy_batch": (lambda l: l.nn.CrossEntropyLoss(),
                            lambda l: (T(l, X3), T(l, [0, 1, 2]))),
    "cross_entropy_weight_size": (lambda l: l.nn.CrossEntropyLoss(weight=l.ones(2)),
                                  lambda l: (T(l, X3), T(l, [0, 1]))),
    "nll_target_out_of_range": (lambda l: l.nn.NLLLoss(), lambda l: (T(l, X3), T(l, [3, 0]))),
    "nll_target_float": (lambda l: l.nn.NLLLoss(), lambda l: (T(l, X3), T(l, [1.0, 0.0]))),
    "nll_target_ndim": (lambda l: l.nn.NLLLoss(), lambda l: (T(l, X3), T(l, [[1, 0]]))),
    "multi_margin_target_out_of_range": (lambda l: l.nn.MultiMarginLoss(),
                                         lambda l: (T(l, X3), T(l, [0, 3]))),
    "multi_margin_target_float": (lambda l: l.nn.MultiMarginLoss(),
                                  lambda l: (T(l, X3), T(l, [0.0, 1.0]))),
    "multilabel_margin_target_out_of_range": (
        lambda l: l.nn.MultiLabelMarginLoss(),
        lambda l: (T(l, X3), T(l, [[0, 3, -1], [1, -1, 0]]))),
    "bce_target_size": (lambda l: l.nn.BCELoss(), lambda l: (T(l, np.full((2, 3), 0.5,
                                                                         np.float32)),
                                                             T(l, np.full(3, 0.5, np.float32)))),
    "bce_input_range": (lambda l: l.nn.BCELoss(), lambda l: (T(l, X3), T(l, np.full(
        (2, 3), 0.5, np.float32)))),
    "bce_with_logits_size": (lambda l: l.nn.BCEWithLogitsLoss(),
                             lambda l: (T(l, X3), T(l, np.ones(3, np.float32)))),
    "gaussian_nll_negative_var": (lambda l: l.nn.GaussianNLLLoss(),
                                  lambda l: (T(l, X3), T(l, X3), T(l, -np.ones((2, 3),
                                                                                np.float32)))),
    "gaussian_nll_var_shape": (lambda l: l.nn.GaussianNLLLoss(),
                               lambda l: (T(l, X3), T(l, X3), T(l, np.ones((2, 2),
                                                                         np.float32)))),
    "cosine_embedding_target_ndim": (lambda l: l.nn.CosineEmbeddingLoss(),
                                     lambda l: (T(l, X3), T(l, X3), T(l, [[1.0, -1.0]]))),
    "margin_ranking_size": (lambda l: l.nn.MarginRankingLoss(),
                            lambda l: (T(l, a(3)), T(l, a(2)), T(l, [1.0, -1.0]))),
    "triplet_margin_shape": (lambda l: l.nn.TripletMarginLoss(),
                             lambda l: (T(l, X3), T(l, X3), T(l, a(2, 4)))),
    "cross_entropy_float_target_2d": (lambda l: l.nn.CrossEntropyLoss(),
                                      lambda l: (T(l, X3), T(l, a(2, 4)))),
    "cross_entropy_float_target_kdim": (lambda l: l.nn.CrossEntropyLoss(),
                                        lambda l: (T(l, a(2, 3, 2)), T(l, a(2, 3)))),
    "cross_entropy_float_target_batch": (lambda l: l.nn.CrossEntropyLoss(),
                                         lambda l: (T(l, X3), T(l, a(3, 3)))),
    "nll_target_int16": (lambda l: l.nn.NLLLoss(),
                         lambda l: (T(l, X3), T(l, [0, 1], "int16"))),
    "nll_multi_target": (lambda l: l.nn.NLLLoss(), lambda l: (T(l, X3), T(l, [[0, 1], [1, 1]]))),
    "multilabel_margin_target_int32": (
        lambda l: l.nn.MultiLabelMarginLoss(),
        lambda l: (T(l, X3), T(l, [[0, 1, -1], [1, -1, 0]], "int32"))),
    "l1_size": (lambda l: l.nn.L1Loss(), lambda l: (T(l, X3), T(l, a(3, 3)))),
    "kl_div_size": (lambda l: l.nn.KLDivLoss(reduction="batchmean"),
                    lambda l: (T(l, X3), T(l, a(3, 3)))),
}
CASES.update({f"loss_{k}": (c, i, True) for k, (c, i) in LOSS.items()})


def _snapshot(m):
    """Every tensor the module holds (parameters, buffers, gradients) as NumPy copies, and
    its training flag."""
    snap = {n: np.array(t.detach().numpy() if isinstance(t, torch.Tensor) else t._data)
            for n, t in m.state_dict(keep_vars=True).items()}
    snap.update({n + ".grad": None if p.grad is None else np.array(p.grad.detach().numpy()
                                                                  if isinstance(p, torch.Tensor)
                                                                  else p.grad._data)
                 for n, p in m.named_parameters()})
    return snap, m.training


def _changed(before, after):
    """The names of the entries that differ between two snapshots."""
    assert list(before[0]) == list(after[0])
    out = [n for n, v in before[0].items()
           if (v is None) != (after[0][n] is None) or v is not None and not (
               v.dtype == after[0][n].dtype and np.array_equal(v, after[0][n], equal_nan=True))]
    return out + (["training"] if before[1] != after[1] else [])


# torch itself counts the batch (num_batches_tracked += 1) before batch_norm checks the input;
# everything else, the running statistics included, stays as it was
TORCH_BUMPS = {"batchnorm1d_one_value_per_channel", "batchnorm1d_channels",
               "batchnorm2d_channels", "batchnorm1d_momentum_none_one_value"}
# torch renormalises the rows an Embedding(max_norm=) lookup uses in sorted order, and raises
# at the first index out of range: the rows before it are renormalised (here row 0)
TORCH_RENORMS = {"embedding_max_norm_out_of_range"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name):
    ctor, inputs, training = CASES[name]
    torch.manual_seed(0)
    tm, em = make_pair(ctor)
    tm.train(training)
    em.train(training)
    before = {torch: _snapshot(tm), ember: _snapshot(em)}
    modules = {torch: tm, ember: em}

    def run(lib):
        args = inputs(lib)
        for t in args:
            if isinstance(t, lib.Tensor) and t.is_floating_point():
                t.requires_grad_(True)
        modules[lib](*args)
    check_error(run)
    expected = ["num_batches_tracked"] if name in TORCH_BUMPS else \
        ["weight"] if name in TORCH_RENORMS else []
    assert _changed(before[torch], _snapshot(tm)) == expected
    assert _changed(before[ember], _snapshot(em)) == expected
    compare_state(tm, em, name)


# ---- functional forms and constructors: torch's exception type and first message line
FUNCTIONAL = {
    "conv_int_input": lambda l: l.nn.Conv2d(1, 1, 2)(l.ones(1, 1, 3, 3, dtype=l.long)),
    "conv_stride0": lambda l: l.nn.functional.conv2d(l.ones(1, 1, 3, 3), l.ones(1, 1, 2, 2),
                                                     stride=0),
    "conv_groups_ctor": lambda l: l.nn.Conv2d(3, 4, 2, groups=2),
    "pool_pad_big": lambda l: l.nn.MaxPool2d(2, padding=2)(l.ones(1, 1, 4, 4)),
    "adaptive_pool_negative": lambda l: l.nn.functional.adaptive_avg_pool2d(
        l.ones(1, 1, 3, 3), -1),
    "max_unpool_size": lambda l: l.nn.functional.max_unpool2d(
        l.ones(1, 1, 2, 2), l.zeros(1, 1, 2, 2, dtype=l.long), 2, output_size=(7, 7)),
    "pad_reflect_big": lambda l: l.nn.functional.pad(l.ones(1, 1, 3), (3, 3), mode="reflect"),
    "interpolate_size_and_scale": lambda l: l.nn.functional.interpolate(
        l.ones(1, 1, 3), size=4, scale_factor=2),
    "interpolate_mode": lambda l: l.nn.functional.interpolate(l.ones(1, 1, 3), size=4,
                                                              mode="cubic"),
    "interpolate_bilinear_3d": lambda l: l.nn.functional.interpolate(l.ones(1, 1, 3), size=4,
                                                                     mode="bilinear"),
    "fold_blocks": lambda l: l.nn.functional.fold(l.ones(1, 4, 5), (3, 3), 2),
    "pixel_shuffle_2d": lambda l: l.nn.functional.pixel_shuffle(l.ones(4, 2), 2),
    "linear_0d_input": lambda l: l.nn.Linear(3, 2)(l.tensor(1.0)),
    "linear_0d_weight": lambda l: l.nn.functional.linear(l.ones(3), l.tensor(2.0)),
    "embedding_2d_indices": lambda l: l.nn.functional.embedding(l.tensor([[0, 5]]),
                                                                l.ones(4, 2)),
    "dropout_p": lambda l: l.nn.Dropout(1.5),
    "mha_heads": lambda l: l.nn.MultiheadAttention(5, 2),
    "lstm_hx_batch_first": lambda l: l.nn.LSTM(2, 3, batch_first=True)(
        l.ones(4, 5, 2), (l.zeros(1, 5, 3), l.zeros(1, 5, 3))),
    "lstm_hx_not_tuple": lambda l: l.nn.LSTM(2, 3)(l.ones(5, 4, 2), l.zeros(1, 4, 3)),
    "sdpa_dims": lambda l: l.nn.functional.scaled_dot_product_attention(
        l.ones(2, 3), l.ones(2, 4), l.ones(2, 4)),
    "layer_norm_weight": lambda l: l.nn.functional.layer_norm(l.ones(2, 3), (3,),
                                                              weight=l.ones(2)),
    "group_norm_weight": lambda l: l.nn.functional.group_norm(l.ones(2, 4, 3), 2,
                                                              weight=l.ones(3)),
    "cosine_similarity_shape": lambda l: l.nn.functional.cosine_similarity(l.ones(2, 3),
                                                                           l.ones(2, 4)),
    "cross_entropy_weight_dtype": lambda l: l.nn.functional.cross_entropy(
        l.ones(2, 3), l.tensor([0, 1]), weight=l.ones(3, dtype=l.float64)),
    "bce_with_logits_pos_weight_shape": lambda l: l.nn.functional.binary_cross_entropy_with_logits(
        l.ones(2, 3), l.ones(2, 3), pos_weight=l.ones(2)),
    "bce_with_logits_weight_shape": lambda l: l.nn.functional.binary_cross_entropy_with_logits(
        l.ones(2, 3), l.ones(2, 3), weight=l.ones(2)),
    "kl_div_reduction": lambda l: l.nn.functional.kl_div(l.ones(2), l.ones(2), reduction="avg"),
    "mse_reduction": lambda l: l.nn.functional.mse_loss(l.ones(2), l.ones(2), reduction="avg"),
    "ctc_lengths": lambda l: l.nn.functional.ctc_loss(
        l.zeros(4, 2, 3), l.tensor([[1, 2], [1, 1]]), l.tensor([4]), l.tensor([2, 2])),
    "triplet_dims": lambda l: l.nn.functional.triplet_margin_loss(l.ones(2, 3), l.ones(3),
                                                                  l.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_bad_input(name):
    check_error(FUNCTIONAL[name])
