"""Differential tests: ember.printing must print exactly what torch prints."""
import math

import numpy as np
import pytest
import torch
import torch._tensor_str
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from ember import dtypes
from ember.dtypes import FROM_NP
from ember.printing import get_printoptions, set_printoptions, tensor_repr

NAN, INF = float("nan"), float("inf")
TORCH_DEFAULT = {dtypes.float32: torch.float32, dtypes.float64: torch.float64,
                 dtypes.float16: torch.float16}


@pytest.fixture(autouse=True)
def restore_defaults():
    """Every test leaves print options and the default dtype as it found them."""
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    dtypes.set_default_dtype(dtypes.float32)


def both_printoptions(**kw):
    torch.set_printoptions(**kw)
    set_printoptions(**kw)


def both_default_dtype(d):
    torch.set_default_dtype(TORCH_DEFAULT[d])
    dtypes.set_default_dtype(d)


def ember_repr_of(t):
    """ember's text for the data, dtype and autograd state of a torch tensor."""
    grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    arr = t.detach().numpy()
    return tensor_repr(arr, FROM_NP[arr.dtype], grad_fn_name=grad_fn,
                       requires_grad=t.requires_grad)


def check(arr, grad=None):
    """Compare repr and str for an array; grad: None, 'leaf' or 'fn' (a grad_fn node)."""
    arr = np.asarray(arr)
    t = torch.from_numpy(arr.copy())
    if grad == "leaf":
        t.requires_grad_(True)
    elif grad == "fn":
        t = t.requires_grad_(True).clone()
    got = ember_repr_of(t)
    assert got == repr(t), f"\nexpected:\n{repr(t)}\ngot:\n{got}"
    assert str(t) == repr(t)


# --- fixed cases -------------------------------------------------------------------------

F32 = np.float32
FIXED = {
    # notation choice, integer-valued floats, signs, precision
    "ones": np.ones((2, 2), F32),
    "int_valued": np.array([1., -2., 30., 400.], F32),
    "fixed": np.array([0.1, -2.5, 3.14159], F32),
    "fixed_wide": np.array([1234.5678, -0.5], F32),
    "sci_small": np.array([1e-5, 1.], F32),
    "sci_ratio": np.array([1., 1001.], F32),
    "ratio_1000_fixed": np.array([0.5, 500.], F32),
    "int_sci_big": np.array([1., 2., 1e10], F32),
    "int_not_sci_1e8": np.array([1e8, 2e5], np.float64),
    "int_sci_over_1e8": np.array([1.1e8, 2e5], np.float64),
    "min_below_1e4": np.array([9.9e-5, 0.5], np.float64),
    "neg_zero": np.array([-0., 1.], F32),
    "neg_zero_only": np.array([-0., 0.], F32),
    "neg_zero_frac": np.array([-0., 1.5], F32),
    "neg_zero_sci": np.array([-0., 1e-6], F32),
    # nan / inf in every notation
    "nan_zero": np.array([0., NAN], F32),
    "nan_col": np.array([[NAN], [0.]], F32),
    "int_nan_col": np.array([[1.], [NAN]], F32),
    "int_ninf_col": np.array([[1.], [-INF]], F32),
    "fixed_inf": np.array([1.5, INF], F32),
    "fixed_ninf_col": np.array([[1.5], [-INF]], F32),
    "sci_ninf_col": np.array([[1e-5], [-INF]], F32),
    "all_special": np.array([NAN, INF, -INF], F32),
    "sci_nan": np.array([1e-7, NAN, -3e9], np.float64),
    # 0-dim
    "scalar_int_valued": np.array(1., F32),
    "scalar_frac": np.array(-2.5, F32),
    "scalar_sci": np.array(1e10 + 0.5, np.float64),
    "scalar_nan": np.array(NAN, F32),
    "scalar_neg_zero": np.array(-0., F32),
    "scalar_int": np.array(-7, np.int64),
    "scalar_int8": np.array(7, np.int8),
    "scalar_bool": np.array(True),
    "scalar_complex": np.array(1 + 2j, np.complex64),
    "scalar_complex_nan": np.array(complex(NAN, 0.), np.complex128),
    # nesting
    "3d": np.arange(24, dtype=F32).reshape(2, 3, 4) / 7,
    "4d": np.arange(48, dtype=np.int64).reshape(2, 3, 2, 4) - 20,
    "5d": np.arange(32, dtype=F32).reshape(2, 2, 2, 2, 2),
    "singleton_dims": np.ones((1, 1, 1), F32),
    "col": np.arange(5, dtype=F32).reshape(5, 1),
    # line wrapping
    "wrap_1d": np.arange(100, dtype=F32) * 1.5,
    "wrap_2d": np.linspace(-1, 1, 60, dtype=F32).reshape(2, 30),
    "wrap_3d_sci": np.linspace(-1e6, 1e-3, 90).reshape(3, 1, 30),
    "wrap_int": np.arange(-300, 300, 7, dtype=np.int64),
    # summarization
    "sum_1d": np.arange(2000, dtype=F32),
    "sum_1d_frac": np.linspace(0, 1, 1001, dtype=F32),
    "sum_1d_1001_int": np.arange(1001, dtype=np.int64),
    "exactly_threshold": np.arange(1000, dtype=np.int64),
    "sum_2d": np.arange(2500, dtype=F32).reshape(50, 50),
    "sum_2d_narrow": np.arange(2002, dtype=F32).reshape(1001, 2),
    "sum_2d_short_rows": np.arange(3003, dtype=F32).reshape(3, 1001),
    "sum_3d": np.arange(4000, dtype=np.int32).reshape(10, 20, 20),
    "sum_4d": np.arange(1e4).reshape(10, 10, 10, 10) - 5e3,
    "sum_formatter_from_edges": np.r_[np.ones(3), np.full(1000, 1e-9), np.ones(3)].astype(F32),
    "sum_hidden_nan": np.r_[np.ones(3), [NAN], np.ones(1000)].astype(F32),
    # dtypes
    "bool": np.array([True, False, True]),
    "bool_2d": np.array([[True], [False]]),
    "uint8": np.array([0, 7, 255], np.uint8),
    "int8": np.array([-128, 0, 127], np.int8),
    "int16": np.array([-300, 2], np.int16),
    "int32": np.array([[1, -20], [300, 4]], np.int32),
    "int64": np.array([-2 ** 63, 2 ** 63 - 1], np.int64),
    "float16": np.array([0.1, 65504., -6e-8], np.float16),
    "float16_int": np.array([1., 2048.], np.float16),
    "float64": np.array([1 / 3, 2.], np.float64),
    "complex64": np.array([1 + 2j, 1 - 20j], np.complex64),
    "complex128": np.array([[0.5 - 1e-5j, 3 + 0j], [-1j, 2]], np.complex128),
    "complex_neg_zero_imag": np.array([complex(1., -0.)], np.complex64),
    "complex_special": np.array([complex(NAN, INF), complex(-INF, -1.5), 2j], np.complex128),
    "complex_wrap": (np.arange(40) * (1.5 - 2.25j)).astype(np.complex64),
    "complex_sum": (np.arange(1200) * (1 + 1j)).astype(np.complex128),
    # empty
    "empty": np.zeros(0, F32),
    "empty_2d": np.zeros((0, 3), F32),
    "empty_3d": np.zeros((2, 0, 1), F32),
    "empty_int64": np.zeros(0, np.int64),
    "empty_bool": np.zeros((0, 2), bool),
    "empty_f64": np.zeros(0, np.float64),
    "empty_complex64": np.zeros((1, 0), np.complex64),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed(name):
    check(FIXED[name])


@pytest.mark.parametrize("name", ["ones", "fixed", "scalar_frac", "3d", "sum_2d", "wrap_1d",
                                  "complex128", "float16", "empty", "empty_2d"])
@pytest.mark.parametrize("grad", ["leaf", "fn"])
def test_autograd_suffix(name, grad):
    check(FIXED[name], grad)


def test_grad_fn_names_from_real_graphs():
    x = torch.tensor([[1.5, -2.], [3., 4.]], requires_grad=True)
    for t in (x * 2, x.sum(), x.t(), x[0], x.exp(), x @ x, x.double() + 1):
        assert ember_repr_of(t) == repr(t)


@pytest.mark.parametrize("n", range(6, 20))
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_suffix_wrapping_near_linewidth(n, dtype):
    # Lengths around 80 columns exercise torch's decision to move suffixes to a new line.
    arr = (np.arange(n) * 7 - 20).astype(dtype)
    check(arr)
    if dtype is not np.int32:
        check(arr, "leaf")
        check(arr, "fn")


@pytest.mark.parametrize("width", [20, 40, 47, 50, 60, 79, 81, 100])
def test_suffix_wrapping_linewidth_option(width):
    both_printoptions(linewidth=width)
    for arr in (np.arange(12, dtype=np.int16), np.arange(9, dtype=F32).reshape(3, 3) / 4,
                np.zeros((0, 4), np.int8), np.array(3.5, np.float64)):
        check(arr)
        if arr.dtype.kind == "f":
            check(arr, "fn")


# --- default dtype -----------------------------------------------------------------------

@pytest.mark.parametrize("default", [dtypes.float64, dtypes.float16])
def test_default_dtype_changes_suffix(default):
    both_default_dtype(default)
    for arr in (np.array([1.5], np.float32), np.array([1.5], np.float64),
                np.array([1.5], np.float16), np.array([1j], np.complex64),
                np.array([1j], np.complex128), np.array([1], np.int64), np.array([True]),
                np.array([1], np.int32), np.zeros(0, np.float32), np.zeros(0, np.float64),
                np.zeros((0, 2), np.float16), np.array(2., np.float32)):
        check(arr)
        if arr.dtype.kind in "fc" and arr.size:
            check(arr, "fn")


def test_default_dtype_restored_by_fixture():
    assert dtypes.get_default_dtype() is dtypes.float32
    assert torch.get_default_dtype() is torch.float32


# --- print options -----------------------------------------------------------------------

OPTION_SETS = [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(sci_mode=True),
    dict(sci_mode=False), dict(threshold=5), dict(threshold=0), dict(threshold=10, edgeitems=1),
    dict(threshold=10, edgeitems=0), dict(edgeitems=0), dict(edgeitems=5, threshold=20),
    dict(linewidth=30), dict(linewidth=5), dict(linewidth=200), dict(profile="short"),
    dict(profile="full"), dict(profile="short", precision=5, sci_mode=True),
    dict(precision=3, sci_mode=False, linewidth=60),
]
OPTION_ARRAYS = ["int_valued", "fixed", "fixed_wide", "sci_small", "int_sci_big", "nan_zero",
                 "neg_zero_only", "scalar_frac", "scalar_int", "3d", "wrap_1d", "sum_1d",
                 "sum_2d", "sum_3d", "bool", "complex128", "complex_special", "float16",
                 "empty_2d", "int_ninf_col", "sci_ninf_col"]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_printoptions(opts):
    both_printoptions(**opts)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for name in OPTION_ARRAYS:
        check(FIXED[name])
    check(FIXED["fixed"], "fn")


def test_printoptions_state_sequence():
    expected_default = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                        "sci_mode": None}
    assert get_printoptions() == expected_default == torch._tensor_str.get_printoptions()
    steps = [dict(sci_mode=True, precision=2), dict(precision=3), dict(profile="full"),
             dict(profile="short", linewidth=40), dict(profile="bogus"), dict(edgeitems=1),
             dict(profile="default")]
    for step in steps:
        both_printoptions(**step)
        assert get_printoptions() == torch._tensor_str.get_printoptions(), step
    assert get_printoptions() == expected_default
    assert math.isinf(_full_threshold())


def _full_threshold():
    set_printoptions(profile="full")
    value = get_printoptions()["threshold"]
    set_printoptions(profile="default")
    return value


def test_get_printoptions_returns_copy():
    get_printoptions()["precision"] = 99
    assert get_printoptions()["precision"] == 4


def test_full_profile_prints_everything():
    both_printoptions(profile="full")
    check(np.arange(1500, dtype=np.int64))


# --- seeded random arrays ----------------------------------------------------------------

def _random_array(rng):
    ndim = int(rng.integers(0, 5))
    limits = (60, 14, 7, 5)
    shape = tuple(int(rng.integers(1, limits[ndim - 1])) for _ in range(ndim))
    if rng.random() < 0.15 and ndim:
        shape = (1100,) + shape[1:] if ndim == 1 else (int(rng.integers(20, 40)),) + shape[1:]
    n = int(np.prod(shape))
    scale = 10.0 ** rng.uniform(-6, 9)
    kind = int(rng.integers(0, 4))
    if kind == 0:
        values = rng.standard_normal(n) * scale
    elif kind == 1:
        values = np.round(rng.standard_normal(n) * scale)
    elif kind == 2:
        values = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 9, n)
    else:
        values = rng.integers(-1000, 1000, n) / rng.choice([1, 4, 1000])
    if rng.random() < 0.25:
        mask = rng.random(n) < 0.15
        values[mask] = rng.choice([NAN, INF, -INF, 0.0, -0.0], int(mask.sum()))
    dtype = rng.choice(["float32", "float64", "float16", "int64", "int32", "int16", "int8",
                        "uint8", "bool", "complex64", "complex128"])
    if dtype == "bool":
        arr = rng.random(n) < 0.5
    elif dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        arr = np.clip(np.nan_to_num(values, nan=0, posinf=0, neginf=0),
                      info.min, min(info.max, 2.0 ** 62)).astype(dtype)
    elif dtype.startswith("complex"):
        imag = rng.standard_normal(n) * scale * rng.choice([1, 1e-3, 1e4])
        arr = (values + 1j * imag).astype(dtype)
    else:
        with np.errstate(over="ignore"):
            arr = values.astype(dtype)
    return arr.reshape(shape)


@pytest.mark.parametrize("seed", range(30))
def test_seeded_random(seed):
    rng = np.random.default_rng(seed)
    for _ in range(12):
        arr = _random_array(rng)
        check(arr, rng.choice([None, None, "leaf", "fn"]) if arr.dtype.kind in "fc" else None)


@pytest.mark.parametrize("seed", range(10))
def test_seeded_random_with_options(seed):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(8):
        opts = {"precision": int(rng.integers(0, 7)), "linewidth": int(rng.integers(20, 140)),
                "threshold": int(rng.choice([3, 30, 300, 1000])),
                "edgeitems": int(rng.integers(1, 5)),
                "sci_mode": [None, True, False][int(rng.integers(0, 3))]}
        both_printoptions(**opts)
        check(_random_array(rng))


# --- hypothesis shapes -------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(hnp.arrays(dtype=st.sampled_from([np.float32, np.float64, np.int64, np.int16, np.bool_,
                                          np.complex64]),
                  shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7)),
       st.sampled_from([None, dict(threshold=20, edgeitems=2), dict(linewidth=35)]))
def test_hypothesis_arrays(arr, opts):
    try:
        if opts:
            both_printoptions(**opts)
        check(arr)
    finally:
        both_printoptions(profile="default")
