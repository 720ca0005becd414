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
__all__ = ["index_select", "repeat_interleave", "index_put", "index_put_", "masked_select", "take", "nonzero",
           "argwhere"]

import itertools
import operator
import warnings

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, saved_arg
from ..dtypes import type_name, SCALAR_NAMES, C_NAMES
from ..tensor import Tensor, contiguous_format, wrap
from ._args import needs, wrap_dim, broadcast_error, write_out
from ._args import not_tensor, check_args, invalid_args, OMITTED, c_strides
from ._views import (LEAF_INPLACE, PARTIAL_OVERLAP, _dense, check_inplace, check_overlap,
                     check_overlap_arrays, inplace, inplace_source)
from .convert import copy_, fill_, fill_value, same_layout
from .join import slice_dim, stack
from .shape import alias, select, unsqueeze, expand, flatten, reshape

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
    steps: the view ops torch applies for the basic part, in order, each (op, dim, arg) with
    op "select", "slice" or "unsqueeze" and dim counted in the tensor it applies to; basic:
    the same, as one NumPy basic index on the original array (ends with Ellipsis, so it is a
    view even when 0-dim); adv: None or the advanced index applied to that view. given: the
    `indices` torch's index / index_put_ receives (torch_indices), or None where they are
    made from `parsed` (the index items, their kinds and the tensor's ndim) when needed."""
    __slots__ = ("steps", "basic", "adv", "given", "parsed")


def torch_indices(P):
    """The indices torch's index / index_put_ saves (grad_fn._saved_indices): one entry per
    index item past the basic part: None for each dim a slice, None or Ellipsis keeps before
    the last indexed one, each index tensor as given (a bool mask once, however many dims it
    covers; a list or a Python bool as the tensor it becomes)."""
    if P.given is not None:
        return P.given
    items, kinds, ndim = P.parsed
    used = sum(1 if k in "isa" else v.ndim if k == "m" else 0 for k, v in kinds)
    out = []
    ell = False
    for item, (k, v) in zip(items, kinds):
        if k in "sn":
            out.append(None)
        elif k == "e":
            if not ell:
                ell = True
                out.extend([None] * (ndim - used))
        elif k == "b":
            out.append(wrap(np.zeros(1 if v else 0, np.int64)))
        elif k in "am":
            out.append(item if isinstance(item, Tensor) else wrap(v))
    while out and out[-1] is None:
        out.pop()
    P.given = tuple(out)
    return P.given


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
    elif t is range:                          # a range is the list of its values
        arr = np.arange(obj.start, obj.stop, obj.step, dtype=np.int64)
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
                P.basic, P.adv, P.steps = (index, Ellipsis), None, (("select", 0, index),)
                P.given = P.parsed = None
                return P
        elif t is Tensor:
            a = index._data
            if a.dtype == np.int64 and a.ndim and a.size:
                size = shape[0]
                if a.max() < size and a.min() >= -size:
                    P = _Index()
                    P.basic, P.adv, P.steps = (Ellipsis,), (a,), ()
                    P.given, P.parsed = (index,), None
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
    steps = []              # the view ops torch applies, in order (see _Index)
    ell = False
    for k, v in kinds:
        if k == "i":
            size = shape[src]
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {src} with size "
                                 f"{size}")
            steps.append(("select", len(vshape), v))
            basic.append(v)
            src += 1
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
                # (and the slice as written: torch's SliceBackward0 saves it, None as 0 and
                # 2**63 - 1)
                steps.append(("slice", len(vshape), (start, stop, step, raw0, (1 << 63) - 1
                                                     if v.stop is None else raw1)))
            basic.append(slice(start, stop, step))
            vshape.append(n)
            src += 1
        elif k == "n":
            steps.append(("unsqueeze", len(vshape), None))
            basic.append(None)
            vshape.append(1)
        elif k == "e":
            if not ell:
                ell = True
                n = ndim - used
                basic.extend([slice(None)] * n)
                vshape.extend(shape[src:src + n])
                src += n
        elif k == "b":
            steps.append(("unsqueeze", len(vshape), None))
            basic.append(None)
            adv[len(vshape)] = np.zeros(1 if v else 0, np.int64)
            vshape.append(1)
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
    P.steps = tuple(steps)
    P.given, P.parsed = None, (items, kinds, ndim)
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
    else:
        P.adv = None
    return P

# ---------------------------------------------------------------- getitem

class IndexBackward0(Node):                  # derivatives.yaml: index.Tensor
    """Backward of advanced indexing: the gradient summed into zeros at the indexed places."""
    # _indices: the NumPy index the formula reads; _saved_indices: torch's (the index tensors
    # as given, torch_indices: an in-place write to one fails backward, as in torch)
    __slots__ = ("_indices", "_self_sym_sizes", "_saved_indices")
    _saved_names = ("_indices", "_saved_indices")
    _saved_self_sym_sizes = property(lambda self: tuple(self._self_sym_sizes))

    def apply(self, grad):
        return _index_grad(grad, self._self_sym_sizes, self._indices),

    def jvp(self, ts, xs, out):
        return _advanced(ts[0], self._indices)

    def np_apply(self, grad):
        out = np.zeros(self._self_sym_sizes, grad.dtype)
        np.add.at(out, self._indices, grad)
        return out,


class IndexPutImplBackward0(Node):           # derivatives.yaml: _index_put_impl_
    """Backward of the gradient placement (double backward of indexing): index it again."""
    __slots__ = ("_indices",)

    def apply(self, grad):
        return _advanced(grad, self._indices),

    def jvp(self, ts, xs, out):
        return _index_grad(ts[0], out._data.shape, self._indices)


def _advanced(x, indices, P=None):
    """x[indices] for a tuple of NumPy index arrays (and full slices): a copy. P: the parsed
    index they come from (torch's saved indices), if any."""
    # (C-contiguous, as torch's result: NumPy lays out some out of order, x[:, [0, 1]])
    res = wrap(c_strides(np.ascontiguousarray(x._data[indices])))
    if STATE.enabled and x._requires_grad or LEVELS and dual(x):
        node = IndexBackward0()
        node._indices = indices
        node._saved_indices = _array_indices(indices) if P is None else torch_indices(P)
        node._self_sym_sizes = x._data.shape
        link(res, node, x)
    return res


def _array_indices(indices):
    """torch's saved indices for a NumPy index (of a formula): tensors, None for a slice."""
    return tuple(None if type(a) is slice else wrap(a) for a in indices)


def _index_grad(grad, shape, indices):
    """zeros(shape) with grad summed into the places `indices` selects (repeats add up)."""
    out = np.zeros(shape, grad._data.dtype)
    np.add.at(out, indices, grad._data)
    res = wrap(out)
    if STATE.enabled and grad._requires_grad or LEVELS and dual(grad):
        node = IndexPutImplBackward0()
        node._indices = indices
        link(res, node, grad)
    return res


def _basic(x, P):
    """The basic part of index P applied to x: torch's chain of view ops (select, slice,
    unsqueeze, each with its node), or x itself when there is none."""
    for op, d, arg in P.steps:
        if op == "select":
            x = select(x, d, arg)
        elif op == "slice":
            x = slice_dim(x, d, *arg[:3], (d,) + arg[3:])
        else:
            x = unsqueeze(x, d)
    return x


def _get(x, P):
    if P.adv is None:
        return _basic(x, P) if P.steps else alias(x)
    return _advanced(_basic(x, P), P.adv, P)


def _getitem(self, index):
    return _get(self, _parse(self._data.shape, index))


# ---------------------------------------------------------------- setitem
# torch writes `t[index] = value` as an in-place op on the view the basic part of the index
# selects: index_put_ for an advanced index, else copy_ of a tensor value or fill_ of a
# number (or 0-d tensor); into a view that makes the base's grad_fn CopySlices (Note
# [In-place writes] in _views.py). A 0-d tensor written whole takes copy_.

class IndexPutBackward0(Node):               # derivatives.yaml: index_put / _index_put_impl_
    # _P: the parsed index the formula reads; _saved_indices: torch's (the index tensors as
    # given: an in-place write to one fails backward, as in torch)
    __slots__ = ("_P", "_vshape", "_saved_accumulate", "_saved_indices")
    _saved_names = ("_P", "_saved_indices")

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

    def jvp(self, ts, xs, out):                 # the values' tangent put into the input's
        return _index_put(ts[0], self._P, ts[1], self._saved_accumulate)


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
                               f"{SCALAR_NAMES[dtype.name]} without overflow")
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


def _check_overlap(dst, src, same_ok, same=False):
    """torch refuses a write whose (dense) source overlaps the destination's memory: partly
    (a copy into a basic index), or at all (index_put_ through advanced indices; same: the
    destination and the value are one tensor, which overlaps itself even when empty)."""
    if not same and not np.may_share_memory(dst, src):
        return
    if same_ok:
        try:
            np.broadcast_shapes(src.shape, dst.shape)
        except ValueError:
            return     # the write itself reports the shape mismatch first
        _check_copy_overlap(dst, src)
        return
    check_overlap_arrays(dst, src, True, same)


def _check_copy_overlap(dst, src):
    """The copy of a basic setitem (torch's copy_to): a value of another shape than dst loses
    its leading size-1 dims and is expanded to dst's shape (as torch's expand lays it out: a
    new dim of size 1 takes the stride a contiguous layout gives it, a broadcast dim stride 0,
    every dim of an expanded 0-d value stride 0); torch then refuses a partial overlap of dst
    and that (both dense and not empty: the same first and last byte with all strides equal
    is a full overlap, any other shared byte a partial one). Found by experiment."""
    if dst.size == 0 or src.size == 0:
        return
    isz = src.itemsize
    k = 0
    while src.shape != dst.shape and k < src.ndim and src.shape[k] == 1:
        k += 1          # (a value of dst's shape is copied as it is)
    shape, strides = src.shape[k:], src.strides[k:]
    if shape != dst.shape:
        n, lead = dst.ndim, dst.ndim - len(shape)
        out = [0] * n
        if shape:
            for i in range(n - 1, -1, -1):
                size, st = (shape[i - lead], strides[i - lead]) if i >= lead else \
                    (1, isz if i == n - 1 else dst.shape[i + 1] * out[i + 1])
                out[i] = st if size == dst.shape[i] else 0
        shape, strides = dst.shape, tuple(out)
    if not (_dense(dst) and _dense(src, shape, strides)):
        return      # (torch cannot tell: no check)
    a0 = dst.__array_interface__["data"][0]
    b0 = src.__array_interface__["data"][0]
    a1, b1 = a0 + dst.nbytes, b0 + dst.size * isz
    if a0 == b0 and a1 == b1 and tuple(dst.strides) == tuple(strides) or a1 <= b0 or b1 <= a0:
        return
    raise RuntimeError(PARTIAL_OVERLAP)


def _set(self, P, value, fill=False, expanded_ok=False):
    vt = value if isinstance(value, Tensor) else None
    if vt is not None and vt._data.dtype.kind == "c" and self._data.dtype.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        vt = value = wrap(vt._data.real)
    if vt is not None and fill:
        # torch's masked fill: the value as a 0-d tensor of any dtype, converted as it is
        # written (the node's edge goes to the value itself, so an integral tensor written
        # so requires grad as in torch)
        vt = value = vt.view(()) if vt._data.ndim else vt
    target = _basic(self, P) if P.steps else self
    if vt is not None and P.adv is None and same_layout(target._data, vt._data):
        copy_(target, vt)       # (torch's copy of the very memory: no overlap refused)
        return
    if vt is not None:
        if P.adv is not None and vt._data.dtype != self._data.dtype and not fill:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {type_name(self._data.dtype)} for the destination and "
                               f"{type_name(vt._data.dtype)} for the source.")
        # (a 0-d value into a basic index is a fill: it reads the value first)
        if not fill and not (P.adv is None and vt._data.ndim == 0):
            # (torch's index_put_ gets self itself where no basic index made a view of it,
            # and the value itself unless it had leading size-1 dims to drop)
            _check_overlap(target._data if P.adv is None else self._data, vt._data,
                           P.adv is None, target is self and vt is self and not (
                               vt._data.ndim and vt._data.shape[0] == 1))
    if vt is not None and vt._data.ndim:
        vs = vt._data.shape                 # torch drops the value's leading size-1 dims
        nd = target._data.ndim if P.adv is None else \
            np.empty(target._data.shape, np.bool_)[P.adv].ndim
        k = 0
        while k < len(vs) - nd and vs[k] == 1:
            k += 1
        if k:
            vt = vt.view(vs[k:])
    if vt is None:
        dt = self._data.dtype
        vt = wrap(np.array(fill_value(_value_array(value, dt), dt), dt))
    if P.adv is not None:
        _check_put_shape(target._data, P.adv, vt._data)
        Q = _Index()                        # the advanced part, applied to the view
        Q.steps, Q.basic, Q.adv = (), (Ellipsis,), P.adv
        Q.given, Q.parsed = P.given, P.parsed
        inplace(target, _index_put(inplace_source(target), Q, vt, False),
                written=_put_writer(Q, vt, False), expanded_ok=expanded_ok,
                warn="index_put_")
    elif vt._data.ndim == 0 and target._data.ndim:    # (torch: fill_ unless the shapes match)
        fill_(target, vt)
    else:
        vs, ts = vt._data.shape, target._data.shape
        if vs != ts:
            try:
                ok = np.broadcast_shapes(vs, ts) == ts
            except ValueError:
                ok = False
            if not ok:
                raise _expand_error(list(vs), list(ts))
        if np.may_share_memory(target._data, vt._data):
            vt = vt.clone()     # a full overlap (checked above): copy_ would refuse it
        copy_(target, vt)


def _check_put_shape(x, adv, v):
    target = x[adv].shape if x.size or not any(isinstance(a, np.ndarray) and a.size
                                                 for a in adv) else None
    if target is not None:
        try:
            np.broadcast_to(np.empty(v.shape, np.bool_), target)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot "
                               f"be broadcast to indexing result of shape {list(target)}") \
                from None


def _setitem(self, index, value):
    # t[mask] = a one-element tensor is a masked fill in torch, which reads no overlap
    fill = isinstance(index, Tensor) and index._data.dtype == np.bool_ and \
        index._data.ndim and isinstance(value, Tensor) and value._data.size == 1
    try:
        P = _parse(self._data.shape, index, getitem=False)
    except IndexError:
        # torch refuses a leaf (or the view its basic indices make of one) before it reads
        # the advanced indices
        parts = index if isinstance(index, tuple) else (index,)
        if STATE.enabled and self._requires_grad and \
                any(isinstance(i, (list, Tensor)) for i in parts):
            if self._grad_fn is None and any(
                    isinstance(i, int) and not isinstance(i, bool) or
                    isinstance(i, slice) and i != slice(None) for i in parts):
                raise RuntimeError("a view of " + LEAF_INPLACE) from None
            check_inplace(self, True, write=False)
        if value is self and not fill and all(isinstance(i, (list, Tensor)) for i in parts) \
                and (self._data.size or not (self._data.ndim and self._data.shape[0] == 1)):
            # t[idx] = t: torch refuses the overlap before it reads the indices (an empty t
            # too, unless dropping its leading size-1 dim leaves another tensor)
            raise RuntimeError(PARTIAL_OVERLAP) from None
        raise
    if P.adv is not None and STATE.enabled and self._requires_grad:
        # (torch refuses a leaf, or a view of one, before it reads the advanced indices)
        check_inplace(_basic(self, P) if P.steps else self, True, write=False)
    # torch writes tensor and list indices into an expanded tensor (index_put_), not a bool
    parts = index if isinstance(index, tuple) else (index,)
    _set(self, P, value, fill, expanded_ok=any(isinstance(i, (Tensor, list)) for i in parts))


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
    z = g.new_zeros(src_shape)
    z[tuple(slice(0, n) for n in g._data.shape)] = g
    return z


def _src_part(src, index):
    """The part of src that scatter reads: its leading corner of index's shape."""
    if src.shape == index.shape:
        return src
    return src[tuple(slice(0, s) for s in index.shape)]

# ---------------------------------------------------------------- index_select


class IndexSelectBackward0(Node):            # derivatives.yaml: index_select
    __slots__ = ("_dim", "_dim_arg", "_saved_index", "_self_sym_sizes", "_dtype")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_self_sym_sizes = property(lambda self: tuple(self._self_sym_sizes))
    _saved_names = ("_saved_index",)

    def apply(self, grad):
        z = wrap(np.zeros(self._self_sym_sizes, grad._data.dtype))
        return z.index_add(self._dim, self._saved_index, grad),

    def jvp(self, ts, xs, out):
        return index_select(ts[0], self._dim, self._saved_index)


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
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = IndexSelectBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_index = index
        node._self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)


def repeat_interleave(input, repeats=OMITTED, dim=None, *, output_size=None):
    if repeats is None:
        raise invalid_args("repeat_interleave", (input, repeats))
    if repeats is OMITTED:         # torch.repeat_interleave(repeats): indices repeated
        try:
            r = input._data
        except AttributeError as e:
            raise not_tensor(e) from None
        if r.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if r.dtype.kind not in "iu":
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{type_name(r.dtype)}'")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        return wrap(np.repeat(np.arange(r.shape[0], dtype=r.dtype), r))
    if dim is None:
        input = flatten(input)
        d = 0
    else:
        d = wrap_dim(dim, input._data.ndim)
    x = input._data
    if isinstance(repeats, (int, np.integer)):
        repeats = int(repeats)
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        if x.ndim == 0:
            input = reshape(input, (1,))
            x = input._data
        shape = list(x.shape)
        shape.insert(d + 1, repeats)
        out = expand(unsqueeze(input, d + 1), shape).clone(memory_format=contiguous_format)
        return flatten(out, d, d + 1)
    try:
        r = repeats._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if r.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if r.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{type_name(r.dtype)}'")
    n = x.shape[d] if x.ndim else 1
    if r.ndim == 0 or r.shape[0] == 1:
        r = np.broadcast_to(r.reshape(-1), (n,))
    elif r.shape[0] != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {r.shape[0]} and input.size({d}) = {n}")
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    if x.ndim == 0:
        input = reshape(input, (1,))
        x = input._data
    # torch computes it as index_select with each index repeated
    index = wrap(np.repeat(np.arange(n, dtype=np.int64), r))
    return index_select(input, d, index)


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
    P.given = tuple(indices)
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
    return _index_put(input, P, values, accumulate)


def _index_put(input, P, values, accumulate):
    res = wrap(input._data.copy())
    _write(res, P, values, accumulate)
    if STATE.enabled and (input._requires_grad or values._requires_grad) or \
            LEVELS and dual(input, values):
        node = IndexPutBackward0()
        node._P = P
        node._saved_indices = torch_indices(P)
        node._vshape = values._data.shape
        node._saved_accumulate = accumulate
        link(res, node, input, values)
    return res


def index_put_(input, indices, values, accumulate=False):
    check_overlap(input, values, full=True)
    return inplace(input, index_put(inplace_source(input), indices, values, accumulate),
                   written=_put_writer(None, values, accumulate, indices),
                   warn="index_put_")


def _put_writer(P, values, accumulate, indices=None):
    """inplace's `written` for index_put_ into an expanded tensor: the values written in the
    order of the indices (the last write to a memory location stays), or added one by one."""
    def write(arr, result):
        _write(wrap(arr), P if P is not None else _put_index(arr, indices), values,
               accumulate)
    return write

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
def _dtype_str(np_dtype):
    return C_NAMES[np_dtype.name]


class MaskedSelectBackward0(Node):           # derivatives.yaml: masked_select
    __slots__ = ("_saved_mask", "_shape", "_saved_self")
    _saved_names = ("_saved_mask", "_saved_self")     # (self: saved as torch saves it)

    def apply(self, grad):
        z = wrap(np.zeros(self._shape, grad._data.dtype))
        m = self._saved_mask
        if m._data.shape != self._shape:
            m = wrap(np.broadcast_to(m._data, self._shape))
        return z.masked_scatter(m, grad),

    def jvp(self, ts, xs, out):
        return masked_select(ts[0], self._saved_mask)


def masked_select(input, mask, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MaskedSelectBackward0()
        node._saved_mask = mask
        node._shape = shape
        node._saved_self = input
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
    __slots__ = ("_saved_index", "_self_sym_sizes", "_saved_self")
    _saved_names = ("_saved_index", "_saved_self")     # (self: saved as torch saves it)

    def apply(self, grad):
        z = wrap(np.zeros(self._self_sym_sizes, grad._data.dtype))
        return z.put(self._saved_index, grad, accumulate=True),

    def jvp(self, ts, xs, out):
        return take(ts[0], self._saved_index)


def take(input, index):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    i = _flat_index(index, x.size, "take")
    if x.size == 0 and i.size:
        raise IndexError("take(): tried to take from an empty tensor")
    res = wrap(x.reshape(-1)[i])
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = TakeBackward0()
        node._saved_index, node._saved_self = index, input
        node._self_sym_sizes = x.shape
        link(res, node, input)
    return res


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape

# ---------------------------------------------------------------- nonzero / argwhere


def nonzero(input, *, out=None, as_tuple=False):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
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


# ================================================================ surface ops (issue 14)
__all__ += ["unravel_index", "nonzero_static", "combinations"]


def unravel_index(indices, shape):
    """The coordinates of flat indices in a tensor of `shape` (indices wrap modulo its size,
    as torch's do)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = tuple(shape)
    for s in shape:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(s)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    x = indices._data
    if x.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not shape:
        return ()
    size = int(np.prod(shape))
    flat = np.mod(x.astype(np.int64), size) if size else x.astype(np.int64)
    return tuple(wrap(c.astype(np.int64)) for c in np.unravel_index(flat, shape))


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the nonzero elements (as nonzero), cut or padded with fill_value to
    exactly `size` rows."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"size: {size}")
    idx = np.argwhere(input._data)
    out = np.full((size, input._data.ndim), fill_value, np.int64)
    k = min(size, len(idx))
    out[:k] = idx[:k]
    return wrap(out)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, as rows (a stack of index
    selections, so the gradient flows back to each chosen element)."""
    check_args("combinations", ("r", 2, "int", r), ("with_replacement", 3, "bool",
                                                     with_replacement))
    try:
        if input.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    except AttributeError as e:
        raise not_tensor(e) from None
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(np.zeros(0, input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return stack([index_select(input, 0, wrap(np.ascontiguousarray(rows[:, j])))
                  for j in range(r)], 1)
