"""Forward-mode AD below the ops: the dual levels, the tangents tensors carry, and the one
function that gives an op's outputs their tangents (`propagate`, called where a node is linked).

Note [Forward AD]: a dual tensor carries, per open dual level, a tangent: a Tensor of its
shape kept in `t._x["fw"]` ({level: tangent}; no slot on the hot path). `LEVELS` lists the
visible levels, outermost first; while it is empty forward AD costs an op one falsy test, in
the branch where the op already asks whether to record (`STATE.enabled and x._requires_grad
or LEVELS and dual(x)`). An op that takes that branch makes its node as usual; the linking
functions of graph.py then call `propagate`, which asks the node's `jvp` rule (written beside
its `apply`, as derivatives.yaml's `result:` lines sit beside the backward formula) for the
output tangent at each level where an input has one, and link the node only when a gradient
is also being recorded (grad mode on and an input requiring grad): forward AD works under
no_grad, and a dual tensor that does not require grad gets no history, as in torch.

A rule is `jvp(self, ts, xs, out)`: ts are the input tangents (aligned with the inputs given
to link; a tensor input without one gets zeros when some other has one, None stands for an
input that is not a tensor), xs the primal inputs, out the output (a list of them for a node
with several); it returns the output tangent (a list for several outputs; None: no tangent). Rules
are written with ember ops on the primals and tangents, so a tangent records its dependence
on the primals (backward through a jvp works) and carries the tangents of outer levels.
Levels nest (ember.func.jvp inside jvp): while level k's tangents are computed only the
levels outside it are visible, so that each mixed term is counted once (a tangent of level k
may carry tangents of outer levels, never of inner ones)."""
import itertools
import weakref

import numpy as np

from ..tensor import Tensor, wrap

LEVELS = []         # ids of the visible dual levels, outermost first (Note [Forward AD])
_OPEN = []          # ids of the open levels (all of them, visible or not)
_HOLDERS = {}       # level id -> weak references to the tensors holding a tangent of it
_ids = itertools.count()
FALLBACK = None     # jvp of a node without a rule of its own (set by forward_ad, a layer above)

NOT_IMPLEMENTED = ("Trying to use forward AD with {} that does not support it because it has not "
                   "been implemented yet.\nPlease file an issue to PyTorch at "
                   "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml "
                   "so that we can prioritize its implementation or submit a PR adding the "
                   "implementation to derivatives.yaml")


def open_level():
    """Open a new innermost dual level (visible at once); returns its id."""
    lv = next(_ids)
    _OPEN.append(lv)
    LEVELS.append(lv)
    _HOLDERS[lv] = []
    return lv


def close_level(lv):
    """Close level lv: every tangent of it is dropped (torch frees them on exit)."""
    _OPEN.remove(lv)
    if lv in LEVELS:
        LEVELS.remove(lv)
    for ref in _HOLDERS.pop(lv, ()):
        t = ref()
        if t is not None and t._x:
            fw = t._x.get("fw")
            if fw is not None:
                fw.pop(lv, None)
                if not fw:
                    del t._x["fw"]


def tangent(t, lv):
    """t's tangent at level lv, or None. A view without one of its own whose base has one gets
    the same view of the base's tangent (torch derives a view's forward grad from its base's,
    so that in-place writes to either show in both)."""
    x = t._x
    if not x:
        return None
    fw = x.get("fw")
    if fw:
        tan = fw.get(lv)
        if tan is not None:
            return tan
    base = x.get("base")
    if base is not None:
        bx = base._x
        bfw = bx.get("fw") if bx else None
        bt = bfw.get(lv) if bfw else None
        if bt is not None:
            tan = view_of_tangent(t._data, base._data, bt)
            if tan is not None:
                set_tangent(t, lv, tan)
            return tan
    return None


def _address(a):
    return a.__array_interface__["data"][0]


def _memory(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def view_of_tangent(view, base, bt):
    """The view of base's tangent bt that `view` (an array) is of `base` (None when bt's
    layout differs from base's)."""
    b = bt._data
    if b.shape != base.shape or b.strides != base.strides or b.dtype != base.dtype:
        return None
    mem = _memory(b)
    try:
        arr = np.ndarray(view.shape, b.dtype, buffer=mem,
                         offset=_address(b) - _address(mem) + _address(view) - _address(base),
                         strides=view.strides)
    except (TypeError, ValueError):
        return None
    res = wrap(arr)
    bx = bt._x
    res._x = {"base": bx.get("base", bt) if bx else bt,
              "vroot": bx.get("vroot", bt) if bx else bt}
    return res


def zeros_like_layout(a):
    """Zeros with the shape, dtype and strides of array a (a tangent that views of a's tangent
    can be read from as the views read a)."""
    mem = _memory(a)
    buf = np.zeros(mem.nbytes, np.uint8)
    try:
        return np.ndarray(a.shape, a.dtype, buffer=buf, offset=_address(a) - _address(mem),
                          strides=a.strides)
    except (TypeError, ValueError):
        return np.zeros_like(a)


def set_tangent(t, lv, tan):
    """Give t the tangent tan at level lv (None removes it)."""
    x = t._extra()
    fw = x.get("fw")
    if tan is None:
        if fw:
            fw.pop(lv, None)
            if not fw:
                del x["fw"]
        return
    if fw is None:
        fw = x["fw"] = {}
    if lv not in fw:
        _HOLDERS[lv].append(weakref.ref(t))
    fw[lv] = tan


def dual(*ts):
    """Whether one of ts (tensors, lists of them, other values) has a tangent at a visible
    level (a view: or its base)."""
    for t in ts:
        if isinstance(t, Tensor):
            x = t._x
            if x and (_has(x.get("fw")) or "base" in x and x["base"]._x and
                      _has(x["base"]._x.get("fw"))):
                return True
        elif isinstance(t, (list, tuple)) and dual(*t):
            return True
    return False


def _has(fw):
    if fw:
        for lv in LEVELS:
            if lv in fw:
                return True
    return False


class hidden:
    """Within it only the levels outside `lv` are visible (None: none is)."""

    def __init__(self, lv=None):
        self.lv = lv

    def __enter__(self):
        self.saved = LEVELS[:]
        k = LEVELS.index(self.lv) if self.lv in LEVELS else 0
        del LEVELS[k:]

    def __exit__(self, *exc):
        LEVELS[:] = self.saved
        return False


def differentiable(t):
    return isinstance(t, Tensor) and t._data.dtype.kind in "fc"


def input_tangents(xs, lv, uses=None):
    """The tangents of xs at level lv (zeros for tensors without one), or None when
    none of xs has one (none of those at the indices `uses`, the inputs whose tangent the
    rule reads: torch gives no tangent when only the others have one)."""
    ts = [tangent(x, lv) if isinstance(x, Tensor) else None for x in xs]
    if all(t is None for t in ts) if uses is None else all(ts[i] is None for i in uses):
        return None
    return [t if t is not None or not isinstance(x, Tensor) else wrap(np.zeros_like(x._data))
            for t, x in zip(ts, xs)]


def fit(tan, out):
    """A rule's tangent as out's tangent: of out's shape (a broadcast one materialised) and,
    for a floating output, of its dtype."""
    if tan._data.shape != out._data.shape:
        tan = tan.expand(out._data.shape).contiguous()
    od, td = out._data.dtype, tan._data.dtype
    if od != td and od.kind == td.kind:
        tan = tan.to(out.dtype)
    return tan


def propagate(node, xs, out):
    """Give node's output(s) (a Tensor, or a list) their tangents at every visible level where
    one of the inputs xs has one (Note [Forward AD])."""
    levels = LEVELS[:]
    for k, lv in enumerate(levels):
        ts = input_tangents(xs, lv, node._jvp_uses)
        if ts is None:
            continue
        del LEVELS[k:]          # compute level lv's tangents seeing only the outer levels
        try:
            res = node.jvp(ts, xs, out)
            if type(out) is list:
                res = [None if r is None or not differentiable(o) else fit(r, o)
                       for o, r in zip(out, res)]
            elif res is not None and differentiable(out):
                res = fit(res, out)
            else:
                res = None
        finally:
            LEVELS[:] = levels
        outs = out if type(out) is list else [out]
        for o, r in zip(outs, res if type(out) is list else [res]):
            if r is not None:
                set_tangent(o, lv, r)
                _saved_copies(node, o, lv, r)


def _saved_copies(node, o, lv, r):
    """The node's saved copies of its output o (`_saved_result`: the same array, another
    Tensor) get o's tangent too, so that a formula reading them under create_graph (through
    saved_output) is differentiable in forward mode: forward-over-reverse."""
    for name in getattr(node, "_saved_names", ()):
        s = getattr(node, name, None)
        if isinstance(s, Tensor) and s is not o and (
                s._data is o._data or s._data.shape == o._data.shape and
                s._data.dtype == o._data.dtype and s._data.size and
                _address(s._data) == _address(o._data)):
            set_tangent(s, lv, r)


def jvp_not_implemented(node):
    """torch's error for an op without a forward rule, naming the op as aten does
    (IndexReduceBackward0: index_reduce)."""
    name = node.name()
    op = name.rsplit("Backward", 1)[0] if "Backward" in name else name
    op = "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(op))
    return NotImplementedError(NOT_IMPLEMENTED.format(op))
