"""Forward-mode AD test helper: one program through torch and ember with dual inputs.

`check_jvp(fn, *inputs)` gives every floating input a random tangent, runs fn(lib, *duals) in
a dual level for lib in (torch, ember), and compares the primal outputs and their tangents
(float64 by default). It then checks ember's tangents against the Jacobian that ember's own
reverse mode gives (row by row, one backward per output element): the tangent equals J t."""
import numpy as np
import pytest
import torch

import ember
from oracle import as_numpy, assert_close, to_lib, _outputs


def _duals(lib, inputs, tangents, requires_grad):
    fw = lib.autograd.forward_ad
    args = []
    for x, t in zip(inputs, tangents):
        a = to_lib(lib, x, requires_grad)
        if t is not None:
            a = fw.make_dual(a, lib.tensor(t.copy()))
        args.append(a)
    return args


def _unpack(lib, out):
    fw = lib.autograd.forward_ad
    res = []
    for o in _outputs(out):
        if isinstance(o, (torch.Tensor, ember.Tensor)):
            p, t = fw.unpack_dual(o)
            res.append((as_numpy(p), None if t is None else as_numpy(t)))
        else:
            res.append((o, None))
    return res


def tangents_for(inputs, seed, which=None):
    rng = np.random.default_rng(seed)
    out = []
    for i, x in enumerate(inputs):
        ok = isinstance(x, np.ndarray) and x.dtype.kind in "fc" and (which is None or i in which)
        out.append(rng.standard_normal(x.shape).astype(x.dtype) if ok else None)
    return out


def run_jvp(lib, fn, inputs, tangents, requires_grad=False):
    with lib.autograd.forward_ad.dual_level():
        args = _duals(lib, inputs, tangents, requires_grad)
        out = fn(lib, *args)
        return _unpack(lib, out), out


def check_jvp(fn, *inputs, which=None, rtol=None, atol=None, seed=0, torch_side=True,
              reverse=True, requires_grad=False):
    """Compare ember's forward-mode result of fn with torch's and with ember's reverse-mode
    Jacobian applied to the same tangents. which: indices of the inputs given tangents."""
    tangents = tangents_for(inputs, seed, which)
    if torch_side:
        try:
            run_jvp(torch, fn, inputs, tangents, requires_grad)
        except (RuntimeError, NotImplementedError) as e:     # ember must refuse it alike
            with pytest.raises(type(e)) as info:
                run_jvp(ember, fn, inputs, tangents, requires_grad)
            head = str(e).split(" that ")[0]
            assert str(info.value).startswith(head.rstrip("_")), (str(info.value), str(e))
            return None
    eres, _ = run_jvp(ember, fn, inputs, tangents, requires_grad)
    f64 = all(not isinstance(x, np.ndarray) or x.dtype not in (np.float32, np.complex64)
              for x in inputs) and all(t is None or t.dtype not in (np.float32, np.complex64)
                                       for _, t in eres)
    r = rtol or (1e-9 if f64 else 2e-5)
    a = atol or (1e-11 if f64 else 2e-6)
    if torch_side:
        tres, _ = run_jvp(torch, fn, inputs, tangents, requires_grad)
        assert len(tres) == len(eres), f"{len(tres)} outputs (torch) vs {len(eres)} (ember)"
        for i, ((tp, tt), (ep, et)) in enumerate(zip(tres, eres)):
            if isinstance(tp, np.ndarray):
                assert_close(tp, ep, r, a, f"output {i} primal")
            assert (tt is None) == (et is None), \
                f"output {i} tangent: torch {tt is not None}, ember {et is not None}"
            if tt is not None:
                assert tt.dtype == et.dtype, f"output {i} tangent dtype {tt.dtype} vs {et.dtype}"
                assert_close(tt, et, r, a, f"output {i} tangent")
    if reverse:
        check_reverse(fn, inputs, tangents, eres, r, a)
    return eres


def check_reverse(fn, inputs, tangents, eres, rtol, atol):
    """ember's tangents against J t, J from ember's reverse mode (one backward per row)."""
    xs = [to_lib(ember, x, True) for x in inputs]
    outs = _outputs(fn(ember, *xs))
    diff = [k for k, x in enumerate(xs) if isinstance(x, ember.Tensor) and x.requires_grad]
    for i, o in enumerate(outs):
        et = eres[i][1]
        if not isinstance(o, ember.Tensor) or not o.requires_grad:
            if et is not None:
                assert np.all(et == 0), f"output {i}: tangent without a reverse-mode path"
            continue
        flat = o.reshape(-1)
        jt = np.zeros(flat.shape[0], dtype=as_numpy(o).dtype)
        for j in range(flat.shape[0]):
            gs = ember.autograd.grad(flat[j], [xs[k] for k in diff], retain_graph=True,
                                     allow_unused=True)
            for k, g in zip(diff, gs):
                if g is not None and tangents[k] is not None:
                    jt[j] += np.sum(g._data * tangents[k])
        got = np.zeros(o.shape) if et is None else et
        jt = jt.reshape(o.shape)
        # J t is defined where the output is finite and the Jacobian row holds no NaN: a NaN
        # partial (a NaN input, an inf - inf) spreads to the whole row's sum
        ok = np.isfinite(as_numpy(o)) & ~np.isnan(jt)
        assert_close(jt[ok], np.asarray(got)[ok], rtol * 10, atol * 10,
                     f"output {i} tangent vs reverse-mode J t")
