"""Autocast's per-thread state and its casts (ember/amp/autocast_mode.py is the public API).

Note [Autocast hook]: an op that torch's CPU autocast lists reads one flag, `AUTOCAST.cpu`,
and only when it is set casts its tensor arguments before running as usual:
  - lower precision (mm, bmm, matmul, addmm, baddbmm, addbmm, linear, conv*, conv_transpose*,
    prelu): every floating tensor except float64 goes to the autocast dtype (`lower`);
  - float32 (the losses, prod): every floating tensor except float64 goes to float32 (`fp32`).
Both lists were found by running torch 2.13 (tests/test_amp.py checks them op by op). Calls
with out= are not cast (torch's autocast leaves the out= overloads alone). The casts are
ordinary differentiable `.to(dtype)` copies (ToCopyBackward0); a leaf that requires grad is
cast once per outermost autocast region (torch's weight cache), and the cache is dropped when
that region exits. The state is thread-local, as torch's: a new thread starts with autocast
off."""
import threading

from .dtypes import float16, float32
from .tensor import Tensor

# device types torch's autocast knows, with their default autocast dtype ("bfloat16": the
# dtype ember does not have, kept as its name)
DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": float16, "ipu": float16, "xpu": float16,
                 "hip": float16, "maia": "bfloat16", "xla": "bfloat16", "mps": float16,
                 "hpu": "bfloat16", "mtia": float16, "privateuseone": float16}
# device types whose enabled flag is kept (hip has a dtype but no flag in torch)
FLAG_TYPES = frozenset(DEFAULT_DTYPE) - {"hip"}
NO_BFLOAT16 = ("CPU autocast's dtype is torch.bfloat16 (its default), which ember does not "
               "have: use autocast('cpu', dtype=torch.float16) or "
               "set_autocast_dtype('cpu', torch.float16)")


class _State(threading.local):
    cpu = False             # the one flag the autocast ops read: CPU autocast is on

    def __init__(self):
        self.enabled = dict.fromkeys(FLAG_TYPES, False)
        self.dtype = dict(DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}     # id(leaf) -> (leaf, its cast): the leaf is kept alive with its id


AUTOCAST = _State()


def _dtype():
    dt = AUTOCAST.dtype["cpu"]
    if isinstance(dt, str):
        raise RuntimeError(NO_BFLOAT16)
    return dt


def _cast(t, dt):
    if not isinstance(t, Tensor):
        return t
    x = t._data
    if x.dtype.kind != "f" or x.dtype.itemsize == 8 or x.dtype == dt.np:
        return t
    st = AUTOCAST
    if st.cache_enabled and t._requires_grad and t.is_leaf:
        hit = st.cache.get(id(t))
        if hit is not None and hit[0] is t and hit[1].dtype is dt:
            return hit[1]
        out = t.to(dt)
        st.cache[id(t)] = (t, out)
        return out
    return t.to(dt)


def lower(*args):
    """The arguments of a lower-precision op, floating tensors (not float64) in autocast's
    dtype; lists and tuples of tensors are cast element by element."""
    dt = _dtype()
    return tuple(type(a)(_cast(t, dt) for t in a) if isinstance(a, (list, tuple)) else
                 _cast(a, dt) for a in args)


def fp32(*args):
    """The arguments of a float32 op, floating tensors (not float64) in float32."""
    return tuple(_cast(a, float32) for a in args)
