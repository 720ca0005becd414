"""A differential check for nn modules (normloss tests): build the same module in torch and
ember, copy torch's state into ember's, run the same inputs through both (in training and eval
mode), and compare reprs, outputs, input and parameter gradients, and the state afterwards."""
import numpy as np
import torch

import ember
from oracle import as_numpy, assert_close, tolerances


def _convert(lib, a):
    if isinstance(a, np.ndarray):
        return lib.tensor(a)
    return a


def make_pair(ctor, args=(), kwargs=None):
    """The module made by ctor(lib, *args, **kwargs) in both libraries, ember's given torch's
    state (parameters and buffers) so that randomly initialised ones agree."""
    kwargs = kwargs or {}
    mods = []
    for lib in (torch, ember):
        a = [_convert(lib, x) for x in args]
        k = {n: _convert(lib, v) for n, v in kwargs.items()}
        mods.append(ctor(lib, *a, **k))
    tm, em = mods
    state = {n: ember.tensor(v.detach().numpy()) for n, v in tm.state_dict().items()}
    em.load_state_dict(state)
    return tm, em


def compare_state(tm, em, what=""):
    ts, es = tm.state_dict(), em.state_dict()
    assert list(ts) == list(es), f"{what}: state keys {list(ts)} vs {list(es)}"
    for n in ts:
        a, b = ts[n].detach(), es[n].detach()
        assert str(a.dtype) == str(b.dtype), f"{what}: {n} dtype"
        r, t = tolerances(as_numpy(a).dtype)
        assert_close(as_numpy(a), as_numpy(b), r, t, f"{what}: state {n}")


def check_module(ctor, inputs, args=(), kwargs=None, grad_inputs=None, steps=1, modes=("train",),
                 dtype=None, rtol=None, atol=None):
    """Compare repr, state, and for each mode and step the outputs, the input gradients and
    the parameter gradients (of a fixed random weighting of the outputs)."""
    tm, em = make_pair(ctor, args, kwargs)
    if dtype == "double":
        tm, em = tm.double(), em.double()
    assert repr(tm) == repr(em), f"repr: {tm!r} vs {em!r}"
    compare_state(tm, em, "initial")
    rng = np.random.default_rng(0)
    for mode in modes:
        tm.train(mode == "train")
        em.train(mode == "train")
        for step in range(steps):
            outs = []
            for lib, m in ((torch, tm), (ember, em)):
                m.zero_grad()
                ts = []
                for i, x in enumerate(inputs):
                    t = lib.tensor(x) if isinstance(x, np.ndarray) else x
                    if isinstance(x, np.ndarray) and x.dtype.kind == "f" and \
                            (grad_inputs is None or i in grad_inputs):
                        t.requires_grad_()
                    ts.append(t)
                out = m(*ts)
                outs.append((ts, out))
            (tts, tout), (ets, eout) = outs
            assert type(tout).__name__ == type(eout).__name__
            r, t = tolerances(as_numpy(tout).dtype)
            assert_close(as_numpy(tout), as_numpy(eout), rtol or r, atol or t,
                         f"{mode} step {step} output")
            assert str(tout.dtype) == str(eout.dtype)
            gf = getattr(tout.grad_fn, "__class__", type(None)).__name__
            assert gf == getattr(eout.grad_fn, "__class__", type(None)).__name__, \
                f"grad_fn {tout.grad_fn} vs {eout.grad_fn}"
            if tout.requires_grad:
                w = rng.standard_normal(tuple(tout.shape)).astype(as_numpy(tout).dtype)
                (tout * torch.tensor(w)).sum().backward()
                (eout * ember.tensor(w)).sum().backward()
                for i, (a, b) in enumerate(zip(tts, ets)):
                    if isinstance(a, torch.Tensor) and a.requires_grad:
                        assert_close(as_numpy(a.grad), as_numpy(b.grad), rtol or r, atol or t,
                                     f"{mode} step {step} input {i} grad")
                for (n, p), (n2, q) in zip(tm.named_parameters(), em.named_parameters()):
                    assert n == n2
                    assert (p.grad is None) == (q.grad is None), f"param {n} grad presence"
                    if p.grad is not None:
                        assert_close(as_numpy(p.grad), as_numpy(q.grad), rtol or r, atol or t,
                                     f"{mode} step {step} grad of {n}")
            compare_state(tm, em, f"{mode} step {step}")
    return tm, em
