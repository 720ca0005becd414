"""Differential-test helpers: run the same program through torch and ember and compare.

`check(fn, *inputs)` runs fn(lib, *tensors) for lib in (torch, ember) and compares values,
dtypes, shapes, grad_fn names and the gradients of a random-weighted sum of the outputs.
`check_error(fn)` compares exception type and message. `gradcheck` is a central-difference
check in float64 that uses ember alone (a second opinion independent of torch)."""
import numpy as np
import torch

import ember

RNG = np.random.default_rng(0)


def to_lib(lib, x, requires_grad):
    if isinstance(x, np.ndarray):
        t = lib.tensor(x.copy())
        if requires_grad and x.dtype.kind in "fc":
            t.requires_grad_(True)
        return t
    return x


def as_numpy(t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t._is_zerotensor():          # torch's lazily-zero gradients (e.g. from sgn)
            return np.zeros(tuple(t.shape), str(t.dtype).split(".")[1])
        return t.resolve_conj().resolve_neg().numpy()
    return np.asarray(t.detach()._data)


def _outputs(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_outputs(o))
        return res
    return [out]


def grad_fn_name(t):
    fn = getattr(t, "grad_fn", None)
    return None if fn is None else type(fn).__name__


def ember_fn(fn, inputs, grad_inputs=None):
    """(f, arrays): fn(ember, *inputs) as a function of its floating inputs (those listed in
    grad_inputs, if given), the others held as constants; arrays: the floating inputs."""
    diff = [i for i, a in enumerate(inputs) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
            and (grad_inputs is None or i in grad_inputs)]
    consts = {i: ember.tensor(a) for i, a in enumerate(inputs) if i not in diff}

    def f(*xs):
        it = iter(xs)
        return fn(ember, *[consts[i] if i in consts else next(it) for i in range(len(inputs))])
    return f, [inputs[i] for i in diff]


def graph_names(t, depth=2):
    """grad_fn names of t's graph, breadth first to `depth` levels (None: no grad_fn)."""
    fn = t.grad_fn
    if fn is None:
        return None
    out, level = [], [fn]
    for _ in range(depth):
        out.append([None if f is None else type(f).__name__ for f in level])
        level = [e[0] for f in level if f is not None for e in f.next_functions]
    return out


def chain(fn, depth):
    """The graph below the node fn as nested names, "Name(child, child)", to `depth` levels
    below fn (None edges left out)."""
    if fn is None or depth < 0:
        return ""
    inner = ", ".join(chain(n, depth - 1) for n, _ in fn.next_functions if n is not None)
    return type(fn).__name__ + "(" + inner + ")"


def case_chains(fn, inputs, grad_inputs=None, depth=12):
    """[torch's, ember's] chain() of fn(lib, *tensors of inputs).grad_fn, the floating inputs
    (those listed in grad_inputs, if given) requiring grad."""
    got = []
    for lib in (torch, ember):
        ts = [lib.tensor(a) for a in inputs]
        for i, t in enumerate(ts):
            if t.is_floating_point() and (grad_inputs is None or i in grad_inputs):
                t.requires_grad_()
        got.append(chain(fn(lib, *ts).grad_fn, depth))
    return got


def assert_close(a, b, rtol, atol, what=""):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} (torch) vs {b.shape} (ember)"
    if a.dtype.kind in "biu":
        assert np.array_equal(a, b), f"{what}: torch {a} vs ember {b}"
    else:
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def tolerances(dtype):
    if dtype in (np.float64, np.complex128):
        return 1e-10, 1e-12
    if dtype == np.float16:
        return 1e-3, 1e-3
    return 1e-5, 1e-6


def check(fn, *inputs, grad=True, names=True, rtol=None, atol=None, grad_inputs=None,
          seed=0):
    """Compare fn(torch, *ts) with fn(ember, *ts). inputs: numpy arrays (floating ones get
    requires_grad when grad=True) or plain Python values passed through unchanged.
    Returns (torch outputs, ember outputs)."""
    results = {}
    for lib in (torch, ember):
        ts = [to_lib(lib, x, grad and (grad_inputs is None or i in grad_inputs))
              for i, x in enumerate(inputs)]
        out = fn(lib, *ts)
        results[lib] = (ts, out)
    (tts, tout), (ets, eout) = results[torch], results[ember]
    touts, eouts = _outputs(tout), _outputs(eout)
    assert len(touts) == len(eouts), f"{len(touts)} outputs (torch) vs {len(eouts)} (ember)"
    for i, (a, b) in enumerate(zip(touts, eouts)):
        if not isinstance(a, torch.Tensor):
            assert not isinstance(b, ember.Tensor) and a == b or np.allclose(a, b), \
                f"output {i}: {a!r} (torch) vs {b!r} (ember)"
            continue
        assert isinstance(b, ember.Tensor), f"output {i} is {type(b).__name__}, not a Tensor"
        assert str(a.dtype) == str(b.dtype), f"output {i} dtype: {a.dtype} vs {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"output {i} shape: {a.shape} vs {b.shape}"
        r, t = tolerances(as_numpy(a).dtype)
        assert_close(as_numpy(a), as_numpy(b), rtol or r, atol or t, f"output {i} value")
        if names:
            assert grad_fn_name(a) == grad_fn_name(b), \
                f"output {i} grad_fn: {grad_fn_name(a)} vs {grad_fn_name(b)}"
        assert a.requires_grad == b.requires_grad, f"output {i} requires_grad differs"
    if not grad:
        return tout, eout
    diff = [(a, b) for a, b in zip(touts, eouts)
            if isinstance(a, torch.Tensor) and a.requires_grad]
    if not diff:
        return tout, eout
    rng = np.random.default_rng(seed)
    tl = el = 0
    for a, b in diff:
        w = rng.standard_normal(tuple(a.shape)).astype(as_numpy(a).dtype)
        tl = tl + (a * torch.tensor(w)).sum()
        el = el + (b * ember.tensor(w)).sum()
    tl.backward()
    el.backward()
    for i, (ta, ea) in enumerate(zip(tts, ets)):
        if isinstance(ta, torch.Tensor) and ta.requires_grad:
            tg, eg = ta.grad, ea.grad
            assert (tg is None) == (eg is None), f"input {i} grad: {tg} (torch) vs {eg} (ember)"
            if tg is not None:
                assert str(tg.dtype) == str(eg.dtype), f"input {i} grad dtype"
                r, t = tolerances(as_numpy(tg).dtype)
                assert_close(as_numpy(tg), eg._data, rtol or r, atol or t, f"input {i} grad")
    return tout, eout


def check_error(fn, match_message=True):
    """fn(lib) must raise the same exception type (and message) in torch and ember."""
    errs = {}
    for lib in (torch, ember):
        try:
            fn(lib)
        except Exception as e:  # noqa: BLE001 - comparing whatever torch raises
            errs[lib] = e
        else:
            errs[lib] = None
    te, ee = errs[torch], errs[ember]
    assert te is not None, "torch raised nothing"
    assert ee is not None, f"ember raised nothing; torch raised {type(te).__name__}: {te}"
    assert type(te).__name__ == type(ee).__name__ or isinstance(ee, type(te)), \
        f"torch {type(te).__name__}: {te} / ember {type(ee).__name__}: {ee}"
    if match_message:
        tm = str(te).split("\n")[0]
        assert tm == str(ee).split("\n")[0], f"message: torch {tm!r} / ember {str(ee)!r}"


def gradcheck(fn, *arrays, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Central differences (float64, ember only) against ember's analytic gradient of
    sum(w * fn(*inputs)) for a fixed random w."""
    xs = [ember.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    out = fn(*xs)
    w = ember.tensor(RNG.standard_normal(tuple(out.shape)))
    (out * w).sum().backward()
    for k, x in enumerate(xs):
        base = np.asarray(arrays[k], np.float64)
        num = np.zeros(base.shape)          # C order, so the flat view below writes through
        flat = num.reshape(-1)
        for i in range(base.size):
            for sgn in (1, -1):
                pert = base.copy().reshape(-1)
                pert[i] += sgn * eps
                # inputs require grad: fn may itself differentiate (gradgradcheck)
                args = [ember.tensor(pert.reshape(base.shape) if j == k else
                                     np.asarray(arrays[j], np.float64), requires_grad=True)
                        for j in range(len(xs))]
                flat[i] += sgn * float((fn(*args) * w).sum())
        num /= 2 * eps
        got = x.grad._data if x.grad is not None else np.zeros_like(base)
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol, err_msg=f"input {k}")


def gradgradcheck(fn, *arrays, eps=1e-6, rtol=1e-4, atol=1e-6):
    """Second derivatives: differentiate the create_graph gradient (a vector-Jacobian product
    with fixed random weights) numerically, float64, ember only."""
    def first(*xs):
        out = fn(*xs)
        w = ember.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        gs = ember.autograd.grad((out * w).sum(), xs, create_graph=True, allow_unused=True)
        total = 0
        for g in gs:
            if g is not None:
                total = total + (g * g).sum()
        # (a constant gradient, as repeat(0, ...)'s zeros: the second derivative is zero)
        if isinstance(total, int) or not total.requires_grad:
            return (xs[0] * 0).sum()
        return total
    gradcheck(first, *arrays, eps=eps, rtol=rtol, atol=atol)
