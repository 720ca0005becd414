"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (autograd) against numerical
ones (central differences), with torch's signature and failure messages."""
import warnings

import numpy as np

from ..tensor import Tensor, wrap
from . import grad as _grad
from .grad_mode import enable_grad, no_grad

__all__ = [
    "GradcheckError",
    "get_analytical_jacobian",
    "get_numerical_jacobian",
    "gradcheck",
    "gradgradcheck",
]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


_NONDET = ("Backward is not reentrant, i.e., running backward with same input and grad_output "
           "multiple times gives different values, although analytical gradient matches "
           "numerical gradient.The tolerance for nondeterminism was {tol}.")


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _diff_inputs(inputs):
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs):
    if not _diff_inputs(inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i, t in _diff_inputs(inputs):
        if t._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=3)


def _flat(o):
    """An output's values, flat, as float64 (complex128 for complex outputs)."""
    a = o._data
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64).reshape(-1)


def _jac_dtype(t):
    return np.complex128 if t._data.dtype.kind == "c" else np.float64


def _numerical(func, inputs, eps, u=None, part="real"):
    """Central differences along the real part (part="real") or the imaginary part
    (part="imag", complex inputs only: the others give None) of each differentiable input.
    Without u: per differentiable input, per output, the Jacobian as an (input numel, output
    numel) array. With u (one flat real direction per differentiable input): per input, per
    output, the directional derivative along u (flat)."""
    diff = _diff_inputs(inputs)
    step = 1 if part == "real" else 1j
    with no_grad():
        outs = _outputs(func, inputs)

        def central(t, at, d):
            old = t._data[at].copy()
            t._data[at] = old + eps * d
            hi = [_flat(o) for o in _outputs(func, inputs)]
            t._data[at] = old - eps * d
            lo = [_flat(o) for o in _outputs(func, inputs)]
            t._data[at] = old
            return [(h - lo_) / (2 * eps) for h, lo_ in zip(hi, lo)]

        res = []
        for jd, (_, t) in enumerate(diff):
            if part == "imag" and t._data.dtype.kind != "c":
                res.append(None)
            elif u is not None:
                res.append(central(t, ..., step * u[jd].reshape(t._data.shape)))
            else:
                per = [np.zeros((t._data.size, o._data.size), _jac_dtype(o)) for o in outs]
                for idx in range(t._data.size):
                    at = np.unravel_index(idx, t._data.shape)     # (any memory layout)
                    for k, col in enumerate(central(t, at, step)):
                        per[k][idx] = col
                res.append(per)
        return res


def _numerical_wirtinger(func, inputs, eps, u=None):
    """The numerical counterpart of backward's gradients for real outputs: d/dx + i d/dy for
    a complex input x + iy (torch's convention: the conjugate Wirtinger derivative, doubled),
    d/dx for a real one."""
    re = _numerical(func, inputs, eps, u, "real")
    im = _numerical(func, inputs, eps, u, "imag")
    return [r if i is None else [a + 1j * b for a, b in zip(r, i)] for r, i in zip(re, im)]


def _analytical(outputs, diff, v=None):
    """Per differentiable input, per output: the Jacobian (input numel, output numel) from
    backward, one output element at a time. With v (one flat vector per output): per input,
    the flat v^T J summed over outputs."""
    inputs = [t for _, t in diff]
    if v is not None:
        total = [np.zeros(t._data.size, _jac_dtype(t)) for t in inputs]
        for o, w in zip(outputs, v):
            if not o.requires_grad:
                continue
            g = _grad(o, inputs, wrap(w.reshape(o._data.shape).astype(o._data.dtype)),
                      retain_graph=True, allow_unused=True)
            for j, gj in enumerate(g):
                if gj is not None:
                    total[j] = total[j] + gj._data.reshape(-1)
        return total
    jac = [[np.zeros((t._data.size, o._data.size), _jac_dtype(t)) for o in outputs]
           for t in inputs]
    for k, o in enumerate(outputs):
        if not o.requires_grad:
            continue
        for e in range(o._data.size):
            onehot = np.zeros(o._data.size, o._data.dtype)
            onehot[e] = 1
            g = _grad(o, inputs, wrap(onehot.reshape(o._data.shape)), retain_graph=True,
                      allow_unused=True)
            for j, gj in enumerate(g):
                if gj is not None:
                    if gj._data.shape != inputs[j]._data.shape:
                        raise GradcheckError("Gradient has incorrect size")
                    jac[j][k][:, e] = gj._data.reshape(-1)
    return jac


def _forward(func, inputs, diff, jd, tan):
    """Per output, the flat tangent of func's outputs when differentiable input jd carries
    the tangent tan (an array of its shape) and the others carry none."""
    from . import forward_ad as fwAD  # (forward_ad loads the ops: imported on use)
    args = list(inputs)
    i, t = diff[jd]
    with fwAD.dual_level():
        args[i] = fwAD.make_dual(t, wrap(np.asarray(tan, t._data.dtype)))
        outs = _outputs(func, args)
        cols = []
        for o in outs:
            ot = fwAD.unpack_dual(o).tangent
            cols.append(np.zeros(o._data.size, _jac_dtype(o)) if ot is None else _flat(ot))
    return cols


def _analytical_forward(func, inputs, diff, part):
    """Per differentiable input, per output: the Jacobian (input numel, output numel) from
    forward-mode AD, one input element at a time, along the part ("real"/"imag") of inputs."""
    step = 1 if part == "real" else 1j
    jac = []
    for jd, (_, t) in enumerate(diff):
        if part == "imag" and t._data.dtype.kind != "c":
            jac.append(None)
            continue
        per = None
        for idx in range(t._data.size):
            tan = np.zeros(t._data.shape, t._data.dtype)
            tan[np.unravel_index(idx, t._data.shape)] = step
            cols = _forward(func, inputs, diff, jd, tan)
            if per is None:
                per = [np.zeros((t._data.size, c.size), c.dtype) for c in cols]
            for k, c in enumerate(cols):
                per[k][idx] = c
        jac.append(per or [])
    return jac


def _fmt(a, dtype):
    return repr(wrap(np.asarray(a, dtype)))


def _shown(a, t):
    """The dtype torch prints a Jacobian in: the input's, complex where the values are."""
    return np.complex128 if np.iscomplexobj(a) else t._data.dtype


def _mismatch(k, j, num, ana, dtype, what="Jacobian"):
    return (f"{what} mismatch for output {k} with respect to input {j},\n"
            f"numerical:{_fmt(num, dtype)}\nanalytical:{_fmt(ana, dtype)}\n")


_FAST_NOTE = ("The above quantities relating the numerical and analytical jacobians are computed "
              "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
              "background \nabout fast mode. Below, we recompute numerical and analytical "
              "jacobians in slow mode:\n\n")


def _slow_note(n, a, dtype):
    return (f"Numerical:\n {_fmt(n, dtype)}\nAnalytical:\n{_fmt(a, dtype)}\n\n"
            f"The max per-element difference (slow mode) is: {float(np.abs(n - a).max())}.\n")


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _scalar(x):
    x = complex(x)
    return x.real if x.imag == 0 else x


def _slow(func, inputs, outputs, diff, eps, atol, rtol, nondet_tol, raise_exception, pre):
    num = _numerical_wirtinger(func, inputs, eps)
    ana = _analytical(outputs, diff)
    for k, o in enumerate(outputs):
        for jd, (j, t) in enumerate(diff):
            n, a = num[jd][k], ana[jd][k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(pre + _mismatch(k, j, n, a, _shown(n, t)), raise_exception)
    again = _analytical(outputs, diff)
    for a1, a2 in zip(ana, again):
        for x, y in zip(a1, a2):
            if np.abs(x - y).max(initial=0) > nondet_tol:
                return _fail(pre + _NONDET.format(tol=nondet_tol), raise_exception)
    return True


def _fast(func, inputs, outputs, diff, eps, atol, rtol, raise_exception, pre):
    """torch's fast mode: compare v^T J u (one random u over the inputs, v over the outputs)
    computed both ways; on failure, recompute the slow Jacobians for the message."""
    rng = np.random.default_rng()
    u = [rng.uniform(0, 1, t._data.size) for _, t in diff]
    u = [d / (np.sqrt(sum((x * x).sum() for x in u)) or 1) for d in u]
    v = [rng.uniform(0, 1, o._data.size) for o in outputs]
    num = _numerical_wirtinger(func, inputs, eps, u)
    vju = _analytical(outputs, diff, v)
    ana_total = _scalar(sum((g * d).sum() for g, d in zip(vju, u)))
    num_total = _scalar(sum((n * w).sum() for per in num for n, w in zip(per, v)))
    if abs(ana_total - num_total) <= atol + rtol * abs(num_total):
        return True
    slow_num = _numerical_wirtinger(func, inputs, eps)
    slow_ana = _analytical(outputs, diff)
    k, j = 0, diff[0][0]
    for kk in range(len(outputs)):
        for jd, (jj, _) in enumerate(diff):
            if not np.allclose(slow_ana[jd][kk], slow_num[jd][kk], rtol=rtol, atol=atol):
                k, j = kk, jj
                break
        else:
            continue
        break
    jd = [i for i, _ in diff].index(j)
    n, a = slow_num[jd][k], slow_ana[jd][k]
    msg = (f"{pre}Jacobian mismatch for output {k} with respect to input {j},\n"
           f"numerical:{num_total!r}\nanalytical:{ana_total!r}\n\n" + _FAST_NOTE +
           _slow_note(n, a, _shown(n, inputs[j])))
    return _fail(msg, raise_exception)


def _undefined_grad(outputs, diff, raise_exception):
    """Zero gradients for the outputs must give zero (or no) gradients for the inputs."""
    live = [o for o in outputs if o.requires_grad]
    if not live:
        return True
    g = _grad(live, [t for _, t in diff], [wrap(np.zeros_like(o._data)) for o in live],
              retain_graph=True, allow_unused=True)
    for gj in g:
        if gj is not None and np.any(gj._data != 0):
            return _fail("Expected all input grads to be undefined or zero when all output "
                         "grads are undefined or zero.", raise_exception)
    return True


_FWD_WHAT = "Jacobian computed with forward mode"


def _check_forward(func, inputs, diff, eps, atol, rtol, fast_mode, raise_exception):
    """Forward-mode AD against the numerical Jacobian; complex inputs are checked along their
    real part, then along their imaginary part (torch's order and messages)."""
    cplx = any(t._data.dtype.kind == "c" for _, t in diff)
    for part in ("real", "imag") if cplx else ("real",):
        pre = f"While considering the {'real' if part == 'real' else 'imaginary'} part of " \
              "complex inputs only, " if cplx else ""
        if fast_mode:
            rng = np.random.default_rng()
            for jd, (j, t) in enumerate(diff):
                if part == "imag" and t._data.dtype.kind != "c":
                    continue
                u = rng.uniform(0, 1, t._data.size)
                u = u / (np.sqrt((u * u).sum()) or 1)
                us = [u if d == jd else np.zeros(s._data.size) for d, (_, s) in enumerate(diff)]
                num = _numerical(func, inputs, eps, us, part)
                num = [sum(cols) for cols in zip(*[n for n in num if n is not None])]
                step = 1 if part == "real" else 1j
                ana = _forward(func, inputs, diff, jd, (step * u).reshape(t._data.shape))
                for k, (n, a) in enumerate(zip(num, ana)):
                    if np.allclose(a, n, rtol=rtol, atol=atol):
                        continue
                    sn = _numerical(func, inputs, eps, part=part)[jd][k]
                    sa = _analytical_forward(func, inputs, diff, part)[jd][k]
                    dt = _shown(n, t)
                    return _fail(f"{pre}{_FWD_WHAT} mismatch for output {k} with respect to "
                                 f"input {j},\nnumerical:{_fmt(n, dt)}\nanalytical:"
                                 f"{_fmt(a, dt)}\n\n" + _FAST_NOTE +
                                 _slow_note(sn, sa, _shown(sn, t)), raise_exception)
            continue
        num = _numerical(func, inputs, eps, part=part)
        ana = _analytical_forward(func, inputs, diff, part)
        for jd, (j, t) in enumerate(diff):
            if num[jd] is None:
                continue
            for k, (n, a) in enumerate(zip(num[jd], ana[jd])):
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    return _fail(pre + _mismatch(k, j, n, a, _shown(n, t), _FWD_WHAT),
                                 raise_exception)
    return True


_BATCHED = (
    "gradcheck or gradgradcheck failed while testing batched gradient computation.\n"
    "This could have been invoked in a number of ways (via a test that calls\n"
    "gradcheck/gradgradcheck directly or via an autogenerated test).\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `check_batched_grad=False` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.\n\n"
    "If you're modifying an existing operator that supports batched grad computation,\n"
    "or wish to make a new operator work with batched grad computation, please read\n"
    "the following.\n\n"
    "To compute batched grads (e.g., jacobians, hessians), we vmap over the backward\n"
    "computation. The most common failure case is if there is a 'vmap-incompatible\n"
    "operation' in the backward pass. Please see\n"
    "NOTE: [How to write vmap-compatible backward formulas]\n"
    "in the codebase for an explanation of how to fix this.")

_BATCHED_FWD = (
    "\ngradcheck failed while testing batched gradient computation with forward-mode AD.\n"
    "This test is enabled automatically when both `check_batched_grad=True`\n"
    "and `check_forward_ad=True`, but can be disabled in the following ways\n"
    "dependong on how the test was invoked (via a test that calls gradcheck\n"
    "directly or via an autogenerated test).\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `check_batched_forward_grad=False` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `check_batched_forward_grad=False`\n")


def _batched_fail(k, j, got, want, note, raise_exception):
    return _fail(f"For output {k} and input {j}:\n\n{note}\n\nGot:\n{got!r}\n\n"
                 f"Expected:\n{want!r}", raise_exception)


def _rand_like(rng, t, batch=2):
    a = rng.standard_normal((batch,) + t._data.shape)
    if t._data.dtype.kind == "c":
        a = a + 1j * rng.standard_normal(a.shape)
    return wrap(a.astype(t._data.dtype))


def _check_batched_grad(outputs, diff, atol, rtol, raise_exception):
    """vmap over backward (ember.func.vmap over autograd.grad) against one backward per grad
    output, for each output that requires grad."""
    from ..func import vmap  # (ember.func loads on first use: Note [Lazy subpackages])
    from ..ops.join import stack  # (the ops import autograd: imported on use)
    from .. import creation  # (as the ops: imported on use; read at call time, so vmap
    #                          dispatches creation.zeros_like)
    rng = np.random.default_rng()
    inputs = [t for _, t in diff]
    for k, o in enumerate(outputs):
        if not o.requires_grad:
            continue

        def vjp(go, o=o):
            g = _grad(o, inputs, go, retain_graph=True, allow_unused=True)
            return tuple(creation.zeros_like(t) if x is None else x
                         for x, t in zip(g, inputs))
        gos = _rand_like(rng, o)
        try:
            got = vmap(vjp)(gos)
        except Exception as e:      # noqa: BLE001 (torch reports any failure this way)
            return _fail(f"While computing batched gradients, got: {e}\n\n{_BATCHED}",
                         raise_exception)
        per = [vjp(gos[b]) for b in range(gos.shape[0])]
        for jd, (j, _) in enumerate(diff):
            want = stack([p[jd] for p in per])
            if not np.allclose(got[jd]._data, want._data, rtol=rtol, atol=atol):
                return _batched_fail(k, j, got[jd], want, _BATCHED, raise_exception)
    return True


def _check_batched_forward_grad(func, inputs, diff, atol, rtol, raise_exception):
    """vmap over forward-mode AD (a batch of tangents per input) against one jvp per
    tangent."""
    from ..func import vmap  # (ember.func loads on first use)
    from ..ops.join import stack  # (the ops import autograd: imported on use)
    from .. import creation  # (as the ops: imported on use; read at call time, so vmap
    #                          dispatches creation.zeros_like)
    from . import forward_ad as fwAD  # (forward_ad loads the ops: imported on use)
    from ..func._batching import legacy  # (torch's check runs under its legacy vmap)
    rng = np.random.default_rng()
    for jd, (j, t) in enumerate(diff):
        i = diff[jd][0]

        def jvp(tan, i=i, t=t):
            args = list(inputs)
            with fwAD.dual_level():
                args[i] = fwAD.make_dual(t, tan)
                outs = _outputs(func, args)
                tans = [fwAD.unpack_dual(o).tangent for o in outs]
            return tuple(creation.zeros_like(o) if x is None else x
                         for x, o in zip(tans, outs))
        tans = _rand_like(rng, t)
        try:
            with legacy():
                got = vmap(jvp)(tans)
        except Exception as e:      # noqa: BLE001 (torch reports any failure this way)
            return _fail(f"While computing batched gradients, got: {e}\n\n{_BATCHED_FWD}",
                         raise_exception)
        per = [jvp(tans[b]) for b in range(tans.shape[0])]
        for k in range(len(per[0])):
            want = stack([p[k] for p in per])
            if not np.allclose(got[k]._data, want._data, rtol=rtol, atol=atol):
                return _batched_fail(k, j, got[k], want, _BATCHED_FWD, raise_exception)
    return True


def _part_of_outputs(func, part):
    def f(*args):
        out = func(*args)
        conv = (lambda o: o.imag if part == "imag" else o.real)
        fix = (lambda o: conv(o) if isinstance(o, Tensor) and o._data.dtype.kind == "c" else o)
        return tuple(fix(o) for o in out) if isinstance(out, (tuple, list)) else fix(out)
    return f


def _check_backward(func, inputs, eps, atol, rtol, nondet_tol, raise_exception,
                    check_undefined_grad, fast_mode):
    """Backward against the numerical Jacobian; complex outputs are checked as their
    imaginary part, then their real part (torch's order and messages)."""
    diff = _diff_inputs(inputs)
    with enable_grad():
        outputs = _outputs(func, inputs)
    cplx = any(o._data.dtype.kind == "c" for o in outputs)
    for part in ("imag", "real") if cplx else (None,):
        f = func if part is None else _part_of_outputs(func, part)
        pre = "" if part is None else \
            f"While considering the {'real' if part == 'real' else 'imaginary'} part of " \
            "complex outputs only, "
        with enable_grad():
            outs = _outputs(f, inputs)
            if fast_mode:
                ok = _fast(f, inputs, outs, diff, eps, atol, rtol, raise_exception, pre)
            else:
                ok = _slow(f, inputs, outs, diff, eps, atol, rtol, nondet_tol,
                           raise_exception, pre)
            if ok and check_undefined_grad:
                ok = _undefined_grad(outs, diff, raise_exception)
            # outputs that do not require grad must not depend on the inputs numerically
            if ok:
                num = None
                for k, o in enumerate(outs):
                    if o.requires_grad:
                        continue
                    num = num or _numerical_wirtinger(f, inputs, eps)
                    for jd, (j, t) in enumerate(diff):
                        if not np.allclose(num[jd][k], 0, atol=atol):
                            return _fail("Numerical gradient for function expected to be zero",
                                         raise_exception)
        if not ok:
            return False
    return True


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check func's gradients at inputs against finite differences (see the module doc)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    diff = _diff_inputs(inputs)
    if check_backward_ad and not _check_backward(func, inputs, eps, atol, rtol, nondet_tol,
                                                 raise_exception, check_undefined_grad,
                                                 fast_mode):
        return False
    if check_forward_ad and not _check_forward(func, inputs, diff, eps, atol, rtol, fast_mode,
                                               raise_exception):
        return False
    if check_batched_forward_grad and not _check_batched_forward_grad(
            func, inputs, diff, atol, rtol, raise_exception):
        return False
    if check_batched_grad:
        with enable_grad():
            outputs = _outputs(func, inputs)
            if not _check_batched_grad(outputs, diff, atol, rtol, raise_exception):
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the function (inputs, grad_outputs) -> gradients of func's outputs."""
    inputs = _as_tuple(inputs)
    n_in = len(inputs)
    if grad_outputs is None:
        with enable_grad():
            outs = _outputs(func, inputs)
        rng = np.random.default_rng()
        grad_outputs = tuple(
            wrap((rng.uniform(-1, 1, o._data.shape) + (1j * rng.uniform(-1, 1, o._data.shape)
                                                      if o._data.dtype.kind == "c" else 0))
                 .astype(o._data.dtype)).requires_grad_(True)
            for o in outs if o.requires_grad)
    else:
        grad_outputs = _as_tuple(grad_outputs)

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        with enable_grad():     # (gradcheck's numerical pass runs without grad)
            outs = [o for o in _outputs(func, ins) if o.requires_grad]
            diff = [t for t in ins if isinstance(t, Tensor) and t.requires_grad]
            g = _grad(outs, diff, list(gos), create_graph=True, allow_unused=True)
        return tuple(x for x in g if x is not None)

    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated torch API: per differentiable input, the numerical Jacobian
    (input numel, output numel) of fn's single output."""
    inputs = _as_tuple(inputs)
    jac = _numerical(fn, inputs, eps)
    return tuple(wrap((per[0] * grad_out).astype(t._data.dtype))
                 for per, (_, t) in zip(jac, _diff_inputs(inputs)))


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated torch API: (jacobians, reentrant, correct_grad_sizes, correct_grad_types)."""
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    a1 = _analytical((output,), diff)
    a2 = _analytical((output,), diff)
    reentrant = all(np.abs(x[0] - y[0]).max(initial=0) <= nondet_tol for x, y in zip(a1, a2))
    jac = tuple(wrap((per[0] * grad_out).astype(t._data.dtype)) for per, (_, t) in zip(a1, diff))
    return jac, reentrant, True, True
