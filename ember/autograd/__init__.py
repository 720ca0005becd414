"""torch.autograd's front end: argument checks, then one call into the engine."""
import numpy as np

from ..tensor import Tensor, Size, keep_view, memory_owner, wrap
from . import grad_mode, graph
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                        is_inference_mode_enabled, set_multithreading_enabled,
                        is_multithreading_enabled)
from .graph import Node, accumulator
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .variable import Variable


def _tensors(x):
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _outputs(x):
    """The tensors to differentiate, checked as torch checks them (None is not iterable)."""
    outs = [x] if isinstance(x, Tensor) else list(x)
    for t in outs:
        if not isinstance(t, Tensor):
            raise AssertionError("Expected output to be a torch.Tensor")
    return outs


def _inputs(x):
    """The tensors whose gradients are wanted, checked as torch checks them."""
    ins = [x] if isinstance(x, Tensor) else list(x)
    for t in ins:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
    return ins


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    grads = []
    for g in grad_outputs:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} tensors and {len(outputs)} gradients")
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind != "f":
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = wrap(np.ones(out._data.shape, out._data.dtype))
        elif isinstance(g, Tensor):
            if g._data.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{Size(g._data.shape)} and output[{i}] has a shape of "
                                   f"{Size(out._data.shape)}.")
            if (g._data.dtype.kind == "c") != (out._data.dtype.kind == "c"):
                raise RuntimeError(f"For complex Tensors, both grad_output and output are "
                                   f"required to have the same dtype. Mismatch in dtype: "
                                   f"grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                                   f"has a dtype of {out.dtype}.")
            if g._data.dtype != out._data.dtype:
                g = g.to(out.dtype)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        grads.append(g)
    return grads


def _roots(outputs, grads):
    roots = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        # (a view made under no_grad requires grad but leads nowhere: torch refuses it too)
        if not out._requires_grad or out._grad_fn is None and out._x and "sink" in out._x:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        edge = graph.edge(out)
        roots.append((edge, g))
    return roots


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    fn = getattr(tensors, "_grad_fn", None)
    if fn is not None and grad_tensors is None and grad_variables is None and inputs is None:
        # the common call, loss.backward(): the implicit gradient of a scalar
        data = tensors._data
        if data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if data.dtype.kind == "f":
            one = np.array(1, data.dtype) if data.ndim == 0 else np.ones(data.shape, data.dtype)
            run_backward([((fn, tensors._output_nr), wrap(one))],
                         create_graph if retain_graph is None else retain_graph, create_graph)
            return
    outputs = _outputs(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(outputs)
    if inputs is not None:
        inputs = _inputs(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads)
    roots = _roots(outputs, grads)
    only = None
    if inputs is not None:
        only, capture = set(), {}
        for t in inputs:
            if t._grad_fn is None:
                only.add(accumulator(t))
            else:
                capture[(t._grad_fn, t._output_nr)] = None
        run_backward(roots, retain_graph, create_graph, capture=capture, only=only)
        for t in inputs:
            if t._grad_fn is not None:
                g = capture[(t._grad_fn, t._output_nr)]
                if g is not None:
                    t._grad = g.detach() if t._grad is None else t._grad + g.detach()
        return
    run_backward(roots, retain_graph, create_graph)


def _check_inputs(inputs):
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    single = isinstance(inputs, Tensor)
    outputs = _outputs(outputs)
    inputs = _inputs(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        _check_inputs(inputs)
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads, single)
    grads = _make_grads(outputs, grad_outputs)
    roots = _roots(outputs, grads)
    _check_inputs(inputs)       # (torch checks the outputs first)
    # (a view made in no_grad mode of a tensor requiring grad: torch's edge to it leads
    # nowhere, so no node runs for it, not even one that would raise or was freed)
    keys = [((accumulator(t), 0) if not (t._x and "sink" in t._x) else (None, i))
            if t._grad_fn is None else (t._grad_fn, t._output_nr) for i, t in enumerate(inputs)]
    capture = {k: None for k in keys}
    run_backward(roots, retain_graph, create_graph, capture=capture, accumulate=False)
    result = []
    bases = None
    for i, (t, k) in enumerate(zip(inputs, keys)):
        g = capture[k]
        if g is None:
            if materialize_grads:
                g = wrap(np.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
        elif not create_graph:
            arr = g._data
            given = [t for t in grad_outputs if t is not None and t._data is arr]
            if given:
                g = given[0]    # passed through unchanged (Note [Returned gradients])
            elif arr is t._data and not arr.size:
                g = t           # (cummax/cummin's formula returns its empty input itself)
            elif arr.base is None or arr.dtype != getattr(arr.base, "dtype", arr.dtype) \
                    and graph._owns_memory(arr):
                g = g.detach()      # (a fresh array, or a temporary's bits seen as floats)
            else:
                if bases is None:
                    bases = _grad_bases(grad_outputs, grads)
                g = _returned(arr, bases)
        result.append(g)
    return tuple(result)


# Note [Returned gradients]: torch's backward formulas of view ops, and of sum and broadcasts
# (an expand), give views of the gradient flowing in; autograd.grad returns them as they are:
# views made in no_grad mode, whose _base is the tensor they view (a grad_output, the implicit
# ones of a scalar output, an intermediate gradient), sharing its version counter: a write
# into one (zero_ of an expanded gradient) shows in the others, detach_() is refused, and a
# recorded write is refused as into any no_grad view. A gradient passed through unchanged is
# the grad_output itself. ember's formulas make the same NumPy views (broadcast_to, .T,
# reshape), so a captured gradient that is a NumPy view is returned as a view of the tensor
# owning its memory.

def _grad_bases(grad_outputs, grads):
    """The tensors a returned gradient may view, by id of the array owning their memory."""
    bases = {}
    for t in list(grad_outputs) + list(grads):
        if t is not None:
            x = t._x
            root = x.get("base", t) if x else t
            bases.setdefault(id(memory_owner(root._data)), root)
    return bases


def _returned(arr, bases):
    """The tensor autograd.grad returns for a captured gradient that is a NumPy view (Note
    [Returned gradients])."""
    owner = memory_owner(arr)
    base = bases.get(id(owner))
    if base is None:
        base = bases[id(owner)] = wrap(owner)
    res = wrap(arr)
    res._x = rx = {"base": base, "vroot": graph.vroot(base), "nograd": True}
    if base._requires_grad:     # (as make_view, in no_grad mode: ops/_views.py)
        res._requires_grad = True
        rx["sink"] = True
        keep_view(base, res)
    elif base._x is None:
        base._x = {"ngv": True}
    else:
        base._x["ngv"] = True
    return res


# Note [Batched backward]: grad(is_grads_batched=True) runs ONE backward pass, as torch does
# (its legacy vmap over the vjp): each grad_output's dim 0 becomes the batch of a vmap level
# (func/_batching.py, Note [Batching]), the grad outputs enter the engine as BatchedTensors,
# and every node runs its Tensor formula (`apply`, the create_graph path), whose ember ops
# carry the batch through their batching rules; the captured gradients' values are the
# results, batch first. Inside the pass .item() on a batched gradient fails with torch's
# legacy-vmap error, and ops without a rule loop over the batch without warning (torch's
# legacy fallback warnings are off by default). The NumPy helpers that formulas share (the
# embedding of select/slice gradients, softmax's backward data, piecewise-linear gradient
# selects, index gradients, slices) have rules of their own in _batching.py; Tensor's
# methods are not swapped for the pass (half of vmap's entry cost). A node whose formula
# still reads a gradient's NumPy data, or calls a plain tensor's method with it, makes the
# pass fall back, whole, to one backward per batch entry: the saved tensors its first
# attempt freed are put back first.

def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads, single):
    """grad(is_grads_batched=True): dim 0 of every grad_output is a batch; one backward pass
    with the batch carried through every formula (Note [Batched backward]), results batch
    first."""
    sizes = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(g, Tensor) and g._data.shape[1:] != out._data.shape:
            # (torch names the grad_output's shape without its first two dims)
            raise RuntimeError(
                f"If `is_grads_batched=True`, we interpret the first dimension of each "
                f"grad_output as the batch dimension. The sizes of the remaining dimensions are "
                f"expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {Size(g._data.shape[2:])} and "
                f"output[{i}] has a shape of {Size(out._data.shape)}. If you only want some "
                f"tensors in `grad_output` to be considered batched, consider using vmap.")
        if isinstance(g, Tensor):
            sizes.append(g._data.shape[0])
    if not sizes:                       # nothing batched: the implicit-gradient errors
        _make_grads(outputs, grad_outputs)
        raise RuntimeError("vmap: at least one input must be a Tensor mapped over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if sizes[0]:
        got = _grad_batched_once(outputs, inputs, grad_outputs, sizes[0], retain_graph,
                                 create_graph)
        if got is not None:
            return _batched_result(got, inputs, allow_unused, materialize_grads, create_graph)
    per = []
    for b in range(sizes[0]):
        gos = [g if g is None else g[b] for g in grad_outputs]
        per.append(grad(outputs, inputs, gos, retain_graph=retain_graph or b < sizes[0] - 1,
                        create_graph=create_graph, allow_unused=allow_unused))
    return _batched_result(list(zip(*per)), inputs, allow_unused, materialize_grads,
                           create_graph, stacked=False)


def _batched_result(cols, inputs, allow_unused, materialize_grads, create_graph,
                    stacked=True):
    """The gradients of _grad_batched: cols[j] is input j's batched gradient (stacked) or its
    per-entry gradients; None where no gradient reached it."""
    from ..ops.join import stack  # (the ops import autograd: imported on use)
    result = []
    for j, t in enumerate(inputs):
        col = cols[j]
        if stacked:
            if col is None:
                if not allow_unused:
                    raise RuntimeError(f"The differentiated Tensor at index {j} appears to "
                                       "not have been used in the graph. Set "
                                       "allow_unused=True if this is the desired behavior.")
                result.append(wrap(np.zeros_like(t._data)) if materialize_grads else None)
            else:
                result.append(col if create_graph else col.detach())
            continue
        if all(c is None for c in col):
            # (materialized, torch's zeros carry no batch dim)
            result.append(wrap(np.zeros_like(t._data)) if materialize_grads else None)
            continue
        result.append(stack([wrap(np.zeros_like(t._data)) if c is None else c for c in col]))
    return tuple(result)


def _grad_batched_once(outputs, inputs, grad_outputs, size, retain_graph, create_graph):
    """One backward pass with batched grad outputs (Note [Batched backward]): each input's
    gradient, batch first (None: none reached it), or None when a node cannot run batched."""
    # (func and the ops import autograd: imported on use)
    from ..func import _batching
    from ..ops.join import stack
    # the checks and casts of one entry's pass (same errors as the per-entry passes)
    first = _make_grads(outputs, [None if g is None else g[0] for g in grad_outputs])
    # (a view made in no_grad mode of a tensor requiring grad: torch's edge to it leads
    # nowhere, so no node runs for it, not even one that would raise or was freed)
    keys = [((accumulator(t), 0) if not (t._x and "sink" in t._x) else (None, i))
            if t._grad_fn is None else (t._grad_fn, t._output_nr) for i, t in enumerate(inputs)]
    saved = None if retain_graph else _saved_state([out._grad_fn for out in outputs])
    # (the roots' checks out of the vmap level: there this module's functions dispatch, and
    # one given batched gradients would run once per row)
    edges = [e for e, _ in _roots(outputs, first)]
    with _batching.grads_batched(size) as lv:
        grads = []
        for out, g, f in zip(outputs, grad_outputs, first):
            if g is None:
                grads.append(f)         # (an implicit ones: the same for every entry)
            else:
                if g.dtype != out.dtype:
                    g = g.to(out.dtype)
                grads.append(_batching.wrap_input(g, 0, lv))
        roots = list(zip(edges, grads))
        capture = {k: None for k in keys}
        try:
            run_backward(roots, retain_graph, create_graph, capture=capture, accumulate=False,
                         tensors=True)
        except RuntimeError as e:
            if not _batching.is_no_data_error(e):
                raise
            if saved is not None:
                _restore_state(saved)
            return None
        res = []
        for k in keys:
            g = capture[k]
            if g is not None:
                v, batched = _batching._un(g, lv)
                g = v if batched else None if v is None else stack([v] * size)
            res.append(g)
    return res


def _saved_state(starts):
    """Every reachable node's saved slots (a batched pass that falls back puts them back)."""
    state = []
    for node in graph.reachable([n for n in starts if n is not None])[1]:
        names = node._saved_names
        if names:
            state.append((node, node._freed, [graph.peek(node, n) for n in names]))
    return state


def _restore_state(state):
    for node, freed, values in state:
        for n, v in zip(node._saved_names, values):
            setattr(node, n, v)
        node._freed = freed
