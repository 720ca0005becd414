"""A sweep over the op surface under vmap (issue 12): every public callable of torch,
torch.nn.functional, torch.linalg, torch.special and torch.fft that ember has too, and every
public Tensor method, called on small float64 (or int / bool) samples with the first argument
pattern torch accepts for one sample; the tensors are batched (in_dims=0), everything else is
passed as it is. For each call:
- ember's vmap equals ember's op run on each sample, stacked (vmap changes nothing);
- where ember's op agrees with torch's on a sample and torch.func.vmap runs, ember's vmap
  equals torch.func.vmap (values, shapes, dtypes);
- the ops that loop over the samples (the fallback and its performance warning) are exactly
  LOOPS, each with its reason: a new rule must take its op off the list, and an op that starts
  looping fails here."""
import functools
import inspect
import warnings

import numpy as np
import torch

import ember

SLOW = "There is a performance drop"
B = 2
_rng = np.random.default_rng(0)


def _a(*shape, kind="f"):
    if kind == "i":
        return _rng.integers(0, 2, (B,) + shape)
    if kind == "b":
        return _rng.random((B,) + shape) > 0.5
    return _rng.standard_normal((B,) + shape)


class _T:
    """A batched tensor argument (its samples: dim 0 of `a`)."""
    def __init__(self, a):
        self.a = a


_M, _M2, _M3, _V = _a(3, 3), _a(3, 3), _a(3, 3), _a(3)
PATTERNS = [(_T(_M),), (_T(_M), _T(_M2)), (_T(_M), 1), (_T(_M), 0), (_T(_V),),
            (_T(_V), _T(_V)), (_T(_M), _T(_M2), _T(_M3)), (_T(_a(2, 4, 4)), 2),
            (_T(_a(1, 2, 4, 4)), 2), (_T(_a(1, 2, 4, 4)), _T(_a(3, 2, 2, 2))),
            (_T(_M), _T(_a(3, kind="i"))), (_T(_M), 1, _T(_a(3, kind="i"))), (_T(_M), 0.5),
            (_T(_a(3, kind="i")),), (_T(_a(3, 3, kind="b")),), (_T(_M), 2, 0), (_T(_M), 1, 1),
            (_T(_a(2, 4, 4)), (2, 2))]

# not ops on their argument (state, files, conversions out of the library), or random draws
# (vmap's randomness is tested in test_vmap.py), or uninitialised memory
_SKIP = set("""save load set_default_dtype set_default_tensor_type manual_seed seed set_printoptions
set_num_threads set_num_interop_threads use_deterministic_algorithms set_rng_state
set_grad_enabled set_default_device set_anomaly_enabled set_flush_denormal set_warn_always
compile set_float32_matmul_precision set_deterministic_debug_mode from_numpy from_dlpack
as_tensor tensor empty_like new_empty backward register_hook retain_grad requires_grad_
share_memory_ pin_memory cuda record_stream apply_ map_ map2_ set_ storage untyped_storage
data_ptr tolist numpy item resize_ resize_as_ detach_ bernoulli bernoulli_ multinomial poisson
normal normal_ uniform_ random_ exponential_ geometric_ log_normal_ cauchy_ dropout
alpha_dropout feature_alpha_dropout dropout1d dropout2d dropout3d rrelu rrelu_
gumbel_softmax fractional_max_pool2d fractional_max_pool3d binomial""".split())


def _names(mod_t, mod_e):
    for n in sorted(dir(mod_t)):
        if n.startswith("_") or n in _SKIP or "rand" in n:
            continue
        ft, fe = getattr(mod_t, n, None), getattr(mod_e, n, None)
        if fe is None or not callable(ft) or isinstance(ft, type) or inspect.ismodule(ft):
            continue
        yield n


def _build(lib, pat, sample=None):
    return [lib.tensor(p.a if sample is None else p.a[sample]) if isinstance(p, _T) else p
            for p in pat]


def _flat(o):
    if isinstance(o, (tuple, list)):
        return [y for x in o for y in _flat(x)]
    return [o]


def _np(t):
    t = t.detach().resolve_conj() if hasattr(t, "resolve_conj") else t.detach()
    return t.numpy()


def _close(a, b, rtol=1e-6, atol=1e-9):
    fa, fb = _flat(a), _flat(b)
    return len(fa) == len(fb) and all(
        tuple(x.shape) == tuple(y.shape) and str(x.dtype).split(".")[-1] ==
        str(y.dtype).split(".")[-1] and np.allclose(_np(x), _np(y), rtol=rtol, atol=atol,
                                                    equal_nan=True)
        for x, y in zip(fa, fb))


def _stack(lib, outs):
    flat = [_flat(o) for o in outs]
    return [lib.stack([f[k] for f in flat]) for k in range(len(flat[0]))]


def _method(name):
    return lambda x, *rest: getattr(x, name)(*rest)


def _surface():
    for label, mt, me in (("torch", torch, ember), ("F", torch.nn.functional,
                                                    ember.nn.functional),
                          ("linalg", torch.linalg, ember.linalg),
                          ("special", torch.special, ember.special),
                          ("fft", torch.fft, ember.fft)):
        for n in _names(mt, me):
            yield f"{label}.{n}", getattr(mt, n), getattr(me, n)
    for n in _names(torch.Tensor, ember.Tensor):
        yield f"Tensor.{n}", _method(n), _method(n)


@functools.lru_cache(maxsize=None)
def sweep():
    """name -> (looped, mismatch or None) for every callable a pattern reaches."""
    res = {}
    for name, ft, fe in _surface():
        for pat in PATTERNS:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tsample = [ft(*_build(torch, pat, b)) for b in range(B)]
                if not _flat(tsample[0]) or not all(isinstance(x, torch.Tensor)
                                                    for x in _flat(tsample[0])):
                    continue
            except Exception:   # noqa: BLE001 (this pattern is not one torch accepts)
                continue
            res[name] = _check(ft, fe, pat, tsample)
            break
    return res


def _check(ft, fe, pat, tsample):
    dims = tuple(0 if isinstance(p, _T) else None for p in pat)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            esample = [fe(*_build(ember, pat, b)) for b in range(B)]
    except Exception as e:      # noqa: BLE001
        esample = e
    ember.func._batching._WARNED.clear()       # (the warning comes once per op and process)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            got = ember.func.vmap(fe, in_dims=dims)(*_build(ember, pat))
        except Exception as e:  # noqa: BLE001
            got = e
    looped = any(SLOW in str(m.message) for m in w)
    if isinstance(esample, Exception):
        # torch ran every sample (the pattern is chosen so): ember's op must too, or a rule
        # that fails as its op does would pass unseen
        return looped, f"the op fails per sample where torch's runs: {esample!r}"[:200]
    if isinstance(got, Exception):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.func.vmap(ft, in_dims=dims)(*_build(torch, pat))
        except Exception as e:  # noqa: BLE001 (torch refuses it too: the same error)
            if type(e) is type(got) and str(e) == str(got):
                return looped, None
        return looped, f"vmap raised {got!r}"[:200]
    if not _close(_stack(ember, esample), got):
        return looped, "vmap differs from the op run per sample"
    same_as_torch = all(_close(t, e) for t, e in zip(tsample, esample))
    if same_as_torch:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = torch.func.vmap(ft, in_dims=dims)(*_build(torch, pat))
        except Exception:       # noqa: BLE001 (torch's vmap refuses it: checked per sample)
            return looped, None
        if not _close(want, got):
            return looped, "vmap differs from torch.func.vmap"
    return looped, None


# The ops that still run once per sample, and why.
LOOPS = {
    "Tensor.module_load": "not an op (nn.Module loading hook)",
    "Tensor.new": "legacy constructor: looped",
    "Tensor.new_tensor": "the data is a batched tensor (new_* rules cover unbatched arguments)",
    "Tensor.resize_as": "deprecated resize: looped",
    "torch.argwhere": ("data-dependent shape: the loop stacks it where the samples agree, as "
        "torch's fallback does"),
    "torch.asarray": "a conversion, not an op: looped",
}

# the same ops reached through another namespace: the reason given for torch.<name>
LOOPS.update({k: f"as torch.{k.split('.')[1]}" for k in (
    "Tensor.argwhere").split()})


def test_sweep_reaches_the_surface():
    assert len(sweep()) > 900


def test_vmap_equals_the_op_per_sample_and_torch():
    bad = {k: m for k, (_, m) in sweep().items() if m}
    assert not bad, bad


def test_the_ops_that_loop_are_the_listed_ones():
    looped = {k for k, (lp, _) in sweep().items() if lp}
    assert looped == set(LOOPS), (sorted(looped - set(LOOPS)), sorted(set(LOOPS) - looped))
