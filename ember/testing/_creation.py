"""make_tensor: a tensor of random values in [low, high) (torch's default ranges per dtype)."""
import math
import warnings

import numpy as np

from .. import dtypes as D
from ..random import rand, randint
from ..ops.shape import size_args as _size_args
from ..tensor import check_device


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    check_device(device, factory=True)
    shape = _size_args(shape)
    if dtype is D.bool_:
        t = randint(0, 2, shape).to(D.bool_)
    elif dtype.category == D.INT:
        info = np.iinfo(dtype.np)
        lo, hi = _bounds(low, high, -9, 10, info.min, info.max)
        t = randint(int(math.ceil(lo)), int(math.ceil(hi)), shape, dtype=dtype)
    else:
        real = dtype.to_real()
        info = np.finfo(real.np)
        lo, hi = _bounds(low, high, -9, 9, float(info.min), float(info.max))
        if lo == hi:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                          "complex types is deprecated since 2.1 and will be removed in 2.3. "
                          "Use `torch.full(...)` instead.", FutureWarning, stacklevel=2)
        if dtype.is_complex:
            re = rand(shape, dtype=real) * (hi - lo) + lo
            im = rand(shape, dtype=real) * (hi - lo) + lo
            t = (re + im * 1j).to(dtype)
        else:
            t = rand(shape, dtype=dtype) * (hi - lo) + lo
    if exclude_zero:
        zero = t == 0
        if bool(zero.any()):
            eps = 1 if dtype.category <= D.INT else np.finfo(dtype.to_real().np).tiny
            t = t.masked_fill(zero, eps)
    if noncontiguous and t.numel() > 1:
        t = t.repeat_interleave(2, dim=-1)[..., ::2]
    if requires_grad:
        t.requires_grad_(True)
    return t


def _bounds(low, high, lowest, highest, dmin, dmax):
    shown_low = lowest if low is None else low
    shown_high = highest if high is None else high
    for v in (low, high):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={shown_low} and "
                             f"high={shown_high}")
    lo = lowest if low is None else max(low, dmin)
    hi = highest if high is None else min(high, dmax)
    lo, hi = max(lo, dmin), min(hi, dmax)
    if lo > hi:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return lo, hi
