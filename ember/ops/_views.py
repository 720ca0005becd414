"""Views and in-place writes: how a view is recorded, and the one protocol every in-place op
goes through (checks, the write, the version bump, the history), with the two nodes it links,
CopySlices and AsStridedBackward0.

Note [Views]: a view's array is a NumPy view of its base's memory, made by the view ops of
ember/ops/shape.py and ember/ops/index.py, which call `make_view`. The view records its base
(torch's `_base`: the root of a chain of views) and the tensor holding its version counter
(Note [Versions] in autograd/graph.py). Every view is also kept, weakly, in its base's list
of live views: an in-place write regenerates the grad_fn of those that have a history or
whose base requires grad (torch regenerates a view's grad_fn when its version changes), so
that a view taken before the write sees the written values' history; and torch's view
requires grad while its base does, so those without a history follow the base's
requires_grad_() (tensor.py's _views_follow: no cost where requires_grad is read). A write
marks the others "stale" (_reread): torch reads such a view's base anew once the base requires
grad (AsStridedBackward0, or its refusal), where an unwritten one stays a leaf; a view made in
no_grad mode and not kept records the family's version instead ("v0", where it is not 0), which
adopt_nograd_views compares. The geometry of a view within its base (which elements of the
base it covers) is read off the two arrays (`_region`) when a node needs it, never stored.

Note [In-place writes]: an op's in-place form computes its result out of place, from a copy
of `self` that carries self's history when self requires grad (`inplace_source`), then
`inplace` writes the result into self's own array (so every view of it sees the values) and
rebases the history as torch does:
- self not a view: self's grad_fn becomes the op's node;
- self a view: its base's grad_fn becomes CopySlices(base's old history, the op's node), self
  and the base's other live views read the base again (AsStridedBackward0).
Saved tensors that alias self's memory are made to share its version counter, so a node that
saved them is refused by the engine after a later write, as torch refuses it."""
import warnings
import weakref

import numpy as np

from ..autograd.forward import LEVELS, hidden, set_tangent, tangent, zeros_like_layout
from ..autograd.grad_mode import STATE, inference_x
from ..tensor import INFERENCE
from ..autograd.graph import (_ACC_SEQ, Node, bump_version, check_versions, use, init_node,
                              mark_detached, peek, vroot, ZERO)
from ..dtypes import result_type, type_name
from ..tensor import Tensor, adopt_nograd_views, keep_view, prune_views, wrap
from ..tensor import _views_follow
from ..tensor import memory_owner as _memory
from ._args import can_cast, plain_operand
from ._args import not_tensor

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")
MULTI_VIEW = ("is a view and is being modified inplace. This view is the output of a function "
              "that returns multiple views. Such functions do not allow the output views to be "
              "modified inplace. You should replace the inplace operation by an out-of-place one.")
NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad "
                "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the inplace "
                "either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")


INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You "
                     "can make a clone to get a normal tensor before doing inplace update.See "
                     "https://github.com/pytorch/rfcs/pull/17 for more details.")


# ---------------------------------------------------------------- views (Note [Views])

def make_view(res, input, multi=False):
    """Record `res` (a Tensor over a NumPy view of input's memory) as a view of input.
    multi: res is one of several views an op returns (split, unbind, ...): torch forbids
    in-place writes into those while recording."""
    x = input._x
    if x is None:
        if not (STATE.enabled or input._requires_grad or multi):
            # (in no_grad mode, of a fresh base that requires no grad, as in inference: see
            # below, in one step)
            res._x = {"base": input, "vroot": input, "nograd": True}
            input._x = {"ngv": True}
            return res
        base = root = input
        rx = {"base": input, "vroot": input}
    else:
        base = x.get("base", input)
        root = x.get("vroot", input)
        rx = {"base": base, "vroot": root}
        if "multi" in x:
            rx["multi"] = True
        if "nograd" in x:
            rx["nograd"] = True
        if "inference" in x:        # a view of an inference tensor is one
            rx = inference_x(rx)
    if multi:
        rx["multi"] = True
    res._x = rx
    bx = base._x
    if not STATE.enabled:
        rx["nograd"] = True
        if base._requires_grad:
            # torch: a view made in no_grad mode of a tensor that requires grad requires grad
            # too, as a leaf whose gradient goes nowhere (AccumulateGrad skips it)
            res._requires_grad = True
            rx["sink"] = True
        else:
            # the no_grad views of a base that requires no grad (inference) are not kept: a
            # mark on the base says that some may exist, and the rare change that concerns
            # them, the base coming to require grad, finds them (Note [Views]), and compares
            # the family's version with the one it had then (here only: above, a tensor
            # without _x has never been written)
            if bx is None:
                base._x = {"ngv": True}
            else:
                bx["ngv"] = True
            rootx = root._x
            vc = rootx.get("vc") if rootx is not None else None
            if vc is not None:
                rx["v0"] = vc.version
            return res
    # The view is kept (a write regenerates it or refuses it, Note [Refused views]; one that
    # has no history follows its base's requires_grad_(), tensor.py's _views_follow):
    # keep_view, inlined where the base has its list already (views are on the hot path).
    # A view of a detached alias is kept by the family's root (the version counter's
    # holder), whose writes, through any alias, regenerate it.
    if root is not base:
        base, bx = root, root._x
    refs = bx.get("views") if bx is not None else None
    if refs is None:
        keep_view(base, res)
    else:
        refs.append(weakref.ref(res))
        if len(refs) >= bx["views_cap"]:
            prune_views(bx, refs)
    return res


def make_alias(t):
    """A tensor over t's array that shares t's version counter and no history (detach).
    The outputs t's history saved share that counter from now on too: a write through the
    alias must make their node refuse to run, as a write to t itself does (the hot paths
    of exp, tanh and relu save their result as a plain tensor, linked only when needed)."""
    x = t._x
    if t._grad_fn is not None or x is not None and "base" in x:
        _alias_saved_outputs(t)
    res = wrap(t._data)
    res._x = {"vroot": vroot(t)} if x is None or "inference" not in x else \
        inference_x({"vroot": vroot(t)})
    return res


def _viewed(base):
    """Whether base may have live views (kept, or marked: make_view)."""
    x = base._x
    return x is not None and ("views" in x or "ngv" in x)


def detach_(self):
    """Tensor.detach_: self leaves its graph in place. A node that saved self as an input
    while self had a history then refuses to run, as torch's does (graph.py's
    mark_detached)."""
    x = self._x
    if x and "base" in x:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
            "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
            "called on these gradients. To fix this error, please refer to the "
            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    if self._grad_fn is not None:
        mark_detached(self)
    self._grad_fn = None
    if x and self._requires_grad and ("views" in x or "ngv" in x or "vroot" in x):
        _views_follow(self, False)      # (its no_grad views stop requiring grad with it)
    self._requires_grad = False
    return self


def _live_views(base):
    x = base._x
    refs = x.get("views") if x else None
    if not refs:
        return []
    out = []
    alive = []
    for r in refs:
        v = r()
        if v is not None:
            alive.append(r)
            out.append(v)
    refs[:] = alive
    return out


def _positions(arr, mem):
    """Item offsets, in arr's C order, of arr's elements within mem's buffer."""
    isz = arr.itemsize
    start = (arr.__array_interface__["data"][0] - mem.__array_interface__["data"][0]) // isz
    pos = np.full((), start, np.intp)
    for n, s in zip(arr.shape, arr.strides):
        pos = pos[..., None] + np.arange(n, dtype=np.intp) * (s // isz)
    return pos.reshape(-1)


def _region(view_arr, base_arr):
    """For each element of the view (C order), its flat C-order index in the base."""
    mem = _memory(base_arr)
    n = mem.nbytes // base_arr.itemsize
    inv = np.full(n, -1, np.intp)
    inv[_positions(base_arr, mem)] = np.arange(base_arr.size, dtype=np.intp)
    return inv[_positions(view_arr, mem)]


PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the "
                   "written-to tensor refer to a single memory location. Please clone() the "
                   "tensor before performing the operation.")


def check_overlap(self, other, full=False):
    """torch's refusal of an in-place write into self that reads `other` (a Tensor or not)
    where the two overlap partly (full: or at all, as index_put_ and index_copy_ refuse).
    Like torch it cannot tell for tensors that are not dense (strided, expanded): those
    pass, and what the write then gives is undefined in torch too."""
    if isinstance(other, Tensor):
        try:
            check_overlap_arrays(self._data, other._data, full, self is other)
        except AttributeError as e:
            raise not_tensor(e) from None


def check_overlap_arrays(a, b, full=False, same=False):
    """check_overlap for the arrays of the written-to tensor (a) and an input (b); same: the
    two are one tensor (not only one array: a detached alias is another tensor)."""
    if same:
        status = "full"         # (torch: the same tensor overlaps itself even when empty)
    elif a is not b and (a.base is None and b.base is None or not np.may_share_memory(a, b)):
        return
    else:
        status = _overlap(a, b)
    if status == "partial" or full and status == "full":
        raise RuntimeError(PARTIAL_OVERLAP)


def _overlap(a, b):
    """torch's overlap status of two arrays that may share memory: "full" (the same elements
    in the same layout), "partial", or None (empty, or not both dense: too hard to tell)."""
    if a.size == 0 or b.size == 0 or not (_dense(a) and _dense(b)):
        return None
    pa = a.__array_interface__["data"][0]
    pb = b.__array_interface__["data"][0]
    if pa == pb and a.nbytes == b.nbytes and a.strides == b.strides:
        return "full"           # (torch compares every stride, a size-1 dim's too)
    return "partial"


def _dense(a, shape=None, strides=None):
    """torch's is_non_overlapping_and_dense: the elements fill a block of memory, in some
    order of the dims (of array a, or of a's memory read with shape and strides)."""
    if shape is None:
        if a.flags.c_contiguous or a.flags.f_contiguous:
            return True
        shape, strides = a.shape, a.strides
    expect = a.itemsize
    for st, n in sorted((st, n) for n, st in zip(shape, strides) if n != 1):
        if st != expect:
            return False
        expect *= n
    return True


def writable(arr):
    """arr itself, or a writable alias of it where it is a read-only view of writable memory
    (an expanded tensor: torch lets fill_/zero_/masked_fill_ write those)."""
    if arr.flags.writeable:
        return arr
    mem = _memory(arr)
    if not mem.flags.writeable:
        raise RuntimeError(OVERLAP)
    off = arr.__array_interface__["data"][0] - mem.__array_interface__["data"][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=mem, offset=off, strides=arr.strides)


def _c_strides(shape):
    """The element strides of a C-contiguous tensor of this shape."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _overlaps(arr):
    """Whether some elements of arr may share memory (an expanded dim, overlapping unfold
    windows): false only when each dim's stride clears the extent of the smaller ones."""
    extent = arr.itemsize
    for st, n in sorted((abs(st), n) for n, st in zip(arr.shape, arr.strides) if n > 1):
        if st < extent:
            return True
        extent += st * (n - 1)
    return False


class AsStridedBackward0(Node):
    """as_strided, and a view regenerated after its base's history changed: its gradient goes
    into the view's region of the base (summed where the view's elements overlap, as in an
    expand). _given: as_strided's (size, stride, storage_offset) as the caller gave them, for
    torch's _saved_size / _saved_stride / _saved_storage_offset; a regenerated view has none
    and reads its geometry off the arrays (in elements of the base's memory, as torch's)."""
    __slots__ = ("_view", "_base", "_given")

    def _geometry(self):
        try:
            return self._given
        except AttributeError:
            v = self._view
            isz = v.itemsize
            start = v.__array_interface__["data"][0] - \
                _memory(self._base).__array_interface__["data"][0]
            return v.shape, tuple(s // isz for s in v.strides), start // isz

    _saved_size = property(lambda self: self._geometry()[0])
    _saved_stride = property(lambda self: self._geometry()[1])
    _saved_storage_offset = property(lambda self: self._geometry()[2])

    def apply(self, grad):
        ids = _region(self._view, self._base)
        n = self._base.size
        g = grad.reshape(-1)
        inside = ids >= 0       # (as_strided may reach memory outside the base's elements)
        if not inside.all():
            g, ids = g[wrap(np.nonzero(inside)[0])], ids[inside]
        flat = grad.new_zeros(n).index_put((wrap(ids),), g, accumulate=True)
        # (torch's formula ends in an as_strided view of its zeros with the input's geometry:
        # so does this one, the base's C-ordered one over the fresh flat tensor)
        return flat.as_strided(self._base.shape, _c_strides(self._base.shape)),

    def np_apply(self, grad):
        ids = _region(self._view, self._base)
        g = grad.reshape(-1)
        inside = ids >= 0
        if not inside.all():
            g, ids = g[inside], ids[inside]
        out = np.zeros(self._base.size, grad.dtype)
        if _overlaps(self._view):
            np.add.at(out, ids, g)
        else:
            out[ids] = g
        return out.reshape(self._base.shape),


class CopySlices(Node):
    """The base's history after an in-place op `_fn` wrote into one of its views: the view's
    region of the gradient goes through _fn, whose gradient for its first input (the view's
    old values) goes back into that region; the rest of the base keeps its gradient."""
    __slots__ = ("_fn", "_view", "_base")
    _saved_names = ("_fn",)         # the engine checks and releases _fn through this node

    def _region(self):
        check_versions(self._fn)
        if _has_internal_overlap(self._view):
            raise RuntimeError(OVERLAP)     # Note [Expanded writes]
        return _region(self._view, self._base)

    def apply(self, grad):
        ids = self._region()
        idt = wrap(ids)
        vshape = self._view.shape
        flat = grad.reshape(-1)
        res = tuple(self._fn.apply(flat[idt].reshape(vshape)))
        keep = np.ones(grad._data.size, grad._data.dtype)
        keep[ids] = 0
        g0 = flat * wrap(keep)
        r0 = res[0] if res else None
        if r0 is not None and r0 is not ZERO:
            r0 = r0.expand(vshape) if tuple(r0.shape) != vshape else r0
            g0 = g0.index_put((idt,), r0.reshape(-1), accumulate=True)
        return (g0.reshape(grad._data.shape),) + res[1:]

    def np_apply(self, grad):
        ids = self._region()
        g = np.array(grad, order="C")           # a copy: the region is replaced below
        flat = g.reshape(-1)
        res = list(self._fn.np_apply(flat[ids].reshape(self._view.shape)))
        r0 = res[0] if res else None
        flat[ids] = 0 if r0 is None or r0 is ZERO else \
            np.broadcast_to(r0, self._view.shape).reshape(-1)
        return [g] + res[1:]

    def release(self):
        # (torch frees its _fn: a CopySlices runs once without retain_graph, whatever _fn
        # saved)
        fn = self._fn
        if fn is not None and fn._saved_names:
            fn.release()
        self._freed = True


def _link_view_node(view, base):
    """view reads base again: its grad_fn becomes AsStridedBackward0 (Note [Views])."""
    node = AsStridedBackward0()
    node._view = view._data
    node._base = base._data
    init_node(node, (use(base),), (view._data.shape, view._data.dtype))
    old, old_nr = view._grad_fn, getattr(view, "_output_nr", 0)
    view._grad_fn = node
    view._output_nr = 0
    view._requires_grad = True
    _move_retain(view, old, old_nr)


def _move_retain(t, old, old_nr):
    """t's history changed from old's output old_nr: where t retains its gradient, torch
    moves that to t's new grad_fn (t.grad is the gradient of t's latest values)."""
    x = t._x
    if old is None or not x or not x.get("retains_grad") or old._refused:
        return
    hooks = old._hooks
    kept = hooks.get("retain") if hooks else None
    if kept:
        kept.pop(old_nr, None)
        if not kept:
            del hooks["retain"]
            if not hooks:
                old._hooks = None
    t._grad_fn._extra().setdefault("retain", {})[t._output_nr] = weakref.ref(t)


# Note [Refused views]: torch cannot regenerate the history of a view that one of several
# views an op returned (split, unbind, ...) or that was made in no_grad mode, once its base
# was written with a history: reading its grad_fn or is_leaf, or using it in an op that
# records, raises (the message says which case). Such a view gets a _RefusedView grad_fn.

class _RefusedView(Node):
    """The grad_fn of a refused view: its message raises wherever the node is read or used
    (use() counts an edge through _uses, which raises here: no cost on the hot path)."""
    __slots__ = ("_message", "_was")      # _was: the view's grad_fn before (or None)

    @property
    def _refused(self):
        return self._message

    @property
    def _uses(self):
        raise RuntimeError(self._message)

    # backward from the view, autograd.grad through it, its hooks: torch's refusal too
    @property
    def _hooks(self):
        raise RuntimeError(self._message)

    @property
    def next_functions(self):
        raise RuntimeError(self._message)


def _refuse(v):
    x = v._x
    if "multi" in x and "nograd" not in x:     # (made in no_grad mode: torch says that)
        fn = v._grad_fn
        msg = "A view was created in no_grad mode and its base or another view of its base " \
              "has been modified inplace with grad mode enabled. " if fn is None else \
              f"Output {v._output_nr} of {fn.name().rsplit('Backward', 1)[0]} is a view " \
              "and its base or another view of its base has been modified inplace. "
        msg += MULTI_VIEW.split(". ", 1)[1]
    else:
        msg = NO_GRAD_VIEW.replace("and is being modified inplace",
                                   "and its base or another view of its base has been "
                                   "modified inplace")
    node = _RefusedView()
    node._message = msg
    node._was = v._grad_fn
    if v._grad_fn is None:
        v._output_nr = 0
    v._grad_fn = node           # (v keeps its output number: torch's messages name it)
    v._requires_grad = True


def _regenerate(base, done=None):
    """After base's values or history changed, its live views read it anew (or are refused:
    Note [Refused views]): as torch, those that have a history or whose base requires grad
    (a view with a history of a base that requires none, such as a view of a view that was
    made to require grad itself, reads it anew too: its gradient then goes nowhere)."""
    bx = base._x
    if base._requires_grad and bx is not None and "ngv" in bx:
        adopt_nograd_views(base)
    for v in _live_views(base):
        if v is not done:
            _reread(v)


def _reread(v):
    """A view of a family just written reads its base anew (_regenerate). One without a history
    whose base requires no grad is only marked stale: torch regenerates a view whose version
    changed when its grad_fn is read, so such a view, once its base comes to require grad,
    gets the base's history (tensor.py's _views_follow) where an unwritten one stays a leaf."""
    x = v._x
    b = x["base"]       # (base, or a detached alias of it: make_view)
    if v._grad_fn is None and not b._requires_grad:
        x["stale"] = True
    elif "multi" in x or x.get("nograd"):
        fn = v._grad_fn
        if fn is None or not fn._refused:
            _refuse(v)
    else:
        _link_view_node(v, b)


# ---------------------------------------------------------------- in-place writes

def inplace_source(self):
    """The operand an in-place op computes from (Note [In-place writes]): while recording, a
    copy carrying self's history (and tangents), so that a node saving it keeps the values
    before the write."""
    try:
        grad = self._requires_grad and STATE.enabled
    except AttributeError as e:
        raise not_tensor(e) from None
    if grad:
        # torch's autograd refusals (a leaf, a view of one, ...) come before the op's own
        # argument checks, which run on the source
        check_inplace(self, True, write=False)
        src = wrap(self._data.copy())
        src._requires_grad = True
        src._grad_fn = self._grad_fn
        if self._grad_fn is not None:
            src._output_nr = self._output_nr
        else:
            src._acc = self._acc
        if LEVELS:
            for lv in LEVELS:
                set_tangent(src, lv, tangent(self, lv))
        return src
    return self


def check_inplace(self, recording, write=True):
    """torch's refusals of an in-place write into self (before anything is written); write:
    the op writes values (not only the shape, as t_ and unsqueeze_ do)."""
    x = self._x
    if x is not None and "inference" in x and not INFERENCE.on:
        raise RuntimeError(INFERENCE_INPLACE)
    if recording:
        if x is not None and "base" in x:
            base = x["base"]
            if x.get("nograd") and (base._requires_grad or self._requires_grad):
                raise RuntimeError(NO_GRAD_VIEW)
            if self._requires_grad and base._grad_fn is None:   # (base need not require grad)
                raise RuntimeError("a view of " + LEAF_INPLACE)
            if x.get("nograd"):     # (a recorded write: whether or not the base requires grad)
                raise RuntimeError(NO_GRAD_VIEW)
            if "multi" in x:
                fn = self._grad_fn
                if fn is not None and fn._refused:
                    fn = fn._was        # (Note [Refused views]: named as made)
                raise RuntimeError(f"Output {self._output_nr} of "
                                   f"{fn.name().rsplit('Backward', 1)[0]} {MULTI_VIEW}"
                                   if fn is not None else
                                   "A view was created in no_grad mode and is being modified "
                                   "inplace with grad mode enabled. This view is the output of "
                                   "a function that returns multiple views. Such functions do "
                                   "not allow the output views to be modified inplace. You "
                                   "should replace the inplace operation by an out-of-place one.")
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(LEAF_INPLACE)
    if write and _expanded(self._data):
        raise RuntimeError(OVERLAP)


# Note [Expanded writes]: torch lets a few in-place ops write into an expanded tensor, whose
# elements share memory (fill_, zero_, masked_fill_, index_fill_, index_put_, triu_, tril_;
# the others refuse it): their kernels write element by element. When the write is recorded
# it goes through too, and the base's CopySlices then refuses to run in the backward (it
# writes the gradient into the view's region of the base's, which overlaps itself).

def _has_internal_overlap(arr):
    """torch's has_internal_overlap answering yes: a dim of stride 0 and size > 1 (not empty:
    NumPy gives an empty array zero strides)."""
    return arr.size and any(st == 0 and n > 1 for n, st in zip(arr.shape, arr.strides))


def _expanded(arr):
    """Whether arr's elements share memory through a stride-0 dim (an expanded tensor).
    (NumPy marks every view of an expanded array read-only; torch refuses only a write into
    one whose elements share memory, and writes the rest.)"""
    return not arr.flags.writeable and arr.size and any(
        st == 0 and n > 1 for n, st in zip(arr.shape, arr.strides))


def _may_overlap(arr):
    """Whether arr's elements may share memory (an unfold or as_strided view): its dims of
    size > 1, ordered by stride, do not each step over the reach of the ones inside it.
    (A false yes costs only a slower write: see inplace's `written`.)"""
    return not (arr.flags.c_contiguous or arr.flags.f_contiguous) and _overlaps(arr)


def _write_changed(arr, result):
    """inplace's default write into a view whose elements share memory: only the elements
    whose bits the op changed (an op that writes some elements, as index_copy_ or scatter_,
    leaves the others' memory to whichever alias wrote it, as torch's kernels do)."""
    new = np.broadcast_to(result, arr.shape).astype(arr.dtype, copy=False)
    m = new != arr
    if arr.dtype.kind in "fc":          # -0.0 over 0.0, and a NaN over a NaN, are writes
        parts = (new.real, arr.real, new.imag, arr.imag) if arr.dtype.kind == "c" else \
            (new, arr)
        for a, b in zip(parts[::2], parts[1::2]):
            m |= np.signbit(a) != np.signbit(b)
            m |= np.isnan(a)
    arr[m] = new[m]


def inplace(self, result, overlap_ok=False, written=None, warn=None, expanded_ok=True):
    """Write `result` (computed out of place) into `self` and rebase the history (Note
    [In-place writes]). Returns self. overlap_ok: self may be an expanded view (fill_).
    written: for an op that torch lets write into an expanded tensor (triu_, index_fill_,
    index_put_, ...), a function written(arr, result_array) that writes into arr (a writable
    alias of self's shared memory) as torch's kernel does: element by element, so that the
    last write to a memory location stays, and the elements the op does not write keep their
    memory as it is (see `masked`). warn: the op name of torch's deprecation warning for
    such a write. (When recorded, such a write goes through and the backward refuses it:
    Note [Expanded writes].) `written` also writes into a view whose elements share memory
    without a stride-0 dim (an unfold): torch's kernel writes only the op's elements there,
    so copying the whole result back would undo them where they overlap the others.
    expanded_ok=False: `written` is for such overlaps only; an expanded self is refused."""
    node = result._grad_fn
    expanded = written is not None and expanded_ok and _expanded(self._data)
    check_inplace(self, node is not None, write=not (overlap_ok or expanded))
    rd, sd = result._data, self._data
    if rd.dtype != sd.dtype and not can_cast(rd.dtype, sd.dtype):
        raise RuntimeError(f"result type {type_name(rd.dtype)} can't be cast to the desired "
                           f"output type {type_name(sd.dtype)}")
    if rd.shape != sd.shape and np.broadcast_shapes(rd.shape, sd.shape) != sd.shape:
        raise RuntimeError(f"output with shape {list(sd.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(rd.shape, sd.shape))}")
    if node is not None and not self._requires_grad:
        _keep_saved(node, self)        # the op read self without a copy (inplace_source)
    _alias_saved_outputs(self)
    if expanded:
        if warn is not None:
            example = "[indices] = tensor" if warn == "index_put_" else "[mask] = scalar"
            warnings.warn(f"Use of {warn} on expanded tensors is deprecated. Please clone() "
                          f"the tensor before performing this operation. This also applies to "
                          f"advanced indexing e.g. tensor{example}", UserWarning, stacklevel=3)
        written(writable(sd), rd)
    elif _may_overlap(sd):
        (written or _write_changed)(writable(sd), rd)
    else:
        np.copyto(writable(sd), rd, casting="unsafe")
    if LEVELS:
        write_tangents(self, result)
    if node is None:
        bump_version(self)
        _untracked(self)
        return self
    stamp = node._seq if node._seq != _ACC_SEQ else None   # (NotImplemented: a fresh one)
    root = vroot(self)
    for name in node._saved_names:
        saved = getattr(node, name, None)
        if isinstance(saved, Tensor) and saved._data is not rd and vroot(saved) is root:
            stamp = None        # the node saved an input this write changes (t.mul_(t))
            break
    bump_version(self, stamp)
    for name in node._saved_names:      # an output the node saved is self's values now
        saved = getattr(node, name, None)
        if isinstance(saved, Tensor) and saved._data is rd:
            _alias(saved, self, node)
    rebase(self, node, result._output_nr)
    return self


def masked(mask):
    """inplace's `written` for an op that writes the elements of mask() (a function giving a
    bool array broadcastable to self's shape), each with one value (triu_, index_fill_): the
    order of the writes does not matter."""
    def write(arr, result):
        m = np.broadcast_to(mask(), arr.shape)
        arr[m] = np.broadcast_to(result, arr.shape)[m].astype(arr.dtype, copy=False)
    return write


def write_tangents(self, result):
    """After an in-place write of result into self: self's tangents take result's, in place
    (a view's tangent is a view of its base's, which gets a zero tangent first if it had none),
    so that the tangents of self's views and base see the write too (Note [Forward AD])."""
    for lv in LEVELS[:]:
        rt = tangent(result, lv)
        if rt is None:
            continue
        st = tangent(self, lv)
        if st is None:
            x = self._x
            base = x.get("base") if x else None
            if base is not None:
                set_tangent(base, lv, wrap(zeros_like_layout(base._data)))
                st = tangent(self, lv)
            if st is None:
                set_tangent(self, lv, rt)
                continue
        with hidden(lv):
            copy_into(st, rt)


def copy_into(dst, src):
    """dst.copy_(src) (the Tensor method: bound after the ops are defined)."""
    return dst.copy_(src)


def mark_written(t):
    """Record a write made straight into t's array (no node): the version bump, and saved
    outputs of t's history that alias its memory (Note [Versions])."""
    _alias_saved_outputs(t)
    bump_version(t)
    if t._x is not None:
        _untracked(t)


def reshaped_in_place(t, recorded):
    """After t_()/unsqueeze_()/...: a version bump (outputs saved by t's history share it,
    _alias_saved_outputs before the change: torch refuses their node too), and the family's
    other views read the base anew (torch regenerates them as their version changed); t too
    where it is a view and the change recorded no node (no_grad mode: its grad_fn becomes
    AsStridedBackward0 of its new geometry in the base, or it is refused, as in torch)."""
    bump_version(t)
    x = t._x
    base = x.get("base", t) if x else t
    if _viewed(base):
        _regenerate(base, t)
    if x:
        if not recorded and base is not t:
            _reread(t)
        _regenerate_source(t, base)     # (t is a detached alias: the source's views too)


def _untracked(t):
    """After a write that records no history: torch regenerates the grad_fn of every view of
    the written family (their version changed) as AsStridedBackward0 of the base's
    unchanged history (those with a history or a base that requires grad: _regenerate)."""
    x = t._x
    if x is None:
        return
    base = x.get("base", t)
    if _viewed(base):
        _regenerate(base)
    root = x.get("vroot", base)         # written through a detached alias: the source's views
    if root is not base and _viewed(root):
        _regenerate(root)


def rebase(self, node, nr=0):
    """self's values are now node's output nr: update the history of self, of its base when
    self is a view (CopySlices), and of the base's live views."""
    x = self._x
    base = x.get("base") if x else None
    if base is None:
        old, old_nr = self._grad_fn, getattr(self, "_output_nr", 0)
        self._grad_fn = node
        self._output_nr = nr
        self._requires_grad = True
        _move_retain(self, old, old_nr)
        if not isinstance(node._meta, list):
            node._meta = (self._data.shape, self._data.dtype)
        _regenerate(self)
        _regenerate_source(self, self)
        return
    node._meta = (self._data.shape, self._data.dtype)
    cs = CopySlices()
    cs._fn = node
    cs._view = self._data
    cs._base = base._data
    old = node.next_functions[0][0]         # the view's old history: CopySlices bypasses it
    if old is not None:
        old._uses -= 1
    init_node(cs, (use(base),) + tuple(node.next_functions[1:]),
              (base._data.shape, base._data.dtype))
    old, old_nr = base._grad_fn, getattr(base, "_output_nr", 0)
    base._grad_fn = cs
    base._output_nr = 0
    base._requires_grad = True
    _move_retain(base, old, old_nr)
    _link_view_node(self, base)
    _regenerate(base, self)
    _regenerate_source(self, base)


def _regenerate_source(t, base):
    """t (or its base) is a detached alias of another family (x.detach()): the write bumped
    that family's version too, so its views read their base anew, as after an untracked
    write (torch regenerates them as AsStridedBackward0)."""
    x = t._x
    root = x.get("vroot") if x else None
    if root is not None and root is not base and _viewed(root):
        _regenerate(root)


def _keep_saved(node, self):
    """Before self is written: the op's own self, where the node saved it, keeps the values it
    was saved with (a copy carrying the same history: torch saves a clone of the original
    self). Its other saved operands that share self's memory (t.addcmul_(t, w)) stay as they
    are, and the write makes the node refuse to run, as in torch."""
    for name in ("_saved_self",):
        if name not in node._saved_names:
            continue
        saved = getattr(node, name, None)
        if isinstance(saved, Tensor) and (saved is self or
                                          np.may_share_memory(saved._data, self._data)):
            c = wrap(saved._data.copy())
            c._requires_grad = saved._requires_grad
            c._grad_fn = saved._grad_fn
            c._output_nr = saved._output_nr if saved._grad_fn is not None else 0
            c._acc = saved._acc
            setattr(node, name, c)


def _alias_saved_outputs(t):
    """Outputs that t's history saved (detached, over t's memory) share t's version counter,
    so that the write about to happen makes their node refuse to run (torch saves outputs
    with the output's version)."""
    x = t._x
    base = x.get("base") if x else None
    for holder in (t, base):
        fn = holder._grad_fn if holder is not None else None
        if fn is None or not fn._saved_names:
            continue
        mem = holder._data
        # (a 0-d result is saved as its own array: NumPy's ufuncs return a scalar, wrapped
        # once for the output and once for the node)
        scalar = mem.ndim == 0 and fn._n_outputs == 1
        for name in fn._saved_names:
            saved = peek(fn, name)
            if isinstance(saved, Tensor) and saved is not holder and \
                    saved._grad_fn is None and (saved._data is mem or scalar and
                                                name == "_saved_result"):
                _alias(saved, holder, fn)


def _alias(saved, t, node):
    """Make saved (a detached tensor over t's memory that node saved) share t's counter."""
    sx = saved._x
    if sx is None:
        sx = saved._x = {}
    sx["vroot"] = vroot(t)
    sx["saver"] = node


_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def inplace_binary(fn, numbers=True, overlap=True):
    """The in-place form of a binary op fn(input, other, **kwargs) (add_, mul_, ...);
    numbers: whether `other` may be a Python number (else fn gives torch's TypeError);
    overlap: whether torch refuses an `other` that overlaps self partly (not where its kernel
    reads only a temporary made from other: ldexp_ is mul_(2 ** other))."""
    kinds = (Tensor, bool, int, float) if numbers else Tensor
    ufunc = _UFUNCS.get(fn.__name__)

    def op_(self, other, **kwargs):
        if overlap:
            check_overlap(self, other)
        if ufunc is not None and not kwargs and not LEVELS and not (STATE.enabled and (
                self._requires_grad or getattr(other, "_requires_grad", False))):
            # nothing recorded (e.g. an optimizer step): write in place in one pass
            x = self._data
            y = plain_operand(other, x)
            if y is not None and x.dtype.kind == "f" and x.flags.writeable and (
                    type(y) is not np.ndarray or y.shape == x.shape or y.ndim == 0):
                sx = self._x
                if sx is not None and "inference" in sx and not INFERENCE.on:
                    raise RuntimeError(INFERENCE_INPLACE)
                ufunc(x, y, out=x)
                mark_written(self)
                return self
        if not numbers and not isinstance(other, Tensor):
            raise TypeError(f"{op_.__name__}(): argument 'other' (position 1) must be Tensor, "
                            f"not {type(other).__name__}")
        if isinstance(other, kinds):
            # torch checks that the promoted type fits self before its kernels' dtype checks
            rt = result_type(self, other).np
            if rt != self._data.dtype and not can_cast(rt, self._data.dtype):
                raise RuntimeError(f"result type {type_name(rt)} can't be cast to the desired "
                                   f"output type {type_name(self._data.dtype)}")
        return inplace(self, fn(inplace_source(self), other, **kwargs))
    op_.__name__ = fn.__name__ + "_"
    return op_
