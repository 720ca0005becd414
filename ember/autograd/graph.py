"""Graph nodes: the Node base class, AccumulateGrad, edges, and the only functions that attach a
node to an op's output (`link`, `link_multi`, `wrap_out`, `wrap_out2`). Each op's own node
class lives beside its forward function in ember/ops/."""
import functools
import itertools
import os
import sys
import threading
import traceback
import warnings
import weakref
from collections import namedtuple
from sys import getrefcount

from numpy import add as _np_add, asarray, empty_like, ndarray

from ..dtypes import type_name
from ..tensor import Tensor, wrap as _wrap, is_inference, INFERENCE
from . import forward, grad_mode
from .forward import LEVELS, propagate, jvp_not_implemented
from .grad_mode import STATE, ANOMALY


_counter = itertools.count()
# Note [Sink order]: AccumulateGrad and NotImplemented run as soon as they are ready: torch
# gives both the largest sequence number (UINT64_MAX), so a NotImplemented node raises before
# any ordinary node runs, and it matters which leaves got their gradient before it did. They
# all share _ACC_SEQ here and nodes compare as equal (Node.__lt__), so that among several
# ready at once the engine's heapq picks what torch's std::priority_queue picks: the two
# heaps sift the same way (the same child on ties, no move on equal keys), and the engine
# pushes ready nodes in torch's order (each node's edges in input order).
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
    __slots__ = ("version", "stamps", "where", "quiet")

    def __init__(self):
        self.version = 0
        self.stamps = []
        self.where = None       # stamp -> the user's line that wrote (anomaly mode only)
        self.quiet = None       # the stamps of detach_() calls, which count no version


DETACHED = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
            ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def mark_detached(t):
    """t.detach_() on a tensor with a history: a node that saved t as an input before (not
    as its output) refuses to run (torch: the saved variable has lost its grad_fn). Recorded
    as a stamp that counts no version, so that check_versions looks at such nodes."""
    vc, stamp = _stamp(t, None)
    if vc.quiet is None:
        vc.quiet = set()
    vc.quiet.add(stamp)
    t._extra()["detached"] = True


def _stamp(t, stamp):
    """Record a stamp (a fresh one for None) in the version counter of t's family, made on
    first use; returns the counter and the stamp. Switches the version checks on."""
    INPLACE[0] = 1
    r = vroot(t)
    x = r._x
    if x is None:
        x = r._x = {}
    vc = x.get("vc")
    if vc is None:
        vc = x["vc"] = VersionCounter()
    stamp = next(_counter) if stamp is None else stamp
    stamps = vc.stamps
    stamps.append(stamp)
    if len(stamps) > _STAMPS:
        del stamps[:_STAMPS // 2]
    return vc, stamp


def vroot(t):
    """The tensor holding t's version counter (t itself unless t is a view or an alias)."""
    x = t._x
    return x.get("vroot", t) if x else t


def version(t):
    """Tensor._version: the count of in-place writes to t's memory family."""
    if t._x is not None and "inference" in t._x:
        raise RuntimeError("Inference tensors do not track version counter.")
    x = vroot(t)._x
    vc = x.get("vc") if x else None
    return vc.version if vc is not None else 0


def bump_version(t, stamp=None):
    """Record an in-place write to t's family; stamp: the sequence number of the node the
    write links (None: a write that links none)."""
    vc, stamp = _stamp(t, stamp)
    vc.version += 1
    if ANOMALY.enabled:         # ember's addition to torch's error: where the write was
        if vc.where is None:
            vc.where = {}
        vc.where[stamp] = user_frames()[-1:]


def increment_version(tensor):
    """torch.autograd.graph.increment_version: count an in-place write made behind autograd's
    back (one tensor or an iterable of them)."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if t._x is not None and "inference" in t._x:
            continue            # (inference tensors have no version counter)
        bump_version(t)


def _legacy_type(dt):
    """torch's legacy name of a CPU tensor type, as its version error prints it: the eight
    types of the old torch.*Tensor classes by that name (torch.FloatTensor), the others
    (bool, complex, ...) as CPUComplexFloatType."""
    name = type_name(dt)
    return f"torch.{name}Tensor" if name in _LEGACY else f"CPU{name}Type"


_LEGACY = {"Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"}


def check_versions(node, names=None):
    """Note [Versions]: refuse a node whose saved tensors were written after it was made
    (or, saved as inputs with a history, detached in place since: mark_detached). names:
    the saved slots to check (default: all)."""
    seq = node._seq
    for name in node._saved_names if names is None else names:
        t = getattr(node, name, None)
        if type(t) is not Tensor and not isinstance(t, Tensor):
            if type(t) is tuple:    # a saved list of tensors (torch's Tensor?[]: indices)
                for u in t:
                    if isinstance(u, Tensor):
                        x = vroot(u)._x
                        vc = x.get("vc") if x else None
                        if vc is not None and vc.stamps[-1] > seq:
                            _check_written(seq, u, vc)
            continue
        x = vroot(t)._x
        vc = x.get("vc") if x else None
        if vc is None or vc.stamps[-1] <= seq:
            continue
        _check_written(seq, t, vc)


def _check_written(seq, t, vc):
    """check_versions for a saved tensor t (of a node made at sequence number seq) whose
    version counter vc has stamps after seq."""
    later = sum(1 for m in vc.stamps if m > seq)
    tx = t._x
    if vc.quiet:            # detach_() calls (mark_detached)
        if t._grad_fn is None and tx and "detached" in tx and "saver" not in tx:
            raise RuntimeError(DETACHED)
        later -= sum(1 for m in vc.stamps if m > seq and m in vc.quiet)
        if not later:
            return
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
    if ANOMALY.enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to "
                "compute its gradient. The variable in question was changed in there or "
                "anywhere later. Good luck!")
        first = min((m for m in vc.stamps if m > seq), default=None)
        where = vc.where.get(first) if vc.where else None
        if where:
            hint += (" The first in-place write after it was saved:\n" +
                     "".join(traceback.format_list(where)).rstrip())
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True, "
                "check_nan=False).")
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{_legacy_type(t._data.dtype)} "
        f"{list(t._data.shape)}]{what} is at version {vc.version}; expected version "
        f"{vc.version - later} instead. {hint}")


# Note [Zero gradients]: a formula returns ZERO for an input whose gradient is zero whatever
# the incoming gradient (where torch returns an efficient zero tensor: sgn of a real tensor).
# The engine does not run a node whose incoming gradient is ZERO but passes ZERO on to its
# inputs, so that no saved value downstream (an infinity) can turn the zero into NaN, as in
# torch; a sum with a real gradient is that gradient, and a leaf receives zeros.
# torch runs every node on its zero tensor, and most formulas (mul, div by the input, views,
# sums, cat, the unary math written as products) give a zero tensor again, but the nodes
# below make real zeros of it (a kernel of their own, neg, where, a slice or index written
# into zeros, a dtype cast), and from there on a saved infinity or NaN does turn the zeros
# into NaN. The engine runs those nodes on real zeros (Node._zero_runs: True for every input,
# or the inputs whose formula makes real zeros, the others still get ZERO; a pair (None,
# inputs): those get zeros without running the formula, as torch's pow, which writes its
# product with the zero tensor into zeros). Found by running torch: sgn(f(x * 1)).backward()
# leaves x.grad a zero tensor or not, for each node f, and NaN where a saved value is one.
_ZERO_RUNS = dict.fromkeys((
    "TanhBackward0", "SigmoidBackward0", "ReciprocalBackward0", "LogitBackward0",
    "TruncBackward0", "FloorBackward0", "CeilBackward0", "RoundBackward0", "NegBackward0",
    "SignBackward0", "ReluBackward0", "RsubBackward1", "MaximumBackward0", "MinimumBackward0",
    "FmaxBackward0", "FminBackward0", "MeanBackward0", "MeanBackward1", "MaxBackward0",
    "MinBackward0", "MaxBackward1", "MinBackward1", "MedianBackward0", "MedianBackward1",
    "NanmedianBackward0", "NanmedianBackward1", "ModeBackward0", "KthvalueBackward0",
    "SortBackward0", "TopkBackward0", "CumsumBackward0", "CumprodBackward0",
    "LogcumsumexpBackward0", "CummaxBackward0", "CumminBackward0", "SoftmaxBackward0",
    "LogSoftmaxBackward0", "MmBackward0", "AddmmBackward0", "ExpandBackward0",
    "SelectBackward0", "SliceBackward0", "IndexBackward0", "FlipBackward0", "RollBackward0",
    "RepeatBackward0", "UnbindBackward0", "SplitBackward0", "ToCopyBackward0",
    "DiagonalBackward0", "TrilBackward0", "TriuBackward0", "WhereBackward0", "ClampBackward0",
    "ClampBackward1", "MaskedFillBackward0", "IndexSelectBackward0", "GatherBackward0",
    "TraceBackward0", "SincBackward0", "GeluBackward0", "SiluBackward0", "EluBackward0",
    "LeakyReluBackward0", "HardtanhBackward0", "SoftplusBackward0", "MseLossBackward0"), True)
_ZERO_RUNS.update(SubBackward0=(1,), DivBackward0=(1,), RemainderBackward1=(1,),
                  FmodBackward1=(1,), CopysignBackward0=(1,), XlogyBackward0=(0,),
                  RsubBackward0=(0,), PowBackward1=(None, (0,)), AddcdivBackward0=(2,),
                  NotImplementedBackward=True)      # (it raises, as torch's)


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


# Note [Freed reads]: once a node has run without retain_graph, its saved tensors are dropped
# and reading one (`grad_fn._saved_result`, `_saved_self`, ...) raises torch's SECOND_BACKWARD
# error, while a slot that saved nothing (None: the gradient it serves was not needed) still
# reads None, as in torch. release() puts FREED in each slot that held a value and gives the
# node a same-named subclass of its class (freed_class) whose properties over those slots raise
# on FREED. The formulas' own reads stay plain slot reads on every live node (a property on the
# node classes themselves would slow every backward); the class swap costs one assignment per
# freed node. ember's bookkeeping that may meet a freed node reads slots with peek().
class _Freed:
    __slots__ = ()

    def __repr__(self):
        return "FREED"


FREED = _Freed()
_FREED_CLASSES = {}     # node class -> its freed form


def _freed_property(cls, name):
    desc = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
    if desc is None or not hasattr(desc, "__set__"):    # (an instance-__dict__ attribute)
        def get(self):
            v = self.__dict__.get(name)
            if v is FREED:
                raise RuntimeError(SECOND_BACKWARD)
            return v

        def put(self, v):
            self.__dict__[name] = v
        return property(get, put)

    def get(self):
        v = desc.__get__(self, cls)
        if v is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        return v
    return property(get, desc.__set__, desc.__delete__)


def freed_class(cls):
    """Note [Freed reads]: the class a node of class cls takes once its saved values are freed
    (the same name, layout and behaviour; its saved slots raise when read)."""
    sub = _FREED_CLASSES.get(cls)
    if sub is None:
        ns = {name: _freed_property(cls, name) for name in cls._saved_names}
        ns.update({"__slots__": (), "_same_node_as": cls, "__module__": cls.__module__,
                   "__qualname__": cls.__qualname__})
        sub = _FREED_CLASSES[cls] = type(cls.__name__, (cls,), ns)
        sub._freed_cls = _FREED_CLASSES[sub] = sub
        if "_same_node_as" not in cls.__dict__:
            cls._freed_cls = sub
    return sub


def peek(node, name):
    """A node's saved slot for ember's own bookkeeping: None where unset, FREED where freed
    (Note [Freed reads]), without raising."""
    try:
        return getattr(node, name, None)
    except RuntimeError:
        return FREED


class Node:
    """A backward function. `next_functions[i]` is the (node, output_nr) edge that receives the
    gradient for input i; `_meta` is (shape, numpy dtype) of this node's output, which the
    engine uses to sum a broadcast gradient back and cast it once, for every node. `_uses`
    counts the edges ever made to this node (Note [Uses] in engine.py)."""

    __slots__ = ("next_functions", "_seq", "_meta", "_freed", "_hooks", "_uses", "__weakref__")
    _saved_names = ()   # slots holding saved tensors, dropped after backward
    _n_outputs = 1
    _jvp_uses = None    # the inputs whose tangents jvp reads (None: all; Note [Forward AD])
    _refused = None     # a message: the grad_fn of a view torch refuses to regenerate
    _freed_cls = None   # the class a node takes once freed (Note [Freed reads])
    _zero_runs = None   # Note [Zero gradients]: the inputs whose gradient a ZERO runs for

    # ember's engine protocol, which torch's nodes do not show (a custom Function's node
    # shows apply, as torch's does)
    _dir_hidden = frozenset(("apply", "jvp", "np_apply", "release"))

    def name(self):
        return type(self).__name__

    def __dir__(self):
        """dir() as torch shows a node: the public API and the `_saved_`/`_raw_saved_`
        attributes, without ember's private slots (`_saved_names` among them, which a
        search for torch's saved attributes would otherwise find) or engine protocol. (A
        custom Function's private ctx attributes are left out with them.)"""
        hidden = self._dir_hidden
        return [n for n in object.__dir__(self)
                if n.startswith(("__", "_saved_", "_raw_saved_")) and n != "_saved_names"
                or not n.startswith("_") and n not in hidden]

    def __lt__(self, other):        # Note [Sink order]: equal sequence numbers tie
        return False

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, grad):
        """Gradients for each input (a tuple aligned with next_functions; None = no gradient),
        from the gradient of the output (a list of them for a multi-output node), as Tensor
        formulas: with create_graph they record a graph of their own."""
        raise NotImplementedError(type(self).__name__ + ".apply")

    def jvp(self, ts, xs, out):
        """The output tangent(s) from the input tangents ts, primal inputs xs and output(s)
        out (Note [Forward AD] in forward.py), as Tensor formulas. Without a rule of its own:
        the transpose of the node's own (linear in the gradient) backward formula, taken by
        reverse mode (forward.FALLBACK; Note [Forward AD fallback] in forward_ad.py)."""
        if forward.FALLBACK is None:
            raise jvp_not_implemented(self)
        return forward.FALLBACK(self, ts, xs, out)

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
        need) is not freed: running it again needs nothing, as in torch. Note [Freed reads]."""
        saved = False
        for name in self._saved_names:
            try:
                if getattr(self, name) is None:
                    continue
            except AttributeError:      # (a slot emptied by saved-tensor hooks)
                pass
            setattr(self, name, FREED)
            saved = True
        if saved:
            self._freed = True
            self.__class__ = self._freed_cls or freed_class(type(self))

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._zero_runs = _ZERO_RUNS.get(cls.__name__)     # (by name: never inherited)
        if "_same_node_as" in cls.__dict__:
            return      # a same-named stand-in (freed_class, _reads_packed): nothing to add
        cls._freed_cls = None       # (its own: made at the first release, freed_class)
        names = cls._saved_names
        # torch's grad_fn._raw_saved_<name>, one property per saved slot. (Not __getattr__:
        # a class that defines it loses CPython's fast attribute lookup on every access.)
        for n in names:
            raw = "_raw_saved_" + n[7:]
            if n.startswith("_saved_") and raw not in cls.__dict__:
                setattr(cls, raw, property(lambda self, n=n: SavedTensor(self, n)))
        if names and getattr(cls.release, "_generated", cls.release is Node.release):
            # one plain assignment per saved slot: setattr by name costs ~3x that per node
            fn = _RELEASES.get(names)
            if fn is None:
                src = ("def release(self):\n    try:\n" +
                       "".join(f"        v{i} = self.{n}\n" for i, n in enumerate(names)) +
                       "    except AttributeError:\n        return Node.release(self)\n" +
                       ("    if " + " and ".join(f"v{i} is None" for i in range(len(names))) +
                        ":\n        return\n") +
                       "".join(f"    if v{i} is not None:\n        self.{n} = FREED\n"
                               for i, n in enumerate(names)) +
                       "    self._freed = True\n"
                       "    self.__class__ = self._freed_cls or freed_class(type(self))\n")
                ns = {"Node": Node, "FREED": FREED, "freed_class": freed_class}
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
    when backward reaches it, as soon as it is ready (Note [Sink order])."""
    __slots__ = ("_op",)
    _seq = property(lambda self: _ACC_SEQ, lambda self, seq: None)

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
        self._seq = _ACC_SEQ          # Note [Sink order]
        self._uses = 0
        x = variable._x
        gd = x.get("grad_dtype") if x else None     # (Tensor.grad_dtype)
        self._meta = (variable._data.shape, variable._data.dtype if gd is None else gd.np)
        self._freed = False
        self._hooks = None

    def np_apply(self, grad):
        var = self.variable
        x = var._x
        if not var._requires_grad or x and "sink" in x:
            return None     # requires_grad_(False) since it was used; a no_grad view (_views)
        if x and "acc_hooked" in x:     # tensor, post-accumulate or node hooks
            self._hooked(_wrap(grad))
            return
        # The engine's local and this argument are the only references to an array that
        # nothing else shares (getrefcount adds its own): then .grad can take it as it is.
        owned = getrefcount(grad) <= 3 and _owns_memory(grad)
        old = var._grad
        if old is None:
            leaf = var._data
            if owned and (grad.strides == leaf.strides or _obeys_layout(grad, leaf)):
                var._grad = _wrap(grad)
            else:
                var._grad = g = _wrap(copy_grad(grad) if leaf.flags.c_contiguous else
                                      _in_leaf_layout(grad, leaf))
                if _clones(grad, var._data):
                    _written_once(g)
        else:
            old._data += grad     # torch accumulates in place when not building a graph
            # torch's version bump; its stamp is left out (Note [Grad versions])
            ox = old._x
            if ox is None:
                _written_once(old)
            else:
                vc = ox.get("vc")
                if vc is None or "vroot" in ox:
                    bump_version(old)
                else:
                    vc.version += 1

    def apply(self, grad):
        var = self.variable
        x = var._x
        if not var._requires_grad or x and "sink" in x:
            return ()
        if x and "acc_hooked" in x:
            self._hooked(grad)
            return ()
        if STATE.enabled and not _CYCLE_WARNED:
            _warn_cycle()
        old = var._grad
        if old is None:
            var._grad = _first_grad(grad, var)
        elif STATE.enabled:
            var._grad = old + grad
        else:
            old._data += grad._data    # torch accumulates in place when not building a graph
            bump_version(old)
        return ()

    def _hooked(self, grad):
        """Accumulate with hooks, in torch's order: the tensor's hooks, the node's pre-hooks,
        the accumulation, the post-accumulate-grad hooks, the node's post-hooks."""
        var = self.variable
        x = var._x
        for hook in x.get("hooks", ()):
            out = hook(grad)
            if out is not None:
                grad = checked_hook_result(hook, grad, out)
        hooks = self._hooks
        if hooks is not None:
            grad = run_pre_hooks(hooks.get("pre", ()), [grad])[0]
        if grad is not None:
            if STATE.enabled and not _CYCLE_WARNED:
                _warn_cycle()
            old = var._grad
            if old is None:
                var._grad = _first_grad(grad, var, False)
            elif STATE.enabled:
                var._grad = old + grad
            else:
                old._data += grad._data
                bump_version(old)
            for hook in x.get("post_acc", ()):
                hook(var)
        if hooks is not None:
            run_post_hooks(hooks.get("post", ()), [], (grad,))

    def register_hook(self, fn):
        self.variable._extra()["acc_hooked"] = True
        return Node.register_hook(self, fn)

    def register_prehook(self, fn):
        self.variable._extra()["acc_hooked"] = True
        return Node.register_prehook(self, fn)


def run_pre_hooks(hooks, grads):
    """A node's pre-hooks on its output gradients (a list), with torch's checks of what a hook
    returns; returns the list."""
    for fn in hooks:
        out = fn(tuple(grads))
        if out is not None:
            _check_hook_result(fn, out, len(grads))
            grads = list(out)
    return grads


def run_post_hooks(hooks, outs, grads):
    """A node's post-hooks on (gradients of its inputs, of its outputs); returns the input
    gradients, replaced where a hook returned new ones (torch's checks)."""
    for fn in hooks:
        res = fn(tuple(outs), tuple(grads))
        if res is not None:
            _check_hook_result(fn, res, len(outs))
            for old, new in zip(outs, res):
                if old is None and new is not None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
            outs = list(res)
    return outs


def _check_hook_result(fn, res, n):
    """torch's checks of the gradients a node hook returned: a tuple of n."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    if len(res) != n:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has returned an incorrect number of "
                           f"values (got {len(res)}, but expected {n})")


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


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


# Note [Grad versions]: the .grad a leaf gets, as torch's AccumulateGrad makes it: the
# incoming gradient itself where nothing else holds it and its layout is the leaf's (stolen:
# version 0); else a copy made by an in-place copy into a new tensor (version 1; recorded,
# CopyBackwards, when building a graph); a later gradient is added in place (a version bump)
# unless building a graph. Differences left: where torch steals a view of another tensor's
# memory (a grad_output reshaped), ember copies it (.grad never aliases the user's memory);
# torch's engine adds two gradients meeting at a node in place into one of them when it can
# (version 1 if .grad then takes it), ember's does not count that; and the bump of an
# accumulation records no stamp (a node that saved the .grad before it is not refused): a
# stamp cost 5% of a backward into ten small leaves.

def _first_grad(grad, var, steal=True):
    """The tensor .grad first takes from gradient `grad` (a Tensor) (Note [Grad versions])."""
    a, leaf = grad._data, var._data
    if STATE.enabled:           # (torch takes none while building a graph)
        g = _wrap(empty_like(a) if leaf.flags.c_contiguous else _in_leaf_layout(a, leaf))
        return g.copy_(grad)        # (CopyBackwards where grad has a history)
    if steal and _owned(grad) and (a.strides == leaf.strides or _obeys_layout(a, leaf)):
        return grad
    g = _wrap(a.copy() if leaf.flags.c_contiguous else _in_leaf_layout(a, leaf))
    if _clones(a, leaf):
        _written_once(g)
    return g


# Note [Gradient layout]: torch's .grad follows its leaf's layout (the "gradient layout
# contract"): a leaf that is non-overlapping and dense gets a first .grad with its own strides
# (size-1 dims aside), any other leaf a C-contiguous one. A gradient already laid out so is
# taken as it is (the strides comparison is the whole cost for a contiguous leaf); another is
# copied into that layout. (An existing .grad keeps its layout when later gradients add in.)

def _leaf_dense(leaf):
    from ..ops._views import _dense     # (ops import this module; the path is rare)
    return _dense(leaf)


def _obeys_layout(g, leaf):
    if leaf.flags.c_contiguous or not _leaf_dense(leaf):
        return g.flags.c_contiguous
    return g.itemsize == leaf.itemsize and all(
        n == 1 or a == b for n, a, b in zip(leaf.shape, g.strides, leaf.strides))


def _in_leaf_layout(g, leaf):
    """A copy of gradient array g laid out as leaf's .grad (Note [Gradient layout])."""
    if leaf.flags.c_contiguous or not _leaf_dense(leaf):
        return g.copy()
    out = ndarray(leaf.shape, g.dtype, empty_like(g, shape=g.size), strides=leaf.strides)
    out[...] = g
    return out


def _clones(grad, leaf):
    """Whether torch copies gradient array grad (one .grad cannot take as it is) for the leaf
    array leaf, rather than taking it: an array another tensor holds whole, or one whose
    strides are not the leaf's (expanded, transposed)."""
    if grad.base is None:
        return True
    return any(n != 1 and a != b for n, a, b in zip(grad.shape, grad.strides, leaf.strides))


def _written_once(t):
    """Give t, a fresh tensor, version 1 (it was written once, by a copy): no stamp, as
    nothing saved it before."""
    vc = VersionCounter()
    vc.version = 1
    vc.stamps.append(-1)        # (older than every node: check_versions reads the last)
    t._x = {"vc": vc}


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
    """A new node's bookkeeping: its edges, creation number, output meta, no use yet.
    (_recorded, the per-op hot path, inlines these six lines: keep the two alike.)"""
    node.next_functions = edges
    node._seq = next(_counter)
    node._uses = 0
    node._meta = meta
    node._freed = False
    node._hooks = None


def sum_to(g, shape):
    """Sum a broadcast gradient down to `shape`, with ember ops (create_graph: so that it is
    differentiable). A 0-dim target takes the plain full sum, as torch's sum_to does
    (SumBackward0 in a create_graph graph)."""
    if not shape and g.ndim:
        return g.sum()
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
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and d.shape[lead + i] != 1)
    if axes:
        d = _add_reduce(d, axis=axes, keepdims=True)
    # (as torch's sum_to: one sum keeping the dims, then a view dropping the leading ones,
    # so that the gradient autograd.grad returns is a view: Note [Returned gradients])
    return d.reshape(shape) if lead else d


def link(out, node, *inputs, meta=None):
    """Make `node` the grad_fn of `out` with edges to `inputs` (tensors, or None for
    non-tensor arguments). meta: out's (shape, dtype) when the caller already has that tuple
    (an op whose output matches its input's): sharing it saves two GC-tracked tuples. With a
    dual level open, out also gets its tangents, and the node is linked only when a gradient is
    recorded (Note [Forward AD])."""
    if LEVELS and not recording(inputs):
        propagate(node, inputs, out)
        return out
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
    if _watching:
        on_link(node, (out,))
    if LEVELS:
        propagate(node, inputs, out)
    return out


def recording(inputs):
    """Whether an op on these inputs records a node (with a dual level open, an op makes one
    for tangents alone too: Note [Forward AD])."""
    if not STATE.enabled:
        return False
    for t in inputs:
        if t is not None and t._requires_grad:
            return True
    return False


def same_meta(t):
    """The (shape, dtype) tuple of tensor t's node, for an output of the same shape and
    dtype (see link); None if t has no single-output node."""
    fn = t._grad_fn
    if fn is not None and fn._n_outputs == 1 and t._x is None:
        return fn._meta     # (a tensor whose .data was replaced has _x set: not shared)
    return None


def link_multi(outs, node, *inputs):
    """Like link for a node with several differentiable outputs."""
    if LEVELS and not recording(inputs):
        propagate(node, inputs, list(outs))
        return outs
    init_node(node, tuple(map(use, inputs)), [(o._data.shape, o._data.dtype) for o in outs])
    for i, o in enumerate(outs):
        o._grad_fn = node
        o._output_nr = i
        o._requires_grad = True
    if _watching:
        on_link(node, outs)
    if LEVELS:
        propagate(node, inputs, list(outs))
    return outs


_new_tensor = object.__new__


def wrap_out(arr, node, t, pad):
    """Hot-path constructor for the output of an op with one Tensor input `t` whose output
    has t's shape and dtype (a real unary op, tensor-and-number arithmetic), once the caller
    has made `node` because grad mode is on and t requires grad: wrap + link in one call.
    pad: give the node a second, empty edge (torch's node for `x + 2` has two inputs). The
    node shares the (shape, dtype) tuple of t's node, as link's meta= does."""
    if LEVELS:
        return link(_wrap(arr), node, t, None) if pad else link(_wrap(arr), node, t)
    fn = t._grad_fn                     # use(t), inlined: this runs once per recorded op
    if fn is not None:
        fn._uses += 1
        e = (fn, t._output_nr)
        meta = fn._meta if fn._n_outputs == 1 and t._x is None else (arr.shape, arr.dtype)
    else:
        e = use(t)
        meta = (arr.shape, arr.dtype)
    return _recorded(arr, node, (e, _NO_EDGE) if pad else (e,), meta)


def wrap_out2(arr, node, a, b):
    """wrap_out for an op with two Tensor inputs (a node with two edges; the output's
    (shape, dtype) tuple is its own: it may broadcast)."""
    if LEVELS:
        return link(_wrap(arr), node, a, b)
    return _recorded(arr, node, (use(a), use(b)), (arr.shape, arr.dtype))


def _recorded(arr, node, edges, meta):
    """A new Tensor over arr whose grad_fn is node, with the given edges and meta."""
    if type(arr) is not ndarray:    # a ufunc on 0-d arrays returns a NumPy scalar
        arr = asarray(arr)
    node.next_functions = edges         # init_node, inlined: this runs once per recorded op
    node._seq = next(_counter)
    node._uses = 0
    node._meta = meta
    node._freed = False
    node._hooks = None
    out = _new_tensor(Tensor)
    out._data = arr
    out._requires_grad = True
    out._grad_fn = node
    out._output_nr = 0
    out._grad = out._acc = out._x = None
    if _watching:
        on_link(node, (out,))
    return out


def register_tensor_hook(self, hook):
    """Tensor.register_hook: hook(grad) runs when this tensor's gradient is computed; may return a new grad."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                           "gradient")
    if self._grad_fn is None:
        x = self._extra()
        x["acc_hooked"] = True
        return _Handle(x.setdefault("hooks", []), hook)
    pre = self._grad_fn._extra().setdefault("tensor_pre", [])
    return _Handle(pre, (self._output_nr, hook))


def register_post_accumulate_grad_hook(self, hook):
    """Tensor.register_post_accumulate_grad_hook: hook(tensor) after a leaf's .grad is
    updated by backward."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                           "gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                           "tensors")
    x = self._extra()
    x["acc_hooked"] = True
    return _Handle(x.setdefault("post_acc", []), hook)


# ---------------------------------------------------------------- Note [Link hooks]
# Features that must see each node as it is linked: saved-tensor hooks (pack each saved
# tensor), anomaly mode (keep the forward traceback) and inference tensors (refused as saved
# tensors). `link`, `link_multi` and `_recorded` call `on_link` only while one of them is
# active (`_watching`), so an op pays one test otherwise.
_watching = False
_watch_count = 0
_watch_lock = threading.Lock()


def watch(delta):
    """One more (delta=1) or one fewer (-1) active feature that needs on_link."""
    global _watching, _watch_count
    with _watch_lock:
        _watch_count += delta
        _watching = _watch_count > 0


grad_mode.set_watcher(watch)

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")


def on_link(node, outs):
    """Note [Link hooks]: node was just linked to its outputs outs."""
    if ANOMALY.enabled:
        node._extra()["trace"] = user_frames()
    names = node._saved_names
    if not names:
        return
    if grad_mode._live and not INFERENCE.on:
        for name in names:
            v = getattr(node, name, None)
            for t in v if type(v) in (list, tuple) else (v,):
                if isinstance(t, Tensor) and is_inference(t):
                    raise RuntimeError(INFERENCE_SAVED)
    stack = _SAVED.stack
    if stack:
        _pack_node(node, names, outs, *stack[-1])


_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_frames():
    """The current Python stack (traceback.FrameSummary list) up to the last frame outside
    ember: where the user's code called into the library."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_EMBER_DIR):
        frames.pop()
    return frames


def user_stacklevel():
    """warnings.warn's stacklevel that names the innermost frame outside ember."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith(_EMBER_DIR):
        f, level = f.f_back, level + 1
    return level


# ---------------------------------------------------------------- Note [Saved-tensor hooks]
# Inside saved_tensors_hooks(pack, unpack), each tensor a node saves is given to pack when the
# node is linked (on_link) and the node keeps only what pack returned: the saved slot is
# emptied, the packed value goes to node._hooks["packed"]. The engine unpacks every slot once
# before running the node (a node with hooks takes the engine's hooked path) and empties them
# again after a retained run, so unpack is called as often as torch calls it. User code that
# reads an emptied slot, `grad_fn._saved_self`, unpacks it as torch does: a packed node gets
# a same-named subclass with __getattr__ (_reads_packed; on Node itself it would slow every
# attribute access on every node).
# The unpacked tensor gets the saved tensor's place in the graph back (torch restores its
# grad_fn or grad accumulator), so double backward through packed tensors works; versions are
# not checked for packed tensors, as in torch.
class _SavedState(threading.local):
    def __init__(self):
        self.stack = []         # (pack_hook, unpack_hook), innermost last
        self.disabled = None    # disable_saved_tensors_hooks' message, or None


_SAVED = _SavedState()


class _Packed:
    """One packed saved tensor: pack's result, the unpack hook, and the tensor's place in the
    graph (its edge; out_nr when it is an output of the node that saved it)."""
    __slots__ = ("packed", "unpack", "edge", "out_nr")

    def __init__(self, packed, unpack, edge, out_nr):
        self.packed, self.unpack, self.edge, self.out_nr = packed, unpack, edge, out_nr


class _PackedSeq:
    """A saved list or tuple of tensors (einsum's operands, a Function's saved tensors)."""
    __slots__ = ("kind", "items")

    def __init__(self, kind, items):
        self.kind, self.items = kind, items


def _pack_one(t, outs, pack, unpack):
    out_nr = None
    if t._grad_fn is None and not t._requires_grad:     # outputs are saved detached
        for i, o in enumerate(outs):
            if o._data is t._data:
                out_nr = i
                break
    if out_nr is not None:
        return _Packed(pack(outs[out_nr]), unpack, None, out_nr)
    e = edge(t)
    return _Packed(pack(t), unpack, e if e[0] is not None else None, None)


def _pack_node(node, names, outs, pack, unpack):
    packed = {}
    for name in names:
        v = getattr(node, name, None)
        if isinstance(v, Tensor):
            packed[name] = _pack_one(v, outs, pack, unpack)
        elif type(v) in (list, tuple) and any(isinstance(e, Tensor) for e in v):
            packed[name] = _PackedSeq(type(v), [_pack_one(e, outs, pack, unpack)
                                                if isinstance(e, Tensor) else e for e in v])
        else:
            continue
        delattr(node, name)
    if packed:
        node._extra()["packed"] = packed
        _reads_packed(node)


_PACKED_CLASSES = {}


def _reads_packed(node):
    """Give node (whose saved slots were packed) a class of the same name and layout whose
    __getattr__ unpacks an emptied slot when user code reads it (`grad_fn._saved_self` calls
    unpack, as in torch). Only such nodes get it: a class with __getattr__ loses CPython's
    specialised attribute access, which every other node keeps."""
    cls = type(node)
    if cls.__dict__.get("_unpacks_on_read"):
        return
    sub = _PACKED_CLASSES.get(cls)
    if sub is None:
        sub = _PACKED_CLASSES[cls] = type(cls.__name__, (cls,), {
            "__slots__": (), "__getattr__": _read_packed, "_unpacks_on_read": True,
            "_same_node_as": cls,
            "__module__": cls.__module__, "__qualname__": cls.__qualname__})
    node.__class__ = sub


def _read_packed(self, name):
    try:
        hooks = object.__getattribute__(self, "_hooks")
    except AttributeError:
        hooks = None
    packed = hooks.get("packed") if hooks else None
    if packed and name in packed:
        if self._freed:
            raise RuntimeError(SECOND_BACKWARD)
        return _unpacked(self, packed[name], True)
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _unpacked(node, rec, user):
    """The tensor a packed record unpacks to, in the saved tensor's place in the graph. user:
    for user code (an output then shows its grad_fn, as in torch); else for the node's own
    formulas (an output stays detached, as ops save it)."""
    if type(rec) is _PackedSeq:
        return rec.kind(_unpacked(node, r, user) if type(r) is _Packed else r
                        for r in rec.items)
    u = rec.unpack(rec.packed)
    if not isinstance(u, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(u).__name__}")
    if rec.out_nr is not None:
        v = _wrap(u._data)
        if user:
            v._requires_grad = True
            v._grad_fn = node
            v._output_nr = rec.out_nr
        return v
    e = rec.edge
    if e is None:
        return u if not u._requires_grad else _wrap(u._data)
    if edge(u) == e:
        return u
    v = _wrap(u._data)
    v._requires_grad = True
    if type(e[0]) is AccumulateGrad:
        v._acc = weakref.ref(e[0])
    else:
        v._grad_fn, v._output_nr = e
    return v


def unpack_saved(node, packed):
    """Before the engine runs node: each packed slot gets its unpacked tensor."""
    for name, rec in packed.items():
        setattr(node, name, _unpacked(node, rec, False))


def repack_saved(node, packed):
    """After a retained run: empty the slots again (the next read unpacks anew)."""
    for name in packed:
        try:
            delattr(node, name)
        except AttributeError:
            pass


class SavedTensor:
    """torch's grad_fn._raw_saved_<name>: the saved tensor, to which hooks can be given."""
    __slots__ = ("_node", "_name")

    def __init__(self, node, name):
        self._node, self._name = node, name

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (self: torch._C._autograd."
                            "SavedTensor, arg0: collections.abc.Callable, arg1: collections."
                            "abc.Callable) -> None")
        node, name = self._node, self._name
        hooks = node._hooks
        if hooks is not None and name in hooks.get("packed", ()):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        v = peek(node, name)
        if v is FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if v is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if not isinstance(v, Tensor):
            return
        node._extra().setdefault("packed", {})[name] = _pack_one(v, (), pack_hook, unpack_hook)
        delattr(node, name)
        _reads_packed(node)


def saved_alias(slot, form=None):
    """torch's _saved_<name> and _raw_saved_<name> for a tensor the node keeps in `slot`
    (under another name: its formula reads a form of it of its own). form(value, node):
    torch's form of a value that is not None, made when read (a NumPy array kept for the
    formula read as a tensor)."""
    if form is None:
        return property(lambda self: getattr(self, slot)), \
            property(lambda self: SavedTensor(self, slot))

    def get(self):
        v = getattr(self, slot)
        return None if v is None else form(v, self)
    return property(get), property(lambda self: SavedTensor(self, slot))


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) runs on each tensor saved for backward inside it,
    unpack_hook(packed) when backward (or user code) reads it (Note [Saved-tensor hooks])."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        st = _SAVED
        if st.disabled is not None:
            raise RuntimeError(st.disabled)
        st.stack.append((self.pack_hook, self.unpack_hook))
        watch(1)
        return self

    def __exit__(self, *exc):
        _SAVED.stack.pop()
        watch(-1)
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept as CPU copies (ember's tensors are all on the CPU already: a copy,
    so that later in-place writes do not reach them, as in torch)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.device, _wrap(t._data.copy())

        def unpack(packed):
            return packed[1]
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager (and decorator) inside which saved_tensors_hooks raises RuntimeError
    with error_message; entering it while hooks are active raises it too."""

    def __init__(self, error_message):
        self.error_message = error_message
        self.prev = []

    def __enter__(self):
        st = _SAVED
        if st.stack:
            raise RuntimeError(self.error_message)
        self.prev.append(st.disabled)
        st.disabled = self.error_message

    def __exit__(self, *exc):
        _SAVED.disabled = self.prev.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


def _version(r):
    """The version counter of a view family's root (0 before any in-place write)."""
    x = r._x
    vc = x.get("vc") if x else None
    return 0 if vc is None else vc.version


class _AllowMutationOnSavedContext:
    """What allow_mutation_on_saved_tensors yields; `closed` once its block has ended."""

    def __init__(self):
        self.closed = False


_MUTATION = []      # the open allow_mutation_on_saved_tensors context, if any
MUTATION_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                    "contextin which the graph was originally recorded.")


class allow_mutation_on_saved_tensors:
    """Context manager: tensors saved inside it may be written in place afterwards; backward
    sees the values they had when saved; backward must run inside the block. torch clones a
    saved tensor at its first in-place write; ember keeps a copy from pack time, and unpacks
    the saved tensor itself (sharing its memory) until its family's version changes, the
    copy after: what torch's lazy clone shows (grad_fn._saved_self aliases the tensor before
    a write and holds the old values after)."""

    def __enter__(self):
        if _MUTATION:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx = _AllowMutationOnSavedContext()

        def pack(t):
            r = vroot(t)
            return t._data, r, _version(r), t._data.copy()

        def unpack(packed):
            if ctx.closed:
                raise AssertionError(MUTATION_OUTSIDE)
            arr, r, version, copy = packed
            return _wrap(arr if _version(r) == version else copy)
        self.ctx = ctx
        self.hooks = saved_tensors_hooks(pack, unpack)
        self.hooks.__enter__()
        _MUTATION.append(ctx)
        return ctx

    def __exit__(self, *exc):
        self.hooks.__exit__(*exc)
        self.ctx.closed = True
        _MUTATION.pop()
        return False


# ---------------------------------------------------------------- gradient edges, multi-hooks

GradientEdge = namedtuple("GradientEdge", ("node", "output_nr", "ownership_token"),
                          defaults=(None,))


def get_gradient_edge(tensor):
    """The (node, output_nr) through which tensor's gradient flows."""
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = edge(tensor)
    return GradientEdge(node, nr)


# Note [Current task]: register_multi_grad_hook must know, inside a backward pass, which of its
# tensors will receive a gradient in that pass. While such hooks exist (_MULTI[0]), the engine
# pushes each pass's (roots, targets) here; will_execute answers from one walk per pass.
_MULTI = [0]


class _Tasks(threading.local):
    def __init__(self):
        self.stack = []


TASKS = _Tasks()


class Task:
    """One backward pass, as register_multi_grad_hook sees it (Note [Current task])."""
    __slots__ = ("starts", "targets", "grad_only", "reach", "__weakref__")

    def __init__(self, starts, targets, grad_only):
        self.starts, self.targets, self.grad_only = starts, targets, grad_only
        self.reach = None


def will_execute(node):
    """Whether node runs in the current backward pass."""
    task = TASKS.stack[-1]
    if task.grad_only and type(node) is AccumulateGrad:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    if task.reach is None:
        task.reach = reachable(task.starts, task.targets)[0]
    return node in task.reach


def reachable(starts, targets=None):
    """(nodes that run, all nodes reached) for a pass from starts: with targets (a set of
    nodes), only those on a path to one of them run (torch's exec_info), else all reached."""
    seen = set(starts)
    order = []
    stack = list(starts)
    while stack:            # iterative DFS; `order` lists each node after all its children
        node = stack[-1]
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
                break
        else:
            stack.pop()
            order.append(node)
    if targets is None:
        return seen, seen
    run = set()
    for node in order:
        if node in targets or any(n in run for n, _ in node.next_functions if n is not None):
            run.add(node)
    return run, seen


class _MultiHandle:
    __slots__ = ("handles", "__weakref__")

    def __init__(self, handles):
        self.handles = handles
        _MULTI[0] += 1

    def remove(self):
        if self.handles:
            for h in self.handles:
                h.remove()
            self.handles = ()
            _MULTI[0] -= 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once the gradients of all of tensors that the pass reaches are
    computed (None for the others); "any": fn(grad) with the first one computed in a pass."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = {"task": None}

    def fresh(task):
        if state["task"] is None or state["task"]() is not task:
            state["task"] = weakref.ref(task)
            state["grads"] = [None] * len(tensors)
            state["left"] = None if mode == "any" else sum(
                1 for t in tensors if t._requires_grad and will_execute(edge(t)[0]))
            state["fired"] = False

    def make(i):
        def hook(grad):
            fresh(TASKS.stack[-1])
            if mode == "any":
                if not state["fired"]:
                    state["fired"] = True
                    fn(grad)
                return None
            state["grads"][i] = grad
            state["left"] -= 1
            if state["left"] == 0:
                grads = tuple(state["grads"])
                state["grads"] = [None] * len(tensors)
                fn(grads)
            return None
        return hook

    return _MultiHandle([register_tensor_hook(t, make(i)) for i, t in enumerate(tensors)
                         if t._requires_grad])


def unsigned(v):
    """torch's reading of a saved int64 argument (a dim, a diagonal, an ignore_index): a
    negative one reads as its unsigned 64-bit value (2**64 - 1 for -1); tuples item by item."""
    if type(v) is not int and hasattr(v, "__index__") and not isinstance(v, bool):
        v = v.__index__()       # (a NumPy integer as given)
    if type(v) is int:
        return v + (1 << 64) if v < 0 else v
    if type(v) in (tuple, list):
        return type(v)(unsigned(x) for x in v)
    return v


def saved_unsigned(slot):
    """torch's _saved_<name> for an int64 argument the node keeps as given in `slot` (its
    formula reads the signed value): converted when read (unsigned)."""
    return property(lambda self: unsigned(getattr(self, slot)))


def saved_arg(slot, arg):
    """torch's _saved_<name> for an int64 argument (a dim) whose form for the formula (wrapped
    into range) the node keeps in `slot`: the argument as the caller gave it, kept in `arg`,
    read as torch reads it (unsigned); the slot's value where the op kept no argument."""
    def get(self):
        try:
            v = getattr(self, arg)
        except AttributeError:
            v = getattr(self, slot)
        return unsigned(v)
    return property(get)


def saved_dims(slot, arg, none=None):
    """saved_arg for a reduction's dims (torch's int[] / int[]?): an int as given reads as a
    1-tuple, a list as a tuple, no dims (None) as `none` (None for int[]?, () for int[])."""
    def get(self):
        try:
            v = getattr(self, arg)
        except AttributeError:
            return unsigned(getattr(self, slot))
        if v is None:
            return none
        return unsigned(tuple(v) if type(v) in (tuple, list) else (v,))
    return property(get)


def absent(name):
    """An inherited attribute a node class does not have, as torch's node has not (a
    _raw_saved_self where torch saved a number, not a tensor): reading it is AttributeError."""
    def get(self):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    return property(get)


def saved_given(slot, arg):
    """torch's _saved_<name> for a number argument the formula reads converted (a float p):
    the argument as the caller gave it, kept in `arg` (the slot's value where none was)."""
    def get(self):
        try:
            return getattr(self, arg)
        except AttributeError:
            return getattr(self, slot)
    return property(get)
