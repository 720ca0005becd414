"""ember.nn.functional activations against torch.nn.functional: values, grad_fn names and
chains, gradients (also at kinks, +-inf and NaN), in-place forms, double backward, errors."""
import math

import numpy as np
import pytest
import torch

import ember
from oracle import chain, check, check_error, gradcheck, gradgradcheck

R = np.random.default_rng(11)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def F(lib):
    return lib.nn.functional


X = randn(3, 4, 5) * 3
W3 = np.abs(randn(4)) * 0.3

# name -> (fn(lib, x, *rest), extra inputs)
ACTS = {
    "relu": (lambda L, x: F(L).relu(x), []),
    "relu6": (lambda L, x: F(L).relu6(x), []),
    "hardtanh": (lambda L, x: F(L).hardtanh(x), []),
    "hardtanh_bounds": (lambda L, x: F(L).hardtanh(x, -2.0, 3.5), []),
    "leaky_relu": (lambda L, x: F(L).leaky_relu(x), []),
    "leaky_relu_slope": (lambda L, x: F(L).leaky_relu(x, 0.2), []),
    "leaky_relu_neg_slope": (lambda L, x: F(L).leaky_relu(x, -0.3), []),
    "elu": (lambda L, x: F(L).elu(x), []),
    "elu_alpha": (lambda L, x: F(L).elu(x, 0.5), []),
    "selu": (lambda L, x: F(L).selu(x), []),
    "celu": (lambda L, x: F(L).celu(x), []),
    "celu_alpha": (lambda L, x: F(L).celu(x, 2.5), []),
    "gelu": (lambda L, x: F(L).gelu(x), []),
    "gelu_tanh": (lambda L, x: F(L).gelu(x, approximate="tanh"), []),
    "silu": (lambda L, x: F(L).silu(x), []),
    "mish": (lambda L, x: F(L).mish(x), []),
    "softplus": (lambda L, x: F(L).softplus(x), []),
    "softplus_beta": (lambda L, x: F(L).softplus(x, 2.0, 3.0), []),
    "softsign": (lambda L, x: F(L).softsign(x), []),
    "softshrink": (lambda L, x: F(L).softshrink(x), []),
    "softshrink_lambd": (lambda L, x: F(L).softshrink(x, 1.5), []),
    "hardshrink": (lambda L, x: F(L).hardshrink(x), []),
    "hardshrink_lambd": (lambda L, x: F(L).hardshrink(x, 1.5), []),
    "tanhshrink": (lambda L, x: F(L).tanhshrink(x), []),
    "threshold": (lambda L, x: F(L).threshold(x, 0.5, -2.0), []),
    "sigmoid": (lambda L, x: F(L).sigmoid(x), []),
    "logsigmoid": (lambda L, x: F(L).logsigmoid(x), []),
    "tanh": (lambda L, x: F(L).tanh(x), []),
    "hardswish": (lambda L, x: F(L).hardswish(x), []),
    "hardsigmoid": (lambda L, x: F(L).hardsigmoid(x), []),
    "glu": (lambda L, x: F(L).glu(x, 1), []),
    "glu_last": (lambda L, x: F(L).glu(x.transpose(1, 2)), []),
    "softmin": (lambda L, x: F(L).softmin(x, 1), []),
    "softmin_dtype": (lambda L, x: F(L).softmin(x, -1, dtype=L.float64), []),
    "softmax": (lambda L, x: F(L).softmax(x, 2), []),
    "log_softmax": (lambda L, x: F(L).log_softmax(x, 0), []),
    "prelu": (lambda L, x, w: F(L).prelu(x, w), [W3]),
    "prelu_single": (lambda L, x, w: F(L).prelu(x, w), [np.array([0.25])]),
    "rrelu_eval": (lambda L, x: F(L).rrelu(x), []),
    "rrelu_eval_bounds": (lambda L, x: F(L).rrelu(x, 0.1, 0.5), []),
}


def _cast(inputs, dtype):
    return [a.astype(dtype) for a in inputs]


# float32 tolerance: tanh(-8.4) is -0.99999994 in NumPy's float32 and -1 in torch's vectorised
# kernel, which moves gelu('tanh')'s derivative there by ~1.6e-6
ATOL32 = {"gelu_tanh": 1e-5}


@pytest.mark.parametrize("name", sorted(ACTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_backward(name, dtype):
    fn, extra = ACTS[name]
    check(fn, *_cast([X] + extra, dtype),
          atol=ATOL32.get(name) if dtype == np.float32 else None)


SPECIAL = np.array([-math.inf, -100.0, -20.0, -6.0, -3.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5,
                    3.0, 6.0, 20.0, 100.0, math.inf, math.nan])
NO_SPECIAL = {"glu", "glu_last", "prelu", "softmax", "log_softmax", "softmin", "softmin_dtype"}


@pytest.mark.parametrize("name", sorted(set(ACTS) - NO_SPECIAL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kinks_infinities_nan(name, dtype):
    """Values and derivatives at each kink (0, +-lambda, +-3, 6, the thresholds), at +-inf and
    at NaN: torch's choices."""
    fn, extra = ACTS[name]
    extra = [np.array([0.25]) if e is W3 else e for e in extra]
    check(fn, *_cast([SPECIAL] + extra, dtype))


def test_special_prelu():
    check(lambda L, x, w: F(L).prelu(x, w), SPECIAL.reshape(1, 3, 6),
          np.array([0.25, -0.5, 1.5]))


def test_large_inputs_are_stable():
    """torch's numerically stable forms: no overflow to inf/NaN where torch has a finite value."""
    big = np.array([-1e4, -800.0, -90.0, 90.0, 800.0, 1e4], np.float32)
    for name in ["softplus", "logsigmoid", "silu", "mish", "gelu", "elu", "selu", "celu",
                 "sigmoid", "tanh", "softsign", "tanhshrink"]:
        check(ACTS[name][0], big)
        check(ACTS[name][0], big.astype(np.float64))


# ---------------------------------------------------------------- shapes and dtypes

@pytest.mark.parametrize("name", ["relu6", "elu", "gelu", "silu", "softplus", "hardswish",
                                  "leaky_relu", "hardshrink", "logsigmoid", "threshold"])
def test_zero_dim_and_empty(name):
    fn, _ = ACTS[name]
    check(fn, np.array(-0.7))
    check(fn, np.zeros((0, 3)))


def test_prelu_shapes():
    for xs, ws in [((4, 3, 5), (3,)), ((4, 3, 5), (1,)), ((4,), (1,)), ((), (1,)), ((2, 3), (3,)),
                   ((2, 3, 4, 5), (3,)), ((2, 3), ())]:
        check(lambda L, x, w: F(L).prelu(x, w), randn(*xs), np.asarray(np.abs(randn(*ws))))


def test_int_inputs_where_torch_allows_them():
    ints = np.array([[-3, -1, 0, 2, 7]])
    check(lambda L, x: F(L).relu6(x), ints)
    check(lambda L, x: F(L).hardtanh(x), ints)
    check(lambda L, x: F(L).hardtanh(x, -1.5, 1.5), ints)
    check(lambda L, x: F(L).threshold(x, 0.5, 2.5), ints)
    check(lambda L, x: F(L).threshold(x, 1, 5), ints)
    check(lambda L, x: F(L).softsign(x), ints)
    check(lambda L, x: F(L).tanhshrink(x), ints)


# ---------------------------------------------------------------- grad_fn chains

def _chain(fn):
    return chain(fn, 6)


@pytest.mark.parametrize("name", sorted(ACTS))
def test_grad_fn_chain(name):
    fn, extra = ACTS[name]
    got = []
    for lib in (torch, ember):
        ts = [lib.tensor(a, requires_grad=True) for a in [X] + extra]
        got.append(_chain(fn(lib, *ts).grad_fn))
    assert got[0] == got[1]


# ---------------------------------------------------------------- in-place forms

INPLACE = {
    "relu_inplace": lambda L, y: F(L).relu(y, inplace=True),
    "relu_": lambda L, y: F(L).relu_(y),
    "relu6_inplace": lambda L, y: F(L).relu6(y, inplace=True),
    "hardtanh_inplace": lambda L, y: F(L).hardtanh(y, -0.5, 2.0, inplace=True),
    "hardtanh_": lambda L, y: F(L).hardtanh_(y),
    "leaky_relu_inplace": lambda L, y: F(L).leaky_relu(y, 0.1, inplace=True),
    "leaky_relu_": lambda L, y: F(L).leaky_relu_(y, 0.2),
    "elu_inplace": lambda L, y: F(L).elu(y, 2.0, inplace=True),
    "elu_": lambda L, y: F(L).elu_(y),
    "selu_inplace": lambda L, y: F(L).selu(y, inplace=True),
    "selu_": lambda L, y: F(L).selu_(y),
    "celu_inplace": lambda L, y: F(L).celu(y, 1.5, inplace=True),
    "celu_": lambda L, y: F(L).celu_(y),
    "silu_inplace": lambda L, y: F(L).silu(y, inplace=True),
    "mish_inplace": lambda L, y: F(L).mish(y, inplace=True),
    "threshold_inplace": lambda L, y: F(L).threshold(y, 0.5, 3.0, inplace=True),
    "threshold_": lambda L, y: F(L).threshold_(y, 0.5, 3.0),
    "hardswish_inplace": lambda L, y: F(L).hardswish(y, inplace=True),
    "hardsigmoid_inplace": lambda L, y: F(L).hardsigmoid(y, inplace=True),
    "rrelu_inplace": lambda L, y: F(L).rrelu(y, inplace=True),
    "rrelu_": lambda L, y: F(L).rrelu_(y, 0.2, 0.4),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inplace(name, dtype):
    """The in-place form writes into its argument, returns it, rebases its history on torch's
    node (e.g. LeakyReluBackward1, which saves the result) and gives torch's gradients."""
    op = INPLACE[name]

    def program(L, x):
        y = x * 1.0
        out = op(L, y)
        assert out is y
        return out

    check(program, X.astype(dtype))
    got = []
    for lib in (torch, ember):
        y = lib.tensor(X) * 1.0
        op(lib, y)
        got.append(y.tolist())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_chain_and_no_grad(name):
    op = INPLACE[name]
    got = []
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        got.append(_chain(op(lib, x * 2.0).grad_fn))
    assert got[0] == got[1]
    for lib in (torch, ember):    # on a plain tensor (no autograd): a write and no node
        y = lib.tensor(X)
        assert op(lib, y) is y and y.grad_fn is None


@pytest.mark.parametrize("name", ["relu_", "elu_", "leaky_relu_", "threshold_", "hardtanh_"])
def test_inplace_on_leaf_requiring_grad(name):
    check_error(lambda L: INPLACE[name](L, L.tensor(X, requires_grad=True)))


def test_inplace_negative_slope_backward_errors():
    for op in (lambda L, y: F(L).leaky_relu_(y, -0.1), lambda L, y: F(L).elu_(y, -2.0)):
        def program(L):
            x = L.tensor(X, requires_grad=True)
            op(L, x * 1.0).sum().backward()
        check_error(program)


# ---------------------------------------------------------------- double backward

# piecewise linear: their derivative does not depend on the input (second derivative 0)
PIECEWISE_LINEAR = {"relu", "relu6", "hardtanh", "hardtanh_bounds", "leaky_relu",
                    "leaky_relu_slope", "leaky_relu_neg_slope", "softshrink", "softshrink_lambd",
                    "hardshrink", "hardshrink_lambd", "threshold", "hardsigmoid", "rrelu_eval",
                    "rrelu_eval_bounds"}
DIFFERENTIABLE = sorted(set(ACTS) - {"softmin_dtype"})


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradcheck(name):
    fn, extra = ACTS[name]
    x = randn(2, 4, 3) * 2
    gradcheck(lambda *ts: fn(ember, *ts), x, *[e.copy() for e in extra])


@pytest.mark.parametrize("name", sorted(set(DIFFERENTIABLE) - PIECEWISE_LINEAR))
def test_gradgradcheck(name):
    fn, extra = ACTS[name]
    x = randn(2, 4, 3) * 2
    gradgradcheck(lambda *ts: fn(ember, *ts), x, *[e.copy() for e in extra])


@pytest.mark.parametrize("name", ["elu_inplace", "celu_", "selu_", "silu_inplace",
                                  "mish_inplace", "hardswish_inplace"])
def test_gradgradcheck_inplace(name):
    gradgradcheck(lambda x: INPLACE[name](ember, x * 1.0), randn(2, 4, 3) * 2)


# (relu: ember's core ReluBackward0 leaves the input's second-order gradient None where torch
# gives zeros; hardsigmoid: torch does not differentiate its backward, tested below)
@pytest.mark.parametrize("name", sorted(PIECEWISE_LINEAR - {"relu", "hardsigmoid"}) +
                         ["leaky_relu_", "rrelu_", "threshold_", "hardtanh_"])
def test_double_backward_piecewise_linear(name):
    """The gradient of a piecewise linear activation is linear in the incoming gradient: its
    own derivative (through a grad_outputs that requires grad) against torch."""
    fn = ACTS[name][0] if name in ACTS else (lambda L, x: INPLACE[name](L, x * 1.0))
    extra = ACTS[name][1] if name in ACTS else []

    def second(L, x, v, *rest):
        out = fn(L, x, *rest)
        g, = L.autograd.grad(out, x, v, create_graph=True)
        return (g * g).sum()

    check(second, X, randn(*X.shape), *extra)
    gs = []                     # the second order node's name
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        g, = lib.autograd.grad(fn(lib, x, *[lib.tensor(e) for e in extra]).sum(), x,
                               create_graph=True)
        gs.append(type(g.grad_fn).__name__ if g.grad_fn is not None else None)
    assert gs[0] == gs[1] or name.endswith("_"), gs


def test_hardsigmoid_double_backward_not_implemented():
    def program(L):
        x = L.tensor(X, requires_grad=True)
        g, = L.autograd.grad(F(L).hardsigmoid(x).sum(), x, create_graph=True)
        g.sum().backward()
    check_error(program)


@pytest.mark.parametrize("name", ["gelu", "gelu_tanh", "silu", "mish", "softplus_beta", "elu",
                                  "selu", "celu_alpha", "logsigmoid", "hardswish", "glu",
                                  "prelu", "softsign", "tanhshrink", "softmin"])
def test_double_backward_vs_torch(name):
    fn, extra = ACTS[name]

    def second(L, *ts):
        out = fn(L, *ts)
        w = L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gs = L.autograd.grad((out * w).sum(), ts, create_graph=True)
        return sum((g * g).sum() for g in gs)

    check(second, X, *extra)


# ---------------------------------------------------------------- errors

INTS = np.array([1, -2])
ERRORS = {
    "softshrink_neg": lambda L: F(L).softshrink(L.randn(3), -1.0),
    "hardtanh_minmax": lambda L: F(L).hardtanh(L.randn(3), 2.0, 1.0),
    "glu_odd": lambda L: F(L).glu(L.randn(3, 5)),
    "glu_0d": lambda L: F(L).glu(L.tensor(1.0)),
    "glu_dim": lambda L: F(L).glu(L.randn(3, 4), 2),
    "prelu_wshape": lambda L: F(L).prelu(L.randn(3, 4), L.randn(3)),
    "prelu_1d": lambda L: F(L).prelu(L.randn(4), L.randn(4)),
    "rrelu_bounds": lambda L: F(L).rrelu(L.randn(3), 0.5, 0.1, training=True),
    "gelu_bad": lambda L: F(L).gelu(L.randn(3), approximate="foo"),
    "celu_0": lambda L: F(L).celu(L.randn(3), 0.0),
    "hardtanh_bool": lambda L: F(L).hardtanh(L.tensor([True])),
    "relu6_bool": lambda L: F(L).relu6(L.tensor([True])),
    "threshold_bool": lambda L: F(L).threshold(L.tensor([True]), 0, 1),
    "relu_str": lambda L: F(L).relu("a"),
    "elu_str": lambda L: F(L).elu("a"),
    "silu_str": lambda L: F(L).silu(3.0),
}
for _n, _k in [("elu", "elu"), ("selu", "selu"), ("celu", "celu"), ("gelu", "gelu"),
               ("silu", "silu"), ("mish", "mish"), ("softplus", "softplus"),
               ("logsigmoid", "logsigmoid"), ("hardswish", "hardswish"),
               ("hardsigmoid", "hardsigmoid"), ("softshrink", "softshrink"),
               ("hardshrink", "hardshrink"), ("glu", "glu"), ("leaky_relu", "leaky_relu"),
               ("rrelu", "rrelu")]:
    ERRORS[_n + "_int"] = (lambda k: lambda L: getattr(F(L), k)(L.tensor(INTS)))(_k)
ERRORS["rrelu_train_int"] = lambda L: F(L).rrelu(L.tensor(INTS), training=True)
ERRORS["prelu_int"] = lambda L: F(L).prelu(L.tensor(INTS), L.tensor([1]))
ERRORS["prelu_dtype"] = lambda L: F(L).prelu(L.randn(2, 3), L.ones(3, dtype=L.float64))
ERRORS["softmin_int"] = lambda L: F(L).softmin(L.tensor(INTS), 0)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(ERRORS[name])


def test_softmin_implicit_dim_warning():
    msgs = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning) as rec:
            out = F(lib).softmin(lib.ones(2, 3))
        msgs.append((str(rec[0].message), tuple(out.shape)))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------- rrelu in training mode

def test_rrelu_training_noise():
    """Training mode: each non-positive element is scaled by its own draw in [lower, upper),
    the rest pass; the gradient is the noise (RreluWithNoiseBackward0)."""
    x = ember.tensor(X, requires_grad=True)
    out = F(ember).rrelu(x, 0.1, 0.3, training=True)
    assert type(out.grad_fn).__name__ == "RreluWithNoiseBackward0"
    neg = X <= 0
    ratio = out.detach().numpy()[neg] / X[neg]
    assert np.all((ratio >= 0.1) & (ratio < 0.3)) and len(np.unique(ratio)) == ratio.size
    np.testing.assert_array_equal(out.detach().numpy()[~neg], X[~neg])
    out.backward(ember.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(), np.where(neg, out.detach().numpy() / X, 1.0),
                               rtol=1e-15)


def test_rrelu_training_matches_torch_stream():
    """Training-mode noise: one float64 uniform_(lower, upper) draw per non-positive element, in
    order (the stream position after the call agrees). The products agree to one float32 ulp:
    torch's rounding of the noise is not reproduced exactly."""
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(3)
        out = F(lib).rrelu(lib.tensor(X.astype(np.float32)), 0.1, 0.3, training=True)
        outs.append((out.numpy(), lib.rand(4).numpy()))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=2.4e-7, atol=0)
    np.testing.assert_array_equal(outs[1][1], outs[0][1])


# ---------------------------------------------------------------- modules

from nn_module_check import check_module  # noqa: E402

MODULES = {
    "ReLU": lambda L: L.nn.ReLU(), "ReLU_inplace": lambda L: L.nn.ReLU(inplace=True),
    "ReLU6": lambda L: L.nn.ReLU6(), "ReLU6_inplace": lambda L: L.nn.ReLU6(True),
    "Hardtanh": lambda L: L.nn.Hardtanh(-2.0, 2.5), "Hardtanh_int": lambda L: L.nn.Hardtanh(-2, 2),
    "LeakyReLU": lambda L: L.nn.LeakyReLU(), "LeakyReLU_inplace": lambda L: L.nn.LeakyReLU(0.2,
                                                                                            True),
    "RReLU": lambda L: L.nn.RReLU(), "RReLU_inplace": lambda L: L.nn.RReLU(0.1, 0.3, True),
    "ELU": lambda L: L.nn.ELU(), "ELU_inplace": lambda L: L.nn.ELU(0.5, True),
    "SELU": lambda L: L.nn.SELU(), "SELU_inplace": lambda L: L.nn.SELU(True),
    "CELU": lambda L: L.nn.CELU(1.5), "GELU": lambda L: L.nn.GELU(),
    "GELU_tanh": lambda L: L.nn.GELU("tanh"), "SiLU": lambda L: L.nn.SiLU(),
    "SiLU_inplace": lambda L: L.nn.SiLU(True), "Mish": lambda L: L.nn.Mish(),
    "Mish_inplace": lambda L: L.nn.Mish(True), "Softplus": lambda L: L.nn.Softplus(),
    "Softplus_args": lambda L: L.nn.Softplus(2, 10), "Softsign": lambda L: L.nn.Softsign(),
    "Softshrink": lambda L: L.nn.Softshrink(), "Hardshrink": lambda L: L.nn.Hardshrink(0.3),
    "Tanhshrink": lambda L: L.nn.Tanhshrink(), "Threshold": lambda L: L.nn.Threshold(0.1, 20),
    "Threshold_inplace": lambda L: L.nn.Threshold(0.1, 20.0, True),
    "Sigmoid": lambda L: L.nn.Sigmoid(), "LogSigmoid": lambda L: L.nn.LogSigmoid(),
    "Tanh": lambda L: L.nn.Tanh(), "Hardswish": lambda L: L.nn.Hardswish(),
    "Hardswish_inplace": lambda L: L.nn.Hardswish(True),
    "Hardsigmoid": lambda L: L.nn.Hardsigmoid(), "Hardsigmoid_inplace": lambda L:
    L.nn.Hardsigmoid(True), "GLU": lambda L: L.nn.GLU(), "GLU_dim": lambda L: L.nn.GLU(1),
    "Softmax": lambda L: L.nn.Softmax(1), "LogSoftmax": lambda L: L.nn.LogSoftmax(-1),
    "Softmin": lambda L: L.nn.Softmin(0), "Softmax2d": lambda L: L.nn.Softmax2d(),
    "PReLU": lambda L: L.nn.PReLU(), "PReLU_channels": lambda L: L.nn.PReLU(4, 0.1),
    "Identity": lambda L: L.nn.Identity(),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module(name):
    """repr, output, input and parameter gradients (weights copied from torch), eval mode too;
    the in-place ones are given a non-leaf (x * 1)."""
    ctor = MODULES[name]
    x = X.reshape(3, 4, 5)[..., :4] if "GLU" in name else X.reshape(3, 4, 5)
    if name.endswith("_inplace"):
        def ctor(L, _c=MODULES[name]):
            class Times1(L.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.act = _c(L)

                def forward(self, x):
                    return self.act(x * 1.0)
            return Times1()
    # RReLU draws its slopes in training mode and check_module does not seed the two libraries
    # alike: eval only here; test_rrelu_training_matches_torch_stream compares the draws
    modes = ("eval",) if name.startswith("RReLU") else ("train", "eval")
    check_module(ctor, [x.astype(np.float32)], modes=modes,
                 atol=ATOL32.get("gelu_tanh") if name == "GELU_tanh" else None)
    check_module(ctor, [x], dtype="double", modes=("eval",))


@pytest.mark.parametrize("name", ["PReLU", "Softmax", "ReLU", "GELU", "Tanh"])
def test_module_unbatched(name):
    check_module(MODULES[name], [randn(4, 5).astype(np.float32)])


def test_prelu_default_init_and_dtype():
    for lib in (torch, ember):
        m = lib.nn.PReLU(3, init=0.1, dtype=lib.float64)
        assert m.weight.dtype == lib.float64 and m.weight.tolist() == [0.1] * 3
        assert m.weight.requires_grad and repr(m) == "PReLU(num_parameters=3)"


MODULE_ERRORS = {
    "hardtanh_bounds": lambda L: L.nn.Hardtanh(2, 1),
    "softmax2d_dims": lambda L: L.nn.Softmax2d()(L.randn(3, 4)),
    "prelu_channels": lambda L: L.nn.PReLU(3)(L.randn(2, 4)),
    "rrelu_bounds": lambda L: L.nn.RReLU(0.5, 0.1)(L.randn(3)),
}


@pytest.mark.parametrize("name", sorted(MODULE_ERRORS))
def test_module_errors(name):
    check_error(MODULE_ERRORS[name])


def test_softmax_module_implicit_dim():
    msgs = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning) as rec:
            out = lib.nn.Softmax()(lib.ones(2, 3))
        msgs.append((str(rec[0].message), out.tolist()))
    assert msgs[0] == msgs[1]
