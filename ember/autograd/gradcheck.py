"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (autograd) against numerical
ones (central differences), with torch's signature and failure messages."""
import warnings

import numpy as np

from ..tensor import Tensor, wrap
from . import grad as _grad
from .grad_mode import no_grad, enable_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian"]


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


def _numerical(func, inputs, eps, u=None):
    """Central differences. Without u: per differentiable input, per output, the Jacobian as
    a (input numel, output numel) array. With u (one flat direction per differentiable input):
    per output, the directional derivative along u (flat)."""
    diff = _diff_inputs(inputs)
    with no_grad():
        outs = _outputs(func, inputs)

        def delta(t, idx, step):
            at = np.unravel_index(idx, t._data.shape)     # (any memory layout)
            old = t._data[at].copy()
            t._data[at] = old + step
            hi = [o._data.astype(np.float64, copy=True).reshape(-1)
                  for o in _outputs(func, inputs)]
            t._data[at] = old - step
            lo = [o._data.astype(np.float64, copy=True).reshape(-1)
                  for o in _outputs(func, inputs)]
            t._data[at] = old
            return [(h - l) / (2 * eps) for h, l in zip(hi, lo)]

        if u is not None:
            res = [np.zeros(o._data.size) for o in outs]
            for (_, t), d in zip(diff, u):
                d = d.reshape(t._data.shape)
                old = t._data.copy()
                t._data[...] = old + eps * d
                hi = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                t._data[...] = old - eps * d
                lo = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                t._data[...] = old
                for k in range(len(res)):
                    res[k] = res[k] + (hi[k] - lo[k]) / (2 * eps)
            return res
        jac = []
        for _, t in diff:
            per = [np.zeros((t._data.size, o._data.size)) for o in outs]
            for idx in range(t._data.size):
                for k, col in enumerate(delta(t, idx, eps)):
                    per[k][idx] = col
            jac.append(per)
        return jac


def _analytical(outputs, diff, v=None):
    """Per differentiable input, per output: the Jacobian (input numel, output numel) from
    backward, one output element at a time. With v (one flat vector per output): per input,
    the flat v^T J summed over outputs."""
    inputs = [t for _, t in diff]
    if v is not None:
        total = [np.zeros(t._data.size) for t in inputs]
        for o, w in zip(outputs, v):
            if not o.requires_grad:
                continue
            g = _grad(o, inputs, wrap(w.reshape(o._data.shape).astype(o._data.dtype)),
                      retain_graph=True, allow_unused=True)
            for j, gj in enumerate(g):
                if gj is not None:
                    total[j] = total[j] + gj._data.reshape(-1)
        return total
    jac = [[np.zeros((t._data.size, o._data.size)) for o in outputs] for t in inputs]
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


def _fmt(a, dtype):
    return repr(wrap(np.asarray(a, dtype)))


def _mismatch(k, j, num, ana, dtype):
    return (f"Jacobian mismatch for output {k} with respect to input {j},\n"
            f"numerical:{_fmt(num, dtype)}\nanalytical:{_fmt(ana, dtype)}\n")


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _slow(func, inputs, outputs, diff, eps, atol, rtol, nondet_tol, raise_exception):
    num = _numerical(func, inputs, eps)
    ana = _analytical(outputs, diff)
    for k, o in enumerate(outputs):
        for jd, (j, t) in enumerate(diff):
            n, a = num[jd][k], ana[jd][k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(_mismatch(k, j, n, a, t._data.dtype), raise_exception)
    again = _analytical(outputs, diff)
    for a1, a2 in zip(ana, again):
        for x, y in zip(a1, a2):
            if np.abs(x - y).max(initial=0) > nondet_tol:
                return _fail(_NONDET.format(tol=nondet_tol), raise_exception)
    return True


def _fast(func, inputs, outputs, diff, eps, atol, rtol, raise_exception):
    """torch's fast mode: compare v^T J u (one random u over the inputs, v over the outputs)
    computed both ways; on failure, recompute the slow Jacobians for the message."""
    rng = np.random.default_rng()
    u = [rng.uniform(0, 1, t._data.size) for _, t in diff]
    u = [d / (np.sqrt(sum((x * x).sum() for x in u)) or 1) for d in u]
    v = [rng.uniform(0, 1, o._data.size) for o in outputs]
    num = _numerical(func, inputs, eps, u)
    vju = _analytical(outputs, diff, v)
    ana_total = sum((g * d).sum() for g, d in zip(vju, u))
    num_total = sum((n * w).sum() for n, w in zip(num, v))
    if abs(ana_total - num_total) <= atol + rtol * abs(num_total):
        return True
    slow_num = _numerical(func, inputs, eps)
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
    dtype = inputs[j]._data.dtype
    msg = (f"Jacobian mismatch for output {k} with respect to input {j},\n"
           f"numerical:{float(num_total)!r}\nanalytical:{float(ana_total)!r}\n\n"
           "The above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
           "background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {_fmt(n, dtype)}\nAnalytical:\n{_fmt(a, dtype)}\n\n"
           f"The max per-element difference (slow mode) is: {float(np.abs(n - a).max())}.\n")
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


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check func's gradients at inputs against finite differences (see the module doc)."""
    if check_forward_ad or check_batched_forward_grad or check_batched_grad:
        raise NotImplementedError("gradcheck: check_forward_ad, check_batched_grad and "
                                  "check_batched_forward_grad need forward-mode AD / vmap, "
                                  "which ember does not have yet")
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    diff = _diff_inputs(inputs)
    with enable_grad():
        outputs = _outputs(func, inputs)
        if any(t._data.dtype.kind == "c" for t in [t for _, t in diff] + list(outputs)):
            raise NotImplementedError("gradcheck: complex inputs or outputs (torch's Wirtinger "
                                      "checks) are not supported by ember yet")
        if not check_backward_ad:
            return True
        if fast_mode:
            ok = _fast(func, inputs, outputs, diff, eps, atol, rtol, raise_exception)
        else:
            ok = _slow(func, inputs, outputs, diff, eps, atol, rtol, nondet_tol,
                       raise_exception)
        if ok and check_undefined_grad:
            ok = _undefined_grad(outputs, diff, raise_exception)
        # outputs that do not require grad must not depend on the inputs numerically
        if ok:
            num = None
            for k, o in enumerate(outputs):
                if o.requires_grad:
                    continue
                num = num or _numerical(func, inputs, eps)
                for jd, (j, t) in enumerate(diff):
                    if not np.allclose(num[jd][k], 0, atol=atol):
                        return _fail("Numerical gradient for function expected to be zero",
                                     raise_exception)
    return ok


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
            wrap(rng.uniform(-1, 1, o._data.shape).astype(o._data.dtype)).requires_grad_(True)
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

    if not check_rev_over_rev:
        return True
    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, fast_mode=fast_mode)


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
