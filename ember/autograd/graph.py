"""Graph nodes: the Node base class, AccumulateGrad, edges, and the only functions that attach a
node to an op's output (`link`, `link_multi`, `wrap_out`, `wrap_out2`). Each op's own node
class lives beside its forward function in ember/ops/."""
import itertools
import warnings
import weakref
from sys import getrefcount

from numpy import add as _np_add, asarray, ndarray

from ..dtypes import type_name
from ..tensor import Tensor, wrap as _wrap
from .grad_mode import STATE


_counter = itertools.count()
# AccumulateGrad runs as soon as it is ready (torch gives it the largest sequence number).
# Among several ready at once, torch's queue gives them in the order they became ready,
# which follows the edges' (input) order; the earliest created comes first here, which is
# the same order in the usual case (a leaf's node is made when the leaf is first used).
_ACC_SEQ = 1 << 62

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


# Note [Versions]: tensors that share memory through views or detach() share one version
# counter, as in torch. It lives on the family's root tensor: t._x["vroot"] names the root
# (a tensor without that entry is its own root), and the root's t._x["vc"] holds the counter,
# made at the first write. A write bumps it and records a stamp: the sequence number of the
# node the write links (so that node does not count its own write as a later one), or a fresh
# number. A node that saved a tensor of the family before a later write would compute with
# the new values, so the engine refuses to run it: it counts the stamps newer than the node,
# as torch compares a saved variable's version with the counter's. The check runs only once
# some in-place write has happened (INPLACE[0]). Only the newest _STAMPS stamps are kept (a
# node older than all of them reports the oldest kept one), so memory stays bounded in loops.
INPLACE = [0]
_STAMPS = 64


class VersionCounter:
    __slots__ = ("version", "stamps")

    def __init__(self):
        self.version = 0
        self.stamps = []


def vroot(t):
    """The tensor holding t's version counter (t itself unless t is a view or an alias)."""
    x = t._x
    return x.get("vroot", t) if x else t


def version(t):
    """Tensor._version: the count of in-place writes to t's memory family."""
    x = vroot(t)._x
    vc = x.get("vc") if x else None
    return vc.version if vc is not None else 0


def bump_version(t, stamp=None):
    """Record an in-place write to t's family; stamp: the sequence number of the node the
    write links (None: a write that links none)."""
    INPLACE[0] = 1
    r = vroot(t)
    x = r._x
    if x is None:
        x = r._x = {}
    vc = x.get("vc")
    if vc is None:
        vc = x["vc"] = VersionCounter()
    vc.version += 1
    stamps = vc.stamps
    stamps.append(next(_counter) if stamp is None else stamp)
    if len(stamps) > _STAMPS:
        del stamps[:_STAMPS // 2]


def check_versions(node):
    """Note [Versions]: refuse a node whose saved tensors were written after it was made."""
    seq = node._seq
    for name in node._saved_names:
        t = getattr(node, name, None)
        if type(t) is not Tensor and not isinstance(t, Tensor):
            continue
        x = vroot(t)._x
        vc = x.get("vc") if x else None
        if vc is None or vc.stamps[-1] <= seq:
            continue
        later = sum(1 for m in vc.stamps if m > seq)
        tx = t._x
        fn = tx.get("saver") if tx else None
        nr = 0
        if fn is None:
            fn, nr = t._grad_fn, t._output_nr if t._grad_fn is not None else 0
        if fn is None:
            what = ""
        else:
            name = fn.name()
            head, _, tail = name.rpartition("Backward")     # PowBackward1 -> Pow1
            what = head + tail.lstrip("0") if head else "torch::autograd::" + name
            what = f", which is output {nr} of {what},"
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{type_name(t._data.dtype)}Tensor "
            f"{list(t._data.shape)}]{what} is at version {vc.version}; expected version "
            f"{vc.version - later} instead. Hint: enable anomaly detection to find the "
            "operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")


# Note [Zero gradients]: a formula returns ZERO for an input whose gradient is zero whatever
# the incoming gradient (where torch returns an efficient zero tensor: sgn of a real tensor).
# The engine does not run a node whose incoming gradient is ZERO but passes ZERO on to its
# inputs, so that no saved value downstream (an infinity) can turn the zero into NaN, as in
# torch; a sum with a real gradient is that gradient, and a leaf receives zeros.
class _Zero:
    __slots__ = ()
    shape = dtype = None        # (never equal to an array's: ZERO takes the engine's slow path)

    def __repr__(self):
        return "ZERO"


ZERO = _Zero()


def plus(a, b):
    """The sum of two gradients arriving at one place, either of which may be None or ZERO."""
    if a is None or a is ZERO:
        return a if b is None else b
    if b is None or b is ZERO:
        return a
    return a + b


_RELEASES = {}     # saved-names tuple -> its release function (Node.__init_subclass__)


class Node:
    """A backward function. `next_functions[i]` is the (node, output_nr) edge that receives the
    gradient for input i; `_meta` is (shape, numpy dtype) of this node's output, which the
    engine uses to sum a broadcast gradient back and cast it once, for every node. `_uses`
    counts the edges ever made to this node (Note [Uses] in engine.py)."""

    __slots__ = ("next_functions", "_seq", "_meta", "_freed", "_hooks", "_uses", "__weakref__")
    _saved_names = ()   # slots holding saved tensors, dropped after backward
    _n_outputs = 1
    _refused = None     # a message: the grad_fn of a view torch refuses to regenerate

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, grad):
        """Gradients for each input (a tuple aligned with next_functions; None = no gradient),
        from the gradient of the output (a list of them for a multi-output node), as Tensor
        formulas: with create_graph they record a graph of their own."""
        raise NotImplementedError(type(self).__name__ + ".apply")

    def np_apply(self, grad):
        """apply() on bare NumPy arrays, for a backward pass that records nothing. A node
        overrides it with NumPy formulas where it has them (they must give exactly what
        apply gives); this default runs apply on Tensors wrapped around the arrays."""
        if self._n_outputs == 1:
            outs = self.apply(_wrap(grad))
        else:
            outs = self.apply([None if g is None else _wrap(g) for g in grad])
        return [o if o is None or o is ZERO else o._data for o in outs]

    def release(self):
        """Drop the saved tensors once the node has run (the engine calls it for a node with
        _saved_names). Each subclass gets its own copy with the names written out. A node
        that saved nothing (every slot None: torch saves only what the gradients asked for
        need) is not freed: running it again needs nothing, as in torch."""
        saved = any(getattr(self, name, True) is not None for name in self._saved_names)
        for name in self._saved_names:
            setattr(self, name, None)
        if saved:
            self._freed = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        names = cls._saved_names
        if names and getattr(cls.release, "_generated", cls.release is Node.release):
            # one plain assignment per saved slot: setattr by name costs ~3x that per node
            fn = _RELEASES.get(names)
            if fn is None:
                src = ("def release(self):\n    try:\n        saved = " +
                       " or ".join(f"self.{n} is not None" for n in names) +
                       "\n    except AttributeError:\n        saved = True\n" +
                       "".join(f"    self.{n} = None\n" for n in names) +
                       "    if saved:\n        self._freed = True\n")
                ns = {}
                exec(src, ns)
                fn = _RELEASES[names] = ns["release"]
                fn._generated = True
                fn.__doc__ = Node.release.__doc__
            cls.release = fn

    def __call__(self, *grads):
        return self.apply(grads[0] if self._n_outputs == 1 else list(grads))

    @property
    def metadata(self):
        return self._extra().setdefault("metadata", {})

    def _extra(self):
        if self._hooks is None:
            self._hooks = {}
        return self._hooks

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the node runs; may return new grad_inputs."""
        return _Handle(self._extra().setdefault("post", []), fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before the node runs; may return new grad_outputs."""
        return _Handle(self._extra().setdefault("pre", []), fn)


class NotImplementedBackward(Node):
    """torch's NotImplemented node, for ops whose derivative torch does not define: it fails
    when backward reaches it."""
    __slots__ = ("_op",)

    def apply(self, grad):
        raise RuntimeError(f"derivative for aten::{self._op} is not implemented")


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"


def checked_hook_result(hook, grad, out):
    """A tensor hook's replacement gradient, with torch's errors for a wrong type or size."""
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if out._data.dtype != grad._data.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"torch.{type_name(grad._data.dtype)}Tensor got "
                           f"torch.{type_name(out._data.dtype)}Tensor)")
    if out._data.shape != grad._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    return out


class _Handle:
    __slots__ = ("hooks", "fn")

    def __init__(self, hooks, fn):
        self.hooks, self.fn = hooks, fn
        hooks.append(fn)

    def remove(self):
        if self.fn in self.hooks:
            self.hooks.remove(self.fn)


class AccumulateGrad(Node):
    """Sink for a leaf tensor: adds the incoming gradient to `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        self._seq = _ACC_SEQ - next(_counter)
        self._uses = 0
        self._meta = (variable._data.shape, variable._data.dtype)
        self._freed = False
        self._hooks = None

    def np_apply(self, grad):
        # The engine's local and this argument are the only references to an array that
        # nothing else shares (getrefcount adds its own): then .grad can take it as it is.
        var = self.variable
        if not var._requires_grad or var._x and "sink" in var._x:
            return None     # requires_grad_(False) since it was used; a no_grad view (_views)
        if var._x and var._tensor_hooks():
            t = _wrap(grad)
            for hook in var._tensor_hooks():
                out = hook(t)
                if out is not None:
                    t = checked_hook_result(hook, t, out)
            grad = t._data
            t = out = None
            owned = False
        else:
            owned = getrefcount(grad) <= 3 and _owns_memory(grad)
        old = var._grad
        if old is None:
            var._grad = _wrap(grad if owned else copy_grad(grad))
        else:
            old._data += grad     # torch accumulates in place when not building a graph

    def apply(self, grad):
        var = self.variable
        if not var._requires_grad or var._x and "sink" in var._x:
            return ()
        if var._x:
            for hook in var._tensor_hooks():
                out = hook(grad)
                if out is not None:
                    grad = checked_hook_result(hook, grad, out)
        if STATE.enabled and not _CYCLE_WARNED:
            _warn_cycle()
        old = var._grad
        if old is None:
            var._grad = grad if STATE.enabled or _owned(grad) else grad.detach().clone()
        elif STATE.enabled:
            var._grad = old + grad
        else:
            old._data += grad._data    # torch accumulates in place when not building a graph
        return ()


_CYCLE_WARNED = False


def _warn_cycle():
    """torch's warning (once per process) when backward(create_graph=True) fills a .grad."""
    global _CYCLE_WARNED
    _CYCLE_WARNED = True
    warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                  "between the parameter and its gradient which can cause a memory leak. We "
                  "recommend using autograd.grad when creating the graph to avoid this. If you "
                  "have to use this function, make sure to reset the .grad fields of your "
                  "parameters to None after use to break the cycle and avoid the leak.",
                  UserWarning, stacklevel=5)


def _owned(t):
    """True when nothing but the engine refers to this gradient or its array, so .grad can
    take it without a copy (torch steals an unshared gradient the same way). The counts are
    the references the engine and this call chain hold themselves."""
    arr = t._data     # references to arr: t._data, this local, getrefcount's argument
    if t._grad_fn is not None or getrefcount(arr) > 3 or getrefcount(t) > _ENGINE_REFS:
        return False
    return _owns_memory(arr)


def copy_grad(arr):
    """The copy .grad takes of a gradient array it cannot own (a function of its own so
    that tests can count the copies)."""
    return arr.copy()


def _owns_memory(arr):
    """Whether arr's memory is its own: no base, or (as TBackward0 makes of a transposed
    product) a writable C-contiguous view covering all of a base that nothing else holds."""
    base = arr.base
    if base is None:
        return True
    return (type(base) is ndarray and base.base is None and arr.flags.c_contiguous
            and arr.flags.writeable and base.nbytes == arr.nbytes and getrefcount(base) <= 3)


_ENGINE_REFS = 4


def accumulator(t):
    """The leaf's AccumulateGrad, cached weakly on the tensor as torch does."""
    ref = t._acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._acc = weakref.ref(acc)
    return acc


_NO_EDGE = (None, 0)


def edge(t):
    """The (node, output_nr) edge through which a gradient reaches tensor t."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (accumulator(t), 0)
    return _NO_EDGE


def use(t):
    """The edge to tensor t (or the empty edge for None) for a new node, counted in the
    target node's _uses: every edge a node is given is made here (Note [Uses])."""
    if t is None:
        return _NO_EDGE
    fn = t._grad_fn
    if fn is not None:
        fn._uses += 1
        return (fn, t._output_nr)
    if t._requires_grad:
        fn = accumulator(t)
        fn._uses += 1
        return (fn, 0)
    return _NO_EDGE


def init_node(node, edges, meta):
    """A new node's bookkeeping: its edges, creation number, output meta, no use yet."""
    node.next_functions = edges
    node._seq = next(_counter)
    node._uses = 0
    node._meta = meta
    node._freed = False
    node._hooks = None


def sum_to(g, shape):
    """Sum a broadcast gradient down to `shape`, with ember ops (create_graph: so that it is
    differentiable)."""
    lead = g.ndim - len(shape)
    dims = list(range(lead))
    dims += [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead or g.shape != shape:
        g = g.reshape(shape)
    return g


_add_reduce = _np_add.reduce


def sum_to_np(d, shape):
    """Sum a broadcast gradient array down to `shape` (a fresh array that .grad can take).
    (np.add.reduce, not ndarray.sum: a NumPy warning (inf - inf) is then raised from an ember
    module, where ember's warning filter keeps it from the user.)"""
    if d.shape == shape:
        return d
    lead = d.ndim - len(shape)
    if lead:
        d = _add_reduce(d, axis=tuple(range(lead)))
    keep = tuple(i for i, s in enumerate(shape) if s == 1 and d.shape[i] != 1)
    if keep:
        d = _add_reduce(d, axis=keep, keepdims=True)
    return d


def link(out, node, *inputs, meta=None):
    """Make `node` the grad_fn of `out` with edges to `inputs` (tensors, or None for
    non-tensor arguments). meta: out's (shape, dtype) when the caller already has that tuple
    (an op whose output matches its input's): sharing it saves two GC-tracked tuples."""
    n = len(inputs)     # (one- and two-input ops without map: the common cases)
    edges = (use(inputs[0]),) if n == 1 else (use(inputs[0]), use(inputs[1])) if n == 2 \
        else tuple(map(use, inputs))
    if meta is None:
        data = out._data
        meta = (data.shape, data.dtype)
    init_node(node, edges, meta)
    out._grad_fn = node
    out._output_nr = 0
    out._requires_grad = True
    return out


def same_meta(t):
    """The (shape, dtype) tuple of tensor t's node, for an output of the same shape and
    dtype (see link); None if t has no single-output node."""
    fn = t._grad_fn
    if fn is not None and fn._n_outputs == 1 and t._x is None:
        return fn._meta     # (a tensor whose .data was replaced has _x set: not shared)
    return None


def link_multi(outs, node, *inputs):
    """Like link for a node with several differentiable outputs."""
    init_node(node, tuple(map(use, inputs)), [(o._data.shape, o._data.dtype) for o in outs])
    for i, o in enumerate(outs):
        o._grad_fn = node
        o._output_nr = i
        o._requires_grad = True
    return outs


_new_tensor = object.__new__


def wrap_out(arr, node, t, pad):
    """Hot-path constructor for the output of an op with one Tensor input `t` whose output
    has t's shape and dtype (a real unary op, tensor-and-number arithmetic), once the caller
    has made `node` because grad mode is on and t requires grad: wrap + link in one call.
    pad: give the node a second, empty edge (torch's node for `x + 2` has two inputs). The
    node shares the (shape, dtype) tuple of t's node, as link's meta= does."""
    e = use(t)
    fn = t._grad_fn
    meta = fn._meta if fn is not None and fn._n_outputs == 1 and t._x is None else \
        (arr.shape, arr.dtype)
    return _recorded(arr, node, (e, _NO_EDGE) if pad else (e,), meta)


def wrap_out2(arr, node, a, b):
    """wrap_out for an op with two Tensor inputs (a node with two edges; the output's
    (shape, dtype) tuple is its own: it may broadcast)."""
    return _recorded(arr, node, (use(a), use(b)), (arr.shape, arr.dtype))


def _recorded(arr, node, edges, meta):
    """A new Tensor over arr whose grad_fn is node, with the given edges and meta."""
    if type(arr) is not ndarray:    # a ufunc on 0-d arrays returns a NumPy scalar
        arr = asarray(arr)
    init_node(node, edges, meta)
    out = _new_tensor(Tensor)
    out._data = arr
    out._requires_grad = True
    out._grad_fn = node
    out._output_nr = 0
    out._grad = out._acc = out._x = None
    return out


def register_tensor_hook(self, hook):
    """Tensor.register_hook: hook(grad) runs when this tensor's gradient is computed; may return a new grad."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                           "gradient")
    if self._grad_fn is None:
        return _Handle(self._extra().setdefault("hooks", []), hook)
    pre = self._grad_fn._extra().setdefault("tensor_pre", [])
    return _Handle(pre, (self._output_nr, hook))
