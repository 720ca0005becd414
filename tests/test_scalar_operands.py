"""Python numbers beside tensors, compared with torch (Note [Scalar operands] in
ember/ops/_args.py): float16 tensors over every finite float16 value, bit for bit, with the
scalars where torch's rules show (not representable in float16, beyond its range, rounding
differently through float32, subnormal); Python ints outside a dtype's range and beyond int64
in both operand orders (values, dtypes, exception types and first lines of messages); float16
gradients of ops with a scalar operand."""
import operator as op

import numpy as np
import pytest
import torch

import ember

_ALL = np.arange(-32768, 32768).astype(np.int16).view(np.float16)
HALF = _ALL[np.isfinite(_ALL)]                 # every finite float16
HALF_B = HALF[::-1].copy()
HALF_C = np.roll(HALF, 7)

SCALARS = [1.1, 0.1, -0.85, 3, 2049, 1e-05, 65504.0, 65519.0, 65520.0, 1e5, 1 / 3, 2.0 ** -25,
           1 + 2.0 ** -11 + 2.0 ** -30,     # float32 rounds it to a float16 tie: 1.0, not 1.001
           2.5, -7, 0.5, 1e-08, 3 * 2.0 ** -24, -0.0, float("inf"), float("nan"), True]


def _data(lib, r):
    return r.detach().numpy() if lib is torch else np.asarray(r.detach()._data)


def outcome(lib, fn, *args):
    """("ok", dtype, array) or (exception type, first line of its message)."""
    try:
        r = fn(lib, *args)
    except Exception as e:         # noqa: BLE001 (compared with torch's)
        return type(e).__name__, str(e).splitlines()[0] if str(e) else ""
    if isinstance(r, (bool, int, float)):
        return "ok", type(r).__name__, repr(r)
    return "ok", str(r.dtype), _data(lib, r)


def assert_same(a, b, what):
    assert a[:2] == b[:2], (what, a[:2], b[:2])
    if a[0] != "ok" or isinstance(a[2], str):
        assert a == b, what
        return
    x, y = a[2], b[2]
    assert x.shape == y.shape, what
    if x.dtype.kind == "f":         # bit for bit, any NaN equal to any NaN
        ix, iy = x.view(f"i{x.itemsize}"), y.view(f"i{x.itemsize}")
        bad = (ix != iy) & ~(np.isnan(x) & np.isnan(y))
    else:
        bad = x != y
    assert not bad.any(), (what, int(bad.sum()), x[bad][:5], y[bad][:5])


def T(lib, a):
    return lib.tensor(a)


HALF_OPS = {
    "add": lambda L, s: T(L, HALF) + s, "radd": lambda L, s: s + T(L, HALF),
    "sub": lambda L, s: T(L, HALF) - s, "rsub": lambda L, s: s - T(L, HALF),
    "rsub_fn": lambda L, s: L.rsub(T(L, HALF), s),
    "mul": lambda L, s: T(L, HALF) * s, "rmul": lambda L, s: s * T(L, HALF),
    "div": lambda L, s: T(L, HALF) / s, "rdiv": lambda L, s: s / T(L, HALF),
    "true_divide": lambda L, s: L.true_divide(T(L, HALF), s),
    "div_floor": lambda L, s: L.div(T(L, HALF), s, rounding_mode="floor"),
    "div_trunc": lambda L, s: L.div(T(L, HALF), s, rounding_mode="trunc"),
    "floordiv": lambda L, s: T(L, HALF) // s, "rfloordiv": lambda L, s: s // T(L, HALF),
    "pow": lambda L, s: T(L, HALF) ** s, "rpow": lambda L, s: s ** T(L, HALF),
    "mod": lambda L, s: T(L, HALF) % s, "rmod": lambda L, s: s % T(L, HALF),
    "remainder": lambda L, s: L.remainder(s, T(L, HALF)),
    "fmod": lambda L, s: L.fmod(T(L, HALF), s),
    "clamp_min": lambda L, s: L.clamp(T(L, HALF), min=s),
    "clamp_max": lambda L, s: L.clamp(T(L, HALF), max=s),
    "clamp_both": lambda L, s: L.clamp(T(L, HALF), min=s, max=s),
    "clamp_min_fn": lambda L, s: L.clamp_min(T(L, HALF), s),
    "clamp_max_fn": lambda L, s: L.clamp_max(T(L, HALF), s),
    "where": lambda L, s: L.where(T(L, HALF) > 0, T(L, HALF), s),
    "where_first": lambda L, s: L.where(T(L, HALF) > 0, s, T(L, HALF)),
    "masked_fill": lambda L, s: T(L, HALF).masked_fill(T(L, HALF) > 0, s),
    "fill_": lambda L, s: T(L, HALF[:3]).fill_(s),
    "eq": lambda L, s: T(L, HALF) == s, "ne": lambda L, s: T(L, HALF) != s,
    "lt": lambda L, s: T(L, HALF) < s, "ge": lambda L, s: T(L, HALF) >= s,
    "req": lambda L, s: s == T(L, HALF), "rlt": lambda L, s: s < T(L, HALF),
    "add_": lambda L, s: T(L, HALF).add_(s), "sub_": lambda L, s: T(L, HALF).sub_(s),
    "mul_": lambda L, s: T(L, HALF).mul_(s), "div_": lambda L, s: T(L, HALF).div_(s),
    "pow_": lambda L, s: T(L, HALF).pow_(s), "fmod_": lambda L, s: T(L, HALF).fmod_(s),
    "clamp_": lambda L, s: T(L, HALF).clamp_(min=s),
    "mul_0dim": lambda L, s: T(L, HALF) * L.tensor(s),
    "mul_0dim_f64": lambda L, s: T(L, HALF) * L.tensor(s, dtype=L.float64),
    "0dim_f64_mul": lambda L, s: L.tensor(s, dtype=L.float64) * T(L, HALF),
    "div_0dim": lambda L, s: T(L, HALF) / L.tensor(s),
    "0dim_div": lambda L, s: L.tensor(s) / T(L, HALF),
    "add_0dim": lambda L, s: T(L, HALF) + L.tensor(s),
    "floordiv_0dim": lambda L, s: T(L, HALF) // L.tensor(s),
    "eq_0dim": lambda L, s: T(L, HALF) == L.tensor(s),
    "mul_1elem": lambda L, s: T(L, HALF) * L.tensor([s]),
    "mul_1elem_half": lambda L, s: T(L, HALF) * L.tensor([[s]], dtype=L.float16),
    "div_1elem_int": lambda L, s: T(L, HALF) / L.tensor([int(s) if abs(s) < 1e9 else 7]),
    "add_alpha": lambda L, s: L.add(T(L, HALF), T(L, HALF_B), alpha=s),
    "sub_alpha": lambda L, s: L.sub(T(L, HALF), T(L, HALF_B), alpha=s),
    "add_number_alpha": lambda L, s: L.add(T(L, HALF), 1.1, alpha=s),
    "add_alpha_": lambda L, s: T(L, HALF).add_(T(L, HALF_B), alpha=s),
    "lerp": lambda L, s: L.lerp(T(L, HALF), T(L, HALF_B), s),
    "lerp_": lambda L, s: T(L, HALF).lerp_(T(L, HALF_B), s),
    "lerp_broadcast": lambda L, s: L.lerp(T(L, HALF[:256].reshape(16, 16)), T(L, HALF_B[:16]), s),
    "addcmul": lambda L, s: L.addcmul(T(L, HALF), T(L, HALF_B), T(L, HALF_C), value=s),
    "addcmul_": lambda L, s: T(L, HALF).addcmul_(T(L, HALF_B), T(L, HALF_C), value=s),
    "addcdiv": lambda L, s: L.addcdiv(T(L, HALF), T(L, HALF_B), T(L, HALF_C), value=s),
    "xlogy": lambda L, s: L.xlogy(T(L, HALF), s),
    "hypot": lambda L, s: L.hypot(T(L, HALF), L.tensor(s, dtype=L.float16)),
    "copysign": lambda L, s: L.copysign(T(L, HALF), s),
}


@pytest.mark.parametrize("name", sorted(HALF_OPS))
def test_float16_with_python_scalar(name):
    fn = HALF_OPS[name]
    for s in SCALARS:
        assert_same(outcome(torch, fn, s), outcome(ember, fn, s), (name, s))


GRAD_OPS = {
    "mul": lambda x, s: x * s, "rmul": lambda x, s: s * x, "div": lambda x, s: x / s,
    "rdiv": lambda x, s: s / x, "pow": lambda x, s: x ** s, "rpow": lambda x, s: s ** x,
    "add": lambda x, s: x + s, "sub": lambda x, s: x - s, "rsub": lambda x, s: s - x,
    "clamp": lambda x, s: x.clamp(min=s), "fmod": lambda x, s: x.fmod(s),
    "mod": lambda x, s: x % s, "div_floor": lambda x, s: x.div(s, rounding_mode="floor"),
    "lerp": lambda x, s: x.lerp(x.detach() * 0.5, s),
    "add_alpha": lambda x, s: x.add(x.detach() * 0.25, alpha=s),
}


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_float16_gradients_with_python_scalar(name):
    """torch's backward formulas run mul/div with a scalar in float32 too, and multiply in
    their own order (reciprocal: -grad * (result * result); pow(number, x): grad * (result *
    log(number)))."""
    f = GRAD_OPS[name]
    small = name in ("pow", "rpow")         # (keeps the powers finite)
    xs = HALF[np.abs(HALF) < 8] if small else HALF
    g = np.roll(HALF, 11)[:len(xs)]
    for s in (1.1, 0.1, -0.85, 3, 2049, 1 / 3, 1 + 2.0 ** -11 + 2.0 ** -30, 2.5):
        got = []
        for L in (torch, ember):
            x = L.tensor(xs, requires_grad=True)
            y = f(x, s)
            y.backward(L.tensor(g))
            got.append((type(y.grad_fn).__name__, str(x.grad.dtype), _data(L, x.grad)))
        assert got[0][:2] == got[1][:2], (name, s)
        assert_same(("ok",) + got[0][1:], ("ok",) + got[1][1:], (name, s))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_xlogy_number_log_in_result_dtype(dtype):
    """xlogy(t, number) takes the number's log in t's dtype, correctly rounded: NumPy's float32
    log of 1.1 is an ulp off (every element differed)."""
    x = np.random.default_rng(0).uniform(-3, 3, 4096).astype(dtype)
    x[:4] = [0.0, np.nan, np.inf, -0.0]
    for s in (1.1, 0.1, 3, 1e-5, 0.0, -1.0, float("nan"), float("inf"), True):
        fn = lambda L, s: L.xlogy(T(L, x), s)    # noqa: E731
        assert_same(outcome(torch, fn, s), outcome(ember, fn, s), s)


FUSED_OPS = {
    "add_alpha": lambda L, x, y, z: L.add(x, y, alpha=1.1),
    "add_alpha_int": lambda L, x, y, z: L.add(x, y, alpha=3),
    "sub_alpha": lambda L, x, y, z: L.sub(x, y, alpha=1.1),
    "add_number_alpha": lambda L, x, y, z: L.add(x, 2.2, alpha=1.1),
    "add_alpha_broadcast": lambda L, x, y, z: L.add(x.reshape(-1, 1), y[:7], alpha=-0.3),
    "add_alpha_coalesced": lambda L, x, y, z: L.add(x[:1].expand(3, 5, 40).contiguous() + x[:200]
                                                    .reshape(5, 40), y[:200].reshape(5, 40),
                                                    alpha=1.1) if x.shape[0] >= 200 else x,
    "add_alpha_": lambda L, x, y, z: x.clone().add_(y, alpha=1.1),
    "rsub_alpha": lambda L, x, y, z: L.rsub(x, y, alpha=1.1),
    "rsub_number_alpha": lambda L, x, y, z: L.rsub(x, 2.2, alpha=1.1),
    "lerp_low": lambda L, x, y, z: L.lerp(x, y, 0.3),
    "lerp_high": lambda L, x, y, z: L.lerp(x, y, 0.7),
    "lerp_negative": lambda L, x, y, z: L.lerp(x, y, -0.2),
    "addcmul": lambda L, x, y, z: L.addcmul(x, y, z, value=1.1),
    "addcmul_one": lambda L, x, y, z: L.addcmul(x, y, z),
    "addcdiv": lambda L, x, y, z: L.addcdiv(x, y, z, value=1.1),
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", sorted(FUSED_OPS))
def test_fused_scalar_kernels(name, dtype):
    """add/sub with alpha, lerp with a number weight and addcmul are one fused multiply-add
    in torch's kernels (float16 in float32), addcdiv is input + (value * tensor1) / tensor2:
    unfused NumPy differed in ~25-30% of float32/float64 elements. float16 alpha: the last
    n % 32 elements take torch's scalar loop (float16 arithmetic), hence the odd sizes (all
    below torch's parallel grain, so one chunk)."""
    rng = np.random.default_rng(len(name))
    for n in (5, 33, 100, 4000):
        x, y, z = (rng.standard_normal(n).astype(dtype) for _ in range(3))
        x[:4] = [np.inf, np.nan, 0.0, -0.0]
        y[:4] = [1.0, 2.0, np.inf, -0.0]

        def fn(L, _):
            return FUSED_OPS[name](L, L.tensor(x), L.tensor(y), L.tensor(z))
        assert_same(outcome(torch, fn, None), outcome(ember, fn, None), (name, dtype, n))


def test_float16_scalar_rounds_through_float32():
    """1 + 2**-11 + 2**-30 is nearer 1.001 than 1.0, but float32 drops the 2**-30 and the tie
    goes to even: torch's float16 value of it is 1.0 (NumPy's direct conversion: 1.001)."""
    s = 1 + 2.0 ** -11 + 2.0 ** -30
    t = ember.tensor([1.0, 1.0009765625], dtype=ember.float16)
    assert (t == s).tolist() == (torch.tensor([1.0, 1.0009765625], dtype=torch.float16)
                                 == s).tolist() == [True, False]
    assert (t * 1.1).tolist() == [1.099609375, 1.1015625]       # computed in float32


# ---------------------------------------------------------------- ints beyond a dtype's range

INT_OPS = {
    "add": op.add, "sub": op.sub, "mul": op.mul, "floordiv": op.floordiv, "mod": op.mod,
    "pow": op.pow, "truediv": op.truediv, "and": op.and_, "or": op.or_, "xor": op.xor,
    "eq": op.eq, "lt": op.lt, "ge": op.ge, "lshift": op.lshift, "rshift": op.rshift,
}
BIG = [-7, 200, 300, -200, 2 ** 40, -2 ** 63, -2 ** 63 - 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1,
       2 ** 64, 2 ** 70, -2 ** 64]
DTYPES = [("uint8", [3, 2, 200]), ("int8", [3, -2, 100]), ("int16", [3, -2]),
          ("int32", [3, -2]), ("int64", [3, 2, -5]), ("bool", [True, False]),
          ("float32", [1.5, -2.0]), ("float16", [1.5, -2.0]), ("float64", [1.5, -2.0])]


def _int_outcome(lib, f, dt, vals, v, order):
    def run(L, *_):
        t = L.tensor(vals, dtype=getattr(L, dt))
        return f(t, v) if order == 0 else f(v, t)
    r = outcome(lib, run)
    return r if r[0] != "ok" else (r[0], r[1], repr(r[2].tolist()))    # (repr: nan == nan)


@pytest.mark.parametrize("name", sorted(INT_OPS))
def test_python_int_out_of_range(name):
    """torch wraps a Python int into an integral tensor's dtype as C does (uint8 + 300 is
    uint8 + 44; 2**63 reads as the uint64 2**63), refuses ints outside [-2**63, 2**64) with
    its argument parser's OverflowError whatever the tensor, and a uint64-range int beside a
    bool tensor with its promotion error; true division and comparisons with float tensors
    read the number's value."""
    f = INT_OPS[name]
    for dt, vals in DTYPES:
        for v in BIG:
            for order in (0, 1):
                a = _int_outcome(torch, f, dt, vals, v, order)
                b = _int_outcome(ember, f, dt, vals, v, order)
                assert a == b, (name, dt, v, order, a, b)


@pytest.mark.parametrize("fn", [
    lambda L: L.tensor([1, 2], dtype=L.uint8).add_(300),
    lambda L: L.tensor([1, 2], dtype=L.int8).mul_(2 ** 40),
    lambda L: L.tensor([1, 2]).sub_(2 ** 64),
    lambda L: L.tensor([1.0, 2.0]).add_(2 ** 64),
    lambda L: L.tensor([True]).add(2 ** 63),
    lambda L: L.tensor([1, 2], dtype=L.int8).remainder(2 ** 63),
    lambda L: L.remainder(2 ** 63, L.tensor([3, 5])),
    lambda L: L.tensor([1, 2]).fmod(2 ** 64),
    lambda L: L.tensor([5, 6], dtype=L.uint8).bitwise_and(2 ** 63 + 255),
    lambda L: L.tensor([1.5]) ** (2 ** 64),
    lambda L: (2 ** 64) ** L.tensor([1.5]),
    lambda L: (2 ** 63) ** L.tensor([True]),
    lambda L: L.tensor([True]) ** (2 ** 63),
    lambda L: L.tensor([1.5], dtype=L.float16) ** (2 ** 40),
    lambda L: L.tensor([1.5], dtype=L.float16) ** 65519.0,
    lambda L: L.tensor([1.5], dtype=L.float16).clamp(max=-70000),
    lambda L: L.tensor([1.5], dtype=L.float16).masked_fill(L.tensor([True]), 1e5),
    lambda L: L.tensor([1.5], dtype=L.float16).fill_(65520.0),      # (one element: inf)
    lambda L: L.tensor([1.5, 2.0], dtype=L.float16).fill_(65520.0),
    lambda L: L.full((2,), 65519.0, dtype=L.float16),
    lambda L: L.full((2,), 1 + 2.0 ** -11 + 2.0 ** -30, dtype=L.float16),
    lambda L: L.tensor([1 + 2.0 ** -11 + 2.0 ** -30], dtype=L.float64).half(),
    lambda L: L.tensor([1 + 2.0 ** -11 + 2.0 ** -30], dtype=L.float16),
])
def test_python_int_and_half_range_errors(fn):
    a, b = outcome(torch, fn), outcome(ember, fn)
    assert_same(a, b, "")
