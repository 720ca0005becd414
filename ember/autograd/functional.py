"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp of a Python function,
built on autograd.grad (reverse mode; jvp and hvp by the double-backward trick, as torch does)."""
import numpy as np

from ..creation import zeros, zeros_like
from ..ops.join import stack
from ..tensor import Tensor, Size, wrap
from . import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg, fn):
    """(tuple of Tensors, whether x was a tuple); torch's TypeError for anything else."""
    if isinstance(x, Tensor):
        return (x,), False
    if isinstance(x, tuple) and all(isinstance(t, Tensor) for t in x):
        return x, True
    raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but "
                    f"the given {arg} has type {type(x)}.")


def _outputs(out, fn):
    if isinstance(out, Tensor):
        return (out,), False
    if isinstance(out, tuple) and all(isinstance(t, Tensor) for t in out):
        return out, True
    raise TypeError(f"The outputs of the user-provided function given to {fn} must be either a "
                    f"Tensor or a tuple of Tensors but the given outputs of the user-provided "
                    f"function has type {type(out)}.")


def _prepare(inputs, create_graph):
    """Inputs the function will see: fresh leaves requiring grad, or (create_graph) views that
    keep the caller's graph."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else
                 t.detach().requires_grad_(True) for t in inputs)


def _post(x, create_graph):
    """Results leave detached unless a graph was asked for."""
    if isinstance(x, tuple):
        return tuple(_post(t, create_graph) for t in x)
    return x if create_graph or x is None else x.detach()


def _check_v(v, outputs, fn):
    for o, g in zip(outputs, v):
        if g._data.shape != o._data.shape:
            raise RuntimeError(f"v has invalid size: should be {Size(o._data.shape)} but got "
                               f"{Size(g._data.shape)}.")


_INPUT_IS = "the input to the user-provided function is"


def _vector(v, against, fn, what):
    """v as a tuple of tensors shaped as `against` (vjp: the outputs; jvp, vhp, hvp: the
    inputs); None: ones, allowed only where `what` (torch's words) is one one-element
    tensor."""
    if v is not None:
        v, _ = _as_tuple(v, "v", fn)
        if len(v) != len(against):
            raise RuntimeError(f"The given v should contain {len(against)} Tensors." if
                               len(against) != 1 else "The given v should contain a single "
                               "Tensor.")
        _check_v(v, against, fn)
        return v
    if len(against) != 1 or against[0]._data.size != 1:
        raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a "
                           f"single element.")
    return (wrap(np.ones(against[0]._data.shape, against[0]._data.dtype)),)


def _check_differentiable(outputs, strict, stage="back"):
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require "
                                   "gradients. The outputs must be computed in a "
                                   "differentiable manner from the input when running in "
                                   "strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """autograd.grad over the outputs that require grad (None for an unreachable input)."""
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not keep:
        return (None,) * len(inputs)
    return _grad([o for o, _ in keep], inputs, [g for _, g in keep], create_graph=create_graph,
                 retain_graph=retain_graph, allow_unused=True)


def _fill_unused(grads, like, strict, message):
    out = []
    for i, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(message.format(i=i))
            g = wrap(np.zeros_like(t._data))
        out.append(g)
    return tuple(out)


_INDEPENDENT = ("The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    with enable_grad():
        inputs, is_tuple = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        outputs, out_tuple = _outputs(func(*inputs), "vjp")
        _check_differentiable(outputs, strict)
        v = _vector(v, outputs, "vjp", "the user-provided function returns")
        grads = _autograd_grad(outputs, inputs, v, create_graph)
        grads = _fill_unused(grads, inputs, strict, _INDEPENDENT)
    outputs = _post(outputs, create_graph)
    grads = _post(grads, create_graph)
    return (outputs if out_tuple else outputs[0]), (grads if is_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick (the
    vjp's gradient with respect to the vector it was taken with)."""
    with enable_grad():
        inputs, is_tuple = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        v = _vector(v, inputs, "jvp", _INPUT_IS)
        outputs, out_tuple = _outputs(func(*inputs), "jvp")
        _check_differentiable(outputs, strict)
        dummies = tuple(wrap(np.zeros_like(o._data)).requires_grad_(True) for o in outputs)
        grads = _autograd_grad(outputs, inputs, dummies, create_graph=True)
        _fill_unused(grads, inputs, strict, _INDEPENDENT)
        used = [(g, w) for g, w in zip(grads, v) if g is not None and g.requires_grad]
        if used:
            jv = _grad([g for g, _ in used], dummies, [w for _, w in used],
                       create_graph=create_graph, allow_unused=True)
        else:
            jv = (None,) * len(dummies)
        jv = _fill_unused(jv, outputs, strict, "The jvp of the user-provided function is "
                          "independent of input {i}. This is not allowed in strict mode.")
    outputs = _post(outputs, create_graph)
    jv = _post(jv, create_graph)
    return (outputs if out_tuple else outputs[0]), (jv if out_tuple else jv[0])


_STRATEGIES = ("forward-mode", "reverse-mode")


def _strategy_checks(strategy, vectorize, create_graph, fn="jacobian"):
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian isonly implemented for "
                                      "`vectorize=True`.")
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      "and `strategy=\"forward-mode\"` are not supported "
                                      "together (yet). Please either set `create_graph=False` "
                                      "or `strategy=\"reverse-mode\"`.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j, a tensor of shape
    outputs[i].shape + inputs[j].shape (nested tuples follow the tuple-ness of both)."""
    _strategy_checks(strategy, vectorize, create_graph)
    if vectorize:
        return _vectorized(func, inputs, create_graph, strict, strategy)
    with enable_grad():
        inputs, is_tuple = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        outputs, out_tuple = _outputs(func(*inputs), "jacobian")
        _check_differentiable(outputs, strict)
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            n = flat.shape[0]
            for k in range(n):
                if out.requires_grad:
                    g = _grad(flat[k], inputs, retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
                else:
                    g = (None,) * len(inputs)
                for j, (gj, inp) in enumerate(zip(g, inputs)):
                    if gj is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               "in strict mode.")
                        gj = zeros_like(inp)
                    rows[j].append(gj)
            per_input = []
            for j, inp in enumerate(inputs):
                shape = tuple(out.shape) + tuple(inp.shape)
                if rows[j]:
                    block = stack(rows[j])
                else:
                    block = zeros((0,) + tuple(inp.shape), dtype=inp.dtype)
                per_input.append(_post(block.reshape(shape), create_graph))
            jac.append(tuple(per_input))
    if out_tuple:
        return tuple(j if is_tuple else j[0] for j in jac)
    return jac[0] if is_tuple else jac[0][0]


def _vectorized(func, inputs, create_graph, strict, strategy):
    """vectorize=True: ember.func's jacrev (reverse-mode) or jacfwd (forward-mode), each one
    vmap over a basis (batching rules, not a loop over the rows)."""
    from ..func.eager import jacfwd, jacrev     # ember.func loads on first use (lazy)
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        inputs, is_tuple = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        seen = []

        def checked(*args):         # (the first call checks the outputs and notes their form)
            out = func(*args)
            if not seen:
                seen.append(_outputs(out, "jacobian")[1])
            return out
        nums = tuple(range(len(inputs)))
        if strategy == "forward-mode":
            jac = jacfwd(checked, nums)(*inputs)
        else:
            jac = jacrev(checked, nums)(*inputs)
        out_tuple = seen[0]
    jac = _post(jac if out_tuple else (jac,), create_graph)
    if out_tuple:
        return tuple(j if is_tuple else j[0] for j in jac)
    return jac[0] if is_tuple else jac[0][0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: for inputs i and j, shape inputs[i].shape +
    inputs[j].shape (a tuple of tuples when inputs is a tuple)."""
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if outer_jacobian_strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    inputs, is_tuple = _as_tuple(inputs, "inputs", "hessian")

    def jac_func(*inp):
        out = _single_output(func(*inp), "hessian")
        jac = jacobian(lambda *i: _single_output(func(*i), "hessian"), inp, create_graph=True,
                       vectorize=vectorize and not strict)
        if strict:
            for k, g in enumerate(jac):
                if not g.requires_grad:
                    raise RuntimeError(_HESSIAN_STRICT.format(i=k))
        del out
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return res if is_tuple else res[0][0]


_HESSIAN_STRICT = ("While computing the hessian, found that the jacobian of the user-provided "
                   "function with respect to input {i} is independent of the input. This is not "
                   "allowed in strict mode. You should ensure that your function is twice "
                   "differentiable and that the jacobian depends on the inputs (this would be "
                   "violated by a linear function for example).")


def _single_output(out, fn):
    if isinstance(out, tuple) or not isinstance(out, Tensor):
        if isinstance(out, tuple) and len(out) == 1 and isinstance(out[0], Tensor):
            out = out[0]
        else:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           "a single element")
    return out.squeeze()


def _second_order(func, inputs, v, create_graph, strict, fn):
    """Shared start of vhp/hvp: (output, first gradients with a graph, inputs, v, is_tuple)."""
    inputs, is_tuple = _as_tuple(inputs, "inputs", fn)
    inputs = _prepare(inputs, create_graph)
    v = _vector(v, inputs, fn, _INPUT_IS)
    out = func(*inputs)
    if isinstance(out, tuple) and len(out) == 1 and isinstance(out[0], Tensor):
        out = out[0]
    if not isinstance(out, Tensor):
        _outputs(out, fn)
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if out._data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           "a single element")
    _check_differentiable((out,), strict)
    jac = _autograd_grad((out,), inputs, (wrap(np.ones_like(out._data)),), create_graph=True)
    _fill_unused(jac, inputs, strict, _INDEPENDENT)
    return out, jac, inputs, v, is_tuple


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    with enable_grad():
        out, jac, inputs, v, is_tuple = _second_order(func, inputs, v, create_graph, strict,
                                                      "vhp")
        used = [(g, w) for g, w in zip(jac, v) if g is not None and g.requires_grad]
        if strict and len(used) != sum(g is not None for g in jac):
            k = next(k for k, g in enumerate(jac) if g is not None and not g.requires_grad)
            raise RuntimeError(_HESSIAN_STRICT.format(i=k))
        res = _grad([g for g, _ in used], inputs, [w for _, w in used],
                    create_graph=create_graph, allow_unused=True) if used else \
            (None,) * len(inputs)
        res = _fill_unused(res, inputs, strict, _INDEPENDENT)
    return _post(out, create_graph), _post(res if is_tuple else res[0], create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar function, by the double-backward trick."""
    with enable_grad():
        out, jac, inputs, v, is_tuple = _second_order(func, inputs, v, create_graph, strict,
                                                      "hvp")
        used = [(g, t) for g, t in zip(jac, inputs) if g is not None and g.requires_grad]
        if strict and len(used) != sum(g is not None for g in jac):
            k = next(k for k, g in enumerate(jac) if g is not None and not g.requires_grad)
            raise RuntimeError(_HESSIAN_STRICT.format(i=k))
        dummies = [wrap(np.zeros_like(t._data)).requires_grad_(True) for _, t in used]
        if used:
            dj = _grad([g for g, _ in used], inputs, dummies, create_graph=True,
                       allow_unused=True)
            keep = [(d, w) for d, w in zip(dj, v) if d is not None and d.requires_grad]
        else:
            keep = []
        res = _grad([d for d, _ in keep], dummies, [w for _, w in keep],
                    create_graph=create_graph, allow_unused=True) if keep else ()
        # res is over the dummies (one per used input); map back to all inputs
        full, it = [], iter(res)
        for g, t in zip(jac, inputs):
            full.append(next(it, None) if g is not None and g.requires_grad else None)
        res = _fill_unused(full, inputs, strict, _INDEPENDENT)
    return _post(out, create_graph), _post(res if is_tuple else res[0], create_graph)
