"""In-place writes and views: the one protocol every in-place op goes through (check, write,
version, history), the view bookkeeping it needs, and the nodes it links."""
import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import bump_version
from ..dtypes import type_name
from ..tensor import wrap
from ._args import can_cast, plain_operand


def inplace(self, result):
    """Write `result` (computed out of place) into `self`, rebasing self's history on
    result's node. The write goes into self's own array, so views of it see it."""
    if result._grad_fn is not None and self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    rd, sd = result._data, self._data
    if not sd.flags.writeable:      # an expanded tensor: several elements share memory
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if rd.dtype != sd.dtype and not can_cast(rd.dtype, sd.dtype):
        raise RuntimeError(f"result type {type_name(rd.dtype)} can't be cast to the desired "
                           f"output type {type_name(sd.dtype)}")
    if rd.shape != sd.shape and np.broadcast_shapes(rd.shape, sd.shape) != sd.shape:
        raise RuntimeError(f"output with shape {list(sd.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(rd.shape, sd.shape))}")
    np.copyto(sd, rd, casting="unsafe")
    mark_written(self)
    if result._grad_fn is not None:
        self._grad_fn = result._grad_fn
        self._output_nr = result._output_nr
        self._requires_grad = True
        meta = self._grad_fn._meta
        self._grad_fn._meta = (sd.shape, sd.dtype) if not isinstance(meta, list) else meta
        x = self._x     # a view (made by indexing or a shape op): its base's history
        if x is not None:                       # changes too; a base: its views read it
            if "ichain" in x or "vchain" in x:
                from .shape import rebase_view_chain
                rebase_view_chain(self)
            elif "vviews" in x or "views" in x:
                from .shape import refresh_views
                refresh_views(self)
    return self


def mark_written(t):
    """Version bookkeeping for an in-place write into t (see Note [Versions] in graph.py):
    t itself, and the detached copy its grad_fn saved if that shares t's memory."""
    bump_version(t)
    fn = t._grad_fn
    if fn is not None:
        for name in fn._saved_names:
            saved = getattr(fn, name, None)
            if saved is not None and saved is not t and getattr(saved, "_data", None) is t._data:
                bump_version(saved, fn)


def inplace_source(self):
    """The operand an in-place op computes from: while recording, a copy carrying self's
    history, so a node that saves it is not changed by the write that follows."""
    if STATE.enabled and self._requires_grad:
        src = wrap(self._data.copy())
        src._requires_grad = True
        src._grad_fn = self._grad_fn
        if self._grad_fn is not None:
            src._output_nr = self._output_nr
        else:
            src._acc = self._acc
        return src
    return self


_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _inplace_binary(fn):
    ufunc = _UFUNCS.get(fn.__name__)

    def op_(self, other, **kwargs):
        if ufunc is not None and not kwargs and not (STATE.enabled and (
                self._requires_grad or getattr(other, "_requires_grad", False))):
            # nothing recorded (e.g. an optimizer step): write in place in one pass
            x = self._data
            y = plain_operand(other, x)
            if y is not None and x.dtype.kind == "f" and x.flags.writeable and (
                    type(y) is not np.ndarray or y.shape == x.shape or y.ndim == 0):
                ufunc(x, y, out=x)
                mark_written(self)
                return self
        return inplace(self, fn(inplace_source(self), other, **kwargs))
    op_.__name__ = fn.__name__ + "_"
    return op_
