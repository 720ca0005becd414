"""ember.nn.functional losses and distances against torch: values, reductions, weights,
targets, grad_fn names and chains, input (and target) gradients, double backward, errors and
warnings. (nll_loss, cross_entropy and mse_loss are covered in test_nn_functional.py too.)"""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import case_chains, check, check_error, ember_fn, gradcheck, gradgradcheck

R = np.random.default_rng(3)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def rand(*shape):
    return R.uniform(0.05, 0.95, shape)


def signs(*shape):
    return np.where(R.uniform(size=shape) < 0.5, -1.0, 1.0)


def F(lib):
    return lib.nn.functional


def labels(n, c, *rest):
    return R.integers(0, c, (n,) + rest)


REDS = ("none", "mean", "sum")
ML = np.array([[0, 2, -1, 1], [1, -1, 0, 0], [3, 1, 0, 2], [-1, 0, 0, 0]])

# name -> (fn(lib, *tensors), inputs, indices of inputs that get gradients (None: all floats))
CASES = {}


def case(name, fn, inputs, grad_inputs=None, reductions=True):
    if reductions:
        for r in REDS:
            CASES[f"{name}_{r}"] = ((lambda r: lambda L, *ts: fn(L, *ts, reduction=r))(r),
                                    inputs, grad_inputs)
    else:
        CASES[name] = (fn, inputs, grad_inputs)


case("l1", lambda L, x, y, **k: F(L).l1_loss(x, y, **k), [randn(4, 3), randn(4, 3)])
case("l1_weight", lambda L, x, y, w, **k: F(L).l1_loss(x, y, weight=w, **k),
     [randn(4, 3), randn(4, 3), rand(4, 3)])
case("mse_weight", lambda L, x, y, w, **k: F(L).mse_loss(x, y, weight=w, **k),
     [randn(4, 3), randn(4, 3), rand(4, 3)])
case("smooth_l1", lambda L, x, y, **k: F(L).smooth_l1_loss(x, y, **k),
     [randn(4, 3), randn(4, 3)])
case("smooth_l1_beta", lambda L, x, y, **k: F(L).smooth_l1_loss(x, y, beta=0.3, **k),
     [randn(4, 3), randn(4, 3)])
case("smooth_l1_beta0", lambda L, x, y, **k: F(L).smooth_l1_loss(x, y, beta=0.0, **k),
     [randn(4, 3), randn(4, 3)])
case("huber", lambda L, x, y, **k: F(L).huber_loss(x, y, **k), [randn(4, 3), randn(4, 3)])
case("huber_delta", lambda L, x, y, **k: F(L).huber_loss(x, y, delta=0.4, **k),
     [randn(4, 3), randn(4, 3)])
case("huber_weight", lambda L, x, y, w, **k: F(L).huber_loss(x, y, weight=w, **k),
     [randn(4, 3), randn(4, 3), rand(4, 3)])
case("bce", lambda L, x, t, **k: F(L).binary_cross_entropy(x, t, **k), [rand(4, 3), rand(4, 3)])
case("bce_weight", lambda L, x, t, w, **k: F(L).binary_cross_entropy(x, t, w, **k),
     [rand(4, 3), rand(4, 3), rand(3)], [0, 1])
case("bce_0d", lambda L, x, t, **k: F(L).binary_cross_entropy(x, t, **k),
     [np.array(0.3), np.array(0.8)])
case("bce_logits", lambda L, x, t, **k: F(L).binary_cross_entropy_with_logits(x, t, **k),
     [randn(4, 3) * 3, rand(4, 3)])
case("bce_logits_pos_weight", lambda L, x, t, p, **k: F(L).binary_cross_entropy_with_logits(
    x, t, pos_weight=p, **k), [randn(4, 3) * 3, rand(4, 3), rand(3) * 3], [0, 1])
case("bce_logits_weight", lambda L, x, t, w, **k: F(L).binary_cross_entropy_with_logits(
    x, t, w, **k), [randn(4, 3) * 3, rand(4, 3), rand(4, 1)], [0, 1])
case("bce_logits_both", lambda L, x, t, w, p, **k: F(L).binary_cross_entropy_with_logits(
    x, t, w, pos_weight=p, **k), [randn(2, 4, 3), rand(2, 4, 3), rand(3), rand(4, 3)], [0, 1])
case("kl", lambda L, x, t, **k: F(L).kl_div(x, t, **k), [randn(4, 3), rand(4, 3)])
case("kl_log_target", lambda L, x, t, **k: F(L).kl_div(x, t, log_target=True, **k),
     [randn(4, 3), randn(4, 3)])
CASES["kl_batchmean"] = (lambda L, x, t: F(L).kl_div(x, t, reduction="batchmean"),
                         [randn(4, 3), rand(4, 3)], None)
CASES["kl_batchmean_0d"] = (lambda L, x, t: F(L).kl_div(x, t, reduction="batchmean"),
                            [randn(), rand()], None)
CASES["kl_zero_target"] = (lambda L, x, t: F(L).kl_div(x, t * 0, reduction="sum"),
                           [randn(4, 3), rand(4, 3)], None)
case("poisson", lambda L, x, t, **k: F(L).poisson_nll_loss(x, t, **k),
     [randn(4, 3), rand(4, 3) * 4])
case("poisson_no_log", lambda L, x, t, **k: F(L).poisson_nll_loss(x, t, log_input=False, **k),
     [rand(4, 3) * 3, rand(4, 3) * 4])
case("poisson_full", lambda L, x, t, **k: F(L).poisson_nll_loss(x, t, full=True, eps=1e-3, **k),
     [randn(4, 3), rand(4, 3) * 4])
case("gaussian", lambda L, x, y, v, **k: F(L).gaussian_nll_loss(x, y, v, **k),
     [randn(4, 3), randn(4, 3), rand(4, 3)])
case("gaussian_full", lambda L, x, y, v, **k: F(L).gaussian_nll_loss(x, y, v, full=True, **k),
     [randn(4, 3), randn(4, 3), rand(4, 1)])
case("gaussian_var_batch", lambda L, x, y, v, **k: F(L).gaussian_nll_loss(x, y, v, **k),
     [randn(4, 3), randn(4, 3), rand(4)])
case("gaussian_small_var", lambda L, x, y, v, **k: F(L).gaussian_nll_loss(x, y, v * 1e-9, **k),
     [randn(4, 3), randn(4, 3), rand(4, 3)])
case("gaussian_float_var", lambda L, x, y, **k: F(L).gaussian_nll_loss(x, y, 0.7, **k),
     [randn(4, 3), randn(4, 3)])
case("cosine_embedding", lambda L, a, b, t, **k: F(L).cosine_embedding_loss(a, b, t, **k),
     [randn(4, 3), randn(4, 3), signs(4)], [0, 1])
case("cosine_embedding_margin", lambda L, a, b, t, **k: F(L).cosine_embedding_loss(
    a, b, t, margin=0.2, **k), [randn(5, 3), randn(5, 3), signs(5)], [0, 1])
case("cosine_embedding_1d", lambda L, a, b, t, **k: F(L).cosine_embedding_loss(a, b, t, **k),
     [randn(3), randn(3), np.array(-1.0)], [0, 1])
case("margin_ranking", lambda L, a, b, t, **k: F(L).margin_ranking_loss(a, b, t, **k),
     [randn(5), randn(5), signs(5)], [0, 1])
case("margin_ranking_margin", lambda L, a, b, t, **k: F(L).margin_ranking_loss(
    a, b, t, margin=0.5, **k), [randn(4, 2), randn(4, 2), signs(4, 2)], [0, 1])
case("hinge_embedding", lambda L, x, t, **k: F(L).hinge_embedding_loss(x, t, **k),
     [randn(4, 3), signs(4, 3)], [0])
case("hinge_embedding_margin", lambda L, x, t, **k: F(L).hinge_embedding_loss(
    x, t, margin=2.0, **k), [randn(4, 3), signs(4, 3)], [0])
case("soft_margin", lambda L, x, t, **k: F(L).soft_margin_loss(x, t, **k),
     [randn(4, 3), signs(4, 3)], [0])
case("multilabel_soft_margin", lambda L, x, t, **k: F(L).multilabel_soft_margin_loss(x, t, **k),
     [randn(4, 3), (rand(4, 3) > 0.5) * 1.0], [0])
case("multilabel_soft_margin_weight", lambda L, x, t, w, **k:
     F(L).multilabel_soft_margin_loss(x, t, w, **k),
     [randn(4, 3), (rand(4, 3) > 0.5) * 1.0, rand(3)], [0])
case("multilabel_margin", lambda L, x, t, **k: F(L).multilabel_margin_loss(x, t, **k),
     [randn(4, 4), ML], [0])
case("multilabel_margin_1d", lambda L, x, t, **k: F(L).multilabel_margin_loss(x, t, **k),
     [randn(4), np.array([3, 0, -1, 1])], [0])
case("multi_margin", lambda L, x, t, **k: F(L).multi_margin_loss(x, t, **k),
     [randn(5, 4), labels(5, 4)], [0])
case("multi_margin_p2", lambda L, x, t, w, **k: F(L).multi_margin_loss(
    x, t, p=2, margin=0.7, weight=w, **k), [randn(5, 4), labels(5, 4), rand(4)], [0])
case("multi_margin_1d", lambda L, x, t, **k: F(L).multi_margin_loss(x, t, **k),
     [randn(4), np.array(2)], [0])
case("triplet", lambda L, a, p, n, **k: F(L).triplet_margin_loss(a, p, n, **k),
     [randn(4, 3), randn(4, 3), randn(4, 3)])
case("triplet_swap_p1", lambda L, a, p, n, **k: F(L).triplet_margin_loss(
    a, p, n, margin=0.5, p=1, swap=True, **k), [randn(4, 3), randn(4, 3), randn(4, 3)])
case("triplet_1d", lambda L, a, p, n, **k: F(L).triplet_margin_loss(a, p, n, **k),
     [randn(3), randn(3), randn(3)])
case("triplet_distance", lambda L, a, p, n, **k: F(L).triplet_margin_with_distance_loss(
    a, p, n, **k), [randn(4, 3), randn(4, 3), randn(4, 3)])
case("triplet_distance_cos", lambda L, a, p, n, **k: F(L).triplet_margin_with_distance_loss(
    a, p, n, distance_function=lambda u, v: 1.0 - F(L).cosine_similarity(u, v), swap=True,
    margin=0.3, **k), [randn(4, 3), randn(4, 3), randn(4, 3)])
case("nll_kdim", lambda L, x, t, **k: F(L).nll_loss(x, t, **k), [randn(2, 3, 4), labels(2, 3, 4)],
     [0])
case("ce_kdim_weight_ignore", lambda L, x, t, w, **k: F(L).cross_entropy(
    x, t, w, ignore_index=1, label_smoothing=0.1, **k),
     [randn(2, 3, 2, 2), labels(2, 3, 2, 2), rand(3)], [0])
case("ce_probs_kdim", lambda L, x, p, **k: F(L).cross_entropy(x, p, label_smoothing=0.2, **k),
     [randn(2, 3, 4), rand(2, 3, 4)])

# distances
CASES.update({
    "cos_sim": (lambda L, a, b: F(L).cosine_similarity(a, b), [randn(4, 5), randn(4, 5)], None),
    "cos_sim_dim0": (lambda L, a, b: F(L).cosine_similarity(a, b, 0, 1e-3),
                     [randn(4, 5), randn(4, 5)], None),
    "cos_sim_broadcast": (lambda L, a, b: F(L).cosine_similarity(a, b),
                          [randn(4, 5), randn(1, 5)], None),
    "cos_sim_1d": (lambda L, a, b: F(L).cosine_similarity(a, b, dim=0), [randn(5), randn(5)],
                   None),
    "cos_sim_zero": (lambda L, a, b: F(L).cosine_similarity(a * 0, b), [randn(4, 5),
                                                                        randn(4, 5)], None),
    "cos_sim_3d": (lambda L, a, b: F(L).cosine_similarity(a, b, -1), [randn(2, 3, 4),
                                                                      randn(2, 3, 4)], None),
    "pairwise": (lambda L, a, b: F(L).pairwise_distance(a, b), [randn(4, 5), randn(4, 5)], None),
    "pairwise_p1_keepdim": (lambda L, a, b: F(L).pairwise_distance(a, b, 1, keepdim=True),
                            [randn(4, 5), randn(4, 5)], None),
    "pairwise_p3": (lambda L, a, b: F(L).pairwise_distance(a, b, 3, 1e-3),
                    [randn(4, 5), randn(4, 5)], None),
    "pairwise_inf": (lambda L, a, b: F(L).pairwise_distance(a, b, float("inf")),
                     [randn(4, 5), randn(4, 5)], None),
    "pairwise_broadcast": (lambda L, a, b: F(L).pairwise_distance(a, b),
                           [randn(4, 5), randn(5)], None),
    "pairwise_1d": (lambda L, a, b: F(L).pairwise_distance(a, b), [randn(5), randn(5)], None),
    "pairwise_0d": (lambda L, a, b: F(L).pairwise_distance(a, b), [randn(), randn()], None),
    "pdist": (lambda L, x: F(L).pdist(x), [randn(5, 3)], None),
    "pdist_p1": (lambda L, x: F(L).pdist(x, 1), [randn(5, 3)], None),
    "pdist_p0": (lambda L, x: F(L).pdist(x, 0), [randn(5, 3)], None),
    "pdist_p05": (lambda L, x: F(L).pdist(x, 0.5), [randn(5, 3)], None),
    "pdist_p3": (lambda L, x: F(L).pdist(x, 3), [randn(5, 3)], None),
    "pdist_inf": (lambda L, x: F(L).pdist(x, float("inf")), [randn(5, 3)], None),
    "pdist_one_row": (lambda L, x: F(L).pdist(x), [randn(1, 3)], None),
    "pdist_repeated_rows": (lambda L, x: F(L).pdist(L.cat([x, x])), [randn(2, 3)], None),
    "cdist": (lambda L, a, b: L.cdist(a, b), [randn(4, 3), randn(5, 3)], None),
    "cdist_batched": (lambda L, a, b: L.cdist(a, b), [randn(2, 4, 3), randn(2, 5, 3)], None),
    "cdist_broadcast": (lambda L, a, b: L.cdist(a, b), [randn(2, 1, 4, 3), randn(3, 5, 3)],
                        None),
    "cdist_p1": (lambda L, a, b: L.cdist(a, b, 1), [randn(4, 3), randn(5, 3)], None),
    "cdist_p0": (lambda L, a, b: L.cdist(a, b, 0), [randn(4, 3), randn(5, 3)], None),
    "cdist_p3": (lambda L, a, b: L.cdist(a, b, 3), [randn(4, 3), randn(5, 3)], None),
    "cdist_inf": (lambda L, a, b: L.cdist(a, b, float("inf")), [randn(4, 3), randn(5, 3)], None),
    "cdist_mm": (lambda L, a, b: L.cdist(a, b), [randn(30, 3), randn(27, 3)], None),
    "cdist_mm_forced": (lambda L, a, b: L.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                        [randn(4, 3), randn(5, 3)], None),
    "cdist_no_mm": (lambda L, a, b: L.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
                    [randn(30, 3), randn(27, 3)], None),
    "cdist_same_points": (lambda L, a: L.cdist(a, a), [randn(4, 3)], None),
})


def _cast(inputs, dtype):
    return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
            for a in inputs]


# the mm form of cdist squares and subtracts: its float32 result is ~1e-6 off torch's
ATOL32 = {"cdist_mm": 1e-5, "cdist_mm_forced": 1e-5, "cdist_same_points": 2e-3}


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_backward(name, dtype):
    fn, inputs, grad_inputs = CASES[name]
    atol = ATOL32.get(name) if dtype == np.float32 else None
    check(fn, *_cast(inputs, dtype), grad_inputs=grad_inputs, atol=atol)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_fn_chain(name):
    fn, inputs, grad_inputs = CASES[name]
    got = case_chains(fn, inputs, grad_inputs, depth=12)
    assert got[0] == got[1]


# ---------------------------------------------------------------- numerical checks (float64)

NUMERIC = ["l1_mean", "l1_weight_mean", "mse_weight_sum", "smooth_l1_mean",
           "smooth_l1_beta_none", "huber_delta_mean", "huber_weight_sum", "bce_mean",
           "bce_weight_none", "bce_logits_mean", "bce_logits_both_mean", "kl_batchmean",
           "kl_log_target_sum", "poisson_no_log_mean", "poisson_full_sum", "gaussian_mean",
           "gaussian_full_sum", "cosine_embedding_margin_mean", "cosine_embedding_1d_none",
           "margin_ranking_margin_mean", "hinge_embedding_mean", "soft_margin_mean",
           "multilabel_soft_margin_weight_mean", "multilabel_margin_mean",
           "multi_margin_p2_mean", "multi_margin_none", "triplet_mean", "triplet_swap_p1_sum",
           "triplet_distance_cos_mean", "ce_kdim_weight_ignore_mean", "ce_probs_kdim_none",
           "cos_sim", "cos_sim_broadcast", "pairwise", "pairwise_p3", "pdist", "pdist_p3",
           "cdist", "cdist_p1", "cdist_batched", "cdist_mm"]
# torch does not differentiate the derivatives of pdist, cdist (but for its matrix-product
# form), multi_margin_loss and multilabel_margin_loss (tested below); the margin losses with
# p = 1 are piecewise linear (no second derivative)
GRADGRAD = [n for n in NUMERIC if not n.startswith(("pdist", "cdist", "multi_margin",
                                                     "multilabel_margin", "margin_ranking",
                                                     "hinge", "triplet_swap_p1"))] + \
    ["cdist_mm"]


def _ember_fn(name):
    fn, inputs, grad_inputs = CASES[name]
    if name == "cdist_mm":
        inputs = [randn(30, 2), randn(26, 2)]
    return ember_fn(fn, inputs, grad_inputs)


@pytest.mark.parametrize("name", NUMERIC)
def test_gradcheck(name):
    f, arrays = _ember_fn(name)
    gradcheck(f, *arrays)


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    f, arrays = _ember_fn(name)
    gradgradcheck(f, *arrays)


@pytest.mark.parametrize("name", ["smooth_l1_mean", "huber_sum", "bce_mean", "bce_logits_both_mean",
                                  "soft_margin_sum", "gaussian_mean", "triplet_mean",
                                  "poisson_full_sum", "ce_probs_kdim_mean", "cdist_mm",
                                  "cosine_embedding_mean", "kl_log_target_sum", "cos_sim",
                                  "pairwise"])
def test_double_backward_vs_torch(name):
    fn, inputs, grad_inputs = CASES[name]

    def second(L, *ts):
        out = fn(L, *ts)
        diff = [t for t in ts if isinstance(t, L.Tensor) and t.requires_grad]
        w = L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gs = L.autograd.grad((out * w).sum(), diff, create_graph=True)
        return sum((g * g).sum() for g in gs)

    check(second, *inputs, grad_inputs=grad_inputs)


@pytest.mark.parametrize("make", [
    lambda L, x: F(L).pdist(x.reshape(4, 3)),
    lambda L, x: L.cdist(x.reshape(4, 3), x.reshape(4, 3) * 2 + 1),
    lambda L, x: F(L).ctc_loss(x.log_softmax(2), L.tensor([[1, 2]]), (4,), (2,)),
    lambda L, x: F(L).multi_margin_loss(x.reshape(4, 3), L.tensor([0, 2, 1, 1]), p=2),
    lambda L, x: F(L).multilabel_margin_loss(x.reshape(4, 3), L.tensor([[0, 2, -1]] * 4))])
def test_derivatives_torch_does_not_differentiate(make):
    """pdist, cdist, ctc_loss, multi_margin_loss, multilabel_margin_loss: a create_graph
    gradient exists, its backward raises."""
    def program(L):
        x = L.tensor(randn(4, 1, 3), requires_grad=True)
        g, = L.autograd.grad(make(L, x).sum(), x, create_graph=True)
        g.sum().backward()
    check_error(program)


# ---------------------------------------------------------------- ctc_loss

LP = np.log(R.dirichlet(np.ones(5), (7, 3)))      # (T=7, N=3, C=5) log-probabilities
TG = np.array([[1, 2, 2, 3], [4, 1, 0, 0], [2, 3, 1, 1]])
CTC = {
    "padded": lambda L, x, t: F(L).ctc_loss(x, t, L.tensor([7, 6, 7]), L.tensor([4, 2, 3])),
    "concatenated": lambda L, x, t: F(L).ctc_loss(x, L.cat([t[0], t[1, :2], t[2, :3]]),
                                                  (7, 6, 7), (4, 2, 3), reduction="sum"),
    "none": lambda L, x, t: F(L).ctc_loss(x, t, [7, 5, 6], [4, 2, 3], reduction="none"),
    "blank_last": lambda L, x, t: F(L).ctc_loss(x, t - 1, (7, 6, 7), (4, 2, 3), blank=4,
                                                reduction="none"),
    "empty_target": lambda L, x, t: F(L).ctc_loss(x, t, (7, 6, 7), (0, 2, 3)),
    "impossible": lambda L, x, t: F(L).ctc_loss(x, t, (7, 2, 7), (4, 2, 3), reduction="none"),
    "zero_infinity": lambda L, x, t: F(L).ctc_loss(x, t, (7, 2, 7), (4, 2, 3),
                                                   zero_infinity=True),
    "zero_infinity_none": lambda L, x, t: F(L).ctc_loss(x, t, (7, 2, 7), (4, 2, 3),
                                                        reduction="none", zero_infinity=True),
    "unbatched": lambda L, x, t: F(L).ctc_loss(x[:, 0], t[0], (7,), (4,), reduction="none"),
    "unbatched_mean": lambda L, x, t: F(L).ctc_loss(x[:, 0], t[0], (7,), (4,)),
    "int32_lengths": lambda L, x, t: F(L).ctc_loss(x, t.int(), L.tensor([7, 6, 7],
                                                                      dtype=L.int32),
                                                   L.tensor([4, 2, 3], dtype=L.int32)),
    "logits": lambda L, x, t: F(L).ctc_loss(x * 2, t, (7, 6, 7), (4, 2, 3), reduction="sum"),
}


@pytest.mark.parametrize("name", sorted(CTC))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ctc_loss(name, dtype):
    check(CTC[name], LP.astype(dtype), TG)


def test_ctc_loss_longer():
    """A longer sequence with repeats (the skip rule) and a batch of different lengths."""
    lp = np.log(R.dirichlet(np.ones(6), (40, 4)))
    tg = np.array([[1, 1, 2, 3, 3, 3, 5, 1], [2] * 8, [5, 4, 3, 2, 1, 1, 1, 2],
                   [1, 2, 1, 2, 1, 2, 1, 2]])
    check(lambda L, x, t: F(L).ctc_loss(x, t, (40, 33, 25, 18), (8, 8, 5, 8), reduction="none"),
          lp, tg)


def test_ctc_loss_gradcheck():
    """torch's CTC gradient is exp(lp) - d/dlp(-loss) (it assumes log-probabilities); for
    log_softmax inputs that is the gradient through the log_softmax, checked numerically."""
    x = randn(5, 2, 4)

    def f(logits):
        return F(ember).ctc_loss(logits.log_softmax(2), ember.tensor([[1, 2], [3, 3]]), (5, 4),
                                 (2, 2), reduction="sum")
    gradcheck(f, x)


# ---------------------------------------------------------------- errors and warnings

X = randn(4, 3)
ERRORS = {
    "bce_range": lambda L: F(L).binary_cross_entropy(L.tensor(X), L.tensor(rand(4, 3))),
    "bce_size": lambda L: F(L).binary_cross_entropy(L.tensor(rand(4, 3)), L.tensor(rand(3))),
    "bce_dtype": lambda L: F(L).binary_cross_entropy(L.tensor(rand(4, 3)),
                                                     L.tensor(rand(4, 3), dtype=L.float32)),
    "bce_int": lambda L: F(L).binary_cross_entropy(L.tensor([1, 0]), L.tensor([1, 0])),
    "bce_weight_grad": lambda L: F(L).binary_cross_entropy(
        L.tensor(rand(4, 3)), L.tensor(rand(4, 3)), L.ones(3, dtype=L.float64,
                                                           requires_grad=True)),
    "bce_logits_size": lambda L: F(L).binary_cross_entropy_with_logits(L.tensor(X),
                                                                       L.tensor(rand(3))),
    "bce_logits_pos_weight_grad": lambda L: F(L).binary_cross_entropy_with_logits(
        L.tensor(X), L.tensor(rand(4, 3)),
        pos_weight=L.ones(3, dtype=L.float64, requires_grad=True)),
    "soft_margin_target_grad": lambda L: F(L).soft_margin_loss(
        L.tensor(X), L.tensor(signs(4, 3), requires_grad=True)),
    "smooth_l1_neg_beta": lambda L: F(L).smooth_l1_loss(L.tensor(X), L.tensor(X), beta=-1.0),
    "huber_neg_delta": lambda L: F(L).huber_loss(L.tensor(X), L.tensor(X), delta=-1.0),
    "huber_zero_delta": lambda L: F(L).huber_loss(L.tensor(X), L.tensor(X), delta=0.0),
    "mse_weight_size": lambda L: F(L).mse_loss(L.tensor(X), L.tensor(X), weight=L.ones(3)),
    "l1_weight_reduction": lambda L: F(L).l1_loss(L.tensor(X), L.tensor(X), reduction="x",
                                                  weight=L.ones(4, 3, dtype=L.float64)),
    "mse_int": lambda L: F(L).mse_loss(L.tensor([1, 2]), L.tensor([1, 3])),
    "l1_int": lambda L: F(L).l1_loss(L.tensor([1, 2]), L.tensor([1, 3])),
    "multi_margin_p3": lambda L: F(L).multi_margin_loss(L.tensor(X), L.tensor([0, 1, 2, 0]),
                                                        p=3),
    "multi_margin_target": lambda L: F(L).multi_margin_loss(L.tensor(X), L.tensor([0, 1, 3, 0])),
    "multi_margin_target_size": lambda L: F(L).multi_margin_loss(L.tensor(X),
                                                                 L.tensor([0, 1, 2])),
    "multi_margin_weight_size": lambda L: F(L).multi_margin_loss(
        L.tensor(X), L.tensor([0, 1, 2, 0]), weight=L.ones(4, dtype=L.float64)),
    "multi_margin_weight_2d": lambda L: F(L).multi_margin_loss(
        L.tensor(X), L.tensor([0, 1, 2, 0]), weight=L.ones(3, 1, dtype=L.float64)),
    "multilabel_margin_target": lambda L: F(L).multilabel_margin_loss(
        L.tensor(X), L.tensor([[0, 1, 5]] * 4)),
    "multilabel_margin_size": lambda L: F(L).multilabel_margin_loss(L.tensor(X),
                                                                    L.tensor([[0, 1]] * 4)),
    "multilabel_soft_margin_size": lambda L: F(L).multilabel_soft_margin_loss(
        L.tensor(X), L.tensor(rand(4, 2))),
    "gaussian_negative_var": lambda L: F(L).gaussian_nll_loss(L.tensor(X), L.tensor(X),
                                                              -L.tensor(rand(4, 3))),
    "gaussian_var_size": lambda L: F(L).gaussian_nll_loss(L.tensor(X), L.tensor(X),
                                                          L.tensor(rand(4, 2))),
    "cosine_embedding_1d_target": lambda L: F(L).cosine_embedding_loss(
        L.tensor(X[0]), L.tensor(X[1]), L.ones(4)),
    "cosine_embedding_0d_target": lambda L: F(L).cosine_embedding_loss(
        L.tensor(X), L.tensor(X), L.tensor(1.0)),
    "cosine_embedding_2d_target": lambda L: F(L).cosine_embedding_loss(
        L.tensor(X), L.tensor(X), L.ones(4, 1)),
    "margin_ranking_dims": lambda L: F(L).margin_ranking_loss(
        L.tensor(X[:, 0]), L.tensor(X[:, 1]), L.ones(4, 1)),
    "triplet_dims": lambda L: F(L).triplet_margin_loss(L.tensor(X), L.tensor(X),
                                                       L.tensor(X[0])),
    "triplet_distance_margin": lambda L: F(L).triplet_margin_with_distance_loss(
        L.tensor(X), L.tensor(X), L.tensor(X), margin=0),
    "cos_sim_shapes": lambda L: F(L).cosine_similarity(L.randn(4, 5), L.randn(4, 3)),
    "cos_sim_int": lambda L: F(L).cosine_similarity(L.tensor([[1, 2]]), L.tensor([[1, 2]])),
    "pairwise_shapes": lambda L: F(L).pairwise_distance(L.randn(4, 5), L.randn(4, 3)),
    "pdist_1d": lambda L: F(L).pdist(L.randn(4)),
    "pdist_3d": lambda L: F(L).pdist(L.randn(2, 3, 4)),
    "pdist_negative_p": lambda L: F(L).pdist(L.randn(3, 4), -1),
    "cdist_columns": lambda L: L.cdist(L.randn(4, 5), L.randn(4, 3)),
    "cdist_1d": lambda L: L.cdist(L.randn(4), L.randn(4)),
    "cdist_negative_p": lambda L: L.cdist(L.randn(4, 5), L.randn(4, 5), p=-1),
    "cdist_int": lambda L: L.cdist(L.tensor([[1, 2]]), L.tensor([[1, 2]])),
    "ctc_input_length": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (8, 6, 7), (4, 2, 3)),
    "ctc_negative_length": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (7, -1, 7),
                                                   (4, 2, 3)),
    "ctc_target_length": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (7, 6, 7),
                                                 (5, 2, 3)),
    "ctc_lengths_size": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (7, 6), (4, 2, 3)),
    "ctc_float_lengths": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG),
                                                 L.tensor([7.0, 6, 7]), L.tensor([4, 2, 3])),
    "ctc_blank": lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (7, 6, 7), (4, 2, 3),
                                         blank=5),
}
for _name, _fn in [("l1", "l1_loss"), ("smooth_l1", "smooth_l1_loss"), ("huber", "huber_loss"),
                   ("soft_margin", "soft_margin_loss"), ("kl", "kl_div"),
                   ("poisson", "poisson_nll_loss"),
                   ("multilabel_soft_margin", "multilabel_soft_margin_loss"),
                   ("hinge", "hinge_embedding_loss"), ("bce_logits",
                                                       "binary_cross_entropy_with_logits")]:
    ERRORS[_name + "_bad_reduction"] = (lambda f: lambda L: getattr(F(L), f)(
        L.tensor(X), L.tensor(X), reduction="foo"))(_fn)
ERRORS["gaussian_bad_reduction"] = lambda L: F(L).gaussian_nll_loss(
    L.tensor(X), L.tensor(X), L.tensor(rand(4, 3)), reduction="foo")
ERRORS["ctc_bad_reduction"] = lambda L: F(L).ctc_loss(L.tensor(LP), L.tensor(TG), (7, 6, 7),
                                                      (4, 2, 3), reduction="foo")


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(ERRORS[name])


def _warnings(fn):
    out = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            fn(lib)
        out.append([str(w.message) for w in rec])
    return out


@pytest.mark.parametrize("fn", [
    lambda L: F(L).l1_loss(L.tensor(X), L.tensor(X[0])),
    lambda L: F(L).smooth_l1_loss(L.tensor(X), L.tensor(X[:1]), beta=0.0),
    lambda L: F(L).huber_loss(L.tensor(X), L.tensor(X[0])),
    lambda L: F(L).mse_loss(L.tensor(X), L.tensor(X[:, :1])),
    lambda L: F(L).kl_div(L.tensor(X), L.tensor(rand(4, 3))),
    lambda L: F(L).kl_div(L.tensor(X), L.tensor(rand(4, 3)), reduce=False),
    lambda L: F(L).hinge_embedding_loss(L.tensor(X), L.tensor(signs(4, 3)), size_average=False),
    lambda L: F(L).multilabel_soft_margin_loss(L.tensor(X), L.tensor(rand(4, 3)),
                                               reduce=False),
    lambda L: F(L).binary_cross_entropy(L.tensor(rand(4, 3)), L.tensor(rand(4, 3)),
                                        size_average=True),
])
def test_warnings(fn):
    t, e = _warnings(fn)
    assert t == e and t


@pytest.mark.parametrize("reduce,size_average", [(False, None), (True, False), (None, True)])
def test_legacy_reduction_values(reduce, size_average):
    x, t = randn(4, 3), signs(4, 3)
    outs = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs.append(F(lib).soft_margin_loss(lib.tensor(x), lib.tensor(t), size_average,
                                                reduce))
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-12)


def test_bce_log_clamp():
    """torch clamps the logs at -100: inputs of exactly 0 and 1 give finite losses."""
    check(lambda L, x, t: F(L).binary_cross_entropy(x, t, reduction="none"),
          np.array([0.0, 1.0, 0.0, 1.0, 1e-45]), np.array([1.0, 0.0, 0.0, 1.0, 1.0]), rtol=1e-8)


def test_bce_logits_extreme():
    check(lambda L, x, t: F(L).binary_cross_entropy_with_logits(x, t, reduction="none"),
          np.array([-1e4, -100.0, 0.0, 100.0, 1e4]), np.array([1.0, 0.0, 0.5, 1.0, 0.0]))
    check(lambda L, x, t: F(L).soft_margin_loss(x, t, reduction="none"),
          np.array([-50.0, -10.0, 0.0, 10.0, 50.0]), np.array([1.0, -1.0, 1.0, 1.0, -1.0]),
          grad_inputs=[0])


# ---------------------------------------------------------------- modules

from nn_module_check import check_module  # noqa: E402

W3 = rand(3)
LOSS_MODULES = {
    "L1Loss": (lambda L: L.nn.L1Loss(), [randn(4, 3), randn(4, 3)]),
    "MSELoss_sum": (lambda L: L.nn.MSELoss(reduction="sum"), [randn(4, 3), randn(4, 3)]),
    "CrossEntropyLoss": (lambda L: L.nn.CrossEntropyLoss(), [randn(4, 3), labels(4, 3)]),
    "CrossEntropyLoss_args": (lambda L: L.nn.CrossEntropyLoss(
        weight=L.tensor(W3, dtype=L.float32), ignore_index=1, label_smoothing=0.1),
        [randn(4, 3), labels(4, 3)]),
    "CrossEntropyLoss_probs": (lambda L: L.nn.CrossEntropyLoss(), [randn(4, 3), rand(4, 3)]),
    "NLLLoss": (lambda L: L.nn.NLLLoss(weight=L.tensor(W3, dtype=L.float32)),
                [randn(4, 3), labels(4, 3)]),
    "NLLLoss_legacy": (lambda L: L.nn.NLLLoss(size_average=False), [randn(4, 3),
                                                                    labels(4, 3)]),
    "BCELoss": (lambda L: L.nn.BCELoss(), [rand(4, 3), rand(4, 3)]),
    "BCELoss_weight": (lambda L: L.nn.BCELoss(weight=L.tensor(W3, dtype=L.float32)),
                       [rand(4, 3), rand(4, 3)]),
    "BCEWithLogitsLoss": (lambda L: L.nn.BCEWithLogitsLoss(
        pos_weight=L.tensor(W3, dtype=L.float32)), [randn(4, 3), rand(4, 3)]),
    "KLDivLoss": (lambda L: L.nn.KLDivLoss(reduction="batchmean"), [randn(4, 3), rand(4, 3)]),
    "KLDivLoss_log_target": (lambda L: L.nn.KLDivLoss(reduction="sum", log_target=True),
                             [randn(4, 3), randn(4, 3)]),
    "PoissonNLLLoss": (lambda L: L.nn.PoissonNLLLoss(full=True), [randn(4, 3), rand(4, 3) * 3]),
    "GaussianNLLLoss": (lambda L: L.nn.GaussianNLLLoss(full=True), [randn(4, 3), randn(4, 3),
                                                                    rand(4, 3)]),
    "HuberLoss": (lambda L: L.nn.HuberLoss(delta=0.5), [randn(4, 3), randn(4, 3)]),
    "SmoothL1Loss": (lambda L: L.nn.SmoothL1Loss(beta=0.5), [randn(4, 3), randn(4, 3)]),
    "SoftMarginLoss": (lambda L: L.nn.SoftMarginLoss(), [randn(4, 3), signs(4, 3)]),
    "CosineEmbeddingLoss": (lambda L: L.nn.CosineEmbeddingLoss(margin=0.1),
                            [randn(4, 3), randn(4, 3), signs(4)]),
    "MarginRankingLoss": (lambda L: L.nn.MarginRankingLoss(0.2), [randn(4), randn(4),
                                                                  signs(4)]),
    "HingeEmbeddingLoss": (lambda L: L.nn.HingeEmbeddingLoss(), [randn(4, 3), signs(4, 3)]),
    "MultiLabelMarginLoss": (lambda L: L.nn.MultiLabelMarginLoss(), [randn(4, 4), ML]),
    "MultiLabelSoftMarginLoss": (lambda L: L.nn.MultiLabelSoftMarginLoss(
        weight=L.tensor(W3, dtype=L.float32)), [randn(4, 3), (rand(4, 3) > 0.5) * 1.0]),
    "MultiMarginLoss": (lambda L: L.nn.MultiMarginLoss(p=2, margin=0.5),
                        [randn(4, 3), labels(4, 3)]),
    "TripletMarginLoss": (lambda L: L.nn.TripletMarginLoss(swap=True),
                          [randn(4, 3), randn(4, 3), randn(4, 3)]),
    "TripletMarginWithDistanceLoss": (lambda L: L.nn.TripletMarginWithDistanceLoss(),
                                      [randn(4, 3), randn(4, 3), randn(4, 3)]),
    "CTCLoss": (lambda L: L.nn.CTCLoss(blank=4, zero_infinity=True),
                [LP, TG - 1, np.array([7, 6, 7]), np.array([4, 2, 3])]),
    "CosineSimilarity": (lambda L: L.nn.CosineSimilarity(0, 1e-6), [randn(4, 3), randn(4, 3)]),
    "PairwiseDistance": (lambda L: L.nn.PairwiseDistance(1, 1e-3, True),
                         [randn(4, 3), randn(4, 3)]),
}


def _f32(inputs):
    return [a.astype(np.float32) if a.dtype.kind == "f" else a for a in inputs]


@pytest.mark.parametrize("name", sorted(LOSS_MODULES))
def test_module(name):
    ctor, inputs = LOSS_MODULES[name]
    grad = [0, 1] if name.startswith(("Cosine", "Margin", "Pairwise", "Triplet")) or \
        name in ("L1Loss", "MSELoss_sum", "HuberLoss", "SmoothL1Loss", "KLDivLoss",
                 "KLDivLoss_log_target", "BCELoss", "GaussianNLLLoss") else [0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # (the legacy argument's warning)
        check_module(ctor, _f32(inputs), grad_inputs=grad)


def test_loss_module_buffers_and_reprs():
    for lib in (torch, ember):
        m = lib.nn.BCEWithLogitsLoss(weight=lib.ones(3), pos_weight=lib.ones(3) * 2)
        assert list(m.state_dict()) == ["weight", "pos_weight"]
        assert list(lib.nn.CrossEntropyLoss().state_dict()) == []
        assert lib.nn.CrossEntropyLoss().weight is None
        assert repr(lib.nn.TripletMarginWithDistanceLoss()) == \
            "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
        assert repr(lib.nn.L1Loss()) == "L1Loss()"
        assert lib.nn.L1Loss(size_average=False, reduce=True).reduction == "sum"


LOSS_MODULE_ERRORS = {
    "multi_margin_p": lambda L: L.nn.MultiMarginLoss(p=3),
    "multi_margin_weight": lambda L: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
    "triplet_margin": lambda L: L.nn.TripletMarginLoss(margin=0),
    "triplet_distance_margin": lambda L: L.nn.TripletMarginWithDistanceLoss(margin=-1.0),
    "ce_target": lambda L: L.nn.CrossEntropyLoss()(L.randn(3, 5), L.tensor([1, 2, 7])),
    "nll_batch": lambda L: L.nn.NLLLoss()(L.randn(3, 5), L.tensor([1, 2])),
}


@pytest.mark.parametrize("name", sorted(LOSS_MODULE_ERRORS))
def test_module_errors(name):
    check_error(LOSS_MODULE_ERRORS[name])
