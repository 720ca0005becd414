"""torch.autograd.forward_ad: dual levels, make_dual, unpack_dual (Note [Forward AD] in
forward.py holds the machinery; this is its front end)."""
from typing import NamedTuple

import numpy as np

from ..ops._views import make_view
from ..ops.shape import view
from ..tensor import Tensor, wrap
from .forward import LEVELS, _OPEN, open_level, close_level, tangent, set_tangent, hidden
from . import forward, grad as _grad
from .grad_mode import STATE, enable_grad
from .graph import Node, init_node, link, sum_to

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_PUBLIC = []        # ids of the levels opened by this API (torch allows one at a time)


def _current():
    return len(_PUBLIC) - 1


def __getattr__(name):
    if name == "_current_level":        # torch's module attribute: -1 with no level open
        return _current()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor


def enter_dual_level():
    if _PUBLIC:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _PUBLIC.append(open_level())
    return _current()


def exit_dual_level(*, level=None):
    if level is None:
        level = _current()
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current():
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    close_level(_PUBLIC.pop())


def _level_id(level, what):
    if level is None:
        level = _current()
        if level < 0:
            return None
    if not 0 <= level < len(_PUBLIC):
        raise RuntimeError(f"Invalid level given to {what}")
    return _PUBLIC[level]


def make_dual(tensor, tangent, *, level=None):
    if level is None and not _PUBLIC:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (isinstance(tensor, Tensor) and tensor._data.dtype.kind in "fc"):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype if isinstance(tensor, Tensor) else type(tensor)}")
    if not (isinstance(tangent, Tensor) and tangent._data.dtype.kind in "fc"):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype if isinstance(tangent, Tensor) else type(tangent)}")
    return make_dual_at(tensor, tangent, _level_id(level, "_make_dual"))


def make_dual_at(tensor, tan, lv):
    """A view of tensor carrying tangent tan at level lv (and tensor's tangents of the levels
    outside lv)."""
    if tan._data.shape != tensor._data.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor._data.shape)} while the given forward gradient is "
                           f"of size {list(tan._data.shape)}.")
    if tangent(tensor, lv) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {_OPEN.index(lv)} is not supported.")
    with hidden(lv):
        d = view(tensor, tensor._data.shape)
    set_tangent(d, lv, tan)
    return d


class Identity(Node):
    """The history of unpack_dual's primal: an alias of the dual tensor."""
    __slots__ = ()

    def apply(self, grad):
        return grad,

    def jvp(self, ts, xs, out):
        return ts[0].view_as(ts[0])


def unpack_dual(tensor, *, level=None):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if level is None and not _PUBLIC:
        return UnpackedDualTensor(tensor, None)
    lv = _PUBLIC[level] if level is not None and 0 <= level < len(_PUBLIC) else \
        _level_id(None, "") if level is None else None
    if lv is None:
        return UnpackedDualTensor(tensor, None)
    return unpack_at(tensor, lv)


def unpack_at(tensor, lv):
    """(an alias of tensor without its tangent at level lv, that tangent)."""
    tan = tangent(tensor, lv)
    if tan is None:
        return UnpackedDualTensor(tensor, None)
    with hidden(lv):
        primal = make_view(wrap(tensor._data), tensor)
        if STATE.enabled and tensor._requires_grad or LEVELS:
            link(primal, Identity(), tensor)
    return UnpackedDualTensor(primal, tan)


class dual_level:
    """Context manager: a dual level for the duration of the block."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


# Note [Forward AD fallback]: a node's backward formula `apply(g)` is J^T g, linear in g and
# written with ember ops. For a node without a jvp rule of its own, J t is then the gradient
# of <apply(g), t> with respect to g (the "double vjp"): one extra reverse pass through the
# formula, exact, and differentiable (create_graph) so that tangents keep their history and
# the tangents of outer levels. Real dtypes only (for complex J^T g holds conjugates).

class _Sink(Node):
    """The end of an edge that only says "this input wants a gradient" (the fallback below
    gives a node such edges for inputs that carry a tangent but do not require grad)."""
    __slots__ = ()

    def apply(self, grad):
        return ()


def _sink_edge(x):
    n = _Sink()
    init_node(n, (), (x._data.shape, x._data.dtype))
    return (n, 0)


def jvp_by_vjp(node, ts, xs, out):
    """J t for a node without a jvp rule, from its backward formula."""
    multi = type(out) is list
    outs = out if multi else [out]
    if any(isinstance(x, Tensor) and x._data.dtype.kind == "c" for x in xs) or \
            any(o._data.dtype.kind == "c" for o in outs):
        raise forward.jvp_not_implemented(node)
    had = getattr(node, "next_functions", None)
    want = [t is not None and forward.differentiable(x) for x, t in zip(xs, ts)]
    if had is None:         # a node made for tangents alone: give it edges for this pass
        init_node(node, tuple(_sink_edge(x) if w else (None, 0) for w, x in zip(want, xs)),
                  [(o._data.shape, o._data.dtype) for o in outs] if multi else
                  (out._data.shape, out._data.dtype))
    else:                   # keep its real edges (saved outputs reach the primals' history)
        node.next_functions = tuple(_sink_edge(x) if w and e[0] is None else e
                                    for w, e, x in zip(want, had, xs))
    keep = STATE.enabled and (any(isinstance(x, Tensor) and x._requires_grad for x in xs) or
                              any(t is not None and t._requires_grad for t in ts))
    try:
        with enable_grad():
            gs = [wrap(np.ones(o._data.shape, o._data.dtype)) if forward.differentiable(o)
                  else None for o in outs]
            for g in gs:
                if g is not None:
                    g._requires_grad = True
            vs = node.apply(gs if multi else gs[0])
            total = None
            for v, t, x in zip(vs, ts, xs):
                if v is None or t is None or not forward.differentiable(x):
                    continue
                if v._data.shape != t._data.shape:
                    v = sum_to(v, t._data.shape)
                term = (v * t).sum()
                total = term if total is None else total + term
            live = [g for g in gs if g is not None]
            if total is None or not total._requires_grad:
                res = [None if g is None else g.new_zeros(g.shape) for g in gs]
            else:
                got = iter(_grad(total, live, create_graph=keep or bool(forward.LEVELS),
                                 allow_unused=True))
                res = [None if g is None else next(got) for g in gs]
                res = [r if r is not None or g is None else g.new_zeros(g.shape)
                       for r, g in zip(res, gs)]
    finally:
        if had is not None:
            node.next_functions = had
    if not keep:
        res = [r if r is None or not r._requires_grad or forward.LEVELS else r.detach()
               for r in res]
    return res if multi else res[0]


forward.FALLBACK = jvp_by_vjp
