"""Double backward through every nn layer and loss (issue 9's fidelity rule): for each case,
gradgradcheck in float64 differentiates the create_graph gradient numerically (tests/oracle.py),
with the weights as inputs where the functional form takes them. Module-only layers (RNNs,
attention, transformer) are checked through their functional forms with all weights as inputs
where torch has one, else through the module with respect to its input."""
import numpy as np
import pytest

import ember
from oracle import as_numpy, gradgradcheck

F = ember.nn.functional
nn = ember.nn
R = np.random.default_rng(11)


def randn(*shape):
    return R.standard_normal(shape)


def rand(*shape):
    return R.uniform(0.1, 0.9, shape)


def away(*shape):
    """Normal values kept at least 0.1 from 0 and +-1, the kinks of the piecewise ops."""
    x = R.standard_normal(shape)
    for k in (0.0, 1.0, -1.0):
        near = np.abs(x - k) < 0.1
        x[near] = k + np.copysign(0.1 + np.abs(x[near] - k), x[near] - k + 1e-12)
    return x


def const(a):
    return ember.tensor(a)


def seeded(fn):
    """fn with the random stream reset before each call (dropout masks repeat)."""
    def run(*xs):
        ember.manual_seed(0)
        return fn(*xs)
    return run


def module(ctor):
    """A float64 module with its own fixed weights, built once."""
    ember.manual_seed(0)
    m = ctor().double()
    return m


IDX3 = const(np.array([2, 0, 1]))
IDX2 = const(np.array([1, 0]))

# name -> (fn(*ember tensors), input arrays)
CASES = {
    # ---- linear family
    "linear": (F.linear, (randn(2, 3), randn(4, 3), randn(4))),
    "bilinear": (F.bilinear, (randn(2, 2), randn(2, 3), randn(2, 2, 3), randn(2))),
    "identity+flatten+unflatten": (
        lambda x: nn.Unflatten(1, (2, 3))(nn.Flatten()(nn.Identity()(x)).sin()),
        (randn(2, 3, 2),)),
    "embedding": (lambda w: F.embedding(const(np.array([[0, 2], [1, 2]])), w).sin(),
                  (randn(3, 2),)),
    "embedding_bag_mean": (
        lambda w, ps: F.embedding_bag(const(np.array([0, 2, 1, 1])), w,
                                      const(np.array([0, 2])), mode="mean").sin(),
        (randn(3, 2), None)),
    "embedding_bag_sum_weights": (
        lambda w, ps: F.embedding_bag(const(np.array([0, 2, 1, 1])), w,
                                      const(np.array([0, 2])), mode="sum",
                                      per_sample_weights=ps),
        (randn(3, 2), randn(4))),
    # ---- convolution
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
               (randn(1, 2, 5), randn(3, 2, 3), randn(3))),
    "conv1d_unbatched_same": (lambda x, w: F.conv1d(x, w, padding="same", dilation=2),
                              (randn(2, 5), randn(2, 2, 2))),
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1),
               (randn(1, 1, 4, 4), randn(2, 1, 3, 3), randn(2))),
    "conv2d_groups_stride_dilation": (
        lambda x, w: F.conv2d(x, w, stride=(2, 1), dilation=(1, 2), groups=2),
        (randn(1, 4, 5, 5), randn(2, 2, 2, 2))),
    "conv2d_module_reflect": (module(lambda: nn.Conv2d(1, 2, 3, padding=1,
                                                       padding_mode="reflect")),
                              (randn(1, 1, 4, 3),)),
    "conv2d_module_circular": (module(lambda: nn.Conv2d(1, 1, 2, padding=1,
                                                        padding_mode="circular")),
                               (randn(1, 1, 3, 3),)),
    "conv2d_module_replicate": (module(lambda: nn.Conv2d(1, 1, 2, padding=(1, 0),
                                                         padding_mode="replicate")),
                                (randn(1, 1, 3, 3),)),
    "conv_transpose1d": (
        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1),
        (randn(1, 2, 3), randn(2, 2, 3), randn(2))),
    "conv_transpose2d_groups": (
        lambda x, w: F.conv_transpose2d(x, w, stride=2, groups=2, dilation=1),
        (randn(1, 2, 2, 2), randn(2, 1, 2, 2))),
    # ---- pooling, unpooling, padding, resizing, folding
    "max_pool1d": (lambda x: F.max_pool1d(x, 2, ceil_mode=True), (randn(1, 2, 5),)),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2, stride=1, padding=1), (randn(1, 1, 3, 3),)),
    "max_pool2d_indices": (lambda x: F.max_pool2d(x, 2, return_indices=True)[0],
                           (randn(1, 1, 4, 4),)),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 3, 2, padding=1, count_include_pad=False),
                   (randn(1, 2, 5),)),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 2, ceil_mode=True), (randn(1, 1, 3, 3),)),
    "adaptive_avg_pool1d": (lambda x: F.adaptive_avg_pool1d(x, 3), (randn(1, 2, 5),)),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (randn(1, 1, 3, 4),)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2), (randn(1, 1, 3, 4),)),
    "max_unpool2d": (
        lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
        (randn(1, 1, 4, 4),)),
    "pad_constant": (lambda x: F.pad(x, (1, 2), value=0.5).sin(), (randn(1, 2, 3),)),
    "pad_reflect": (lambda x: F.pad(x, (2, 1, 1, 1), mode="reflect"), (randn(1, 1, 3, 3),)),
    "pad_replicate": (lambda x: F.pad(x, (1, 2), mode="replicate"), (randn(1, 2, 3),)),
    "pad_circular": (lambda x: F.pad(x, (1, 1, 2, 0), mode="circular").sin(), (randn(1, 1, 3, 3),)),
    "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=2).sin(), (randn(1, 1, 2, 3),)),
    "interpolate_linear": (lambda x: F.interpolate(x, size=5, mode="linear").sin(),
                           (randn(1, 2, 3),)),
    "interpolate_bilinear_corners": (
        lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=True).sin(),
        (randn(1, 1, 2, 3),)),
    "upsample_module": (lambda x: _UPS(x).sin(),
                        (randn(1, 1, 2, 2),)),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2).sin(), (randn(1, 4, 2, 1),)),
    "unfold": (lambda x: F.unfold(x, 2, padding=1, stride=2).sin(), (randn(1, 1, 3, 3),)),
    "fold": (lambda x: F.fold(x, (3, 3), 2).sin(), (randn(1, 4, 4),)),
    # ---- normalization
    "batch_norm_train": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        (randn(3, 2, 2), randn(2), randn(2))),
    "batch_norm_eval": (
        lambda x, w, b: F.batch_norm(x, const(np.array([0.1, -0.2])),
                                     const(np.array([0.5, 2.0])), w, b, training=False),
        (randn(3, 2), randn(2), randn(2))),
    "batchnorm2d_module": (module(lambda: nn.BatchNorm2d(2)), (randn(2, 2, 2, 2),)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (3,), w, b),
                   (randn(2, 3), randn(3), randn(3))),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b),
                   (randn(2, 4, 2), randn(4), randn(4))),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                      (randn(2, 2, 3), randn(2), randn(2))),
    "instancenorm2d_module": (module(lambda: nn.InstanceNorm2d(2, affine=True)),
                              (randn(1, 2, 2, 2),)),
    "local_response_norm": (lambda x: F.local_response_norm(x, 2), (randn(1, 3, 2),)),
    "normalize": (lambda x: F.normalize(x, dim=1), (randn(2, 3),)),
    # ---- dropout (the mask repeats: the stream is reset before each call)
    "dropout": (seeded(lambda x: F.dropout(x, 0.3).sin()), (randn(2, 4),)),
    "dropout1d": (seeded(lambda x: F.dropout1d(x, 0.5).sin()), (randn(2, 3, 2),)),
    "dropout2d": (seeded(lambda x: F.dropout2d(x, 0.5).sin()), (randn(2, 3, 2, 1),)),
    "alpha_dropout": (seeded(lambda x: F.alpha_dropout(x, 0.3, training=True).sin()),
                      (randn(2, 4),)),
    # ---- distances
    "cosine_similarity": (F.cosine_similarity, (randn(2, 3), randn(2, 3))),
    "pairwise_distance": (F.pairwise_distance, (randn(2, 3), randn(2, 3))),
    # ---- recurrent
    "rnn_tanh_cell": (ember.rnn_tanh_cell, (randn(2, 2), randn(2, 3), randn(3, 2),
                                           randn(3, 3), randn(3), randn(3))),
    "rnn_relu_cell": (lambda x, h, wi, wh: ember.rnn_relu_cell(x, h, wi, wh),
                      (away(2, 2), away(2, 2), away(2, 2), away(2, 2))),
    "lstm_cell": (lambda x, h, c, wi, wh, bi: ember.lstm_cell(x, (h, c), wi, wh, bi)[1],
                  (randn(1, 2), randn(1, 2), randn(1, 2), randn(8, 2), randn(8, 2), randn(8))),
    "gru_cell": (lambda x, h, wi, wh, bh: ember.gru_cell(x, h, wi, wh, None, bh),
                 (randn(1, 2), randn(1, 2), randn(6, 2), randn(6, 2), randn(6))),
    "lstm_2layer": (
        lambda x, h, c, wi0, wh0, wi1, wh1: ember.lstm(
            x, (h, c), (wi0, wh0, wi1, wh1), False, 2, 0.0, True, False, False)[0],
        (randn(3, 1, 2), randn(2, 1, 2), randn(2, 1, 2), randn(8, 2), randn(8, 2),
         randn(8, 2), randn(8, 2))),
    "gru_bidirectional": (
        lambda x, h, wi, wh, wir, whr: ember.gru(
            x, h, (wi, wh, wir, whr), False, 1, 0.0, True, True, True)[0],
        (randn(1, 3, 2), randn(2, 1, 2), randn(6, 2), randn(6, 2), randn(6, 2),
         randn(6, 2))),
    "rnn_relu_layer": (
        lambda x, h, wi, wh: ember.rnn_relu(x, h, (wi, wh), False, 1, 0.0, True, False,
                                            False)[0],
        (away(3, 1, 2), away(1, 1, 2), away(2, 2) * 0.5, away(2, 2) * 0.5)),
    "lstm_module_proj": (lambda x: _LSTM_PROJ(x)[0],
                         (randn(1, 3, 2),)),
    "lstm_module_packed": (
        lambda x: nn.utils.rnn.pad_packed_sequence(_LSTM_PACKED(
            nn.utils.rnn.pack_padded_sequence(x, [3, 2], batch_first=True))[0],
            batch_first=True)[0],
        (randn(2, 3, 2),)),
    # ---- attention and transformer
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    (randn(1, 3, 2), randn(1, 3, 2), randn(1, 3, 2))),
    "sdpa_float_mask": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        (randn(1, 2, 2), randn(1, 3, 2), randn(1, 3, 2), randn(2, 3))),
    "multi_head_attention_forward": (
        lambda q, w, b, ow, ob: F.multi_head_attention_forward(
            q, q, q, 2, 1, w, b, None, None, False, 0.0, ow, ob, training=False)[0],
        (randn(2, 1, 2), randn(6, 2), randn(6), randn(2, 2), randn(2))),
    "multihead_attention_module_masks": (
        lambda q: _MHA(q, q, q, key_padding_mask=const(np.array([[False, False, True]])),
                       attn_mask=const(np.array([[0.0, -1.0, 0.0]] * 3)))[0],
        (randn(1, 3, 4),)),
    "transformer_encoder_layer": (
        module(lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, batch_first=True)),
        (randn(1, 2, 4),)),
    "transformer_decoder_layer_norm_first": (
        lambda x: _DEC(x, const(np.random.default_rng(0).standard_normal((2, 1, 4)))),
        (randn(2, 1, 4),)),
    "transformer_gelu": (
        lambda src, tgt: _TRF(src, tgt), (randn(2, 1, 4), randn(1, 1, 4))),
}

_UPS = nn.Upsample(scale_factor=2, mode="bilinear")
_LSTM_PROJ = module(lambda: nn.LSTM(2, 3, proj_size=2, batch_first=True))
_LSTM_PACKED = module(lambda: nn.LSTM(2, 2, batch_first=True))
_MHA = module(lambda: nn.MultiheadAttention(4, 2, batch_first=True))
_DEC = module(lambda: nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, norm_first=True))
_TRF = module(lambda: nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, activation="gelu"))

# ---- activations: (functional, input)
ACTIVATIONS = {
    "relu": (lambda x: F.relu(x).sin(), away(2, 3)),
    "relu6": (F.relu6, away(2, 3) * 4),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), away(2, 3)),
    "rrelu_eval": (lambda x: F.rrelu(x, training=False), away(2, 3)),
    "elu": (lambda x: F.elu(x, 1.5), away(2, 3)),
    "selu": (F.selu, away(2, 3)),
    "celu": (lambda x: F.celu(x, 0.7), away(2, 3)),
    "gelu": (F.gelu, randn(2, 3)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), randn(2, 3)),
    "silu": (F.silu, randn(2, 3)),
    "mish": (F.mish, randn(2, 3)),
    "softplus": (lambda x: F.softplus(x, beta=2, threshold=1.5), away(2, 3)),
    "softsign": (F.softsign, randn(2, 3)),
    "softshrink": (lambda x: F.softshrink(x, 0.5), away(2, 3) * 2),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), away(2, 3) * 2),
    "tanhshrink": (F.tanhshrink, randn(2, 3)),
    "threshold": (lambda x: F.threshold(x, 0.0, -2.0), away(2, 3)),
    "sigmoid": (F.sigmoid, randn(2, 3)),
    "logsigmoid": (F.logsigmoid, randn(2, 3)),
    "tanh": (F.tanh, randn(2, 3)),
    "hardtanh": (F.hardtanh, away(2, 3) * 1.5),
    "hardswish": (F.hardswish, away(2, 3) * 4),
    "glu": (F.glu, randn(2, 4)),
    "softmax": (lambda x: F.softmax(x, 1), randn(2, 3)),
    "log_softmax": (lambda x: F.log_softmax(x, 0), randn(2, 3)),
    "softmin": (lambda x: F.softmin(x, 1), randn(2, 3)),
    "softmax2d": (lambda x: nn.Softmax2d()(x), randn(1, 3, 2, 1)),
}
CASES.update({f"act_{k}": (f, (x,)) for k, (f, x) in ACTIVATIONS.items()})
CASES["act_prelu"] = (F.prelu, (away(2, 3, 2), away(3) * 0.3))
# every activation module calls its functional form; spot-check the modules with state
CASES["act_PReLU_module"] = (module(lambda: nn.PReLU(3, init=0.1)), (away(2, 3),))
CASES["act_Softmax_module"] = (nn.Softmax(dim=-1), (randn(2, 3),))

# ---- losses: (fn of the differentiable inputs; constant targets captured)
T3 = const(np.array([1, 0, 2]))
P3 = const(rand(3, 3))
W3 = const(rand(3))
Y2 = const(np.array([1.0, -1.0]))
LOSSES = {
    "mse": (lambda x, y: F.mse_loss(x, y), (randn(2, 3), randn(2, 3))),
    "l1": (lambda x, y: F.l1_loss(x, y, reduction="sum"), (randn(2, 3), randn(2, 3))),
    "smooth_l1": (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
                  (randn(2, 3) * 2, randn(2, 3) * 2)),
    "huber": (lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.7),
              (randn(2, 3) * 2, randn(2, 3) * 2)),
    "cross_entropy": (lambda x: F.cross_entropy(x, T3), (randn(3, 3),)),
    "cross_entropy_weight_smoothing": (
        lambda x: F.cross_entropy(x, T3, weight=const(np.array([0.5, 1.0, 2.0])),
                                  label_smoothing=0.2), (randn(3, 3),)),
    "cross_entropy_ignore_kdim": (
        lambda x: F.cross_entropy(x, const(np.array([[1, -100], [0, 2]])), reduction="sum"),
        (randn(2, 3, 2),)),
    "cross_entropy_probs": (lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1),
                            (randn(3, 3), rand(3, 3))),
    "nll": (lambda x: F.nll_loss(F.log_softmax(x, 1), T3, reduction="none"), (randn(3, 3),)),
    "nll_weight": (lambda x: F.nll_loss(x.sin(), T3, weight=const(np.array([1.0, 2.0, 0.5]))),
                   (randn(3, 3),)),
    "bce": (lambda x, y: F.binary_cross_entropy(x, y), (rand(2, 3), rand(2, 3))),
    "bce_weight": (lambda x: F.binary_cross_entropy(x, P3[:2], weight=W3),
                   (rand(2, 3),)),
    "bce_with_logits": (
        lambda x, y: F.binary_cross_entropy_with_logits(
            x, y, pos_weight=const(np.array([1.0, 2.0, 0.5])), weight=P3[1:]),
        (randn(2, 3), rand(2, 3))),
    "kl_div": (lambda x, y: F.kl_div(x, y, reduction="batchmean"), (randn(2, 3), rand(2, 3))),
    "kl_div_log_target": (lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
                          (randn(2, 3), randn(2, 3))),
    "poisson_nll": (lambda x, y: F.poisson_nll_loss(x, y), (randn(2, 3), rand(2, 3) * 3)),
    "poisson_nll_full": (lambda x, y: F.poisson_nll_loss(x, y, log_input=False, full=True),
                         (rand(2, 3) * 2, rand(2, 3) * 3 + 1)),
    "gaussian_nll": (lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True),
                     (randn(2, 3), randn(2, 3), rand(2, 3) + 0.5)),
    "cosine_embedding": (lambda a, b: F.cosine_embedding_loss(a, b, Y2, margin=-0.5),
                         (randn(2, 3), randn(2, 3))),
    "margin_ranking": (lambda a, b: F.margin_ranking_loss(a.sin(), b, Y2, margin=0.1),
                       (away(2), away(2) + 1.5)),
    "hinge_embedding": (lambda x: F.hinge_embedding_loss(x.exp(), Y2, margin=3.0), (rand(2),)),
    "soft_margin": (lambda x: F.soft_margin_loss(x, const(np.array([[1.0, -1.0, 1.0]] * 2))),
                    (randn(2, 3),)),
    "multilabel_soft_margin": (
        lambda x: F.multilabel_soft_margin_loss(x, const(np.array([[1.0, 0.0, 1.0]] * 2)),
                                                weight=W3), (randn(2, 3),)),
    "triplet_margin": (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, swap=True),
                       (randn(2, 3), randn(2, 3), randn(2, 3))),
    "triplet_margin_with_distance": (
        lambda a, p, n: F.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
            margin=1.5),
        (randn(2, 3), randn(2, 3), randn(2, 3))),
}
CASES.update({f"loss_{k}": v for k, v in LOSSES.items()})
# every loss module calls its functional form; spot-check the module path with weights
CASES["loss_CrossEntropyLoss_module"] = (
    lambda x: nn.CrossEntropyLoss(weight=const(np.array([0.5, 1.0, 2.0])))(x, T3),
    (randn(3, 3),))


def _drop_none(fn, arrays):
    """Cases may list None for an input that is not differentiated (the fn gets None)."""
    keep = [i for i, a in enumerate(arrays) if a is not None]

    def run(*xs):
        args = [None] * len(arrays)
        for i, x in zip(keep, xs):
            args[i] = x
        return fn(*args)
    return run, [arrays[i] for i in keep]


@pytest.mark.parametrize("name", sorted(CASES))
def test_double_backward(name):
    fn, arrays = CASES[name]
    fn, arrays = _drop_none(fn, arrays)
    gradgradcheck(fn, *arrays)


# ---- the create_graph gradient's own graph against torch's: whether it requires grad, its
# grad_fn name, and the error where torch has no second derivative (hardsigmoid, the margin
# losses, ctc_loss: torch raises when that gradient is differentiated)
def _tf(lib):
    return lib.nn.functional


GRAPH = {
    "relu": (lambda l, x: _tf(l).relu(x), (2, 3)),
    "relu6": (lambda l, x: _tf(l).relu6(x), (2, 3)),
    "threshold": (lambda l, x: _tf(l).threshold(x, 0.0, -2.0), (2, 3)),
    "hardtanh": (lambda l, x: _tf(l).hardtanh(x), (2, 3)),
    "leaky_relu": (lambda l, x: _tf(l).leaky_relu(x), (2, 3)),
    "softshrink": (lambda l, x: _tf(l).softshrink(x), (2, 3)),
    "hardswish": (lambda l, x: _tf(l).hardswish(x), (2, 3)),
    "hardsigmoid": (lambda l, x: _tf(l).hardsigmoid(x), (2, 3)),
    "nll_loss": (lambda l, x: _tf(l).nll_loss(x, l.tensor([1, 0, 2])), (3, 3)),
    "multi_margin_loss": (lambda l, x: _tf(l).multi_margin_loss(x, l.tensor([1, 0, 2])),
                          (3, 3)),
    "multilabel_margin_loss": (
        lambda l, x: _tf(l).multilabel_margin_loss(x, l.tensor([[2, 0, -1], [1, -1, 0]])),
        (2, 3)),
    "ctc_loss": (lambda l, x: _tf(l).ctc_loss(x, l.tensor([[1, 2]]),
                                              l.tensor([4]), l.tensor([2])), (4, 1, 3)),
    "max_pool2d": (lambda l, x: _tf(l).max_pool2d(x, 2), (1, 1, 2, 2)),
    "avg_pool2d": (lambda l, x: _tf(l).avg_pool2d(x, 2), (1, 1, 2, 2)),
    "adaptive_avg_pool2d": (lambda l, x: _tf(l).adaptive_avg_pool2d(x, 2), (1, 1, 3, 3)),
    "adaptive_max_pool2d": (lambda l, x: _tf(l).adaptive_max_pool2d(x, 2), (1, 1, 3, 3)),
    "replication_pad": (lambda l, x: _tf(l).pad(x, (1, 2), mode="replicate"), (1, 2, 3)),
    "reflection_pad": (lambda l, x: _tf(l).pad(x, (1, 1, 2, 0), mode="reflect"), (1, 1, 3, 3)),
    "constant_pad": (lambda l, x: _tf(l).pad(x, (1, 2)), (1, 2, 3)),
    "conv1d_input": (lambda l, x: _tf(l).conv1d(x, l.ones(1, 1, 2, dtype=l.float64)), (1, 1, 3)),
    "linear_input": (lambda l, x: _tf(l).linear(x, l.ones(1, 3, dtype=l.float64)), (2, 3)),
    "embedding_weight": (lambda l, x: _tf(l).embedding(l.tensor([0, 1]), x), (2, 3)),
    "l1_loss": (lambda l, x: _tf(l).l1_loss(x, x.detach() * 0.5), (2, 3)),
    "softmax": (lambda l, x: _tf(l).softmax(x, 1), (2, 3)),
    "log_softmax": (lambda l, x: _tf(l).log_softmax(x, 0), (2, 3)),
    "softmax_0d": (lambda l, x: _tf(l).softmax(x.sum(), 0), (2,)),
    "ctc_loss_log_softmax": (
        lambda l, x: _tf(l).ctc_loss(_tf(l).log_softmax(x, 2), l.tensor([[1, 2]]), l.tensor([4]),
                                     l.tensor([2])), (4, 1, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_second_order_graph_matches_torch(name):
    import torch
    fn, shape = GRAPH[name]
    res = []
    for lib in (torch, ember):
        x = lib.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
        y = fn(lib, x)
        w = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        got = [g.requires_grad, type(g.grad_fn).__name__ if g.grad_fn is not None else None]
        if g.requires_grad:
            try:
                (gg,) = lib.autograd.grad((g * g).sum(), x, allow_unused=True)
                got.append(None if gg is None else as_numpy(gg).round(8).tolist())
            except RuntimeError as e:
                got.append(f"RuntimeError: {e}")
        res.append(got)
    assert res[0] == res[1], res
