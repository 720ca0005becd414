"""Joining and splitting: cat, stack and their h/v/d/column forms; split, chunk,
tensor_split, narrow and the slice view they are made of (with their backward nodes).
Split parts and slices are NumPy views of the input (they share memory, as in torch)."""
__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "split", "split_with_sizes", "chunk", "tensor_split", "hsplit",
           "vsplit", "dsplit", "narrow", "narrow_copy", "slice_scatter", "block_diag",
           "cartesian_prod", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"]

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi, saved_arg, unsigned
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import wrap_dim, write_out, channels_last_format
from ._args import not_tensor, wrong_type, invalid_args, args_fit, check_args
from ._views import make_view
from .shape import (embed, SliceBackwardBackward0, atleast_1d, atleast_2d, atleast_3d, reshape,
                    scatter_into, SliceScatterBackward0, meshgrid, flatten, select)


# ------------------------------------------------------------------ cat / stack

class CatBackward0(Node):                    # derivatives.yaml: cat
    __slots__ = ("_dim", "_dim_arg", "_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        out, start = [], 0
        d = self._dim
        for (node, _), n in zip(self.next_functions, self._sizes):
            if n is None:                      # a skipped legacy empty tensor: empty grad
                out.append(wrap(np.zeros((0,), grad._data.dtype)) if node is not None
                           else None)
                continue
            out.append(slice_dim(grad, d, start, start + n, 1) if node is not None else None)
            start += n
        return tuple(out)

    def jvp(self, ts, xs, out):
        return cat(list(ts), self._dim)


def _tensor_list(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return list(tensors)


def _channels_last(a):
    """Whether a 4-d or 5-d array suggests channels last (Note [Channels last])."""
    return a.ndim in (4, 5) and channels_last_format(a) is not None


def _cat_layout(r, parts):
    """torch's layout for cat's result: channels last when every input is, else contiguous
    (NumPy's result follows the inputs' order of dims)."""
    if all(_channels_last(t._data) for t in parts):
        if _channels_last(r):
            return r
        return np.moveaxis(np.ascontiguousarray(np.moveaxis(r, 1, -1)), -1, 1)
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)


def cat(tensors, dim=0, *, axis=None, out=None):
    if axis is not None:
        dim = axis
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        try:
            if t._data.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                                   f"concatenated")
        except AttributeError as e:
            raise not_tensor(e) from None
    rt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not rt:
            rt = D.promote_types(rt, t.dtype)
    # torch skips 1-D empty tensors (legacy behaviour) when concatenating
    skip = [t._data.ndim == 1 and t._data.shape[0] == 0 for t in tensors]
    parts = [t for t, s in zip(tensors, skip) if not s]
    if not parts:
        res = wrap(np.zeros((0,), rt.np))
        d = 0
    else:
        ref = parts[0]._data
        d = wrap_dim(dim, ref.ndim)
        for i, t in enumerate(tensors):
            if skip[i]:
                continue
            s = t._data.shape
            if len(s) != ref.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got "
                                   f"{ref.ndim} and {len(s)}")
            for j in range(ref.ndim):
                if j != d and s[j] != ref.shape[j]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                       f"Expected size {ref.shape[j]} but got size {s[j]} for "
                                       f"tensor number {i} in the list.")
        r = np.concatenate([t._data for t in parts], axis=d, dtype=rt.np)
        if not all(t._data.flags.c_contiguous for t in parts):
            r = _cat_layout(r, parts)
        res = wrap(r)
    if STATE.enabled and any(t._requires_grad for t in tensors) or LEVELS and dual(*tensors):
        node = CatBackward0()
        node._dim, node._dim_arg = d, dim
        node._sizes = [None if sk else u._data.shape[d] for u, sk in zip(tensors, skip)]
        link(res, node, *tensors)
    if out is not None:
        return write_out(res, out)
    return res


concat = concatenate = cat


class StackBackward0(Node):                  # derivatives.yaml: stack
    __slots__ = ("_dim", "_dim_arg",)
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        d = self._dim
        return tuple(select(grad, d, i) if node is not None else None
                     for i, (node, _) in enumerate(self.next_functions))

    def jvp(self, ts, xs, out):
        return stack(list(ts), self._dim)


def stack(tensors, dim=0, *, axis=None, out=None):
    if axis is not None:
        dim = axis
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    try:
        shape = tensors[0]._data.shape
    except AttributeError as e:
        raise not_tensor(e) from None
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t._data.shape)} at entry {i}")
    d = wrap_dim(dim, len(shape) + 1)
    rt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not rt:
            rt = D.promote_types(rt, t.dtype)
    r = np.stack([t._data for t in tensors], axis=d, dtype=rt.np)
    res = wrap(r if r.flags.c_contiguous else np.ascontiguousarray(r))   # (torch's layout)
    if STATE.enabled and any(t._requires_grad for t in tensors) or LEVELS and dual(*tensors):
        node = StackBackward0()
        node._dim, node._dim_arg = d, dim
        link(res, node, *tensors)
    if out is not None:
        return write_out(res, out)
    return res


def hstack(tensors, *, out=None):
    tensors = _tensor_list(tensors, "hstack")
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [atleast_1d(t) for t in tensors]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    tensors = _tensor_list(tensors, "vstack")
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([atleast_2d(t) for t in tensors], 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    tensors = _tensor_list(tensors, "dstack")
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([atleast_3d(t) for t in tensors], 2, out=out)


def column_stack(tensors, *, out=None):
    tensors = _tensor_list(tensors, "column_stack")
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    try:
        ts = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors]
    except AttributeError as e:
        raise not_tensor(e) from None
    return cat(ts, 1, out=out)


# ------------------------------------------------------------------ slice / narrow

def _slice_arg(i, slot):
    """SliceBackward0's _saved_dim/_start/_end: the argument as torch's caller passes it (kept
    in _given where it differs from the normalized slot: getitem's slice as written, None as
    0 / 2**63 - 1; narrow's dim as given), unsigned when negative, as torch reads it."""
    def get(self):
        try:
            return unsigned(self._given[i])
        except AttributeError:
            return getattr(self, slot)
    return property(get)


class SliceBackward0(Node):                  # derivatives.yaml: slice.Tensor
    __slots__ = ("_dim", "_start", "_end", "_saved_step", "_saved_self_sym_sizes", "_given")
    _saved_dim, _saved_start, _saved_end = (_slice_arg(0, "_dim"), _slice_arg(1, "_start"),
                                            _slice_arg(2, "_end"))

    def apply(self, grad):
        return slice_backward(grad, self._saved_self_sym_sizes, self._dim,
                              self._start, self._end, self._saved_step),

    def jvp(self, ts, xs, out):
        return slice_dim(ts[0], self._dim, self._start, self._end, self._saved_step)


def slice_backward(grad, sizes, dim, start, end, step):
    idx = (slice(None),) * dim + (slice(start, end, step),)

    def writer(z, g):
        z[idx] = g
    return embed(grad, sizes, writer, SliceBackwardBackward0,
                 lambda gg: slice_dim(gg, dim, start, end, step))


def slice_dim(input, dim, start, end, step=1, given=None):
    """input[..., start:end:step, ...] along `dim` (a view, recorded as SliceBackward0).
    start/end are already in range (Python slice semantics are applied here). given: (dim,
    start, end) as torch's caller passes them to slice, where they differ (_slice_arg)."""
    x = input._data
    start, end, step = slice(start, end, step).indices(x.shape[dim])
    end = max(end, start)
    res = make_view(wrap(x[(slice(None),) * dim + (slice(start, end, step),)]), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SliceBackward0()
        node._dim, node._start, node._end, node._saved_step = dim, start, end, step
        if given is not None:
            node._given = given
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def narrow(input, dim, start, length):
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x.ndim)
    start, length = int(start), int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    n = x.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({n}).")
    return slice_dim(input, d, start, start + length, 1, (dim, start, start + length))


class NarrowCopyBackward0(Node):             # derivatives.yaml: narrow_copy
    __slots__ = ("_dim", "_dim_arg", "_start", "_start_arg", "_saved_length",
                 "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_start = saved_arg("_start", "_start_arg")

    def apply(self, grad):
        s = self._start
        return slice_backward(grad, self._saved_self_sym_sizes, self._dim, s,
                              s + self._saved_length, 1),

    def jvp(self, ts, xs, out):
        s = self._start
        return slice_dim(ts[0], self._dim, s, s + self._saved_length, 1).clone()


def narrow_copy(input, dim, start, length, *, out=None):
    v = narrow(input.detach(), dim, start, length)
    res = wrap(v._data.copy())
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NarrowCopyBackward0()
        x = input._data
        d = wrap_dim(dim, x.ndim)
        node._dim, node._saved_length = d, int(length)
        node._start = int(start) % x.shape[d] if int(start) < 0 else int(start)
        node._dim_arg, node._start_arg = dim, int(start)
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return write_out(res, out)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, x.ndim)
    start, end, step = slice(start, end, step).indices(x.shape[d])
    end = max(end, start)
    idx = (slice(None),) * d + (slice(start, end, step),)
    return write_out(scatter_into(input, src, lambda a: a[idx], SliceScatterBackward0,
                                  lambda g, z: slice_scatter(g, z, d, start, end, step),
                                  lambda g: slice_dim(g, d, start, end, step)), out)


# ------------------------------------------------------------------ block_diag / cartesian_prod

class BlockDiagBackward0(Node):              # derivatives.yaml: block_diag
    __slots__ = ("_blocks",)     # per input: (first row, first col, rows, cols, its shape)

    def apply(self, grad):
        out = []
        for (node, _), (r, c, h, w, shape) in zip(self.next_functions, self._blocks):
            if node is None:
                out.append(None)
                continue
            g = slice_dim(slice_dim(grad, 0, r, r + h, 1), 1, c, c + w, 1)
            # torch squeezes dim -1 once per missing dim: a 1-dim input of n > 1 keeps its
            # (1, n) block, which the engine's sum_to brings to (n,)
            for _ in range(2 - len(shape)):
                g = g.squeeze(-1)
            out.append(g)
        return tuple(out)

    def jvp(self, ts, xs, out):
        return block_diag(*ts)


def block_diag(*tensors):
    for i, t in enumerate(tensors):
        try:
            if t._data.ndim > 2:
                raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                                   f"dimensions. Input {i} has {t._data.ndim} dimensions")
        except AttributeError as e:
            raise not_tensor(e) from None
    rt = tensors[0].dtype if tensors else D.get_default_dtype()
    for t in tensors[1:]:
        if t.dtype is not rt:
            rt = D.promote_types(rt, t.dtype)
    mats = [t._data.reshape((1, -1) if t._data.ndim == 1 else (1, 1)) if t._data.ndim < 2
            else t._data for t in tensors]
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = np.zeros((rows, cols) if tensors else (1, 0), rt.np)
    blocks, r, c = [], 0, 0
    for t, m in zip(tensors, mats):
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        blocks.append((r, c, m.shape[0], m.shape[1], t._data.shape))
        r += m.shape[0]
        c += m.shape[1]
    res = wrap(out)
    if STATE.enabled and any(t._requires_grad for t in tensors) or LEVELS and dual(*tensors):
        node = BlockDiagBackward0()
        node._blocks = blocks
        link(res, node, *tensors)
    return res


def cartesian_prod(*tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    for t in tensors:
        try:
            if t._data.ndim != 1:
                raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
        except AttributeError as e:
            raise not_tensor(e) from None
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([flatten(g) for g in grids], 1)


# ------------------------------------------------------------------ split / chunk

class SplitBackward0(Node):                  # derivatives.yaml: split.Tensor
    __slots__ = ("_dim", "_dim_arg", "_saved_split_size", "_saved_self_sym_sizes", "_n_outputs",
                 "_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grads):
        return _split_backward(grads, self._sizes, self._dim),

    def jvp(self, ts, xs, out):                 # the same parts of the tangent
        d = self._dim
        parts = split_with_sizes(ts[0], [s[d] for s in self._sizes], d)
        return list(parts) if type(out) is list else parts[0]


class SplitWithSizesBackward0(Node):         # derivatives.yaml: split_with_sizes
    __slots__ = ("_dim", "_dim_arg", "_saved_split_sizes", "_saved_self_sym_sizes", "_n_outputs",
                 "_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grads):
        return _split_backward(grads, self._sizes, self._dim),

    def jvp(self, ts, xs, out):
        d = self._dim
        parts = split_with_sizes(ts[0], [s[d] for s in self._sizes], d)
        return list(parts) if type(out) is list else parts[0]


class UnsafeSplitBackward0(SplitBackward0):          # derivatives.yaml: unsafe_split
    __slots__ = ()


class UnsafeSplitWithSizesBackward0(SplitWithSizesBackward0):
    __slots__ = ()


def _split_backward(grads, shapes, dim):
    if not isinstance(grads, list):
        return grads
    ref = next(g for g in grads if g is not None)
    parts = [g if g is not None else wrap(np.zeros(s, ref._data.dtype))
             for g, s in zip(grads, shapes)]
    return cat(parts, dim) if len(parts) > 1 else parts[0]


def _split_parts(input, d, sizes, node, unsafe=False):
    x = input._data
    pre = (slice(None),) * d
    outs, start = [], 0
    for n in sizes:
        part = wrap(x[pre + (slice(start, start + n),)])
        # unsafe_*: shared memory, but no _base
        outs.append(part if unsafe else make_view(part, input, multi=True))
        start += n
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node._dim = d
        node._saved_self_sym_sizes = x.shape
        node._n_outputs = len(outs)
        node._sizes = [o._data.shape for o in outs]
        if len(outs) == 1:     # the engine treats a one-output node as a plain node
            link(outs[0], node, input)
        else:
            link_multi(outs, node, input)
    return tuple(outs)


def split(tensor, split_size_or_sections=None, dim=0, *, split_size=None, _unsafe=False):
    if split_size is not None:
        split_size_or_sections = split_size
    if not isinstance(split_size_or_sections, (int, np.integer)) and not (
            isinstance(split_size_or_sections, Tensor) and
            split_size_or_sections._data.ndim == 0):
        check_args("split_with_sizes", ("split_sizes", 2, "tuple of ints",
                                        split_size_or_sections))
        return split_with_sizes(tensor, split_size_or_sections, dim, _unsafe=_unsafe)
    x = tensor._data
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, x.ndim)
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size="
                           f"{size}")
    n = x.shape[d]
    if size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {n}")
    if n == 0:
        sizes = [0]
    else:
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    node = UnsafeSplitBackward0() if _unsafe else SplitBackward0()
    node._saved_split_size, node._dim_arg = size, dim
    return _split_parts(tensor, d, sizes, node, _unsafe)


def split_with_sizes(input, split_sizes, dim=0, *, _unsafe=False):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, x.ndim)
    try:
        sizes = [int(s) for s in split_sizes]
    except (TypeError, ValueError):
        raise wrong_type(split_sizes, "tuple of ints") from None
    n = x.shape[d]
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    node = UnsafeSplitWithSizesBackward0() if _unsafe else SplitWithSizesBackward0()
    node._saved_split_sizes, node._dim_arg = tuple(sizes), dim
    return _split_parts(input, d, sizes, node, _unsafe)


def chunk(input, chunks, dim=0, *, _unsafe=False):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    try:
        chunks = int(chunks)
    except (TypeError, ValueError):
        raise wrong_type(chunks, "int") from None
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return split_with_sizes(input, [0] * chunks, dim, _unsafe=_unsafe)
    return split(input, size, dim, _unsafe=_unsafe)


def unsafe_split(tensor, split_size, dim=0):
    check_args("unsafe_split", ("split_size", 2, "int", split_size), ("dim", 3, "int", dim))
    return split(tensor, split_size, dim, _unsafe=True)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return split_with_sizes(input, split_sizes, dim, _unsafe=True)


def unsafe_chunk(input, chunks, dim=0):
    return chunk(input, chunks, dim, _unsafe=True)


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    for alt in (sections, indices, tensor_indices_or_sections):
        if alt is not None:
            indices_or_sections = alt
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        a = ios._data
        if a.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {type_name(a.dtype)}")
        if a.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {a.ndim} dims")
        ios = int(a) if a.ndim == 0 else [int(i) for i in a]
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(ios, (int, np.integer)):
        k = int(ios)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds, s = [], 0
        for i in range(k):
            e = s + q + (1 if i < r else 0)
            bounds.append((s, e))
            s = e
    else:
        try:
            idx = [int(i) for i in ios]
        except (TypeError, ValueError):
            raise wrong_type(indices_or_sections, "tuple of ints") from None
        bounds = []
        prev = 0
        for i in idx + [None]:
            bounds.append((prev, i))
            prev = i
    return tuple(slice_dim(input, d, s, e, 1, (d, s, n if e is None else e))
                 for s, e in bounds)


def _dir_split(name, min_dim, dim_of):
    def op(input, indices_or_sections):
        try:
            x = input._data
        except AttributeError as e:
            raise not_tensor(e) from None
        if indices_or_sections is None or not args_fit(("tuple of ints", indices_or_sections)):
            raise invalid_args(name, (input, indices_or_sections))
        if x.ndim < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} "
                               f"dimension, but got a tensor with {x.ndim} dimensions!")
        d = dim_of(x.ndim)
        if isinstance(indices_or_sections, (int, np.integer)):
            k = int(indices_or_sections)
            if k == 0 or x.shape[d] % k:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but "
                                   f"the size of the dimension {x.shape[d]} is not divisible "
                                   f"by the split_size {k}!")
        return tensor_split(input, indices_or_sections, d)
    op.__name__ = name
    return op


hsplit = _dir_split("hsplit", 1, lambda n: 0 if n == 1 else 1)
vsplit = _dir_split("vsplit", 2, lambda n: 0)
dsplit = _dir_split("dsplit", 3, lambda n: 2)
