"""Pointwise ops (issue "Operator library", pointwise part): an op table drives forward,
backward, dtype and error comparisons with torch, plus numerical gradchecks and hypothesis
broadcasting properties."""
import math
import zlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st, HealthCheck

import ember
from oracle import check, check_error, gradcheck, gradgradcheck
from ember.ops.special import erf_kernel, erfc_kernel, erfinv_kernel

LIBS = [torch, ember]


# ---------------------------------------------------------------- sample domains

def _dom(kind, shape, rng, dtype=np.float64):
    if kind == "real":
        a = rng.standard_normal(shape)
    elif kind == "pos":
        a = rng.uniform(0.2, 3.0, shape)
    elif kind == "unit":
        a = rng.uniform(-0.9, 0.9, shape)
    elif kind == "gt1":
        a = rng.uniform(1.2, 3.0, shape)
    elif kind == "open01":
        a = rng.uniform(0.05, 0.95, shape)
    elif kind == "nonint":      # away from integers and half-integers (rounding kinks)
        a = np.floor(rng.uniform(-4, 4, shape)) + rng.uniform(0.1, 0.4, shape)
    elif kind == "nonzero":     # away from 0 (sign/abs kinks)
        a = rng.uniform(0.2, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        raise ValueError(kind)
    return np.asarray(a, dtype)


# name: (fn(lib, x), domain, twice differentiable)
UNARY = {
    "neg": (lambda L, x: L.neg(x), "real", True),
    "negative": (lambda L, x: x.negative(), "real", True),
    "neg_op": (lambda L, x: -x, "real", True),
    "abs": (lambda L, x: L.abs(x), "nonzero", True),
    "absolute": (lambda L, x: x.absolute(), "nonzero", True),
    "abs_op": (lambda L, x: abs(x), "nonzero", True),
    "sign": (lambda L, x: x.sign(), "real", True),
    "sgn": (lambda L, x: L.sgn(x) + x * 0, "real", True),   # torch's sgn grad is a ZeroTensor
    "sqrt": (lambda L, x: L.sqrt(x), "pos", True),
    "rsqrt": (lambda L, x: x.rsqrt(), "pos", True),
    "square": (lambda L, x: L.square(x), "real", True),
    "exp": (lambda L, x: x.exp(), "real", True),
    "exp2": (lambda L, x: L.exp2(x), "real", True),
    "expm1": (lambda L, x: x.expm1(), "real", True),
    "log": (lambda L, x: L.log(x), "pos", True),
    "log2": (lambda L, x: x.log2(), "pos", True),
    "log10": (lambda L, x: L.log10(x), "pos", True),
    "log1p": (lambda L, x: x.log1p(), "pos", True),
    "sin": (lambda L, x: L.sin(x), "real", True),
    "cos": (lambda L, x: x.cos(), "real", True),
    "tan": (lambda L, x: L.tan(x), "unit", True),
    "asin": (lambda L, x: x.asin(), "unit", True),
    "arcsin": (lambda L, x: L.arcsin(x), "unit", True),
    "acos": (lambda L, x: L.acos(x), "unit", True),
    "arccos": (lambda L, x: x.arccos(), "unit", True),
    "atan": (lambda L, x: L.atan(x), "real", True),
    "arctan": (lambda L, x: x.arctan(), "real", True),
    "sinh": (lambda L, x: x.sinh(), "real", True),
    "cosh": (lambda L, x: L.cosh(x), "real", True),
    "tanh": (lambda L, x: L.tanh(x), "real", True),
    "asinh": (lambda L, x: x.asinh(), "real", True),
    "arcsinh": (lambda L, x: L.arcsinh(x), "real", True),
    "acosh": (lambda L, x: L.acosh(x), "gt1", True),
    "arccosh": (lambda L, x: x.arccosh(), "gt1", True),
    "atanh": (lambda L, x: x.atanh(), "unit", True),
    "arctanh": (lambda L, x: L.arctanh(x), "unit", True),
    "sigmoid": (lambda L, x: L.sigmoid(x), "real", True),
    "sigmoid_m": (lambda L, x: x.sigmoid(), "real", True),
    "logit": (lambda L, x: L.logit(x), "open01", True),
    "logit_eps": (lambda L, x: x.logit(eps=0.2), "open01", True),
    "relu": (lambda L, x: L.relu(x), "nonzero", True),
    "relu_m": (lambda L, x: x.relu(), "nonzero", True),
    "erf": (lambda L, x: L.erf(x), "real", True),
    "erfc": (lambda L, x: x.erfc(), "real", True),
    "erfinv": (lambda L, x: L.erfinv(x), "unit", True),
    "floor": (lambda L, x: L.floor(x), "nonint", True),
    "ceil": (lambda L, x: x.ceil(), "nonint", True),
    "round": (lambda L, x: L.round(x), "nonint", True),
    "round_dec": (lambda L, x: x.round(decimals=2), "nonint", True),
    "round_dec0": (lambda L, x: L.round(x, decimals=0), "nonint", True),
    "round_decneg": (lambda L, x: L.round(x * 100, decimals=-1), "nonint", True),
    "trunc": (lambda L, x: L.trunc(x), "nonint", True),
    "fix": (lambda L, x: x.fix(), "nonint", True),
    "frac": (lambda L, x: L.frac(x), "nonint", True),
    "reciprocal": (lambda L, x: x.reciprocal(), "nonzero", True),
    "clamp": (lambda L, x: L.clamp(x, -0.5, 0.5), "real", True),
    "clamp_min": (lambda L, x: x.clamp(min=-0.3), "real", True),
    "clamp_max": (lambda L, x: x.clamp(max=0.3), "real", True),
    "clamp_inv": (lambda L, x: x.clamp(0.5, -0.5), "real", True),
    "clip": (lambda L, x: L.clip(x, -0.5, 0.5), "real", True),
    "clip_m": (lambda L, x: x.clip(min=0.1), "real", True),
    "clamp_min_fn": (lambda L, x: L.clamp_min(x, 0.2), "real", True),
    "clamp_max_fn": (lambda L, x: x.clamp_max(0.2), "real", True),
    "nan_to_num": (lambda L, x: L.nan_to_num(x), "real", True),
    "nan_to_num_nonfinite": (lambda L, x: L.nan_to_num(x / (x > 0).to(x.dtype), nan=1.5,
                                                       posinf=2.0, neginf=-3.0),
                             "nonzero", True),
    "positive": (lambda L, x: L.positive(x * 2), "real", True),
    "deg2rad": (lambda L, x: L.deg2rad(x), "real", True),
    "rad2deg": (lambda L, x: x.rad2deg(), "real", True),
    "angle": (lambda L, x: L.angle(x), "nonzero", True),
    "conj": (lambda L, x: L.conj(x * 1), "real", True),
    "real": (lambda L, x: L.real(x * 1), "real", True),
    "isnan": (lambda L, x: L.isnan(L.log(x)), "real", True),
    "isinf": (lambda L, x: L.isinf(1 / L.relu(x)), "real", True),
    "isposinf": (lambda L, x: L.isposinf(1 / x.round()), "nonint", True),
    "isneginf": (lambda L, x: L.isneginf(1 / x.round()), "nonint", True),
    "isfinite": (lambda L, x: x.log().isfinite(), "real", True),
    "signbit": (lambda L, x: L.signbit(x), "real", True),
}

# ops whose gradient is zero or a step function: no finite-difference check needed beyond
# the torch comparison (they still pass it where the step is not sampled)
NOT_SMOOTH = {"isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit",
              "nan_to_num_nonfinite"}

# first derivative constant in the input: nothing for gradgradcheck to differentiate
LINEAR = {"neg", "negative", "neg_op", "abs", "absolute", "abs_op", "sign", "sgn", "floor",
          "ceil", "round", "round_dec", "round_dec0", "round_decneg", "trunc", "fix", "frac",
          "clamp", "clamp_min", "clamp_max", "clamp_inv", "clip", "clip_m", "clamp_min_fn",
          "clamp_max_fn", "relu", "relu_m", "nan_to_num", "nan_to_num_nonfinite", "positive",
          "deg2rad", "rad2deg", "angle", "conj", "real", "add", "add_alpha", "add_op_scalar",
          "sub", "sub_op", "rsub", "div_floor", "div_trunc", "div_trunc_scalar", "remainder",
          "remainder_op", "fmod", "fmod_scalar", "maximum", "minimum", "fmax", "fmin",
          "lerp_scalar", "lerp_scalar_big", "where", "where_scalar", "where_method",
          "copysign_scalar", "clamp_tensor", "clamp_tensor_min", "clamp_tensor_max",
          "clamp_min_tensor", "clamp_max_tensor", "clip_tensor"}


def _shapes():
    return [(3, 4), (), (0, 3), (2, 1, 3)]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_vs_torch(name, dtype):
    fn, dom, _ = UNARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for shape in _shapes():
        check(fn, _dom(dom, shape, rng, dtype))
    # non-contiguous: a transposed view
    a = _dom(dom, (4, 3), rng, dtype)
    check(lambda L, x: fn(L, x.t()), a)


@pytest.mark.parametrize("name", sorted(n for n in UNARY if n not in NOT_SMOOTH))
def test_unary_gradcheck(name):
    fn, dom, twice = UNARY[name]
    rng = np.random.default_rng(1)
    a = _dom(dom, (2, 3), rng)
    gradcheck(lambda x: fn(ember, x), a)
    if twice and name not in LINEAR:
        gradgradcheck(lambda x: fn(ember, x), a)


# ---------------------------------------------------------------- integer and bool inputs

INT_UNARY = ["neg", "abs", "sign", "sgn", "sqrt", "rsqrt", "square", "exp", "exp2", "expm1",
             "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
             "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "logit", "relu",
             "erf", "erfc", "erfinv", "floor", "ceil", "round", "trunc", "fix", "frac",
             "reciprocal", "nan_to_num", "positive", "deg2rad", "rad2deg", "angle", "isnan",
             "isinf", "isposinf", "isneginf", "isfinite", "conj", "real", "signbit"]


@pytest.mark.parametrize("name", INT_UNARY)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_unary_int_and_bool_dtypes(name, dtype):
    a = np.array([[0, 1, 3], [2, 0, 1]]).astype(dtype)

    def fn(L, x):
        return getattr(L, name)(x)
    try:
        torch_fn = getattr(torch, name)(torch.tensor(a))
    except Exception:   # noqa: BLE001 - the error itself must match
        check_error(lambda L: fn(L, L.tensor(a)))
        return
    del torch_fn
    with np.errstate(all="ignore"):
        check(fn, a, grad=False)


@pytest.mark.parametrize("name", ["clamp", "clamp_f", "clamp_t", "remainder", "fmod",
                                  "maximum", "fmin", "atan2", "copysign", "xlogy",
                                  "float_power", "hypot", "floor_divide", "div_trunc",
                                  "lshift", "rshift", "addcmul", "where_scalar"])
def test_int_binary_dtypes(name):
    a = np.array([[-3, 0, 5], [7, -2, 1]])
    b = np.array([2, 3, -2])
    fns = {
        "clamp": lambda L, x, y: x.clamp(-1, 2),
        "clamp_f": lambda L, x, y: x.clamp(min=0.5),
        "clamp_t": lambda L, x, y: x.clamp(min=y),
        "remainder": lambda L, x, y: (x % y, x % 2, L.remainder(x, -2.5)),
        "fmod": lambda L, x, y: (L.fmod(x, y), x.fmod(3), x.fmod(1.5)),
        "maximum": lambda L, x, y: (L.maximum(x, y), L.minimum(x, y), L.fmax(x, y)),
        "fmin": lambda L, x, y: L.fmin(x, y),
        "atan2": lambda L, x, y: L.atan2(x, y),
        "copysign": lambda L, x, y: (L.copysign(x, y), x.copysign(-1)),
        "xlogy": lambda L, x, y: (L.xlogy(x, y.abs()), L.xlogy(2, y.abs()), x.xlogy(3)),
        "float_power": lambda L, x, y: (L.float_power(x, y), L.float_power(x, 2)),
        "hypot": lambda L, x, y: L.hypot(x.float(), y),
        "floor_divide": lambda L, x, y: (x // y, L.floor_divide(x, 2), x // 2.5, 7 // y),
        "div_trunc": lambda L, x, y: (L.div(x, y, rounding_mode="trunc"), x / y),
        "lshift": lambda L, x, y: (x.abs() << y.abs(), x << 2, 1 << y.abs(), x << 70),
        "rshift": lambda L, x, y: (x >> y.abs(), x >> 1, x >> 70),
        "addcmul": lambda L, x, y: L.addcmul(x, x, y, value=2),
        "where_scalar": lambda L, x, y: (L.where(x > 0, x, 2.5), L.where(x > 0, 1, 2),
                                         L.where(x > 0, x, y)),
    }
    check(fns[name], a, b, grad=False)


# ---------------------------------------------------------------- binary / ternary ops

# name: (fn(lib, *inputs), domains of the inputs, twice differentiable)
BINARY = {
    "add": (lambda L, x, y: L.add(x, y), ("real", "real"), True),
    "add_alpha": (lambda L, x, y: x.add(y, alpha=2.5), ("real", "real"), True),
    "add_op_scalar": (lambda L, x, y: (x + 2, 3.5 + y), ("real", "real"), True),
    "sub": (lambda L, x, y: L.sub(x, y, alpha=3), ("real", "real"), True),
    "sub_op": (lambda L, x, y: (x - y, 2 - y, y - 1.5), ("real", "real"), True),
    "rsub": (lambda L, x, y: L.rsub(x, y), ("real", "real"), True),
    "mul": (lambda L, x, y: (L.mul(x, y), x * 3, 2 * y), ("real", "real"), True),
    "div": (lambda L, x, y: (L.div(x, y), x / 3, 2 / y), ("real", "nonzero"), True),
    "true_divide": (lambda L, x, y: L.true_divide(x, y), ("real", "nonzero"), True),
    "div_floor": (lambda L, x, y: L.div(x, y, rounding_mode="floor"), ("real", "nonzero"), True),
    "div_trunc": (lambda L, x, y: x.div(y, rounding_mode="trunc"), ("real", "nonzero"), True),
    "div_trunc_scalar": (lambda L, x, y: x.div(0.7, rounding_mode="trunc"), ("real", "real"),
                         True),
    "remainder": (lambda L, x, y: L.remainder(x, y), ("real", "nonzero"), True),
    "remainder_op": (lambda L, x, y: (x % y, x % 0.7), ("real", "nonzero"), True),
    "fmod": (lambda L, x, y: L.fmod(x, y), ("real", "nonzero"), True),
    "fmod_scalar": (lambda L, x, y: x.fmod(-0.7), ("real", "real"), True),
    "pow": (lambda L, x, y: L.pow(x, y), ("pos", "real"), True),
    "pow_op": (lambda L, x, y: (x ** 2, x ** 0.5, 2 ** y, x ** y), ("pos", "real"), True),
    "pow_scalar_base": (lambda L, x, y: L.pow(1.7, y), ("real", "real"), True),
    "float_power": (lambda L, x, y: L.float_power(x, y), ("pos", "real"), True),
    "float_power_scalar": (lambda L, x, y: (x.float_power(2), L.float_power(2.5, y)),
                           ("pos", "real"), True),
    "atan2": (lambda L, x, y: L.atan2(x, y), ("real", "nonzero"), True),
    "arctan2": (lambda L, x, y: x.arctan2(y), ("real", "nonzero"), True),
    "maximum": (lambda L, x, y: L.maximum(x, y), ("real", "real"), True),
    "minimum": (lambda L, x, y: x.minimum(y), ("real", "real"), True),
    "fmax": (lambda L, x, y: L.fmax(x, y), ("real", "real"), True),
    "fmin": (lambda L, x, y: x.fmin(y), ("real", "real"), True),
    "hypot": (lambda L, x, y: L.hypot(x, y), ("nonzero", "nonzero"), True),
    "lerp_scalar": (lambda L, x, y: L.lerp(x, y, 0.3), ("real", "real"), True),
    "lerp_scalar_big": (lambda L, x, y: x.lerp(y, 0.8), ("real", "real"), True),
    "lerp_tensor": (lambda L, x, y, w: L.lerp(x, y, w), ("real", "real", "real"), True),
    "addcmul": (lambda L, x, y, z: L.addcmul(x, y, z, value=0.5), ("real", "real", "real"),
                True),
    "addcmul_default": (lambda L, x, y, z: x.addcmul(y, z), ("real", "real", "real"), True),
    "addcdiv": (lambda L, x, y, z: L.addcdiv(x, y, z, value=-2), ("real", "real", "nonzero"),
                True),
    "where": (lambda L, x, y: L.where(x > 0, x, y), ("real", "real"), True),
    "where_scalar": (lambda L, x, y: (L.where(x > 0, x, 0.5), L.where(y > 0, 1.5, y)),
                     ("real", "real"), True),
    "where_method": (lambda L, x, y: x.where(y > 0, y), ("real", "real"), True),
    "copysign": (lambda L, x, y: L.copysign(x, y), ("real", "real"), True),
    "copysign_scalar": (lambda L, x, y: (x.copysign(-1.0), y.copysign(2)), ("real", "real"),
                        True),
    "xlogy": (lambda L, x, y: L.xlogy(x, y), ("real", "pos"), True),
    "xlogy_scalar": (lambda L, x, y: (L.xlogy(x, 2.0), L.xlogy(3, y)), ("real", "pos"), True),
    "clamp_tensor": (lambda L, x, lo, hi: L.clamp(x, lo, hi - 1), ("real", "real", "real"),
                     True),
    "clamp_tensor_min": (lambda L, x, lo: x.clamp(min=lo), ("real", "real"), True),
    "clamp_tensor_max": (lambda L, x, hi: L.clamp(x, max=hi), ("real", "real"), True),
    "clamp_min_tensor": (lambda L, x, lo: L.clamp_min(x, lo), ("real", "real"), True),
    "clamp_max_tensor": (lambda L, x, hi: x.clamp_max(hi), ("real", "real"), True),
    "clip_tensor": (lambda L, x, lo, hi: x.clip(lo, hi), ("real", "real", "real"), True),
}

CMP = {
    "eq": lambda L, x, y: (L.eq(x, y), x == y, x == 0.5),
    "ne": lambda L, x, y: (L.ne(x, y), x != y, L.not_equal(x, y)),
    "lt": lambda L, x, y: (L.lt(x, y), x < y, L.less(x, 0.0)),
    "le": lambda L, x, y: (L.le(x, y), x <= y, L.less_equal(x, y)),
    "gt": lambda L, x, y: (L.gt(x, y), x > y, L.greater(x, 0.1)),
    "ge": lambda L, x, y: (L.ge(x, y), x >= y, L.greater_equal(x, y)),
    "logical": lambda L, x, y: (L.logical_and(x > 0, y), L.logical_or(x, y < 0),
                                L.logical_xor(x > 0, y > 0), L.logical_not(x > 0),
                                x.logical_and(y)),
    "isclose": lambda L, x, y: (L.isclose(x, y, rtol=0.5), L.isclose(x, x * 1),
                                x.isclose(y, atol=0.3, rtol=0)),
}

SHAPES2 = [((3, 4), (3, 4)), ((3, 1, 4), (2, 4)), ((), (2, 3)), ((4,), ()), ((0, 3), (1, 3))]


def _inputs(doms, shapes, rng, dtype):
    return [_dom(d, s, rng, dtype) for d, s in zip(doms, shapes)]


def _shapes_for(n):
    out = []
    for a, b in SHAPES2:
        out.append((a, b, b)[:n])
    return out


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_vs_torch(name, dtype):
    fn, doms, _ = BINARY[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for shapes in _shapes_for(len(doms)):
        check(fn, *_inputs(doms, shapes, rng, dtype))
    # non-contiguous operands
    ins = [_dom(d, (4, 3), rng, dtype) for d in doms]
    check(lambda L, *ts: fn(L, *[t.t() for t in ts]), *ins)
    # only some inputs require grad
    check(fn, *_inputs(doms, [(2, 3)] * len(doms), rng, dtype), grad_inputs={1})


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck(name):
    fn, doms, twice = BINARY[name]
    rng = np.random.default_rng(2)
    ins = _inputs(doms, [(2, 3), (3,), (2, 1)][:len(doms)], rng, np.float64)
    if name.startswith(("maximum", "minimum", "fmax", "fmin", "clamp", "clip")):
        # keep operands apart (ties are kinks)
        ins[0] = ins[0] + np.where(ins[0] > 0, 3.0, -3.0)
    if name in ("div_floor", "div_trunc", "remainder", "fmod"):
        ins[0] = np.array([[0.35, 1.45, -2.3], [4.15, -0.45, 2.6]])
        ins[1] = np.array([0.7, -1.1, 0.9])

    def f(*xs):
        out = fn(ember, *xs)
        if isinstance(out, tuple):
            return ember.cat([o.reshape(-1) for o in out])
        return out
    gradcheck(f, *ins)
    if twice and name not in LINEAR:
        gradgradcheck(f, *ins)


@pytest.mark.parametrize("name", sorted(CMP))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_comparisons_vs_torch(name, dtype):
    rng = np.random.default_rng(3)
    for sa, sb in SHAPES2:
        a = np.asarray(np.round(rng.standard_normal(sa), 1)).astype(dtype)
        b = np.asarray(np.round(rng.standard_normal(sb), 1)).astype(dtype)
        outs = check(CMP[name], a, b)[1]
        for o in (outs if isinstance(outs, tuple) else (outs,)):
            assert o.dtype is ember.bool and not o.requires_grad


def test_kinks_match_torch():
    """Derivative choices at kinks and special points (ties, bounds, zeros, NaN)."""
    nan, inf = math.nan, math.inf
    v = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, nan])
    cases = [
        (lambda L, x: x.relu(), v), (lambda L, x: x.abs(), v), (lambda L, x: x.sign() + x * 0, v),
        (lambda L, x: x.sgn() + x * 0, v), (lambda L, x: x.clamp(0, 1), v),
        (lambda L, x: x.clamp(1, 0), v), (lambda L, x: x.clamp(min=0.0), v),
        (lambda L, x: x.clamp(max=1.0), v), (lambda L, x: x.clamp_min(0.5), v),
        (lambda L, x: x.clamp_max(0.5), v), (lambda L, x: x.sqrt(), v),
        (lambda L, x: x.logit(), np.array([-0.5, 0.0, 0.5, 1.0, 1.5])),
        (lambda L, x: x.logit(0.1), np.array([-0.5, 0.0, 0.05, 0.1, 0.5, 0.9, 1.0, 1.5])),
        (lambda L, x: x.nan_to_num(), np.array([nan, inf, -inf, 1.0])),
        (lambda L, x: x.nan_to_num(posinf=1e3), np.array([nan, inf, -inf, 1.0])),
        (lambda L, x: x ** 0.5, v), (lambda L, x: x ** 0, v), (lambda L, x: x ** 2, v),
        (lambda L, x: x.frac(), v), (lambda L, x: x.angle(), v),
        (lambda L, x: x.erfinv(), np.array([-1.0, 0.0, 1.0, 1.5])),
        (lambda L, x: x.copysign(-0.0), v), (lambda L, x: x.xlogy(0.0), v),
        (lambda L, x: x.hypot(x * 0), v),
        (lambda L, x: (x * 0).atan2(x * 0), v),
    ]
    for fn, a in cases:
        check(fn, a)
    x = np.array([-1.0, 0.0, nan, 1.0, 2.0])
    y = np.array([0.0, 0.0, 1.0, nan, 2.0])
    for fn in (lambda L, a, b: L.maximum(a, b), lambda L, a, b: L.minimum(a, b),
               lambda L, a, b: L.fmax(a, b), lambda L, a, b: L.fmin(a, b),
               lambda L, a, b: a.clamp(b, b), lambda L, a, b: a.clamp(b, b - 1),
               lambda L, a, b: a.clamp(min=b), lambda L, a, b: a.clamp(max=b),
               lambda L, a, b: a.copysign(b), lambda L, a, b: a.xlogy(b),
               lambda L, a, b: a.atan2(b), lambda L, a, b: a.hypot(b),
               lambda L, a, b: a.remainder(b), lambda L, a, b: a.fmod(b)):
        check(fn, x, y)


_SPECIAL = np.array([-math.inf, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, math.inf, math.nan,
                     0.9999999, -0.9999999, 40.0, -40.0])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_special_values(name):
    """inf, nan, signed zeros, domain edges: values and gradients as torch gives them."""
    fn = UNARY[name][0]
    vals = _SPECIAL
    if name.startswith("logit"):
        # torch's logit backward differs between its vectorised and scalar loops at NaN and
        # -0.0 (depends on the element's position); ember gives the vectorised answer at NaN
        vals = vals[~np.isnan(vals) & ~((vals == 0) & np.signbit(vals))]
    with np.errstate(all="ignore"):
        check(fn, vals)
        check(fn, vals.astype(np.float32))


@pytest.mark.parametrize("name", sorted(n for n in BINARY if len(BINARY[n][1]) == 2))
def test_binary_special_values(name):
    """Every pair of special values (x down, y across)."""
    with np.errstate(all="ignore"):
        check(BINARY[name][0], _SPECIAL[:, None], _SPECIAL[None, :])


def test_xlogy_scalar_other_gradient():
    x = np.array([0.0, -0.0, 1.0, math.nan, 2.0])
    for other in (2.0, 0.0, math.nan, math.inf, -1.0, -math.inf, 0.5):
        check(lambda L, t, o=other: L.xlogy(t, o), x)
        check(lambda L, t, o=other: L.xlogy(o, t.abs()), x)


def test_special_values_forward():
    vals = np.array([0.0, -0.0, 1e-300, -1e-300, 0.5, 1.0, 2.5, 5.0, 26.0, 27.5, 40.0, -40.0,
                     math.inf, -math.inf, math.nan])
    for fn in (lambda L, x: L.erf(x), lambda L, x: L.erfc(x), lambda L, x: L.sigmoid(x),
               lambda L, x: L.expm1(x), lambda L, x: L.log1p(x), lambda L, x: L.round(x),
               lambda L, x: L.frac(x), lambda L, x: L.sign(x), lambda L, x: L.tanh(x),
               lambda L, x: L.sigmoid(-x), lambda L, x: L.rsqrt(x)):
        check(fn, vals, grad=False)
    y = np.array([0.0, -0.0, 1e-300, 0.5, -0.999999, 0.9999999999, 1.0, -1.0, 1.5, math.nan])
    check(lambda L, x: L.erfinv(x), y, grad=False)
    check(lambda L, x: L.round(x), np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.4999]), grad=False)
    check(lambda L, x: x.round(decimals=1), np.array([0.25, 0.35, -1.45, 123.456]), grad=False)
    check(lambda L, x: x.round(decimals=-2), np.array([150.0, 250.0, -1234.5]), grad=False)


def test_erf_family_accuracy():
    """float64 erf/erfc/erfinv against torch to ~1e-12 relative over wide ranges."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-7, 7, 20000), rng.standard_normal(5000),
                        np.linspace(-27, 27, 2001), [1.2, 2.5, -1.2, -2.5, 1e-10]])
    for name, k in (("erf", erf_kernel), ("erfc", erfc_kernel)):
        t = getattr(torch, name)(torch.tensor(x)).numpy()
        e = k(x)
        ok = np.abs(t) > 1e-300
        np.testing.assert_allclose(e[ok], t[ok], rtol=1e-12, atol=0, err_msg=name)
    y = np.concatenate([rng.uniform(-1, 1, 20000), 1 - 10.0 ** rng.uniform(-16, -1, 2000),
                        -1 + 10.0 ** rng.uniform(-16, -1, 500), rng.uniform(-1e-6, 1e-6, 200)])
    t = torch.erfinv(torch.tensor(y)).numpy()
    np.testing.assert_allclose(erfinv_kernel(y), t, rtol=1e-12, atol=0, err_msg="erfinv")


# ---------------------------------------------------------------- double backward vs torch

def _double_backward(op):
    def fn(L, *xs):
        out = op(L, *xs)
        w = L.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)))
        gs = L.autograd.grad((out * w).sum(), xs, create_graph=True)
        return gs
    return fn


@pytest.mark.parametrize("op,doms", [
    (lambda L, x: L.sigmoid(x), ("real",)), (lambda L, x: L.tanh(x), ("real",)),
    (lambda L, x: L.erf(x), ("real",)), (lambda L, x: L.erfinv(x), ("unit",)),
    (lambda L, x: L.asin(x), ("unit",)), (lambda L, x: L.logit(x), ("open01",)),
    (lambda L, x: L.rsqrt(x), ("pos",)), (lambda L, x: L.relu(x) * x, ("nonzero",)),
    (lambda L, x: x.clamp(-0.5, 0.5) * x, ("real",)), (lambda L, x: x.abs() * x, ("nonzero",)),
    (lambda L, x, y: L.atan2(x, y), ("real", "nonzero")),
    (lambda L, x, y: L.hypot(x, y), ("nonzero", "nonzero")),
    (lambda L, x, y: L.xlogy(x, y), ("real", "pos")),
    (lambda L, x, y: L.maximum(x, y) * x, ("real", "real")),
    (lambda L, x, y: L.lerp(x, y, y), ("real", "real")),
    (lambda L, x, y: L.addcdiv(x, x, y), ("real", "nonzero")),
    (lambda L, x, y: L.pow(x, y), ("pos", "real")),
    (lambda L, x, y: x.copysign(y) * x, ("nonzero", "nonzero")),
])
def test_double_backward_vs_torch(op, doms):
    rng = np.random.default_rng(5)
    ins = [_dom(d, (2, 3), rng) for d in doms]
    check(_double_backward(op), *ins, names=False)


# ---------------------------------------------------------------- in-place forms

# name: (prep(x): out-of-place preparation of a fresh non-leaf, op(y): the in-place call)
_ID = lambda x: x * 1       # noqa: E731
_ABS = lambda x: x.abs() + 0.1      # noqa: E731
_SIG = lambda x: x.sigmoid() * 0.9  # noqa: E731
INPLACE = {
    "abs_": (_ID, lambda y: y.abs_()), "absolute_": (_ID, lambda y: y.absolute_()),
    "neg_": (_ID, lambda y: y.neg_()), "negative_": (_ID, lambda y: y.negative_()),
    "sign_": (_ID, lambda y: y.sign_()), "sqrt_": (_ABS, lambda y: y.sqrt_()),
    "rsqrt_": (_ABS, lambda y: y.rsqrt_()), "square_": (_ID, lambda y: y.square_()),
    "exp_": (_ID, lambda y: y.exp_()), "exp2_": (_ID, lambda y: y.exp2_()),
    "expm1_": (_ID, lambda y: y.expm1_()), "log_": (_ABS, lambda y: y.log_()),
    "log2_": (_ABS, lambda y: y.log2_()), "log10_": (_ABS, lambda y: y.log10_()),
    "log1p_": (_ABS, lambda y: y.log1p_()), "sin_": (_ID, lambda y: y.sin_()),
    "cos_": (_ID, lambda y: y.cos_()), "tan_": (_ID, lambda y: y.tan_()),
    "asin_": (_SIG, lambda y: y.asin_()), "acos_": (_SIG, lambda y: y.acos_()),
    "atan_": (_ID, lambda y: y.atan_()), "sinh_": (_ID, lambda y: y.sinh_()),
    "cosh_": (_ID, lambda y: y.cosh_()), "tanh_": (_ID, lambda y: y.tanh_()),
    "asinh_": (_ID, lambda y: y.asinh_()),
    "acosh_": (lambda x: x.abs() + 1.5, lambda y: y.acosh_()),
    "atanh_": (_SIG, lambda y: y.atanh_()), "arcsin_": (_SIG, lambda y: y.arcsin_()),
    "arccos_": (_SIG, lambda y: y.arccos_()), "arctan_": (_ID, lambda y: y.arctan_()),
    "arcsinh_": (_ID, lambda y: y.arcsinh_()), "arctanh_": (_SIG, lambda y: y.arctanh_()),
    "sigmoid_": (_ID, lambda y: y.sigmoid_()), "logit_": (_SIG, lambda y: y.logit_()),
    "logit_eps_": (_SIG, lambda y: y.logit_(0.3)), "relu_": (_ID, lambda y: y.relu_()),
    "erf_": (_ID, lambda y: y.erf_()), "erfc_": (_ID, lambda y: y.erfc_()),
    "erfinv_": (_SIG, lambda y: y.erfinv_()), "floor_": (_ID, lambda y: y.floor_()),
    "ceil_": (_ID, lambda y: y.ceil_()), "round_": (_ID, lambda y: y.round_()),
    "round_dec_": (_ID, lambda y: y.round_(decimals=1)), "trunc_": (_ID, lambda y: y.trunc_()),
    "fix_": (_ID, lambda y: y.fix_()), "frac_": (_ID, lambda y: y.frac_()),
    "reciprocal_": (_ID, lambda y: y.reciprocal_()),
    "clamp_": (_ID, lambda y: y.clamp_(-0.5, 0.5)), "clip_": (_ID, lambda y: y.clip_(max=0.2)),
    "clamp_min_": (_ID, lambda y: y.clamp_min_(0.1)),
    "clamp_max_": (_ID, lambda y: y.clamp_max_(0.1)),
    "nan_to_num_": (_ID, lambda y: y.nan_to_num_()), "deg2rad_": (_ID, lambda y: y.deg2rad_()),
    "rad2deg_": (_ID, lambda y: y.rad2deg_()),
    "add_": (_ID, lambda y: y.add_(y.detach() * 2, alpha=2)), "sub_": (_ID, lambda y: y.sub_(1.5)),
    "mul_": (_ID, lambda y: y.mul_(2.5)), "div_": (_ID, lambda y: y.div_(3.0)),
    "iadd": (_ID, lambda y: y.__iadd__(2.0)), "imul": (_ID, lambda y: y.__imul__(1.5)),
    "imod": (_ID, lambda y: y.__imod__(0.7)),
    "remainder_": (_ID, lambda y: y.remainder_(y.detach().exp())),
    "fmod_": (_ID, lambda y: y.fmod_(0.6)), "pow_": (_ABS, lambda y: y.pow_(1.5)),
    "atan2_": (_ID, lambda y: y.atan2_(y.detach().exp())),
    "arctan2_": (_ID, lambda y: y.arctan2_(y.detach().exp())),
    "hypot_": (_ID, lambda y: y.hypot_(y.detach().exp())),
    "copysign_": (_ID, lambda y: y.copysign_(-1.0)),
    "xlogy_": (_ID, lambda y: y.xlogy_(y.detach().exp())),
    "lerp_": (_ID, lambda y: y.lerp_(y.detach().exp(), 0.3)),
    "lerp_t_": (_ID, lambda y: y.lerp_(y.detach().exp(), y.detach().sigmoid())),
    "addcmul_": (_ID, lambda y: y.addcmul_(y.detach(), y.detach().exp(), value=0.5)),
    "addcdiv_": (_ID, lambda y: y.addcdiv_(y.detach(), y.detach().exp(), value=2)),
    "float_power_": (_ABS, lambda y: y.float_power_(2)),
    "floor_divide_": (_ID, lambda y: y.floor_divide_(0.7)),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_vs_torch(name):
    prep, op = INPLACE[name]
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 4))

    def fn(L, x):
        y = prep(x)         # a fresh non-leaf to write into
        r = op(y)
        assert r is y
        return y
    if name in ("asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_", "arctanh_"):
        # torch records a node whose backward is not implemented
        check(fn, a, grad=False)
        check_error(lambda L: fn(L, L.tensor(a, requires_grad=True)).sum().backward())
        return
    if name == "floor_divide_":
        # torch: the derivative is not implemented; grad_fn name and forward still compare
        check(fn, a, grad=False)
        return
    check(fn, a)
    if name == "float_power_":
        check_error(lambda L: fn(L, L.tensor(a.astype(np.float32), requires_grad=True)))
        return
    check(fn, a.astype(np.float32))


def test_inplace_errors():
    check_error(lambda L: L.tensor([1, 2]).sqrt_())
    check_error(lambda L: L.tensor([1.0], requires_grad=True).sin_())
    check_error(lambda L: L.tensor([1.0]).float_power_(2))
    check_error(lambda L: L.tensor([True]).relu_())
    check_error(lambda L: L.tensor([1, 2]).div_(2))
    check_error(lambda L: L.zeros(3).add_(L.zeros(2, 3)))
    for lib in LIBS:
        x = lib.tensor([1, -2, 3])
        assert x.relu_() is x and x.tolist() == [1, 0, 3]
        x = lib.tensor([0.5, 4.5])
        v = x[1:]
        x.floor_()
        assert v.tolist() == [4.0]


# ---------------------------------------------------------------- errors

ERRORS = [
    lambda L: L.clamp(L.ones(2)),
    lambda L: L.ones(2).clamp(),
    lambda L: L.ones(2).clip_(),
    lambda L: L.abs(L.tensor([True])),
    lambda L: L.relu(L.tensor([True])),
    lambda L: L.positive(L.tensor([True])),
    lambda L: -L.tensor([True]),
    lambda L: L.tensor([True]) - L.tensor([False]),
    lambda L: L.floor(L.tensor([True])),
    lambda L: L.frac(L.tensor([1, 2])),
    lambda L: L.round(L.tensor([1, 2]), decimals=1),
    lambda L: L.tensor([1.0]).imag,
    lambda L: L.add(L.tensor([1]), L.tensor([1]), alpha=0.5),
    lambda L: L.ones(2, 3) + L.ones(3, 2),
    lambda L: L.maximum(L.ones(2, 3), L.ones(4)),
    lambda L: L.atan2(L.ones(2), L.ones(3)),
    lambda L: L.lerp(L.ones(2), L.ones(3), 0.5),
    lambda L: L.where(L.ones(2, dtype=L.bool), L.ones(3), L.ones(2)),
    lambda L: L.maximum(L.ones(2), 1.0),
    lambda L: L.minimum(2, L.ones(2)),
    lambda L: L.atan2(L.ones(2), 0.5),
    lambda L: L.hypot(L.ones(2), 2.0),
    lambda L: L.fmax(L.ones(2), 1),
    lambda L: L.hypot(L.tensor([3]), L.tensor([4])),
    lambda L: L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5),
    lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64)),
    lambda L: L.lerp(L.tensor([1]), L.tensor([2]), 0.5),
    lambda L: L.lerp(L.tensor([1]), L.tensor([2]), L.tensor([1])),
    lambda L: L.addcdiv(L.ones(2), L.tensor([1, 2]), L.tensor([1, 2])),
    lambda L: L.remainder(L.tensor([1, 2]), L.tensor([0, 1])),
    lambda L: L.tensor([1, 2]) % 0,
    lambda L: L.fmod(L.tensor([1, 2]), 0),
    lambda L: L.tensor([4]) // 0,
    lambda L: L.remainder(L.tensor([True]), L.tensor([True])),
    lambda L: L.fmod(L.tensor([True]), L.tensor([True])),
    lambda L: L.tensor([1.5]) << 1,
    lambda L: L.tensor([1]) >> 1.5,
    lambda L: L.tensor([True]) << L.tensor([True]),
    lambda L: L.bitwise_and(L.ones(2), L.ones(2)),
    lambda L: ~L.ones(2),
    lambda L: L.isclose(L.ones(2), L.ones(2, dtype=L.int64)),
    lambda L: L.isclose(L.ones(2), L.ones(2), rtol=-1),
    lambda L: L.isclose(L.ones(2), L.ones(2), atol=-1),
    lambda L: L.tensor([2, 3]) ** -1,
    lambda L: L.div(L.ones(2), 2, rounding_mode="round"),
]


ERRORS += [
    lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(3)),
    lambda L: L.addcmul(L.ones(2), L.ones(3), L.ones(2)),
    lambda L: L.addcdiv(L.ones(2), L.ones(2), L.ones(3)),
    lambda L: L.copysign(L.ones(2), L.ones(3)),
    lambda L: L.xlogy(L.ones(2), L.ones(3)),
    lambda L: L.remainder(L.ones(2), L.ones(3)),
    lambda L: L.clamp(L.ones(2), L.ones(3)),
    lambda L: L.logical_xor(L.ones(2), 1),
    lambda L: L.equal(L.ones(2), 1),
    lambda L: L.logit(L.ones(2, dtype=L.complex64)),
    lambda L: L.floor(L.ones(2, dtype=L.complex64)),
    lambda L: L.round(L.ones(2, dtype=L.complex64)),
    lambda L: L.relu(L.ones(2, dtype=L.complex64)),
    lambda L: L.clamp(L.ones(2, dtype=L.complex64), 0, 1),
    lambda L: L.clamp_min(L.ones(2, dtype=L.complex64), 0),
    lambda L: L.atan2(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.copysign(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.xlogy(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.fmod(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.hypot(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.fmax(L.ones(2, dtype=L.complex64), L.ones(2)),
    lambda L: L.erfinv(L.ones(2, dtype=L.complex64)),
    lambda L: L.signbit(L.ones(2, dtype=L.complex64)),
    lambda L: L.isposinf(L.ones(2, dtype=L.complex64)),
    lambda L: L.deg2rad(L.ones(2, dtype=L.complex64)),
    lambda L: L.sign(L.ones(2, dtype=L.complex64)),
]


def test_clamp_mixed_bounds():
    """A 0-dim tensor bound outside autograd reads as a scalar; other mixes are TypeErrors."""
    check(lambda L, x: (x.clamp(0.0, L.tensor(0.5)), L.clamp(x, min=L.tensor(-0.5), max=1)),
          np.array([-1.0, 0.2, 0.7]))
    check_error(lambda L: L.ones(2).clamp(L.ones(2), 0.5), match_message=False)
    check_error(lambda L: L.ones(2).clamp(0.0, L.tensor(1.0, requires_grad=True)),
                match_message=False)


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    check_error(ERRORS[i])


def test_no_derivative_errors():
    """torch's NotImplemented node: the forward works, the backward raises."""
    for lib in LIBS:
        x = lib.tensor([1.5, 2.5], requires_grad=True)
        assert type((x // 2).grad_fn).__name__ == "NotImplemented"
        assert type((3 % x).grad_fn).__name__ == "NotImplemented"
    check_error(lambda L: (L.tensor([1.5], requires_grad=True) // 2).sum().backward())
    check_error(lambda L: (3 % L.tensor([1.5], requires_grad=True)).sum().backward())
    check_error(lambda L: L.floor_divide(L.tensor([1.5], requires_grad=True),
                                         L.tensor([2.0], requires_grad=True)).sum().backward())


def test_allclose_equal_and_misc():
    a = np.array([1.0, 2.0, math.nan])
    for lib in LIBS:
        t = lib.tensor(a)
        assert lib.allclose(t[:2], t[:2] + 1e-9) is True
        assert lib.allclose(t, t) is False and lib.allclose(t, t, equal_nan=True) is True
        assert t[:2].allclose(t[:2] * 1.1) is False
        assert lib.equal(t[:2], t[:2].clone()) is True
        assert lib.equal(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])) is True
        assert lib.equal(lib.tensor([1, 2]), lib.tensor([1, 2, 3])) is False
        assert lib.equal(t, t) is False
        x = lib.tensor([1.0, -2.0])
        assert lib.positive(x) is x and +x is x and lib.conj(x) is x and lib.real(x) is x
        assert x.real is x
    check(lambda L, x, y: (L.isclose(x, y, equal_nan=True), L.isclose(x, y)),
          np.array([1.0, math.inf, -math.inf, math.nan, 0.0]),
          np.array([1.0, math.inf, math.inf, math.nan, 1e-9]))
    check(lambda L, x, y: L.isclose(x, y), np.array([1, 2, 3]), np.array([1, 3, 3]))
    check(lambda L, x, y: L.isclose(x, y), np.array([True, False]), np.array([True, True]))


def test_add_sub_alpha_and_promotion():
    i = np.array([1, 2, 3])
    f = np.array([0.5, 1.5, 2.5], np.float32)
    d = np.array(2.0)
    check(lambda L, a, b, c: (L.add(a, b, alpha=2), a + c, a * 1.5, a - 2, b + c, a / 2,
                              L.sub(b, a, alpha=-1), b * a, L.add(a, 1, alpha=3)),
          i, f, d)
    check(lambda L, a: (a + True, a * False), np.array([True, False]), grad=False)


def test_out_argument():
    for name in ("sin", "exp2", "abs", "sigmoid", "erf", "floor", "atan2", "maximum", "hypot",
                 "copysign", "remainder"):
        def fn(L, x, y, name=name):
            out = L.empty(0, dtype=x.dtype)
            f = getattr(L, name)
            r = f(x, y, out=out) if name in ("atan2", "maximum", "hypot", "copysign",
                                               "remainder") else f(x, out=out)
            assert r is out
            return out
        check(fn, np.array([0.3, -1.2]), np.array([0.5, 2.0]), grad=False)


# ---------------------------------------------------------------- complex (forward + a few grads)

def test_complex_ops():
    z = np.array([1 + 2j, -0.5 + 0.3j, 0.2 - 1j])
    for fn in (lambda L, x: L.exp(x), lambda L, x: L.sin(x), lambda L, x: L.tanh(x),
               lambda L, x: L.sqrt(x), lambda L, x: L.log(x), lambda L, x: L.sgn(x),
               lambda L, x: x.abs(), lambda L, x: x.angle(), lambda L, x: L.conj(x) * 1,
               lambda L, x: L.conj_physical(x), lambda L, x: x.real * 1, lambda L, x: x.imag * 1,
               lambda L, x: L.sigmoid(x), lambda L, x: x.reciprocal(), lambda L, x: x * x.conj()):
        check(fn, z, grad=False)
    # gradients through real-valued results
    for fn in (lambda L, x: L.exp(x).abs(), lambda L, x: L.sin(x).abs(), lambda L, x: x.abs(),
               lambda L, x: (x * x.conj()).real, lambda L, x: L.conj(x).imag * 1,
               lambda L, x: L.sgn(x).real * 1, lambda L, x: L.sgn(x).imag * 1,
               lambda L, x: L.sqrt(x).abs(), lambda L, x: (L.conj_physical(x) * x).imag,
               lambda L, x: L.tanh(x).abs(), lambda L, x: x.angle()):
        check(fn, z)
    check_error(lambda L: L.sign(L.tensor([1j])))


# ---------------------------------------------------------------- hypothesis: broadcasting

_BINOPS = {
    "add": lambda L, a, b: a + b, "sub_alpha": lambda L, a, b: L.sub(a, b, alpha=0.5),
    "mul": lambda L, a, b: a * b, "div": lambda L, a, b: a / b,
    "maximum": lambda L, a, b: L.maximum(a, b), "fmin": lambda L, a, b: L.fmin(a, b),
    "atan2": lambda L, a, b: L.atan2(a, b), "hypot": lambda L, a, b: L.hypot(a, b),
    "copysign": lambda L, a, b: L.copysign(a, b), "remainder": lambda L, a, b: a % b,
    "lerp": lambda L, a, b: L.lerp(a, b, 0.25), "xlogy": lambda L, a, b: L.xlogy(a, b.abs()),
    "pow": lambda L, a, b: a.abs() ** b, "where": lambda L, a, b: L.where(a > b, a, b),
    "eq": lambda L, a, b: a == b, "clamp": lambda L, a, b: a.clamp(min=b),
    "addcmul": lambda L, a, b: L.addcmul(a, b, a),
}


@st.composite
def _broadcast_pair(draw):
    nd = draw(st.integers(0, 4))
    base = draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    a = [s if draw(st.booleans()) else 1 for s in base]
    b = [s if draw(st.booleans()) else 1 for s in base]
    a = a[draw(st.integers(0, len(a))):]
    b = b[draw(st.integers(0, len(b))):]
    return tuple(a), tuple(b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=_broadcast_pair(), op=st.sampled_from(sorted(_BINOPS)),
       dtype=st.sampled_from([np.float64, np.float32]), seed=st.integers(0, 2**16))
def test_broadcasting_property(shapes, op, dtype, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.uniform(0.3, 2.0, shapes[0]) * rng.choice([-1, 1], shapes[0]), dtype)
    b = np.asarray(rng.uniform(0.3, 2.0, shapes[1]) * rng.choice([-1, 1], shapes[1]), dtype)
    check(_BINOPS[op], a, b)


@settings(max_examples=25, deadline=None)
@given(shapes=_broadcast_pair(), seed=st.integers(0, 2**16))
def test_broadcasting_mixed_dtypes_property(shapes, seed):
    rng = np.random.default_rng(seed)
    a = np.asarray(rng.integers(-3, 4, shapes[0]))
    b = np.asarray(rng.uniform(-2, 2, shapes[1]), np.float32)
    check(lambda L, x, y: (x + y, x * y, L.maximum(x.to(y.dtype), y), L.atan2(x, y),
                           x == y, L.where(x > 0, y, 1.0)), a, b)


def test_numpy_scalar_arguments_keep_tensor_dtype():
    """NumPy scalars act as Python scalars (weak), as in torch."""
    a = np.array([0.3, -1.2, 2.0], np.float32)
    b = np.array([0.5, 2.0, 1.5], np.float32)
    f8, i8 = np.float64(0.5), np.int64(2)
    check(lambda L, x, y: (x.clamp(f8), x.clamp(max=i8), L.lerp(x, y, f8),
                           L.addcmul(x, x, y, value=f8), L.addcdiv(x, x, y, value=f8),
                           L.copysign(x, -f8), L.xlogy(x, f8), L.remainder(x, f8),
                           L.fmod(x, i8), x + f8, x * i8, L.where(x > 0, x, f8)), a, b)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY))
def test_float16(name):
    fn, doms = (UNARY[name][0], (UNARY[name][1],)) if name in UNARY else BINARY[name][:2]
    rng = np.random.default_rng(7)
    check(fn, *[_dom(d, (3, 4), rng, np.float16) for d in doms])


def test_relu_backward_edge_values_match_torch():
    """The no-graph relu backward multiplies by a mask: NaN results must pass the gradient
    and non-finite gradients must still give exact zeros where the result is <= 0."""
    x = np.array([-1.0, 0.0, 2.0, np.nan, -3.0, 4.0], np.float32)
    for g in ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [np.inf, np.nan, 1.0, -np.inf, np.nan, np.inf]):
        def run(L, x, g=np.array(g, np.float32)):
            x.requires_grad_()
            y = L.relu(x)
            y.backward(L.tensor(g))
            return x.grad
        check(run, x, grad=False)



def _layout(rnd, shape):
    """(shape, strides) of a random torch layout built by views: contiguous, permuted,
    strided (every other element), expanded from size-1 dims, or unsqueezed."""
    kind = rnd.choice(["c", "perm", "perm", "step", "expand", "unsqueeze"])
    n = int(np.prod(shape))
    nd = len(shape)
    t = torch.arange(1.0, n + 1).reshape(shape)
    if kind == "perm" and nd > 1:
        p = list(range(nd))
        rnd.shuffle(p)
        t = torch.arange(1.0, n + 1).reshape([shape[i] for i in p]).permute(list(np.argsort(p)))
    elif kind == "step" and nd:
        big = torch.arange(1.0, n * 2 ** nd + 1).reshape([2 * k for k in shape])
        t = big[tuple(slice(None, None, 2) for _ in shape)]
    elif kind == "expand" and nd:
        sh = [1 if rnd.random() < 0.5 else k for k in shape]
        t = torch.arange(1.0, int(np.prod(sh)) + 1).reshape(sh).expand(*shape)
    elif kind == "unsqueeze" and nd and 1 in shape:
        d = shape.index(1)
        t = torch.arange(1.0, n + 1).reshape(shape[:d] + shape[d + 1:]).unsqueeze(d)
    return shape, t.stride()


def _layout_pair(rnd):
    """Layouts of two operands that broadcast together (up to 4 dims, size-1 dims often)."""
    nd = rnd.randint(1, 4)
    out = [rnd.choice([1, 1, 2, 3]) for _ in range(nd)]
    shapes = [tuple(n if rnd.random() < 0.7 else 1 for n in out[nd - rnd.randint(0, nd):])
              for _ in range(2)]
    return [_layout(rnd, s) for s in shapes]


def _strided(L, layout, dtype):
    shape, stride = layout
    size = 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    return L.arange(1, size + 1, dtype=getattr(L, dtype)).as_strided(shape, stride)


@pytest.mark.parametrize("seed", range(6))
def test_elementwise_result_strides(seed):
    """Note [Elementwise layout]: the strides of add/sub/mul/div results (broadcast, permuted,
    strided, expanded and unsqueezed operands, built with torch's strides in both libraries;
    float, int and mixed dtypes; a Python number) are torch's, and so are the values (all
    but the hot paths' two known gaps, next test)."""
    import random
    rnd = random.Random(seed)
    for _ in range(80):
        layouts = _layout_pair(rnd)
        op = rnd.choice(["add", "sub", "mul", "div"])
        dtypes = rnd.choice([("float32", "float32"), ("float64", "float32"),
                             ("int64", "int64"), ("float64", None)])
        if op in ("add", "mul") and dtypes[0] == dtypes[1] == "float32" and \
                layouts[0][0] == layouts[1][0] or op != "div" and dtypes[1] is None:
            dtypes = ("float64", "float32")     # the hot paths' known gaps: test below
        got = []
        for L in (torch, ember):
            a = _strided(L, layouts[0], dtypes[0])
            b = 2 if dtypes[1] is None else _strided(L, layouts[1], dtypes[1])
            r = getattr(L, op)(a, b)
            got.append((r.stride(), r.dtype.__repr__(), r.tolist()))
        assert got[0] == got[1], (layouts, op, dtypes, got)


LAYOUT_OPS = {
    "atan2": lambda L, a, b: L.atan2(a, b), "hypot": lambda L, a, b: L.hypot(a, b),
    "maximum": lambda L, a, b: L.maximum(a, b), "fmin": lambda L, a, b: L.fmin(a, b),
    "fmod": lambda L, a, b: L.fmod(a, b), "remainder": lambda L, a, b: L.remainder(a, b),
    "eq": lambda L, a, b: L.eq(a, b), "lt": lambda L, a, b: a < b,
    "logaddexp": lambda L, a, b: L.logaddexp(a, b), "copysign": lambda L, a, b: L.copysign(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b), "pow": lambda L, a, b: L.pow(a, b),
    "pow_number": lambda L, a, b: a ** 2, "float_power": lambda L, a, b: L.float_power(a, b),
    "where": lambda L, a, b: L.where(a > 2, a, b), "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
    "lerp_tensor": lambda L, a, b: L.lerp(a, b, b / 10),
    "floor_divide": lambda L, a, b: L.floor_divide(a, b), "rsub": lambda L, a, b: L.rsub(a, b),
    "div_trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "logical_and": lambda L, a, b: L.logical_and(a, b),
    "bitwise_and": lambda L, a, b: L.bitwise_and(a, b),
    "heaviside": lambda L, a, b: L.heaviside(a, b),
    "nextafter": lambda L, a, b: L.nextafter(a, b), "gcd": lambda L, a, b: L.gcd(a, b),
}
_INT_OPS = ("bitwise_and", "gcd")


@pytest.mark.parametrize("name", sorted(LAYOUT_OPS))
def test_binary_result_strides(name):
    """Note [Elementwise layout] for the other binary ops (comparisons, logical and bitwise
    ops, where, lerp, pow, ...): torch's strides on broadcast, permuted, strided, expanded and
    unsqueezed float64 (int64) operands; values to float64 rounding."""
    import random
    rnd = random.Random(name)
    fn = LAYOUT_OPS[name]
    for _ in range(40):
        layouts = _layout_pair(rnd)
        dtype = "int64" if name in _INT_OPS else "float64"
        got = []
        for L in (torch, ember):
            r = fn(L, _strided(L, layouts[0], dtype), _strided(L, layouts[1], dtype))
            got.append((r.stride(), str(r.dtype), np.asarray(r.tolist())))
        assert got[0][:2] == got[1][:2], (layouts, got)
        np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-12, equal_nan=True)


@pytest.mark.xfail(strict=True, reason="Note [Elementwise layout]: add/mul's hot paths check "
                   "only for broadcasting (a layout check there costs W1/W2 2-3%), so a "
                   "same-shape pair with a non-contiguous operand, or a number with a tensor "
                   "whose size-1 dims have unusual strides, keeps NumPy's layout")
@pytest.mark.parametrize("case", ["transposed_pair", "number_size1"])
def test_elementwise_layout_hot_path_gaps(case):
    got = []
    for L in (torch, ember):
        if case == "transposed_pair":
            r = L.arange(6.0).reshape(3, 2).t() * L.arange(6.0).reshape(2, 3)
        else:
            r = L.arange(2.0).as_strided((2, 1, 1), (1, 2, 2)) + 2
        got.append(r.stride())
    assert got[0] == got[1]


F_ = "float"        # the input dtypes each unary op below is run on: float only, or any
UNARY_LAYOUT_OPS = {
    "exp": (F_, lambda L, x: x.exp()), "neg": ("any", lambda L, x: -x),
    "abs": ("any", lambda L, x: x.abs()), "sigmoid": (F_, lambda L, x: x.sigmoid()),
    "sin": ("any", lambda L, x: x.sin()), "sqrt": ("any", lambda L, x: x.sqrt()),
    "tanh": (F_, lambda L, x: x.tanh()), "relu": ("any", lambda L, x: x.relu()),
    "floor": ("num", lambda L, x: x.floor()), "round": ("num", lambda L, x: x.round()),
    "sign": ("any", lambda L, x: x.sign()), "sgn": ("any", lambda L, x: x.sgn()),
    "signbit": ("any", lambda L, x: x.signbit()), "isnan": ("any", lambda L, x: x.isnan()),
    "isfinite": ("any", lambda L, x: x.isfinite()), "isreal": ("any", lambda L, x: x.isreal()),
    "nan_to_num": ("any", lambda L, x: x.nan_to_num()),
    "logical_not": ("any", lambda L, x: x.logical_not()), "angle": ("any", lambda L, x: x.angle()),
    "to_float64": ("any", lambda L, x: x.to(L.float64)), "int": ("any", lambda L, x: x.int()),
    "clone": ("any", lambda L, x: x.clone()),
    "contiguous": ("any", lambda L, x: x.contiguous()),
    "zeros_like": ("any", lambda L, x: L.zeros_like(x)),
    "full_like": ("any", lambda L, x: L.full_like(x, 3)),
    "erf": ("any", lambda L, x: L.erf(x)), "erfinv": (F_, lambda L, x: L.erfinv(x / 100)),
    "ndtr": ("any", lambda L, x: L.special.ndtr(x)),
    "bessel_j0": ("any", lambda L, x: L.special.bessel_j0(x)),
    "polygamma": ("any", lambda L, x: L.polygamma(1, x)),
    "gelu": (F_, lambda L, x: L.nn.functional.gelu(x)),
    "elu": (F_, lambda L, x: L.nn.functional.elu(x)),
    "softplus": (F_, lambda L, x: L.nn.functional.softplus(x)),
    "logsigmoid": (F_, lambda L, x: L.nn.functional.logsigmoid(x)),
    "rrelu_eval": (F_, lambda L, x: L.nn.functional.rrelu(x)),
    "frexp": (F_, lambda L, x: L.frexp(x)[0]),
    "rpow": ("num", lambda L, x: 2 ** x), "masked_fill": ("any", lambda L, x: x.masked_fill(
        L.tensor([True, False]).repeat(x.shape[-1])[:x.shape[-1]], 0)),
}


@pytest.mark.parametrize("name", sorted(UNARY_LAYOUT_OPS))
def test_unary_result_strides(name):
    """Note [Elementwise layout] for ops of one tensor (pointwise ops, conversions, clone,
    *_like, the special functions and activations): torch keeps a non-contiguous dense
    input's strides and lays a strided one out densely in its dims' order, except where its
    kernel allocates C order (pow of a number, masked_fill, logsigmoid, rrelu, complex angle);
    values. Inputs: permuted, strided and expanded, with no size-1 dims, in float64, float32,
    int64, bool and complex128 (size-1 dims, conversions of expanded inputs:
    test_unary_layout_gaps)."""
    import random
    rnd = random.Random(name)
    kinds, fn = UNARY_LAYOUT_OPS[name]
    dtypes = {F_: ["float64", "float32"], "num": ["float64", "float32", "int64"],
              "any": ["float64", "float32", "int64", "bool", "complex128"]}[kinds]
    for _ in range(40):
        shape = tuple(rnd.choice([2, 3, 4]) for _ in range(rnd.randint(2, 4)))
        layout, dtype = _layout(rnd, shape), rnd.choice(dtypes)
        if 0 in layout[1] and (dtype != "float64" or name in ("int", "isreal")):
            continue        # (converting an expanded tensor: test_unary_layout_gaps)
        got = []
        for L in (torch, ember):
            x = _strided(L, layout, "float64")
            x = (x > 3) if dtype == "bool" else (x * (1 - 1j)) if dtype == "complex128" else \
                x.to(getattr(L, dtype))
            try:
                r = fn(L, x)
            except (RuntimeError, NotImplementedError) as e:
                got.append(type(e).__name__)
                continue
            got.append((r.stride(), str(r.dtype), np.asarray(r.tolist())))
        if isinstance(got[0], str) or isinstance(got[1], str):
            assert got[0] == got[1], (layout, dtype, got)
            continue
        assert got[0][:2] == got[1][:2], (layout, dtype, got)
        if name not in ("zeros_like",):     # (the values' own accuracy: tested elsewhere)
            np.testing.assert_allclose(got[1][2], got[0][2], atol=1e-6, equal_nan=True,
                                       rtol=1e-5)


@pytest.mark.xfail(strict=True, reason="Note [Elementwise layout]: ops of one tensor keep "
                   "NumPy's K order, which is not torch's for the strides of size-1 dims: on a "
                   "non-contiguous input, and where torch keeps a contiguous input's own "
                   "size-1 strides (clone, .to, hardtanh, nan_to_num; its exp does not: "
                   "torch's kernels disagree among themselves there); matching means a "
                   "layout pass in every producer, the hot ones included.")
@pytest.mark.parametrize("case", ["size1_exp", "size1_clone"])
def test_unary_layout_gaps(case):
    got = []
    for L in (torch, ember):
        if case == "size1_exp":
            r = L.arange(9.0).as_strided((3, 3, 1), (1, 3, 1)).exp()
        else:
            r = L.arange(1.0, 5.0).as_strided((1, 4), (1, 1)).clone()
        got.append(r.stride())
    assert got[0] == got[1]


def test_a_dtype_conversion_of_an_expanded_tensor_is_c_ordered_as_torchs():
    # (was a gap above: NumPy's astype keeps K order; convert.py lays it out as torch does)
    got = [L.arange(1.0, 5.0).as_strided((3, 4), (0, 1)).to(L.int64).stride()
           for L in (torch, ember)]
    assert got[0] == got[1]
