"""Issue 14: ember.testing.assert_close (torch's default tolerances per dtype, its failure
messages, sequences and mappings) and make_tensor, against torch.testing."""
import re

import numpy as np
import pytest
import torch

import ember


def _outcome(L, actual, expected, **kw):
    try:
        L.testing.assert_close(actual, expected, **kw)
    except Exception as e:  # noqa: BLE001 - comparing whatever torch raises
        return type(e).__name__, str(e)
    return None


def _both(make, **kw):
    """make(L) gives (actual, expected) for each library; both outcomes must be the same."""
    t = _outcome(torch, *make(torch), **kw)
    e = _outcome(ember, *make(ember), **kw)
    if t is not None and e is not None:
        # type names in messages differ by module: torch.Tensor vs ember.tensor.Tensor
        e = (e[0], e[1].replace("ember.tensor.Tensor", "torch.Tensor"))
    assert t == e, f"torch {t!r}\nember {e!r}"


CASES = [
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.000001])),
    lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.5, 3.0])),
    lambda L: (L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 2.0], [3.1, 4.2]])),
    lambda L: (L.tensor([1, 2]), L.tensor([1, 3])),
    lambda L: (L.tensor([1.0]), L.tensor([1.0], dtype=L.float64)),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0])),
    lambda L: (L.tensor([float("nan")]), L.tensor([float("nan")])),
    lambda L: (1.0, 1.0000001), lambda L: (1.0, 1.1), lambda L: (1, 2),
    lambda L: ([1.0, 2.0], [1.0, 2.0]),
    lambda L: ([L.tensor(1.0), L.tensor(2.0)], [L.tensor(1.0), L.tensor(2.5)]),
    lambda L: ({"a": L.tensor(1.0)}, {"a": L.tensor(1.5)}),
    lambda L: ({"a": 1}, {"b": 1}),
    lambda L: (np.array([1.0]), np.array([1.5])),
    lambda L: (L.tensor([True]), L.tensor([False])),
    lambda L: (L.tensor([1 + 1j]), L.tensor([1 + 1.1j])),
    lambda L: (L.tensor([1.0], requires_grad=True), L.tensor([1.0])),
    lambda L: (L.tensor(1.0), L.tensor(2.0)),
    lambda L: (L.tensor(1), L.tensor(2)),
    lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.5, 2.5, 3.0])),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, float("inf")])),
    lambda L: (L.tensor([float("inf")]), L.tensor([float("inf")])),
    lambda L: (L.tensor([0.0]), L.tensor([1e-6])), lambda L: (L.tensor([1e-6]), L.tensor([0.0])),
    lambda L: ("a", "a"), lambda L: (L.tensor([1.0]), [1.0]), lambda L: (L.tensor([1.0]), 1.0),
    lambda L: (L.tensor([1.0], dtype=L.float16), L.tensor([1.001], dtype=L.float16)),
    lambda L: (L.tensor([1, 2], dtype=L.int32), L.tensor([1, 2])),
    lambda L: ((1, 2), (1, 2, 3)),
    lambda L: (L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 2.0], [3.0, 4.5]])),
    lambda L: (L.arange(24.0).reshape(2, 3, 4), L.arange(24.0).reshape(2, 3, 4) * 1.01),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_assert_close_outcome_and_message(case):
    _both(CASES[case])


def test_options():
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.0])), check_dtype=False)
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.0], dtype=L.float64)), check_dtype=False)
    _both(lambda L: (L.tensor([float("nan")]), L.tensor([float("nan")])), equal_nan=True)
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.1])), rtol=0.2, atol=0)
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.1])), rtol=0.2)
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.1])), msg="custom")
    _both(lambda L: (L.tensor([1.0]), L.tensor([1.1])), msg=lambda m: "X" + m)
    _both(lambda L: (L.zeros(2, 2), L.zeros(2, 2).t()), check_stride=True)
    _both(lambda L: (L.zeros(2, 2), L.zeros(2, 2).t()))


def test_assert_allclose_deprecated():
    for L in (torch, ember):
        with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
            with pytest.raises(AssertionError, match=re.escape("(up to 0.0001 allowed)")):
                L.testing.assert_allclose(L.tensor([1.0]), L.tensor([1.5]))


def test_make_tensor():
    T = ember.testing.make_tensor
    for dt, lo, hi in ((ember.float32, -9, 9), (ember.float64, -9, 9), (ember.int64, -9, 10),
                       (ember.uint8, 0, 10), (ember.int8, -9, 10)):
        t = T(200, dtype=dt, device="cpu")
        assert t.dtype is dt and t.shape == (200,)
        assert t.min().item() >= lo and t.max().item() < hi
    t = T((2, 3), dtype=ember.int64, device="cpu", low=0, high=5)
    assert t.shape == (2, 3) and 0 <= t.min().item() and t.max().item() < 5
    b = T(50, dtype=ember.bool, device="cpu")
    assert b.dtype is ember.bool
    c = T(3, dtype=ember.complex64, device="cpu")
    assert c.dtype is ember.complex64 and c.real.abs().max().item() <= 9
    nc = T(3, 4, dtype=ember.float64, device="cpu", noncontiguous=True)
    assert nc.shape == (3, 4) and not nc.is_contiguous()
    z = T(1000, dtype=ember.float32, device="cpu", exclude_zero=True, low=-1, high=1)
    assert not bool((z == 0).any())
    g = T((), dtype=ember.float32, device="cpu", requires_grad=True)
    assert g.requires_grad and g.shape == ()
    u = T(20, dtype=ember.uint8, device="cpu", low=-5)
    assert u.min().item() >= 0
    for L in (torch, ember):
        with pytest.warns(FutureWarning, match="Passing `low==high`"):
            assert L.testing.make_tensor(4, dtype=L.float32, device="cpu", low=1,
                                         high=1).tolist() == [1.0] * 4
    for kw in ({"low": 2, "high": 1}, {"low": float("nan")}):
        msgs = []
        for L in (torch, ember):
            with pytest.raises(ValueError) as info:
                L.testing.make_tensor(3, dtype=L.float32, device="cpu", **kw)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]
    with pytest.raises(TypeError, match="device"):
        T(3, dtype=ember.float32)
