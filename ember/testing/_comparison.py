"""assert_close: compares tensors (or NumPy arrays), numbers, and sequences or mappings of
them, with torch's default tolerances per dtype and torch's failure messages."""
import cmath
import collections.abc
import math
import warnings

import numpy as np

from .. import dtypes as D
from ..tensor import Tensor, wrap

# (rtol, atol) when neither is given: torch's defaults
_TOLERANCES = {D.float16: (1e-3, 1e-5), D.float32: (1.3e-6, 1e-5), D.float64: (1e-7, 1e-7),
               D.complex64: (1.3e-6, 1e-5), D.complex128: (1e-7, 1e-7)}


class _Mismatch(Exception):
    """A failed comparison: its message, and the path of the item that failed."""

    def __init__(self, message, exc=AssertionError):
        super().__init__(message)
        self.message, self.exc, self.path = message, exc, ""


def _is_tensor_like(x):
    return isinstance(x, (Tensor, np.ndarray))


def _is_number(x):
    return isinstance(x, (bool, int, float, complex, np.number, np.bool_)) and \
        not isinstance(x, np.ndarray)


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def _fmt_index(flat, shape):
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if shape else "()"


def _tensor_pair(actual, expected, rtol, atol, equal_nan, check_dtype, check_stride):
    a = actual if isinstance(actual, Tensor) else None
    e = expected if isinstance(expected, Tensor) else None
    xa = actual._data if a is not None else np.asarray(actual)
    xe = expected._data if e is not None else np.asarray(expected)
    if xa.shape != xe.shape:
        raise _Mismatch(f"The values for attribute 'shape' do not match: "
                        f"torch.Size({list(xa.shape)}) != torch.Size({list(xe.shape)}).")
    da, de = D.from_numpy_dtype(xa.dtype), D.from_numpy_dtype(xe.dtype)
    if check_dtype and da is not de:
        raise _Mismatch(f"The values for attribute 'dtype' do not match: {da} != {de}.")
    if check_stride and a is not None and e is not None and a.stride() != e.stride():
        raise _Mismatch(f"The values for attribute 'stride()' do not match: {a.stride()} != "
                        f"{e.stride()}.")
    dt = D.promote_types(da, de)
    rtol, atol = _tolerances(dt, rtol, atol)
    _compare_values(xa.astype(dt.np), xe.astype(dt.np), dt, rtol, atol, equal_nan,
                    "Tensor-likes")


def _abs(x):
    """|x|, for complex x rounded once from double precision (as torch's complex abs)."""
    if x.dtype == np.complex64:
        return np.abs(x.astype(np.complex128)).astype(np.float32)
    return np.abs(x)


def _compare_values(xa, xe, dt, rtol, atol, equal_nan, what):
    exact = dt.category < D.FLOAT
    with np.errstate(all="ignore"):
        if exact:
            ok = xa == xe
        else:
            # infinities must be equal; finite values within atol + rtol |expected|
            ok = (xa == xe) | (np.isfinite(xa) & np.isfinite(xe) &
                               (np.abs(xa - xe) <= atol + rtol * np.abs(xe)))
            if equal_nan:
                ok |= np.isnan(xa) & np.isnan(xe)
    if ok.all():
        return
    # the differences as torch reports them: in the float dtype the values compare in
    ft = (dt if dt.category >= D.FLOAT else D.float32).np
    with np.errstate(all="ignore"):
        a, b = xa.astype(ft), xe.astype(ft)
        diff = _abs(a - b)
        rel = diff / _abs(b)
        if exact:
            diff = np.abs(xa.astype(np.int64) - xe.astype(np.int64))
    n_bad, n = int((~ok).sum()), ok.size
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {n_bad} / {n} ({n_bad / n * 100:.1f}%)"]
    bad = np.nonzero(~ok.reshape(-1))[0]
    for label, vals, tol in (("absolute", diff, atol), ("relative", rel, rtol)):
        # the greatest difference among the mismatched elements (NaN first, as torch's max)
        flat = vals.reshape(-1)[bad]
        j = int(np.argmax(np.isnan(flat))) if np.isnan(flat).any() else int(np.argmax(flat))
        i, v = int(bad[j]), flat[j].item()
        allowed = "" if exact else f" (up to {tol} allowed)"
        lines.append(f"Greatest {label} difference: {v} at index "
                     f"{_fmt_index(i, xa.shape)}{allowed}")
    raise _Mismatch("\n".join(lines))


def _number_pair(actual, expected, rtol, atol, equal_nan, check_dtype):
    if isinstance(actual, (np.number, np.bool_)):
        actual = actual.item()
    if isinstance(expected, (np.number, np.bool_)):
        expected = expected.item()
    kind = lambda v: complex if isinstance(v, complex) else \
        float if isinstance(v, float) else int     # noqa: E731 (bool counts as int here)
    if check_dtype and kind(actual) is not kind(expected):
        raise _Mismatch(f"The values for attribute 'dtype' do not match: {kind(actual)} != "
                        f"{kind(expected)}.")
    exact = kind(actual) is int and kind(expected) is int
    dt = D.float64 if not exact else D.int64
    rtol, atol = _tolerances(dt if not exact else D.int64, rtol, atol)
    diff = abs(actual - expected)
    if exact:
        ok = actual == expected
    else:
        nan = (cmath.isnan(actual) if isinstance(actual, complex) else math.isnan(actual),
               cmath.isnan(expected) if isinstance(expected, complex) else math.isnan(expected))
        ok = actual == expected or diff <= atol + rtol * abs(expected) or \
            (equal_nan and all(nan))
    if not ok:
        raise _scalar_mismatch(actual, expected, diff, exact, rtol, atol)


def _scalar_mismatch(a, e, diff, exact, rtol, atol):
    """torch's message for two scalars (numbers, or one-element tensors) that differ."""
    rel = diff / abs(e) if e != 0 else math.inf
    if exact:
        return _Mismatch(f"Scalars are not equal!\n\nExpected {e} but got {a}.\n"
                         f"Absolute difference: {diff}\nRelative difference: {rel}")
    return _Mismatch(f"Scalars are not close!\n\nExpected {e} but got {a}.\n"
                     f"Absolute difference: {diff} (up to {atol} allowed)\n"
                     f"Relative difference: {rel} (up to {rtol} allowed)")


def _compare(actual, expected, path, **kw):
    if _is_tensor_like(actual) and _is_tensor_like(expected):
        try:
            if isinstance(actual, Tensor) and isinstance(expected, Tensor) and \
                    actual.ndim == 0 and expected.ndim == 0 and actual.dtype is expected.dtype:
                _scalar_tensors(actual, expected, **kw)
            else:
                _tensor_pair(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"],
                             kw["check_dtype"], kw["check_stride"])
        except _Mismatch as m:
            m.path = path
            raise
        return
    if _is_number(actual) and _is_number(expected):
        try:
            _number_pair(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"],
                         kw["check_dtype"])
        except _Mismatch as m:
            m.path = path
            raise
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        ka, ke = list(actual.keys()), list(expected.keys())
        if set(ka) != set(ke):
            raise _Mismatch(f"The keys of the mappings do not match:\nMissing keys in the "
                            f"actual mapping: {sorted(set(ke) - set(ka))}\nAdditional keys in "
                            f"the actual mapping: {sorted(set(ka) - set(ke))}")
        for k in ke:
            _compare(actual[k], expected[k], path + f"[{k!r}]", **kw)
        return
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) and \
            not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != "
                            f"{len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + f"[{i}]", **kw)
        return
    raise _Mismatch(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.", TypeError)


def _scalar_tensors(actual, expected, **kw):
    """Two 0-d tensors of one dtype: torch reports them as scalars."""
    dt = actual.dtype
    exact = dt.category < D.FLOAT
    rtol, atol = _tolerances(dt, kw["rtol"], kw["atol"])
    a, e = actual.item(), expected.item()
    with np.errstate(all="ignore"):
        if exact:
            ok = a == e
        else:
            both_nan = kw["equal_nan"] and np.isnan(actual._data) and np.isnan(expected._data)
            ok = a == e or abs(a - e) <= atol + rtol * abs(e) or bool(both_nan)
    if not ok:
        raise _scalar_mismatch(a, e, abs(a - e), exact, rtol, atol)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    try:
        _compare(actual, expected, "", rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_dtype=check_dtype, check_stride=check_stride)
    except _Mismatch as m:
        text = m.message
        if m.path:
            text += f"\n\nThe failure occurred for item {m.path}"
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise m.exc(text) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _as_tensor(expected, actual.dtype)
    if rtol is None and atol is None:
        # assert_allclose's own (older) defaults
        rtol, atol = {D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5),
                      D.float64: (1e-5, 1e-8)}.get(D.promote_types(actual.dtype,
                                                                    expected.dtype), (0, 0))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)


def _as_tensor(x, dtype=None):
    arr = np.asarray(x) if dtype is None else np.asarray(x, dtype.np)
    if arr.dtype == np.float64 and dtype is None and not isinstance(x, np.ndarray):
        arr = arr.astype(D.get_default_dtype().np)
    return wrap(arr)
