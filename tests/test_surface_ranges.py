"""Issue 14: linspace, arange and logspace give exactly torch's values (torch fills linspace
from both ends with fused multiply-adds, and arange by vectors: Note [Range values] in
ember/creation.py), float32 and float64, over many random ranges."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(3)
LIN = [(-np.pi, np.pi, 2000), (0, 1, 11), (0, 1, 100), (-1, 1, 7), (1e-3, 5.5, 33), (3, -2, 17),
       (0.1, 0.7, 2), (2, 2, 5), (-5, 5, 1001), (1e-10, 1, 300), (-1e6, 1e-3, 777), (0, 10, 1),
       (0, 1, 0)]
LIN += [(float(a), float(b), int(n)) for a, b, n in zip(RNG.uniform(-100, 100, 60),
                                                        RNG.uniform(-100, 100, 60),
                                                        RNG.integers(2, 3000, 60))]
LIN += [(float(a), float(b), int(n)) for a, b, n in zip(10 ** RNG.uniform(-5, 5, 30),
                                                        -10 ** RNG.uniform(-5, 5, 30),
                                                        RNG.integers(2, 3000, 30))]


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_linspace_exact(dt):
    bad = 0
    for a, b, n in LIN:
        t = torch.linspace(a, b, n, dtype=getattr(torch, dt)).numpy()
        e = ember.linspace(a, b, n, dtype=getattr(ember, dt)).numpy()
        assert t.shape == e.shape
        bad += int((t.view(np.uint8) != e.view(np.uint8)).any())
    assert bad == 0


def test_linspace_default_dtype_and_tensors():
    for a, b, n in LIN[:12]:
        np.testing.assert_array_equal(ember.linspace(a, b, n).numpy(),
                                      torch.linspace(a, b, n).numpy())
    np.testing.assert_array_equal(
        ember.linspace(ember.tensor(-1.5), ember.tensor(2.0), 9).numpy(),
        torch.linspace(torch.tensor(-1.5), torch.tensor(2.0), 9).numpy())


ARANGE = [(0, 10, 1), (0, 1, 0.1), (-3.3, 7.1, 0.37), (1.5, 100, 0.7), (0, 2000, 1.0),
          (10, -3, -0.3), (0, 5, 1 / 3)]
ARANGE += [(float(a), float(a + abs(w)), float(s)) for a, w, s in zip(
    RNG.uniform(-50, 50, 60), RNG.uniform(1, 50, 60), RNG.uniform(0.01, 2, 60))]


@pytest.mark.parametrize("dt", ["float32", "float64", None])
def test_arange_exact(dt):
    for a, b, s in ARANGE:
        kw_t = {} if dt is None else {"dtype": getattr(torch, dt)}
        kw_e = {} if dt is None else {"dtype": getattr(ember, dt)}
        t = torch.arange(a, b, s, **kw_t).numpy()
        e = ember.arange(a, b, s, **kw_e).numpy()
        assert t.dtype == e.dtype and t.shape == e.shape
        np.testing.assert_array_equal(e, t)


def test_arange_long_ranges_split_between_threads_as_torchs():
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            ember.set_num_threads(threads)
            for a, b, s in ((0.1, 100000 * 0.37 + 0.1, 0.37), (-3.0, 50000.0, 0.7)):
                for dt in ("float32", "float64"):
                    np.testing.assert_array_equal(
                        ember.arange(a, b, s, dtype=getattr(ember, dt)).numpy(),
                        torch.arange(a, b, s, dtype=getattr(torch, dt)).numpy())
    finally:
        torch.set_num_threads(before)
        ember.set_num_threads(before)


def test_arange_integer_dtypes():
    for args, dt in (((0.5, 5, 1), "int64"), ((-2.5, 2, 1.7), "int32"), ((0, 10, 3), "int64"),
                     ((5,), "int16")):
        np.testing.assert_array_equal(
            ember.arange(*args, dtype=getattr(ember, dt)).numpy(),
            torch.arange(*args, dtype=getattr(torch, dt)).numpy())
    for L in (torch, ember):
        with pytest.raises(ValueError, match="step must be nonzero"):
            L.arange(0, 5, 0.5, dtype=L.int64)


def test_logspace():
    for a, b, n in LIN[:40]:
        a, b = a / 30, b / 30
        for base in (10.0, 2.0, 3.7):
            t = torch.logspace(a, b, n, base=base, dtype=torch.float64).numpy()
            e = ember.logspace(a, b, n, base=base, dtype=ember.float64).numpy()
            np.testing.assert_array_equal(e, t)
            # float32: torch's float32 kernel rounds its exponent and power differently (a few
            # ulps; more for tiny results, whose exponents are large)
            t32 = torch.logspace(a, b, n, base=base).numpy()
            e32 = ember.logspace(a, b, n, base=base).numpy()
            np.testing.assert_allclose(e32, t32, rtol=5e-6, atol=1e-37)
