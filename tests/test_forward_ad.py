"""Forward-mode AD (issue 12, point 3): every op's jvp rule against torch's forward-mode result
and against the Jacobian column ember's reverse mode gives, float64; the forward_ad API and
its errors; views, in-place ops, no_grad, custom Functions."""
import warnings
import zlib

import numpy as np
import pytest
import torch

import ember
from fwd_check import check_jvp
import test_pointwise as P
import test_reduce as R
import test_shape as SH
import test_index as IX


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


NONFINITE = {"nan_to_num_nonfinite"}  # infinite partials: reverse-mode rows hold 0 * inf


@pytest.mark.parametrize("name", sorted(P.UNARY))
def test_unary(name):
    fn, dom, _ = P.UNARY[name]
    rng = _rng(name)
    check_jvp(fn, P._dom(dom, (3, 4), rng), reverse=name not in NONFINITE)
    check_jvp(fn, P._dom(dom, (), rng), reverse=name not in NONFINITE)


@pytest.mark.parametrize("name", sorted(P.BINARY))
def test_binary(name):
    fn, doms, _ = P.BINARY[name]
    rng = _rng(name)
    xs = [P._dom(d, (3, 4), rng) for d in doms]
    check_jvp(fn, *xs)
    for i in range(len(xs)):
        check_jvp(fn, *xs, which={i})
    if len(xs) == 2:     # broadcasting
        check_jvp(fn, P._dom(doms[0], (2, 1, 4), rng), P._dom(doms[1], (3, 1), rng))


# Deviations from torch's forward formulas, checked against ember's reverse-mode J t only:
# logcumsumexp: torch rescales by the row's max, so its tangent underflows to 0 where the
# values span more than ~700 (x * 1000) and is NaN along a whole row holding a NaN; ember's
# log-space sum is exact there. cumprod: a row holding both a zero and a NaN gets NaN at every
# position in torch, ember's tangent is NaN only where the NaN reaches.
TORCH_DEVIATES = {"logcumsumexp_big", "logcumsumexp_inf", "nan_cumprod"}


@pytest.mark.parametrize("case", R.CASES, ids=R.CASE_IDS)
def test_reductions(case):
    name, fn, inputs, _, _ = case
    if name.startswith("c_"):
        inputs = [a.astype(np.complex128) for a in inputs]
    check_jvp(fn, *inputs, reverse=not name.startswith("c_"),
              torch_side=name not in TORCH_DEVIATES)


@pytest.mark.parametrize("name,i", SH.CASES, ids=[f"{n}-{i}" for n, i in SH.CASES])
def test_shape_ops(name, i):
    fn, inputs, _ = SH.OPS[name]
    tol = {"rtol": 1e-6, "atol": 1e-7} if name == "cat_mixed_dtype" else {}   # a float32 part
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_jvp(fn, *inputs[i], **tol)


@pytest.mark.parametrize("k", range(len(IX.GETITEM)))
def test_getitem(k):
    shape, fn = IX.GETITEM[k]
    check_jvp(fn, IX.arr(shape, seed=k))


# No reverse-mode comparison: torch gives scatter_reduce(prod) no tangent (ember neither), and
# a put without accumulate at repeated indices passes the gradient to every duplicate (torch's
# backward), so reverse mode's J is not the derivative there.
NO_REVERSE = {"scatter_reduce_prod", "scatter_reduce_prod_ni", "index_put", "index_put_", "put",
              "put_"}


@pytest.mark.parametrize("name", list(IX.OPS))
def test_index_ops(name):
    fn, ins = IX.OPS[name]
    check_jvp(fn, *ins, reverse=name not in NO_REVERSE)
    if len(ins) > 1:
        check_jvp(fn, *ins, which={1}, reverse=name not in NO_REVERSE)


@pytest.mark.parametrize("k", range(len(IX.SET_INDEX)))
@pytest.mark.parametrize("j", [0, 2, 4])
def test_setitem(k, j):
    def fn(L, x, v, r):
        idx = IX._set_index(L, k, x)
        y = x * 1
        shape = y.detach()[idx].shape
        reg = r.reshape(-1)[:int(np.prod(shape))].reshape(shape) * 1
        y[idx] = IX.SET_VALUE[j](L, v, reg)
        return y
    check_jvp(fn, IX.arr((3, 4, 5)), np.array(2.0), IX.arr(60, seed=1))


# ---------------------------------------------------------------- ops people use (nn, matmul)
# Most of these have no jvp rule of their own: their tangent is the transpose of their backward
# formula (Note [Forward AD fallback]); the table checks it against torch's forward rules.

def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _lt(L, v):
    return L.tensor(v)


NN = {
    "mm": (lambda L, a, b: a.mm(b), [_r(2, 3), _r(3, 4, seed=1)]),
    "matmul_nd": (lambda L, a, b: L.matmul(a, b), [_r(2, 2, 3), _r(3, 4, seed=1)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [_r(2, 2, 3), _r(2, 3, 4, seed=1)]),
    "mv_dot": (lambda L, a, b: (a.mv(b), b.dot(b)), [_r(2, 3), _r(3, seed=1)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2), [_r(4), _r(2, 3),
                                                                       _r(3, 4, seed=1)]),
    "baddbmm": (lambda L, c, a, b: L.baddbmm(c, a, b), [_r(2, 2, 4), _r(2, 2, 3),
                                                         _r(2, 3, 4, seed=1)]),
    "einsum": (lambda L, a, b: L.einsum("bij,jk->bik", a, b), [_r(2, 2, 3), _r(3, 4, seed=1)]),
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [_r(2, 3), _r(4, 3, seed=1),
                                                                     _r(4, seed=2)]),
    "conv1d": (lambda L, x, w, b: L.nn.functional.conv1d(x, w, b, padding=1),
               [_r(2, 2, 5), _r(3, 2, 3, seed=1), _r(3, seed=2)]),
    "conv2d": (lambda L, x, w: L.nn.functional.conv2d(x, w, stride=2),
               [_r(1, 2, 5, 5), _r(3, 2, 3, 3, seed=1)]),
    "conv_transpose2d": (lambda L, x, w: L.nn.functional.conv_transpose2d(x, w),
                         [_r(1, 2, 3, 3), _r(2, 3, 2, 2, seed=1)]),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2), [_r(1, 2, 4, 4)]),
    "avg_pool2d": (lambda L, x: L.nn.functional.avg_pool2d(x, 2), [_r(1, 2, 4, 4)]),
    "adaptive_avg_pool2d": (lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
                            [_r(1, 2, 4, 4)]),
    "layer_norm": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (3,), w, b),
                   [_r(2, 3), _r(3, seed=1), _r(3, seed=2)]),
    "batch_norm": (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, True),
                   [_r(4, 3), _r(3, seed=1), _r(3, seed=2)]),
    "group_norm": (lambda L, x: L.nn.functional.group_norm(x, 2), [_r(2, 4, 3)]),
    "pad": (lambda L, x: L.nn.functional.pad(x, (1, 2)), [_r(2, 3)]),
    "pad_reflect": (lambda L, x: L.nn.functional.pad(x, (1, 1), mode="reflect"), [_r(1, 2, 4)]),
    "interpolate": (lambda L, x: L.nn.functional.interpolate(x, scale_factor=2,
                                                             mode="bilinear"), [_r(1, 1, 2, 3)]),
    "gelu": (lambda L, x: (L.nn.functional.gelu(x), L.nn.functional.gelu(x, approximate="tanh")),
             [_r(2, 3)]),
    "silu_mish": (lambda L, x: (L.nn.functional.silu(x), L.nn.functional.mish(x)), [_r(2, 3)]),
    "elu_selu_celu": (lambda L, x: (L.nn.functional.elu(x), L.nn.functional.selu(x),
                                    L.nn.functional.celu(x)), [_r(2, 3)]),
    "leaky_hardtanh": (lambda L, x: (L.nn.functional.leaky_relu(x, 0.1),
                                     L.nn.functional.hardtanh(x), L.nn.functional.relu6(x)),
                       [_r(2, 3)]),
    "softplus_logsigmoid": (lambda L, x: (L.nn.functional.softplus(x),
                                          L.nn.functional.logsigmoid(x)), [_r(2, 3)]),
    "hardswish_sigmoid": (lambda L, x: (L.nn.functional.hardswish(x),
                                        L.nn.functional.hardsigmoid(x)), [_r(2, 3)]),
    "glu": (lambda L, x: L.nn.functional.glu(x), [_r(2, 4)]),
    "softmin": (lambda L, x: L.nn.functional.softmin(x, 1), [_r(2, 3)]),
    "mse_l1_huber": (lambda L, x, y: (L.nn.functional.mse_loss(x, y),
                                      L.nn.functional.l1_loss(x, y),
                                      L.nn.functional.smooth_l1_loss(x, y),
                                      L.nn.functional.huber_loss(x, y, reduction="none")),
                     [_r(2, 3), _r(2, 3, seed=1)]),
    "cross_entropy": (lambda L, x: (L.nn.functional.cross_entropy(x, _lt(L, [0, 2])),
                                    L.nn.functional.cross_entropy(x, _lt(L, [1, 0]),
                                                                  label_smoothing=0.1)),
                      [_r(2, 3)]),
    "nll": (lambda L, x: L.nn.functional.nll_loss(x.log_softmax(1), _lt(L, [0, 2])),
            [_r(2, 3)]),
    "bce": (lambda L, x, y: (L.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
                             L.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid())),
            [_r(2, 3), _r(2, 3, seed=1)]),
    "kl_div": (lambda L, x, y: L.nn.functional.kl_div(x.log_softmax(1), y.softmax(1),
                                                      reduction="batchmean"),
               [_r(2, 3), _r(2, 3, seed=1)]),
    "cosine_pdist": (lambda L, x, y: (L.nn.functional.cosine_similarity(x, y),
                                      L.nn.functional.pairwise_distance(x, y)),
                     [_r(2, 3), _r(2, 3, seed=1)]),
    "embedding": (lambda L, w: L.nn.functional.embedding(_lt(L, [[0, 2], [1, 1]]), w),
                  [_r(3, 4)]),
    "sdpa": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v),
             [_r(1, 2, 3), _r(1, 4, 3, seed=1), _r(1, 4, 3, seed=2)]),
    "dropout_eval": (lambda L, x: L.nn.functional.dropout(x, 0.5, training=False), [_r(2, 3)]),
}


@pytest.mark.parametrize("name", list(NN))
def test_nn_ops(name):
    fn, ins = NN[name]
    check_jvp(fn, *ins)
    if len(ins) > 1:
        check_jvp(fn, *ins, which={1})


def test_fallback_tangent_keeps_history():
    """A tangent from the fallback records its dependence on the primal (double backward)."""
    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    fw = ember.autograd.forward_ad
    with fw.dual_level():
        t = ember.ones(2, 3, dtype=ember.float64)
        y = ember.nn.functional.gelu(fw.make_dual(x, t))
        tan = fw.unpack_dual(y).tangent
    g, = ember.autograd.grad(tan.sum(), x)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    with torch.autograd.forward_ad.dual_level():
        y = torch.nn.functional.gelu(torch.autograd.forward_ad.make_dual(
            xt, torch.ones(2, 3, dtype=torch.float64)))
        tt = torch.autograd.forward_ad.unpack_dual(y).tangent
    gt, = torch.autograd.grad(tt.sum(), xt)
    np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-10)
    assert tan.requires_grad and tt.requires_grad


# ---------------------------------------------------------------- the forward_ad API
# Programs run through torch and ember: what they return (or raise) must print the same.


def fw(L):
    return L.autograd.forward_ad


def p1(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        y = x * x
        u = fw(L).unpack_dual(y)
        return (type(u).__name__, u.primal, u.tangent, u._fields)


def p2(L):
    with fw(L).dual_level():
        return fw(L).make_dual(L.ones(2), L.ones(3))


def p3(L):
    with fw(L).dual_level():
        return fw(L).make_dual(L.ones(2, dtype=L.int64), L.ones(2))


def p4(L):
    with fw(L).dual_level():
        with fw(L).dual_level():
            pass


def p5(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        with L.no_grad():
            y = x.exp()
        return fw(L).unpack_dual(y).tangent, y.requires_grad


def p6(L):  # view shares tangent; in-place on view updates base tangent
    with fw(L).dual_level():
        base = L.zeros(4)
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        v = base[1:3]
        v.copy_(x)
        return fw(L).unpack_dual(base).tangent, fw(L).unpack_dual(v).tangent


def p7(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0, 3.0]), L.tensor([3.0, 4.0, 5.0]))
        y = x * 1
        y.mul_(2)
        y[0] = 7.0
        return fw(L).unpack_dual(y).tangent


def p8(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0, 3.0]), L.tensor([3.0, 4.0, 5.0]))
        v = x.view(3, 1).t()
        return fw(L).unpack_dual(v).tangent, fw(L).unpack_dual(x.detach()).tangent


def p9(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
    return fw(L).unpack_dual(x).tangent


def p10(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        return fw(L).unpack_dual(F.apply(x)).tangent


def p11(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 2 * x * t

    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        return fw(L).unpack_dual(F.apply(x)).tangent


def p12(L):
    L.manual_seed(0)
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
        return repr(x), str(x * 2)


def p13(L):
    fw(L).enter_dual_level()
    x = fw(L).make_dual(L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))
    t = fw(L).unpack_dual(x.sin()).tangent
    fw(L).exit_dual_level()
    return t


def p14(L):
    with fw(L).dual_level():
        x = fw(L).make_dual(L.tensor([1.0, 2.0], requires_grad=True), L.tensor([3.0, 4.0]))
        y = (x * x).sum()
        t = fw(L).unpack_dual(y).tangent
        return t, L.autograd.grad(t, x)  # hmm x is dual view


API_PROGS = [
    p1,
    lambda L: fw(L).make_dual(L.ones(2), L.ones(2)),
    p2,
    p3,
    p4,
    p5,
    p6,
    p7,
    p8,
    p9,
    p10,
    p11,
    p12,
    p13,
    lambda L: fw(L).exit_dual_level(),
    p14,
]


def _outcome(prog, L):
    try:
        return repr(prog(L))
    except Exception as e:  # the error is the outcome compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("k", range(len(API_PROGS)))
def test_api_programs(k):
    assert _outcome(API_PROGS[k], torch) == _outcome(API_PROGS[k], ember)
