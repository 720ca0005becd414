"""The backward engine: run each node once all the nodes that feed it have run, newest first.

One loop (`_run`) serves both kinds of pass and decides everything once: the order, which
node is ready, when saved tensors are checked (Note [Versions] in graph.py) and freed, and
where hooks run. Without create_graph (the usual backward) gradients are bare NumPy arrays
and nodes run their NumPy formulas (`np_apply`); with it, gradients are Tensors and nodes run
their Tensor formulas (`apply`), which record the graph that double backward needs.

Note [Engine order]: a node runs once all nodes that feed it have run (dependency counts
from one traversal, or from use counts: Note [Uses]). Among ready nodes the one created
last runs first (a heap on the creation sequence number, as torch's CPU engine orders by
sequence_nr); AccumulateGrad nodes carry the largest numbers, so leaves receive their
gradient as soon as it is complete. Nothing here recurses: depth is bounded only by
memory.

Note [Freeing]: after a node runs without retain_graph, its saved tensors are dropped
(`release`); running it again raises torch's "backward through the graph a second time".
A node that saved nothing has nothing to free and can run again, as in torch."""
import itertools
import traceback
import warnings
from gc import disable as gc_disable, enable as gc_enable, isenabled
from heapq import heappop, heappush

import numpy as np

from ..dtypes import FROM_NP
from ..tensor import wrap
from .grad_mode import STATE, ANOMALY
from .graph import (AccumulateGrad, NotImplementedBackward, SECOND_BACKWARD, INPLACE,
                    check_versions, checked_hook_result, sum_to, sum_to_np, ZERO, plus,
                    run_pre_hooks, run_post_hooks, unpack_saved, repack_saved, reachable, TASKS,
                    Task, _MULTI, user_stacklevel)


def run_backward(roots, retain_graph, create_graph, capture=None, accumulate=True,
                 only=None, tensors=False):
    """roots: list of ((node, output_nr), grad Tensor). capture: dict {(node, nr): None}
    filled with the gradient flowing into each edge (autograd.grad). accumulate=False skips
    AccumulateGrad (autograd.grad). only: set of AccumulateGrad nodes allowed to run
    (backward(inputs=...)). tensors: the Tensor pass (nodes' `apply`) even without
    create_graph (grad(is_grads_batched=True): the gradients are BatchedTensors)."""
    prev = STATE.enabled
    STATE.enabled = create_graph
    # Note [GC during backward]: the backward pass makes no reference cycles (each gradient
    # is freed by reference counting), yet its allocations would trigger collections that
    # walk the whole live graph, a cost that grows with depth (torch's C++ graph is not
    # walked). The collector is paused for the pass and restored after.
    gc_was_on = isenabled()
    if gc_was_on:
        gc_disable()
    if ANOMALY.enabled:
        _anomaly_hooks(roots)
    tasks = None
    if _MULTI[0]:           # Note [Current task] in graph.py
        tasks = TASKS.stack
        tasks.append(Task([e[0][0] for e in roots], _targets(capture, only),
                          capture is not None and not accumulate))
    try:
        needed = None
        if capture is not None or only is not None:     # Note [Needed nodes]
            needed = _needed([e[0][0] for e in roots],
                             {k[0] for k in capture or ()} | (only or set()))
        _run(roots, retain_graph, not (create_graph or tensors), capture, accumulate, only,
             needed)
    finally:
        STATE.enabled = prev
        if tasks is not None:
            tasks.pop()
        if gc_was_on:
            gc_enable()


def _targets(capture, only):
    """The nodes a pass must reach (autograd.grad's inputs, backward's inputs=), or None."""
    if capture is None and only is None:
        return None
    return {k[0] for k in capture or ()} | set(only or ())


def _expandable(shape, target):
    """Whether a tensor of `shape` broadcasts to `target` (torch's is_expandable_to)."""
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


def _invalid_gradient(node, outs, g, got, want):
    """torch's validate_outputs error for a gradient that cannot be summed to its input."""
    i = next((k for k, o in enumerate(outs) if o is g), 0)
    return RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                        f"got {list(got)} but expected shape compatible with {list(want)}")


def _run(roots, retain_graph, arrays, capture, accumulate, only, needed=None):
    """One backward pass. arrays: gradients are NumPy arrays and nodes run `np_apply`
    (without create_graph), else Tensors and `apply`. A node with a single incoming edge (a
    chain) gets its gradient handed over directly; only fan-in nodes and nodes waiting in the
    heap keep theirs in `buffers`."""
    # Note [Uses]: a node's `_uses` counts every edge ever made to it, so with one root
    # the dependency counts (a walk over the whole graph) are usually not needed:
    # - a node with `_uses == 1` has one incoming edge in any graph: it is ready as soon as
    #   a gradient arrives through it (a chain, or a tree, is never walked);
    # - a node with more uses is `pending` until as many edges have arrived: then it is
    #   complete, and ready at the moment the walk would have made it ready.
    # `_uses` can only be too high (consumers outside this graph, dead ones, a leaf's node
    # shared with an older graph), and then a pending node would wait forever. So before
    # the engine runs a node created before a pending one (torch's order runs the newest
    # ready node first: the pending one might be complete and due first), or when nothing
    # is ready, it walks the graph once (`_resolve`) and goes on with exact counts. The
    # order is torch's in every case.
    heap = []
    buffers = {}
    ready = rgrad = None
    pending = {}            # node -> edges arrived so far (Note [Uses])
    pend_max = -1           # the newest pending node's sequence number
    # use counts only without create_graph: the formulas of a create_graph pass make new
    # edges to the nodes being run (Note [Uses])
    if arrays and len(roots) == 1 and roots[0][0][0]._n_outputs == 1 and needed is None:
        (ready, _), g = roots[0]
        rgrad = g._data
        deps = None
        starts = (ready,)
    else:
        for (node, nr), g in roots:
            if needed is None or node in needed:
                _add_to_buffer(buffers, node, nr, g._data if arrays else g)
        deps = _dependencies([e[0][0] for e in roots], needed)
        for node in buffers:
            if not deps.get(node):
                heappush(heap, (-node._seq, node))
    grad = outs = g = node = None
    pre_done = None         # a captured node whose tensor hooks have run
    while True:
        if pending and (ready._seq <= pend_max if ready is not None else
                        not heap or heap[0][1]._seq <= pend_max):
            deps = _resolve(starts, pending, buffers, heap, ready, rgrad, node)
            pending = None
            ready = rgrad = None
        if ready is not None:
            node, grad = ready, rgrad
            ready = rgrad = None
        elif heap:
            node = heappop(heap)[1]
            grad = buffers.pop(node, None)
        else:
            break
        if capture is not None and grad is not None:
            grad = _capture(capture, node, grad, arrays)
            pre_done = node
        if needed is not None and node not in needed.run and type(node) is not AccumulateGrad:
            grad = None         # Note [Needed nodes]: captured, not run
            continue
        if type(node) is AccumulateGrad:
            if grad is not None and accumulate and (only is None or node in only):
                if grad is ZERO:
                    grad = _materialize(node._meta, arrays)
                if arrays:
                    node.np_apply(grad)
                else:
                    node.apply(grad)
            grad = None
            continue
        if grad is None:        # the node received no gradient: only release its edges
            if type(node) is NotImplementedBackward:
                node.apply(grad)    # (torch runs it all the same, and it raises)
            saves = node._saved_names
            if saves:           # (torch runs it, which reads and frees its saved tensors)
                if node._freed:
                    raise RuntimeError(SECOND_BACKWARD)
                if INPLACE[0]:
                    check_versions(node)
                if not retain_graph:
                    node.release()
            edges = zip(node.next_functions, _NONES)
        elif grad is ZERO or node._n_outputs != 1 and \
                (grad := _drop_zeros(grad, node)) is ZERO:
            if node._hooks is not None and \
                    (rep := _hooks_replace_zero(node, pre_done)) is not None:
                # torch's tensor hooks see its zero tensor; one returned a real gradient
                outs = _hooked(node, node._hooks, rep._data if arrays else rep, arrays,
                               retain_graph, True)
                rep = None
                edges = zip(node.next_functions, outs)
            else:
                # Note [Zero gradients]: ZERO passes on without running the node; torch runs it
                # on its zero tensor, which reads (and then frees) the saved tensors all the same
                if type(node) is NotImplementedBackward:
                    node.apply(None)    # (torch runs it on the zeros too, and it raises)
                saves = node._saved_names
                if saves:
                    if node._freed:
                        raise RuntimeError(SECOND_BACKWARD)
                    if INPLACE[0]:
                        check_versions(node)
                edges = zip(node.next_functions, _ZEROS if node._zero_runs is None else
                            _zero_run(node, arrays))
                if saves and not retain_graph:
                    node.release()
        else:
            hooks = node._hooks
            if hooks is not None:       # (it checks and frees the saved tensors itself)
                outs = _hooked(node, hooks, grad, arrays, retain_graph, pre_done is node)
                saves = None
            else:
                saves = node._saved_names
                if saves:
                    if node._freed:
                        raise RuntimeError(SECOND_BACKWARD)
                    if INPLACE[0]:
                        check_versions(node)    # Note [Versions] in graph.py
                if arrays:
                    outs = node.np_apply(grad)
                else:
                    outs = node.apply(grad)
            grad = None          # drop the incoming gradient before the next node runs
            if saves and not retain_graph:
                node.release()      # Note [Freeing]
            if deps is None and len(outs) == 1 and ready is None and not heap:
                # the chain step, without the general edge loop below (a third of the
                # engine's time per node): one gradient for a node with one use, of the
                # right shape and dtype, becomes the next to run
                nxt, nr = node.next_functions[0]
                g = outs[0]
                if nxt is not None and g is not None and nxt._uses == 1 and \
                        nxt._n_outputs == 1:
                    shape, dtype = nxt._meta
                    if g.shape == shape and (g.dtype is dtype or g.dtype == dtype):
                        ready, rgrad = nxt, g
                        outs = g = None
                        continue
            # (np_apply may leave out trailing entries for edges that lead nowhere)
            edges = zip(node.next_functions, outs)
        for (nxt, nr), g in edges:
            if nxt is None or needed is not None and nxt not in needed:
                continue
            single = nxt._n_outputs == 1
            if g is not None and g is not ZERO:
                shape, dtype = nxt._meta if single else nxt._meta[nr]
                a = g if arrays else _array(g)
                if a.shape != shape:
                    if not _expandable(shape, a.shape):
                        raise _invalid_gradient(node, outs, g, a.shape, shape)
                    g = sum_to_np(g, shape) if arrays else sum_to(g, shape)
                    a = g if arrays else _array(g)
                if a.dtype is not dtype and a.dtype != dtype:   # (identity: the usual case)
                    if a.dtype.kind == "c" and dtype.kind != "c":
                        # a real input's gradient is the real part of a complex one (torch's
                        # handle_r_to_c), taken without the complex-to-real cast's warning
                        g = g.real
                    g = _cast_np(g, dtype) if arrays else g.to(FROM_NP[dtype])
                a = None
            if deps is None:                # Note [Uses]
                uses = nxt._uses
                if uses == 1:               # its only edge, so it is ready
                    if not single:
                        g = _one_of(nxt, nr, g)
                else:                       # ready once `uses` edges have arrived
                    if g is not None:
                        _add_to_buffer(buffers, nxt, nr, g)
                    # (popped and put back: pending keeps the order of the last arrivals)
                    arrived = pending.pop(nxt, 0) + 1
                    if arrived < uses:
                        pending[nxt] = arrived
                        if nxt._seq > pend_max:
                            pend_max = nxt._seq
                        continue
                    pending.pop(nxt, None)
                    g = buffers.pop(nxt, None)
                # (the ready step, inlined here and at the loop's end: a call per edge would
                # cost W1/W2)
                if ready is None and not heap:
                    ready, rgrad = nxt, g
                else:
                    _push_ready(heap, buffers, nxt, g, ready, rgrad)
                    ready = rgrad = None
                continue
            left = deps[nxt] - 1
            if single:
                if left:                    # more edges to come: sum in its buffer
                    deps[nxt] = left
                    if g is not None:
                        buffers[nxt] = plus(buffers.get(nxt), g)
                    continue
                if buffers and nxt in buffers:  # its last edge: add what is buffered
                    g = plus(buffers.pop(nxt), g)
            else:
                deps[nxt] = left
                if g is not None:
                    _add_to_buffer(buffers, nxt, nr, g)
                if left:
                    continue
                g = buffers.pop(nxt, None)
            # nxt is ready
            if ready is None and not heap:
                ready, rgrad = nxt, g
            else:
                _push_ready(heap, buffers, nxt, g, ready, rgrad)
                ready = rgrad = None
        outs = edges = g = None      # the engine holds no gradient of a finished node


class _Logical:
    """A batched gradient's per-sample shape and NumPy dtype, where the engine reads an
    array's."""
    __slots__ = ("dtype", "shape")


def _array(g):
    """A Tensor-pass gradient's array, or for a BatchedTensor (grad(is_grads_batched=True):
    Note [Batched backward] in autograd/__init__.py) its per-sample shape and dtype."""
    v = getattr(g, "_value", None)
    if v is None:
        return g._data
    a = _Logical()
    a.shape = tuple(g.shape)
    while getattr(v, "_value", None) is not None:
        v = v._value
    a.dtype = v._data.dtype
    return a


def _resolve(starts, pending, buffers, heap, ready, rgrad, last):
    """Note [Uses]: the exact dependency counts, from one walk, less the edges that have
    already arrived; pending nodes that are complete join the heap, and so does `ready`, in
    the order torch would have pushed them (the order they became complete: Note [Sink
    order] makes it matter among AccumulateGrad nodes); the heap then decides. `last`: the
    node that ran last (whose edges made `ready` ready). Returns the counts for the rest of
    the pass."""
    deps = _dependencies(starts)
    done = []
    for node, arrived in pending.items():       # (in the order of their last arrival)
        left = deps[node] - arrived
        deps[node] = left
        if not left:
            done.append(node)
    if ready is not None:
        buffers[ready] = rgrad
        # ready became ready at its edge from `last` (the first, on the chain step); a
        # complete node came before it unless its last edge came from `last` after that one
        at = {}
        for i, (nxt, _) in enumerate(last.next_functions if last is not None else ()):
            at[nxt] = i
        mine = at.get(ready, 0)
        k = 0
        while k < len(done) and at.get(done[k], -1) < mine:
            k += 1
        done.insert(k, ready)
    for node in done:
        heappush(heap, (-node._seq, node))
    return deps


def _push_ready(heap, buffers, node, grad, ready, rgrad):
    """A second node became ready while `ready` waits: both go through the heap (their
    gradients in buffers), which then decides the order (Note [Engine order])."""
    if ready is not None:
        buffers[ready] = rgrad
        heappush(heap, (-ready._seq, ready))
    buffers[node] = grad
    heappush(heap, (-node._seq, node))


def _one_of(node, nr, grad):
    """The gradient list of a multi-output node that receives only output nr's."""
    grads = [None] * node._n_outputs
    grads[nr] = grad
    return grads


_NONES = itertools.repeat(None)
_ZEROS = itertools.repeat(ZERO)


def _hooks_replace_zero(node, pre_done):
    """Note [Zero gradients]: torch's tensor hooks and retain_grad see its zero tensor (ember
    gives them zeros) when a single-output node's gradient is ZERO; a hook's replacement is
    a real gradient from there on: returned (None: ZERO stays)."""
    hooks = node._hooks
    if hooks is None or node._n_outputs != 1 or pre_done is node or \
            "tensor_pre" not in hooks and "retain" not in hooks:
        return None
    zt = _materialize(node._meta, False)
    got = _tensor_pre_hooks(hooks, [zt])[0]
    if got is zt:
        return None
    return got


def _drop_zeros(grads, node):
    """A multi-output node's gradients with ZERO read as None; ZERO itself when some are ZERO
    and none is a real gradient (Note [Zero gradients]). A node with tensor hooks gets zeros
    instead: its hooks see a zero gradient where torch's do, and None only where torch's do."""
    if not any(g is ZERO for g in grads):
        return grads
    if all(g is None or g is ZERO for g in grads):
        return ZERO
    if node._hooks is not None and "tensor_pre" in node._hooks:
        arrays = isinstance(next(g for g in grads if g is not None and g is not ZERO),
                            np.ndarray)
        return [_materialize(node._meta[nr], arrays) if g is ZERO else g
                for nr, g in enumerate(grads)]
    return [None if g is ZERO else g for g in grads]


def _zero_run(node, arrays):
    """The gradients of a node that torch runs on its zero tensor into real zeros (Note [Zero
    gradients]): the node run on zeros, ZERO for the inputs whose formula keeps torch's zero
    tensor."""
    meta = node._meta
    grad = _materialize(meta, arrays) if node._n_outputs == 1 else \
        [_materialize(m, arrays) for m in meta]
    which = node._zero_runs
    if which is not True and which[0] is None:      # zeros, the formula not run
        return [grad if i in which[1] else ZERO for i in range(len(node.next_functions))]
    outs = node.np_apply(grad) if arrays else node.apply(grad)
    if which is True:
        return outs
    return [g if i in which else (None if g is None else ZERO) for i, g in enumerate(outs)]


def _materialize(meta, arrays):
    """ZERO as zeros of an edge's (shape, dtype): what a leaf or autograd.grad receives."""
    z = np.zeros(*meta)
    return z if arrays else wrap(z)


# Note [Needed nodes]: autograd.grad and backward(inputs=...) run only the nodes on a path
# to the inputs asked for (torch's exec_info): a node whose gradient is captured but that
# leads to no other input is not run (nor freed), and branches that lead to no input are
# not entered, so their saved tensors, hooks and errors play no part.

class _Needed(set):
    """The nodes that lead to a target (or are one); .run: those with a needed input."""
    __slots__ = ("run",)


def _needed(starts, targets):
    """Iterative post-order walk: a node is needed if it is a target or an input is."""
    needed = _Needed()
    needed.run = set()
    done = set()
    stack = [(n, iter(n.next_functions)) for n in set(starts)]
    while stack:
        node, it = stack[-1]
        for nxt, _ in it:
            if nxt is not None and nxt not in done:
                stack.append((nxt, iter(nxt.next_functions)))
                break
        else:
            stack.pop()
            done.add(node)
            if any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
                needed.run.add(node)
                needed.add(node)
            elif node in targets:
                needed.add(node)
    return needed


def _dependencies(starts, needed=None):
    """Number of edges arriving at each node reachable from the roots (iterative DFS);
    needed: count only the edges into those nodes (Note [Needed nodes])."""
    # A node enters `deps` with its first incoming edge and is visited then; only the roots
    # can be on the stack without an entry (one dict test per edge, no `seen` set).
    deps = {}
    stack = list(dict.fromkeys(starts))     # (two roots may be outputs of one node)
    roots = set(stack)
    push, pop = stack.append, stack.pop
    while stack:
        for nxt, _ in pop().next_functions:
            if nxt is None or needed is not None and nxt not in needed:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in roots:
                    push(nxt)
    return deps


def _add_to_buffer(buffers, node, nr, grad):
    """Sum gradients (Tensors, or arrays in the array pass) arriving at the same node
    output (torch's InputBuffer)."""
    if node._n_outputs == 1:
        buffers[node] = plus(buffers.get(node), grad)
    else:
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_outputs
        buf[nr] = plus(buf[nr], grad)


def _capture(capture, node, grad, arrays):
    """Record the gradient flowing into each captured edge of node (autograd.grad), after the
    tensor hooks of the captured tensors (torch's order); returns node's gradient, hooked."""
    if type(node) is AccumulateGrad:
        x = node.variable._x
        if x and "hooks" in x and grad is not ZERO:     # a captured leaf's own hooks
            g = wrap(grad) if arrays else grad
            for hook in x["hooks"]:
                out = hook(g)
                if out is not None:
                    g = checked_hook_result(hook, g, out)
            grad = g._data if arrays else g
    elif node._hooks is not None and grad is not ZERO:
        multi = node._n_outputs != 1
        if arrays:
            grad = [None if g is None else wrap(g) for g in grad] if multi else wrap(grad)
        grads = _tensor_pre_hooks(node._hooks, list(grad) if multi else [grad])
        grad = grads if multi else grads[0]
        if arrays:
            grad = [None if g is None else g._data for g in grad] if multi else grad._data
    if node._n_outputs == 1:
        if (node, 0) in capture:
            g = _materialize(node._meta, arrays) if grad is ZERO else grad
            capture[(node, 0)] = wrap(g) if arrays else g
    else:
        for nr, g in enumerate(grad):
            if (node, nr) in capture:
                if g is ZERO:
                    g = _materialize(node._meta[nr], arrays)
                capture[(node, nr)] = wrap(g) if arrays and g is not None else g
    return grad


def _hooked(node, hooks, grad, arrays, retain_graph, pre_done):
    """Run a node that has hooks (or packed saved tensors, or anomaly checks): hooks see
    Tensors, as they would in torch, in either pass. pre_done: its tensor hooks have run."""
    saves = node._saved_names
    packed = hooks.get("packed")
    multi = node._n_outputs != 1
    if arrays:
        grad = [None if g is None else wrap(g) for g in grad] if multi else wrap(grad)
    grads = list(grad) if multi else [grad]
    if not pre_done:
        grads = _tensor_pre_hooks(hooks, grads)
    if "pre" in hooks:
        grads = run_pre_hooks(hooks["pre"], grads)
    tgrad = grads if multi else grads[0]
    try:
        if saves:
            if node._freed:
                raise RuntimeError(SECOND_BACKWARD)
            if packed:
                unpack_saved(node, packed)      # Note [Saved-tensor hooks] in graph.py
            if INPLACE[0]:
                check_versions(node, [n for n in saves if not packed or n not in packed])
        if arrays:
            outs = node.np_apply([None if g is None else g._data for g in tgrad] if multi else
                                 tgrad._data)
        else:
            outs = node.apply(tgrad)
        if ANOMALY.enabled and ANOMALY.check_nan:
            _check_nan(node, outs, arrays)
    except Exception:
        if ANOMALY.enabled:
            _anomaly_warning(node, hooks)
        raise
    if "post" in hooks:
        outs = list(outs) + [None] * (len(node.next_functions) - len(outs))
        if arrays:
            outs = [None if o is None or o is ZERO else wrap(o) for o in outs]
        outs = run_post_hooks(hooks["post"], outs, grads)
        if arrays:
            outs = [None if o is None else o._data for o in outs]
    if saves:
        if not retain_graph:
            node.release()      # Note [Freeing]
            hooks.pop("packed", None)
        elif packed:
            repack_saved(node, packed)
    return outs


def _tensor_pre_hooks(hooks, grads):
    """The hooks registered on a node's output tensors (and retain_grad), on its gradients."""
    for nr, fn in hooks.get("tensor_pre", ()):
        out = fn(grads[nr])     # (None too: an output that got no gradient, as in torch)
        if out is not None:
            if grads[nr] is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            grads[nr] = checked_hook_result(fn, grads[nr], out)
    for nr, ref in hooks.get("retain", {}).items():
        t = ref()
        if t is not None and grads[nr] is not None:
            g = grads[nr]
            if t._grad is None:
                t._grad = g if STATE.enabled else g.detach().clone()
            else:
                t._grad = t._grad + g if STATE.enabled else t._grad.detach() + g.detach()
    return grads


# ---------------------------------------------------------------- anomaly mode
# Note [Anomaly]: in anomaly mode every node runs on the hooked path (`_hooked`), which checks
# its outputs for NaN and, when the node fails, warns with the traceback of the forward call
# that made it (kept by graph.on_link). Nodes made while the mode was on have hooks already;
# a pass that starts in the mode gives the others an empty hooks dict first, so that nothing
# is checked per node outside the mode.

def _anomaly_hooks(roots):
    for node in reachable([e[0][0] for e in roots])[1]:
        if node._hooks is None:
            node._hooks = {}


def _check_nan(node, outs, arrays):
    for i, o in enumerate(outs):
        if o is None or o is ZERO:
            continue
        a = o if arrays else o._data
        if a.dtype.kind in "fc" and np.isnan(a).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def _anomaly_warning(node, hooks):
    trace = hooks.get("trace")
    if trace is None:
        msg = (f"Error detected in {node.name()}. No forward pass information available. "
               "Enable detect anomaly during forward pass for more information.")
    else:
        msg = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
               "error:\n" + "".join(traceback.format_list(trace)).rstrip("\n"))
    warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())


def _cast_np(d, dtype):
    """A gradient array cast to its input's dtype, as the Tensor `.to` would do it."""
    return wrap(d).to(FROM_NP[dtype])._data
