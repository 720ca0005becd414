"""Issue 14: torch.*'s own forms of the layer ops (torch.dropout(input, p, train),
torch.layer_norm(..., cudnn_enable), torch.kl_div(..., reduction: int), native_* tuples, ...)
and Tensor.prelu/hardshrink/module_load: values, gradients, node names and errors against
torch, with torch's positional signatures."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck

RNG = np.random.default_rng(14)


def R(*shape, lo=-2.0, hi=2.0, dtype=np.float32):
    return RNG.uniform(lo, hi, shape).astype(dtype)


X4, X3 = R(2, 3, 5, 5), R(2, 3, 7)
W2, W1, B4, G3 = R(4, 3, 3, 3), R(4, 3, 3), R(4), R(3, lo=0.5)


# ---------------------------------------------------------------- conv, pool, pad, shuffle

def test_conv_forms():
    # (float32 sums in a different order: cancellation leaves ~1e-6 absolute differences)
    check(lambda L, x, w, b: L.conv1d(x, w, b), X3, W1, B4, atol=1e-4)
    check(lambda L, x, w, b: L.conv2d(x, w, b, 1, 1), X4, W2, B4, atol=1e-4)
    check(lambda L, x, w, b: L.conv2d(x, w, b, 1, "same"), X4, W2, B4, atol=1e-4)
    check(lambda L, x, w: L.conv3d(x, w), R(1, 2, 4, 4, 4), R(3, 2, 2, 2, 2), atol=1e-4)
    check(lambda L, x, w: L.conv_transpose1d(x, w, None, 2, 1, 1), X3, R(3, 4, 3), atol=1e-4)
    check(lambda L, x, w, b: L.conv_transpose2d(x, w, b), X4, R(3, 4, 2, 2), B4, atol=1e-4)
    check(lambda L, x, w: L.conv_transpose3d(x, w), R(1, 2, 3, 3, 3), R(2, 3, 2, 2, 2), atol=1e-4)
    check(lambda L, x, w, b: L.convolution(x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
          X4, W2, B4, atol=1e-4)


def test_pool_forms():
    check(lambda L, x: L.max_pool1d(x, 2), X3)
    check(lambda L, x: L.max_pool1d(x, 3, 2, 1), X3)
    check(lambda L, x: L.max_pool1d_with_indices(x, 2), X3)
    check(lambda L, x: L.max_pool2d(x, 2), X4)
    check(lambda L, x: L.max_pool2d(x, 3, 2, 1, 1, True), X4)
    check(lambda L, x: L.avg_pool1d(x, 2), X3)
    check(lambda L, x: L.avg_pool1d(x, 3, 2, 1, True, False), X3)
    check(lambda L, x: L.adaptive_avg_pool1d(x, 3), X3)
    check(lambda L, x: L.adaptive_max_pool1d(x, 3), X3)
    t, e = check(lambda L, x: L.max_pool1d_with_indices(x, 2), X3)
    assert type(t) is tuple and type(e) is tuple


def test_pad_shuffle_bilinear():
    check(lambda L, x: L.constant_pad_nd(x, (1, 2), 0.5), X3)
    check(lambda L, x: L.pixel_shuffle(x, 2), R(1, 8, 2, 3))
    check(lambda L, x: L.pixel_unshuffle(x, 2), R(1, 2, 4, 6))
    check(lambda L, x: L.channel_shuffle(x, 2), R(2, 6, 3))
    check(lambda L, x: L.channel_shuffle(x, 3), R(2, 6, 2, 2))
    check(lambda L, x: L.native_channel_shuffle(x, 3), R(2, 6, 2), grad=False)
    check_error(lambda L: L.channel_shuffle(L.zeros(2, 5, 3), 2))
    check_error(lambda L: L.channel_shuffle(L.zeros(2, 6), 2))
    check(lambda L, a, b, w, c: L.bilinear(a, b, w, c), R(4, 3), R(4, 5), R(2, 3, 5), R(2))
    gradcheck(lambda x: ember.channel_shuffle(x, 2), R(1, 4, 3, dtype=np.float64))


def test_channel_shuffle_functional_and_module():
    check(lambda L, x: L.nn.functional.channel_shuffle(x, 2), R(2, 6, 3))
    check(lambda L, x: L.nn.functional.native_channel_shuffle(x, 2), R(2, 6, 3), grad=False)
    check(lambda L, x: L.nn.ChannelShuffle(3)(x), R(2, 6, 2, 2))
    check_error(lambda L: L.nn.ChannelShuffle(4)(L.zeros(1, 6, 2)))
    m, t = ember.nn.ChannelShuffle(2), torch.nn.ChannelShuffle(2)
    assert repr(m) == repr(t) and m.groups == t.groups == 2
    assert list(m.state_dict()) == list(t.state_dict()) == []


# ---------------------------------------------------------------- dropout

@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_dropout_forms(name):
    def f(L, x):
        L.manual_seed(3)
        out = getattr(L, name)(x, 0.3, True)
        return out, getattr(L, name)(x, 0.3, False), L.rand(2)   # the stream after the draw
    check(f, X4)

    def g(L, x):
        L.manual_seed(5)
        y = x.clone()
        r = getattr(L, name + "_")(y, 0.4, True)
        return r, y
    check(g, X4, grad=False)
    # (Python's own message for a missing argument differs in wording from torch's parser)
    check_error(lambda L: getattr(L, name)(L.zeros(3), 0.5), match_message=False)


@pytest.mark.parametrize("p,train", [(0.3, True), (0.3, False), (0.5, None), (1.0, True),
                                     (0.0, True)])
def test_native_dropout(p, train):
    def f(L, x):
        L.manual_seed(1)
        out, mask = L.native_dropout(x, p, train)
        return out, mask, L.rand(2)
    t, e = check(f, X4)
    assert type(e) is tuple and len(e) == 3 and e[1].dtype == ember.bool


# ---------------------------------------------------------------- normalization

def test_batch_norm_forms():
    def f(L, x, w, b):
        rm, rv = L.zeros(3), L.ones(3)
        out = L.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, True)
        return out, rm, rv
    check(f, X4, G3, G3)
    check(lambda L, x, w, b: L.batch_norm(x, w, b, L.zeros(3), L.ones(3), False, 0.1, 1e-5,
                                          False), X4, G3, G3)

    def n(L, x, w, b, train):
        rm, rv = L.zeros(3), L.ones(3)
        return L.native_batch_norm(x, w, b, rm, rv, train, 0.1, 1e-5) + (rm, rv)
    check(lambda L, x, w, b: n(L, x, w, b, True), X4, G3, G3)
    check(lambda L, x, w, b: n(L, x, w, b, False), X4, G3, G3)
    check(lambda L, x: L.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5), X4)


def test_layer_group_instance_rms_forms():
    check(lambda L, x: L.layer_norm(x, [5, 5]), X4)
    check(lambda L, x, w, b: L.layer_norm(x, (5,), w, b, 1e-3, False), X4, R(5), R(5))
    check_error(lambda L: L.layer_norm(L.zeros(2, 3), 3))
    check(lambda L, x, w, b: L.native_layer_norm(x, [5], w, b, 1e-5), X4, R(5), R(5),
          names=False)
    t, e = check(lambda L, x: L.native_layer_norm(x, [5, 5], None, None, 1e-5), X4, grad=False)
    assert [type(o.grad_fn).__name__ if o.grad_fn else None for o in e] == \
        [type(o.grad_fn).__name__ if o.grad_fn else None for o in t]
    check(lambda L, x, w, b: L.group_norm(x, 3, w, b), X4, G3, G3)
    check(lambda L, x: L.group_norm(x, 1, None, None, 1e-3, False), X4)
    check(lambda L, x, w, b: L.native_group_norm(x, w, b, 2, 3, 25, 3, 1e-5)[0], X4, G3, G3)
    # all three outputs of one NativeGroupNormBackward0; the statistics' gradients are read
    # only when both mean's and rstd's are defined (torch 2.13: else only the output's flows)
    check(lambda L, x, w: L.native_group_norm(x, w, None, 2, 3, 25, 3, 1e-5), X4, G3)
    check(lambda L, x: L.native_group_norm(x, None, None, 2, 3, 25, 1, 1e-5), X4)
    check(lambda L, x: L.native_group_norm(x, None, None, 2, 3, 25, 3, 1e-5)[1:], X4)
    check(lambda L, x: L.native_group_norm(x, None, None, 2, 3, 25, 3, 1e-5)[:2], X4)
    gradcheck(lambda x: ember.stack(ember.native_group_norm(x, None, None, 2, 3, 4, 3, 1e-5)[1:]),
              R(2, 3, 2, 2, dtype=np.float64))

    def inst(L, x, w, b):
        rm, rv = L.zeros(3), L.ones(3)
        return L.instance_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False), rm, rv
    check(inst, X4, G3, G3)
    check(lambda L, x: L.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, True), X3)
    check(lambda L, x: L.rms_norm(x, [5]), X4)
    check(lambda L, x, w: L.rms_norm(x, (5, 5), w, 1e-3), X4, R(5, 5))


# ---------------------------------------------------------------- losses (int reductions)

T4 = R(2, 3, 5, 5, lo=0.0, hi=1.0)


@pytest.mark.parametrize("red", [None, 0, 1, 2])
def test_loss_forms(red):
    kw = {} if red is None else {"reduction": red}
    check(lambda L, x, t: L.kl_div(x, t, **kw), X4, T4, grad_inputs=(0,))
    check(lambda L, x, t: L.kl_div(x, t, **kw, log_target=True), X4, X4, grad_inputs=(0,))
    check(lambda L, x, t: L.binary_cross_entropy_with_logits(x, t, **kw), X4, T4,
          grad_inputs=(0,))
    check(lambda L, x, t, w, pw: L.binary_cross_entropy_with_logits(x, t, w, pw, **kw),
          R(4, 3), R(4, 3, lo=0, hi=1), R(3, lo=0), R(3, lo=0), grad_inputs=(0,))
    sign = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    check(lambda L, a, b, y: L.cosine_embedding_loss(a, b, y, **kw), R(4, 3), R(4, 3), sign,
          grad_inputs=(0, 1))
    check(lambda L, a, b, y: L.cosine_embedding_loss(a, b, y, 0.2, **kw), R(4, 3), R(4, 3),
          sign, grad_inputs=(0, 1))
    check(lambda L, x, y: L.hinge_embedding_loss(x, y, 0.5, **kw), R(4), sign, grad_inputs=(0,))
    check(lambda L, a, b, y: L.margin_ranking_loss(a, b, y, 0.1, **kw), R(4), R(4), sign,
          grad_inputs=(0, 1))
    check(lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, True, **kw),
          R(4, 3), R(4, 3), R(4, 3))
    check(lambda L, x, t: L.poisson_nll_loss(x, t, True, True, 1e-8, 0 if red is None else red),
          X4, T4 * 3, grad_inputs=(0,))


def test_loss_form_errors_and_ctc():
    check_error(lambda L: L.kl_div(L.zeros(3), L.zeros(3), "mean"))
    check_error(lambda L: L.poisson_nll_loss(L.zeros(3), L.zeros(3), True, False, 1e-8),
                match_message=False)
    lp = np.log(np.random.default_rng(2).dirichlet(np.ones(4), (5, 2))).astype(np.float32)
    tg = np.array([[1, 2], [1, 1]])
    for red in (0, 1, 2):
        check(lambda L, x: L.ctc_loss(x, L.tensor(tg), [5, 5], [2, 2], 0, red), lp)
    check(lambda L, x: L.ctc_loss(x, L.tensor(tg), L.tensor([5, 4]), L.tensor([2, 1])), lp)


# ---------------------------------------------------------------- activations

def test_activation_forms():
    check(lambda L, x: L.celu(x, 2.0), X4)
    check(lambda L, x: L.selu(x), X4)
    check(lambda L, x: L.threshold(x, 0.1, 20.0), X4)
    check(lambda L, x: L.hardshrink(x), X4)
    check(lambda L, x: L.hardshrink(x, 1.0), X4)
    check(lambda L, x: x.hardshrink(0.3), X4)
    check(lambda L, x, w: L.prelu(x, w), X4, R(3))
    check(lambda L, x, w: x.prelu(w), X4, R(1))
    check(lambda L, x: L.rrelu(x), X4)

    def rr(L, x):
        L.manual_seed(4)
        return L.rrelu(x, 0.1, 0.3, True), L.rand(2)
    check(rr, X4)
    def rr_gen(L, x):
        # noise from the generator's stream (the default one is left alone); its values
        # agree with torch's to an ulp (ember's uniform_ rounds lower + (upper - lower) * u)
        g = L.Generator().manual_seed(3)
        L.manual_seed(0)
        a = L.rrelu(x, training=True, generator=g)
        b = L.rrelu_(x.detach().clone(), 0.1, 0.5, True, g)
        return a, b, L.rand(2), g.initial_seed()
    check(rr_gen, X4.astype(np.float64), rtol=1e-14, atol=1e-15)
    for name, args in (("celu_", (1.5,)), ("selu_", ()), ("threshold_", (0.0, -1.0)),
                       ("rrelu_", ())):
        check(lambda L, x: (lambda y: (getattr(L, name)(y, *args), y))(x.clone()), X4,
              grad=False)


# ---------------------------------------------------------------- embeddings, norms, addmv_

def test_embedding_forms():
    w = R(10, 3)
    idx = np.array([1, 2, 3, 2])
    check(lambda L, w: L.embedding(w, L.tensor(idx)), w)
    check(lambda L, w: L.embedding(w, L.tensor(idx), 2, True), w)
    off = np.array([0, 2])
    for mode in (0, 1, 2):
        for last, o in ((False, off), (True, np.array([0, 2, 5]))):
            check(lambda L, w: L.embedding_bag(w, L.tensor(np.array([1, 2, 3, 4, 5])),
                                               L.tensor(o), False, mode, False, None, last), w)
    check(lambda L, w, p: L.embedding_bag(w, L.tensor(idx), L.tensor(off), False, 0, False, p),
          w, R(4))

    def renorm(L, w):
        w = w.detach().clone()
        return L.embedding_renorm_(w, L.tensor(idx), 1.0, 2.0), w
    check(renorm, w * 3, grad=False)


@pytest.mark.parametrize("dim", [0, 1, 3, -1, -2])
def test_norm_except_dim(dim):
    check(lambda L, v: L.norm_except_dim(v, 2, dim), R(4, 3, 2, 2))
    check(lambda L, v: L.norm_except_dim(v, 3, dim), R(4, 3, 2, 2, dtype=np.float64))
    check(lambda L, v: L.norm_except_dim(v, 1, dim), R(4, 3, 2, 2, dtype=np.float64))
    gradcheck(lambda v: ember.norm_except_dim(v, 2, dim), R(3, 2, 2, 2, dtype=np.float64))


def test_addmv_inplace_and_module_load():
    def f(L, m, v):
        y = L.ones(3)
        r = L.addmv_(y, m, v, beta=0.5, alpha=2)
        return r, y
    check(f, R(3, 4), R(4), grad=False)

    def load(L, a, b):
        a = a.detach().clone()
        r = a.module_load(b)
        s = a.module_load(b * 2, assign=True)
        return r, a, s, L.tensor(r is a), L.tensor(s.requires_grad)
    check(load, R(3), R(3))
    check(lambda L, a: L.zeros(3).module_load(a), np.array([1, 2, 3]), grad=False)
    check_error(lambda L: L.zeros(3).module_load(L.ones(2)))
