"""Indexing: Tensor.__getitem__ / __setitem__ and the index ops (index_select, gather,
scatter/scatter_add/scatter_reduce, index_add/copy/fill/reduce/put, masked_fill/scatter/select,
take, take_along_dim, put, nonzero/argwhere) with their in-place forms. Writes through views
made by indexing rebase the base's history: see Note [Writes into views].

Note [Index parsing]: torch applies an index in two stages, and so do we. Ints, slices, None
and Python bools are *basic*: they make a view of the tensor (one NumPy basic-indexing call,
so memory is shared). Integer tensors/lists and bool masks are *advanced*: they index that
view afterwards (one NumPy advanced-indexing call, a copy), with NumPy's placement rule for the
advanced dims (in place when adjacent, else first). Ints are basic even next to tensors (torch
differs from NumPy here: x[0, :, I] has shape [4, 3] for x of shape [3, 4, 5]).
`_parse` turns an index into an `_Index`; `_get`, `_write` and the gradient helper all take it,
so a gradient formula re-applies exactly the same index."""
__all__ = ["index_select", "index_put", "index_put_", "masked_select", "take", "nonzero",
           "argwhere"]

import operator
import warnings
import weakref

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, bump_version
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, wrap_dim, broadcast_error, write_out
from ._views import inplace, inplace_source, mark_written

_LEAF_INPLACE = ("a leaf Variable that requires grad is being used in an in-place "
                 "operation.")
_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
              "are valid indices (got {})")
_SEQ_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")
_UINT8_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                  "torch.bool instead.")

# ---------------------------------------------------------------- index parsing


class _Index:
    """A parsed index (see Note [Index parsing]).
    basic: NumPy basic index on the original array (ends with Ellipsis, so it is a view even
    when 0-dim); adv: None or the advanced index applied to that view; name: the torch op whose
    node getitem records; noop: the basic stage is the identity (setitem then writes the
    tensor itself: fill_/copy_/index_put_ rather than CopySlices)."""
    __slots__ = ("basic", "adv", "name", "noop", "first")

    # the view-step protocol of Note [Writes into views] (basic indices only)
    def np_view(self, arr):
        return arr[self.basic]

    def get(self, t):
        return _get(t, self)


def _seq_as_tuple(seq):
    """torch (like old NumPy) reads a short list holding sequences/slices/None/... as a tuple."""
    if len(seq) >= 32:
        return False
    for e in seq:
        if e is None or e is Ellipsis or isinstance(e, (list, tuple, slice, Tensor,
                                                          np.ndarray)):
            return True
    return False


def _seq_array(seq):
    arr = np.asarray([e.item() if isinstance(e, Tensor) else e for e in seq])
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        arr = arr.astype(np.int64)
    return arr


def _classify(obj):
    """(kind, value): i int, s slice, n None, e Ellipsis, b bool scalar, m bool mask array,
    a int index array."""
    t = type(obj)
    if t is int:
        return "i", obj
    if t is slice:
        return "s", obj
    if obj is None:
        return "n", None
    if obj is Ellipsis:
        return "e", None
    if t is bool:
        return "b", obj
    lst = False
    if isinstance(obj, Tensor):
        arr = obj._data
    elif isinstance(obj, np.ndarray):
        arr = obj
    elif isinstance(obj, np.bool_):
        return "b", bool(obj)
    elif isinstance(obj, np.integer):
        return "i", int(obj)
    elif isinstance(obj, (list, tuple)):
        arr = _seq_array(obj)
        lst = True
    elif isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{t.__name__}'")
    else:
        raise IndexError(_BAD_INDEX.format(t.__name__))
    k = arr.dtype.kind
    if k == "b" or arr.dtype == np.uint8:
        if k != "b":
            warnings.warn(_UINT8_WARNING, UserWarning, stacklevel=4)
        if arr.ndim == 0:
            return "b", bool(arr)
        return "m", arr.astype(bool, copy=False)
    if k in "iu":
        if arr.ndim == 0 and not lst:
            return "i", int(arr)
        if lst or arr.dtype == np.int64 or arr.dtype == np.int32:
            return "a", arr if arr.dtype == np.int64 else arr.astype(np.int64)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _parse(shape, index, getitem=True):
    ndim = len(shape)
    t = type(index)
    if ndim:        # fast paths: x[i] and x[int tensor]
        if t is int:
            size = shape[0]
            if -size <= index < size:
                P = _Index()
                P.basic, P.adv, P.name, P.noop = (index, Ellipsis), None, "Select", False
                P.first = "Select"
                return P
        elif t is Tensor:
            a = index._data
            if a.dtype == np.int64 and a.ndim and a.size:
                size = shape[0]
                if a.max() < size and a.min() >= -size:
                    P = _Index()
                    P.basic, P.adv, P.name, P.noop = (Ellipsis,), (a,), "Index", True
                    P.first = None
                    return P
    single = t is not tuple
    if single:
        if type(index) is list and _seq_as_tuple(index):
            warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=3)
            items, single = index, False
        else:
            items = (index,)
    else:
        items = index
    kinds = [_classify(o) for o in items]
    used = 0
    for k, v in kinds:
        if k in "isa":
            used += 1
        elif k == "m":
            used += v.ndim
    if used > ndim:
        if ndim == 0 and kinds and kinds[0][0] == "i":
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic, adv, masks, vshape = [], {}, [], []
    src = 0
    last = first = None     # the first and last view op torch applies (node names)
    ell = False
    for k, v in kinds:
        if k == "i":
            size = shape[src]
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {src} with size "
                                 f"{size}")
            basic.append(v)
            src += 1
            last = "Select"
            first = first or last
        elif k == "s":
            step = 1 if v.step is None else operator.index(v.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            size = shape[src]
            start, stop, step = v.indices(size)
            n = len(range(start, stop, step))
            # torch skips a slice only when it is literally full: start 0 (not a negative
            # start that clamps to 0), stop at or past the end, step 1
            raw0 = 0 if v.start is None else operator.index(v.start)
            raw1 = size if v.stop is None else operator.index(v.stop)
            if raw0 != 0 or raw1 < size or step != 1 or (single and getitem):
                last = "Slice"
                first = first or last
            basic.append(slice(start, stop, step))
            vshape.append(n)
            src += 1
        elif k == "n":
            basic.append(None)
            vshape.append(1)
            last = "Unsqueeze"
            first = first or last
        elif k == "e":
            if not ell:
                ell = True
                n = ndim - used
                basic.extend([slice(None)] * n)
                vshape.extend(shape[src:src + n])
                src += n
        elif k == "b":
            basic.append(None)
            adv[len(vshape)] = np.zeros(1 if v else 0, np.int64)
            vshape.append(1)
            last = "Unsqueeze"
            first = first or last
        elif k == "a":
            basic.append(slice(None))
            adv[len(vshape)] = v
            vshape.append(shape[src])
            src += 1
        else:  # mask
            masks.append((len(vshape), v))
            for j, nz in enumerate(np.nonzero(v)):
                basic.append(slice(None))
                adv[len(vshape)] = nz
                vshape.append(shape[src + j])
            src += v.ndim
    vshape.extend(shape[src:])
    basic.append(Ellipsis)
    P = _Index()
    P.basic = tuple(basic)
    P.noop = last is None
    P.first = first
    if adv:
        for pos, m in masks:
            for j in range(m.ndim):
                if m.shape[j] != vshape[pos + j]:
                    raise IndexError(f"The shape of the mask {list(m.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {vshape} at "
                                     f"index {pos + j}")
        dims = sorted(adv)
        arrays = [adv[d] for d in dims]
        try:
            if len(arrays) > 1:
                np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(a.shape)) for a in arrays)) \
                from None
        for k, (d, a) in enumerate(zip(dims, arrays)):
            size = vshape[d]
            if a.size and size == 0:
                raise IndexError("index is out of bounds for dimension with size 0")
            if a.size and (a.max() >= size or a.min() < -size):
                bad = a[(a >= size) | (a < -size)].flat[0]
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size "
                                 f"{size}")
        P.adv = tuple(adv.get(d, slice(None)) for d in range(dims[-1] + 1))
        P.name = "Index"
    else:
        P.adv = None
        P.name = last or "Alias"
    return P

# ---------------------------------------------------------------- getitem


class _GetNode(Node):
    """Backward of indexing: the gradient placed into zeros at the indexed positions."""
    __slots__ = ("_P", "_self_sym_sizes")

    def apply(self, grad):
        return _index_grad(grad, self._self_sym_sizes, self._P),


class SelectBackward0(_GetNode):
    __slots__ = ()


class SliceBackward0(_GetNode):
    __slots__ = ()


class UnsqueezeBackward0(_GetNode):
    __slots__ = ()


class AliasBackward0(_GetNode):
    __slots__ = ()

    def apply(self, grad):
        return grad,


class IndexBackward0(_GetNode):
    __slots__ = ()


_GET_NODES = {"Select": SelectBackward0, "Slice": SliceBackward0,
              "Unsqueeze": UnsqueezeBackward0, "Alias": AliasBackward0, "Index": IndexBackward0}


def _get(x, P):
    r = x._data[P.basic]
    if P.adv is not None:
        res = wrap(r[P.adv])
    else:
        # a view remembers its base and the indices leading to it (see Note [Writes into views])
        res = record_view(wrap(r), x, P)
    if STATE.enabled and x._requires_grad:
        node = _GET_NODES[P.name]()
        node._P = P
        node._self_sym_sizes = x._data.shape
        link(res, node, x)
    return res


def _getitem(self, index):
    return _get(self, _parse(self._data.shape, index))


class _PlaceNode(Node):
    """Backward of the gradient placement (double backward of indexing): index it again."""
    __slots__ = ("_P",)

    def apply(self, grad):
        return _get(grad, self._P),


class SelectBackwardBackward0(_PlaceNode):
    __slots__ = ()


class SliceBackwardBackward0(_PlaceNode):
    __slots__ = ()


class SqueezeBackward1(_PlaceNode):
    __slots__ = ()


class IndexPutImplBackward0(_PlaceNode):
    __slots__ = ()


_PLACE_NODES = {"Select": SelectBackwardBackward0, "Slice": SliceBackwardBackward0,
                "Unsqueeze": SqueezeBackward1, "Index": IndexPutImplBackward0,
                "Alias": IndexPutImplBackward0}


def _index_grad(grad, shape, P):
    """zeros(shape) with grad summed into the positions P selects (repeats accumulate)."""
    g = grad._data
    out = np.zeros(shape, g.dtype)
    region = out[P.basic]
    if P.adv is None:
        region[...] = g
    else:
        np.add.at(region, P.adv, g)
    res = wrap(out)
    if STATE.enabled and grad._requires_grad:
        # backward runs the view ops in reverse: the first one's node comes out last
        node = _PLACE_NODES[P.first or P.name]()
        node._P = P
        link(res, node, grad)
    return res

# ---------------------------------------------------------------- setitem


class CopySlices(Node):
    """An indexed write into a view of the tensor: the written region gets no gradient from
    the old values; the value gets the gradient of the region. With _chain (a write through
    a view of the tensor, see Note [Writes into views]) the region is P within that view,
    and _keep marks what the write left untouched."""
    __slots__ = ("_P", "_vshape", "_chain", "_keep", "_fn", "_root_shape")

    def release(self):
        fn = getattr(self, "_fn", None)
        if fn is not None and fn._saved_names:
            fn.release()
            self._freed = True

    def apply(self, grad):
        if getattr(self, "_fn", None) is not None:
            return _inplace_on_view_grads(self, grad)
        P = self._P
        chain = getattr(self, "_chain", None)
        gs = gv = None
        if needs(self, 0):
            if chain is None:
                gs = grad.clone()
                _set(gs, P, 0)
            else:
                gs = grad * wrap(self._keep.astype(grad._data.dtype))
        if needs(self, 1):
            g = grad if chain is None else _chain_get(grad, chain)
            gv = _value_grad(_get(g, P), self._vshape)
        return gs, gv

# Note [Writes into views]: a basic-indexing view records, besides its torch `_base`
# (_x["base"], shared with the shape ops), _x["ichain"] = (root, chain): the tensor it was first
# indexed from and the parsed indices leading from it to the view. Writing into such a
# view (setitem) changes the root's values, so, as in torch, the root's history is rebased
# onto a CopySlices node (input: the root's old history and the value) and the view's onto
# AsStridedBackward0 (a view of the new root). Only views made by indexing are tracked, and
# only setitem rebases; in-place ops of other families write into the memory without it.


def record_view(res, input, step):
    """Mark `res` as a view of `input` reached by `step` (an object with np_view(ndarray) ->
    the NumPy view and get(Tensor) -> the same view as a differentiable op): sets torch's
    `_base` and the (root, chain) that lets writes into the view rebase the root's history.
    Shape ops can call this too, so that writes into their views are tracked as well."""
    xx = input._x
    vc = xx.get("ichain") if xx else None
    if vc is None and xx and xx.get("vchain") is not None:
        # a view of a shape op's view: chain from that view's base (shape.py replays its steps)
        vroot, steps = xx["vchain"]
        vc = (vroot, tuple(_ShapeStep(op, args) for op, args in steps))
    if vc is None:
        root = input
        res._x = {"base": xx["base"] if xx and "base" in xx else input,
                  "ichain": (input, (step,))}
    else:
        root = vc[0]
        res._x = {"base": xx.get("base", root), "ichain": (root, vc[1] + (step,))}
    if STATE.enabled and root._grad_fn is not None:
        _register_view(root, res)
    return res


class _ShapeStep:
    """A step of shape.py's view chain (op(t, *args), a view op) in the step protocol."""
    __slots__ = ("op", "args")

    def __init__(self, op, args):
        self.op, self.args = op, args

    def np_view(self, arr):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            return self.op(wrap(arr), *self.args)._data
        finally:
            STATE.enabled = prev

    def get(self, t):
        return self.op(t, *self.args)


def _chain_view(arr, chain):
    for step in chain:
        arr = step.np_view(arr)
    return arr


def _chain_get(t, chain):
    for step in chain:
        t = step.get(t)
    return t


class AsStridedBackward0(Node):
    """A view of the rebased root: the gradient goes to the view's region of the root."""
    __slots__ = ("_chain", "_root_shape")

    def apply(self, grad):
        return self._place(grad, self._root_shape, self._chain),

    @staticmethod
    def _place(grad, shape, chain):
        out = np.zeros(shape, grad._data.dtype)
        _chain_view(out, chain)[...] = grad._data
        res = wrap(out)
        if STATE.enabled and grad._requires_grad:
            node = AsStridedScatterBackward0()
            node._chain = chain
            link(res, node, grad)
        return res


class AsStridedScatterBackward0(Node):
    __slots__ = ("_chain",)

    def apply(self, grad):
        return _chain_get(grad, self._chain),


def _set_view(self, root, chain, P, vt):
    """Record a write (already made) into view `self` of `root` (Note [Writes into views])."""
    keep = np.ones(root._data.shape, bool)
    region = _chain_view(keep, chain)[P.basic]
    if P.adv is None:
        region[...] = False
    else:
        region[P.adv] = False
    node = CopySlices()
    node._P = P
    node._vshape = vt._data.shape if vt is not None else ()
    node._chain = chain
    node._keep = keep
    mark_written(root)
    link(root, node, root if root._requires_grad else None, vt)
    _relink_view(self, root, chain)
    _after_write(root, self)


def _after_write(t, done):
    """t's history was just rebased by a write: its live views (of both kinds, shape.py's and
    ours) read the new t; if t is itself a view made by a shape op, the rebase cascades to its
    base (shape.py's Note [In-place writes into views])."""
    from ..ops import shape
    x = t._x
    if x and x.get("vchain") is not None and hasattr(shape, "rebase_view_chain"):
        shape.rebase_view_chain(t)
        return
    if x and "ichain" in x:         # t is a view made by indexing (a chain's root can be one)
        rebase_inplace_view(t, cascade=True)
        return
    refresh = getattr(shape, "_refresh_views", None)
    if refresh is not None:
        refresh(t, done)
    else:
        _refresh_views(t, done)


def _inplace_on_view_grads(self, grad):
    """CopySlices around an in-place op's node `_fn` that wrote into a view of the root: the
    view's region of the root's gradient goes through _fn; its first input (the view's old
    value) maps back into the region of the root's old gradient."""
    fn = self._fn
    res = tuple(fn.apply(_chain_get(grad, self._chain)))
    g0 = None
    if needs(self, 0):
        g0 = grad * wrap(self._keep.astype(grad._data.dtype))
        if res[0] is not None:
            g0 = g0 + AsStridedBackward0._place(res[0], self._root_shape, self._chain)
    return (g0,) + res[1:]


def rebase_inplace_view(self, cascade=False):
    """Called by the in-place mechanism (_common.inplace, through shape.rebase_view_chain,
    which then cascades to the root's own base) after an in-place op gave `self`, a view made
    by indexing, a new grad_fn: rebase the root's history on it (torch's CopySlices) and make
    self and the root's other views views of the new root. cascade: also rebase the root's
    base when the root is itself a view (for writes that come from this module)."""
    fn = self._grad_fn
    root, chain = self._x["ichain"]
    if fn is None or not STATE.enabled:
        return
    if root._requires_grad and root._grad_fn is None:
        raise RuntimeError("a view of " + _LEAF_INPLACE)
    keep = np.ones(root._data.shape, bool)
    _chain_view(keep, chain)[...] = False
    node = CopySlices()
    node._fn = fn
    node._chain = chain
    node._keep = keep
    node._root_shape = root._data.shape
    mark_written(root)
    edges = fn.next_functions
    link(root, node, root if root._requires_grad else None, None)
    node.next_functions = (node.next_functions[0],) + tuple(edges[1:])
    _relink_view(self, root, chain)
    if cascade:
        _after_write(root, self)
    else:
        _refresh_views(root, self)


def _register_view(root, view):
    """Remember a live view of a non-leaf root (a leaf's views can't be written with grad)."""
    x = root._extra()
    refs = x.get("views")
    if refs is None:
        refs = x["views"] = []
        x["views_cap"] = 64
    refs.append(weakref.ref(view))
    if len(refs) >= x["views_cap"]:         # drop dead views; amortised O(1) per view
        refs[:] = [r for r in refs if r() is not None]
        x["views_cap"] = 2 * len(refs) + 64


def _relink_view(view, root, chain):
    node = AsStridedBackward0()
    node._chain = chain
    node._root_shape = root._data.shape
    link(view, node, root)
    x = view._x
    if "vviews" in x or "views" in x:       # views taken of this view (shape.py's chains
        from ..ops import shape
        refresh = getattr(shape, "_refresh_views", None)
        (refresh or _refresh_views)(view, None)


def _refresh_views(root, done=None):
    """After root's history was rebased, its other live views read the new root (torch
    regenerates their grad_fn the same way) and count as written (torch's views share their
    base's version counter)."""
    refs = root._x.get("views") if root._x else None
    if not refs:
        return
    alive = []
    for ref in refs:
        v = ref()
        if v is None:
            continue
        alive.append(ref)
        if v is not done:
            bump_version(v)
            _relink_view(v, root, v._x["ichain"][1])
    root._x["views"] = alive


class IndexPutBackward0(Node):               # derivatives.yaml: index_put / _index_put_impl_
    __slots__ = ("_P", "_vshape", "_saved_accumulate")

    def apply(self, grad):
        P = self._P
        gs = gv = None
        if needs(self, 0):
            if self._saved_accumulate:
                gs = grad
            else:
                gs = grad.clone()
                _set(gs, P, 0)
        if needs(self, 1):
            gv = _value_grad(_get(grad, P), self._vshape)
        return gs, gv


class FillBackward3(Node):                   # derivatives.yaml: fill_.Tensor
    __slots__ = ()

    def apply(self, grad):
        return (wrap(np.zeros_like(grad._data)) if needs(self, 0) else None,
                grad.sum() if needs(self, 1) else None)


class CopyBackwards(Node):                   # derivatives.yaml: copy_
    __slots__ = ("_vshape",)

    def apply(self, grad):
        return (wrap(np.zeros_like(grad._data)) if needs(self, 0) else None,
                _value_grad(grad, self._vshape) if needs(self, 1) else None)


def _value_grad(g, vshape):
    """The region's gradient for a value that may carry extra leading size-1 dims (the engine
    sums the broadcast ones)."""
    extra = len(vshape) - g._data.ndim
    if extra > 0:
        g = g.reshape((1,) * extra + tuple(g._data.shape))
    return g


def _value_array(value, dtype):
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, (int, float, bool, np.generic)):
        return value
    if isinstance(value, complex):
        if dtype.kind != "c":
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_SCALAR_NAMES[dtype.name]} without overflow")
        return value
    t = type(value)
    name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
    raise TypeError(f"can't assign a {name} to a torch.{type_name(dtype)}Tensor")


def _write(t, P, value, accumulate):
    """The NumPy write of an indexed assignment into t's own memory."""
    v = _value_array(value, t._data.dtype)
    region = t._data[P.basic]
    try:
        if P.adv is None:
            if accumulate:
                region += np.asarray(v).astype(region.dtype, copy=False)
            else:
                region[...] = v
        elif accumulate:
            np.add.at(region, P.adv, np.asarray(v).astype(region.dtype, copy=False))
        else:
            region[P.adv] = v
    except ValueError as e:
        if "read-only" in str(e):     # an expanded tensor (torch writes into it regardless)
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.") from None
        target = region.shape if P.adv is None else region[P.adv].shape
        vs = list(np.shape(v))
        if P.adv is None:
            raise _expand_error(vs, list(target)) from None
        raise RuntimeError(f"shape mismatch: value tensor of shape {vs} cannot be broadcast "
                           f"to indexing result of shape {list(target)}") from None


def _expand_error(vs, target):
    # copy_'s message: the value is expanded to the region's shape
    lead = len(target) - len(vs)
    if lead < 0:
        return RuntimeError(f"expand(torch.FloatTensor{{{vs}}}, size={target}): the number of "
                            f"sizes provided ({len(target)}) must be greater or equal to the "
                            f"number of dimensions in the tensor ({len(vs)})")
    for i in range(len(vs) - 1, -1, -1):
        if vs[i] != 1 and vs[i] != target[lead + i]:
            return RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must "
                                f"match the existing size ({vs[i]}) at non-singleton dimension "
                                f"{lead + i}.  Target sizes: {target}.  Tensor sizes: {vs}")
    return RuntimeError(f"shapes {vs} and {target} cannot be broadcast")


def _check_overlap(dst, src, same_ok):
    """torch refuses a write whose (dense) source partly overlaps the destination's memory."""
    if not np.may_share_memory(dst, src):
        return
    if same_ok:
        try:
            np.broadcast_shapes(src.shape, dst.shape)
        except ValueError:
            return     # the write itself reports the shape mismatch first
    if not (dst.flags.c_contiguous and src.flags.c_contiguous):
        return     # torch cannot tell either ("too hard"): it lets the write happen
    a = dst.__array_interface__["data"][0]
    b = src.__array_interface__["data"][0]
    if same_ok and a == b and dst.nbytes == src.nbytes:
        return
    if a < b + src.nbytes and b < a + dst.nbytes:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")


def _set(self, P, value):
    vt = value if isinstance(value, Tensor) else None
    rec = STATE.enabled and (self._requires_grad or (vt is not None and vt._requires_grad))
    base = self._x.get("ichain") if self._x else None
    root = None
    if base is not None and STATE.enabled:
        root = base[0]
        if root._requires_grad or rec:
            rec = True
            if root._requires_grad and root._grad_fn is None:
                raise RuntimeError("a view of " + _LEAF_INPLACE)
        else:
            root = None
    if rec and self._requires_grad and self._grad_fn is None:
        raise RuntimeError(_LEAF_INPLACE if P.noop else "a view of " + _LEAF_INPLACE)
    if vt is not None and vt._data.dtype.kind == "c" and self._data.dtype.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        value = wrap(vt._data.real)
    if vt is not None:
        if P.adv is not None and vt._data.dtype != self._data.dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {type_name(self._data.dtype)} for the destination and "
                               f"{type_name(vt._data.dtype)} for the source.")
        _check_overlap(self._data[P.basic] if P.adv is None else self._data, vt._data,
                       P.adv is None)
    _write(self, P, value, False)
    mark_written(self)
    if root is not None:
        _set_view(self, root, base[1], P, vt)
    elif rec:
        if P.adv is None and P.noop:
            if vt is None or vt._data.ndim == 0:
                node = FillBackward3()
            else:
                node = CopyBackwards()
                node._vshape = vt._data.shape
        else:
            node = IndexPutBackward0() if P.noop else CopySlices()
            if P.noop:
                node._saved_accumulate = False
            node._P = P
            node._vshape = vt._data.shape if vt is not None else ()
        link(self, node, self if self._requires_grad else None, vt)
        _after_write(self, None)


def _setitem(self, index, value):
    _set(self, _parse(self._data.shape, index, getitem=False), value)

# ---------------------------------------------------------------- helpers for the index ops


def _check_index(index, op):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    a = index._data
    if a.dtype != np.int64 and a.dtype != np.int32:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    return a


def _grid(index, d):
    """Open index grids over index's shape with `index` itself at dim d (gather/scatter)."""
    if not index.ndim:
        return ()
    g = list(np.indices(index.shape, sparse=True))
    g[d] = index
    return tuple(g)


def _scatter_checks(x, d, index, src, op):
    """torch's shape rules for gather/scatter: same ndim; index no larger than self (except at
    dim) and than src; index values within self's size at dim."""
    xs, ix = x.shape, index.shape
    if index.ndim != x.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           + ("input tensor" if op == "gather" else "self tensor"))
    if src is not None and src.ndim != index.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.ndim == x.ndim and index.size:
        for k in range(x.ndim):
            if k != d and ix[k] > xs[k]:
                if op == "gather":
                    raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                       f"{list(ix)} to be no larger than self {list(xs)} apart "
                                       f"from dimension {d}")
                raise RuntimeError(f"Expected index {list(ix)} to be no larger than self "
                                   f"{list(xs)} apart from dimension {d} and to be no larger "
                                   f"size than src {list(src.shape) if src is not None else []}")
            if src is not None and src.ndim == index.ndim and ix[k] > src.shape[k]:
                raise RuntimeError(f"Expected index {list(ix)} to be no larger than self "
                                   f"{list(xs)} apart from dimension {d} and to be no larger "
                                   f"size than src {list(src.shape)}")
    size = xs[d] if x.ndim else 1
    if index.size and (index.max() >= size or index.min() < 0):
        bad = index[(index >= size) | (index < 0)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")


def _as1d(a):
    """gather/scatter treat 0-dim self, index and src as 1-element vectors (a view)."""
    return a.reshape(1) if a.ndim == 0 else a


def _src_grad(g, src_shape):
    """Gradient for a scatter source read only in its leading corner: zeros elsewhere."""
    if tuple(g._data.shape) == tuple(src_shape):
        return g
    if len(src_shape) == 0:
        return g.reshape(())
    P = _parse(src_shape, tuple(slice(0, n) for n in g._data.shape), getitem=False)
    return _index_grad(g, src_shape, P)


def _src_part(src, index):
    """The part of src that scatter reads: its leading corner of index's shape."""
    if src.shape == index.shape:
        return src
    return src[tuple(slice(0, s) for s in index.shape)]

# ---------------------------------------------------------------- index_select


class IndexSelectBackward0(Node):            # derivatives.yaml: index_select
    __slots__ = ("_saved_dim", "_saved_index", "_self_sym_sizes", "_dtype")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        z = wrap(np.zeros(self._self_sym_sizes, grad._data.dtype))
        return z.index_add(self._saved_dim, self._saved_index, grad),


def index_select(input, dim, index, *, out=None):
    x = input._data
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 3) must be Tensor, not "
                        f"{type(index).__name__}")
    i = index._data
    if i.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if i.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        if i.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                             f"{i.size} value(s)")
        if i.reshape(()) != 0:
            raise IndexError("index out of range in self")
        r = x.copy()
    else:
        size = x.shape[d]
        i1 = i.reshape(-1)
        if i1.size and (i1.max() >= size or i1.min() < 0):
            raise IndexError("index out of range in self")
        r = np.take(x, i1, axis=d)
    res = wrap(r)
    if STATE.enabled and input._requires_grad:
        node = IndexSelectBackward0()
        node._saved_dim = d
        node._saved_index = index
        node._self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- index_put


def _put_index(x, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    items = []
    for k, t in enumerate(indices):
        if t is None:
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got NoneType")
        elif isinstance(t, Tensor):
            if t._data.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
            items.append(t._data if t._data.ndim else t._data.reshape(1) if
                         t._data.dtype.kind != "b" else t)
        else:
            raise TypeError("index_put(): argument 'indices' must be tuple of Tensors")
    P = _parse(x.shape, tuple(items), getitem=False)
    return P


def index_put(input, indices, values, accumulate=False):
    x = input._data
    P = _put_index(x, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 3) must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != x.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{type_name(x.dtype)} for the destination and "
                           f"{type_name(values._data.dtype)} for the source.")
    res = wrap(x.copy())
    _write(res, P, values, accumulate)
    if STATE.enabled and (input._requires_grad or values._requires_grad):
        node = IndexPutBackward0()
        node._P = P
        node._vshape = values._data.shape
        node._saved_accumulate = accumulate
        link(res, node, input, values)
    return res


def index_put_(input, indices, values, accumulate=False):
    return inplace(input, index_put(inplace_source(input), indices, values, accumulate))

# ---------------------------------------------------------------- masked ops


def _mask(mask, op):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    m = mask._data
    if m.dtype != np.bool_:
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype "
                           f"{_dtype_str(m.dtype)}")
    return m


# C++ names torch prints: for a mask's dtype (typeid) and for a scalar's target type
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}
_SCALAR_NAMES = dict(_CPP_NAMES, int64="int64_t", int32="int", int16="int16_t", int8="int8_t",
                     uint8="uint8_t")


def _dtype_str(np_dtype):
    return _CPP_NAMES[np_dtype.name]


class MaskedSelectBackward0(Node):           # derivatives.yaml: masked_select
    __slots__ = ("_saved_mask", "_shape")
    _saved_names = ("_saved_mask",)

    def apply(self, grad):
        z = wrap(np.zeros(self._shape, grad._data.dtype))
        m = self._saved_mask
        if m._data.shape != self._shape:
            m = wrap(np.broadcast_to(m._data, self._shape))
        return z.masked_scatter(m, grad),


def masked_select(input, mask, *, out=None):
    x = input._data
    if isinstance(mask, Tensor) and mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    m = _mask(mask, "masked_select")
    try:
        shape = np.broadcast_shapes(x.shape, m.shape)
    except ValueError:
        raise broadcast_error(m, x) from None
    xb = np.broadcast_to(x, shape) if x.shape != shape else x
    mb = np.broadcast_to(m, shape) if m.shape != shape else m
    res = wrap(xb[mb])
    if STATE.enabled and input._requires_grad:
        node = MaskedSelectBackward0()
        node._saved_mask = mask
        node._shape = shape
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- take / put


def _flat_index(index, n, op):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' (position 1) must be Tensor, not "
                        f"{type(index).__name__}")
    i = index._data
    if i.dtype != np.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got "
                           f"{type_name(i.dtype)}")
    if i.size and (i.max() >= n or i.min() < -n):
        bad = i[(i >= n) | (i < -n)].flat[0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    return i


class TakeBackward0(Node):                   # derivatives.yaml: take
    __slots__ = ("_saved_index", "_self_sym_sizes")
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        z = wrap(np.zeros(self._self_sym_sizes, grad._data.dtype))
        return z.put(self._saved_index, grad, accumulate=True),


def take(input, index):
    x = input._data
    i = _flat_index(index, x.size, "take")
    if x.size == 0 and i.size:
        raise IndexError("take(): tried to take from an empty tensor")
    res = wrap(x.reshape(-1)[i])
    if STATE.enabled and input._requires_grad:
        node = TakeBackward0()
        node._saved_index = index
        node._self_sym_sizes = x.shape
        link(res, node, input)
    return res


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape

# ---------------------------------------------------------------- nonzero / argwhere


def nonzero(input, *, out=None, as_tuple=False):
    x = input._data
    if as_tuple:
        if x.ndim == 0:
            return (wrap(np.zeros(1 if x != 0 else 0, np.int64)),)
        return tuple(wrap(a.astype(np.int64, copy=False)) for a in np.nonzero(x))
    if x.ndim == 0:
        res = wrap(np.zeros((1 if x != 0 else 0, 0), np.int64))
    else:
        res = wrap(np.argwhere(x).astype(np.int64, copy=False))
    return write_out(res, out)


def argwhere(input):
    return nonzero(input)
