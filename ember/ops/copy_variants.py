"""torch's functionalization `*_copy` ops (torch.transpose_copy, view_copy, split_copy, ...):
each gives its view op's values as fresh contiguous tensors that share no memory with the input.

Note [Copy variants]: the gradient of a copy is its view op's gradient, and torch names the node
after the view's with `_copy` appended (TransposeBackward0_copy). So each op runs its view op,
copies the values out, and hands the view's node (re-classed to the `_copy` subclass below,
which adds nothing but the name) to the copies. Loaded lazily (Note [Lazy layer ops])."""
import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual, set_tangent, tangent
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, NotImplementedBackward, link
from ..tensor import Tensor, wrap
from ._args import check_args, invalid_args, not_tensor, wrap_dim, write_out
from ._views import AsStridedBackward0, make_view
from .complex import ViewAsRealBackward0, view_as_complex, view_as_real
from .join import SliceBackward0, SplitBackward0, SplitWithSizesBackward0, slice_dim
from .join import split, split_with_sizes
from . import shape as S

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
           "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy", "view_as_real_copy", "view_as_complex_copy",
           "slice_inverse"]


# derivatives.yaml: each `<view>_copy` entry, the view's formula under the `_copy` name
class AliasBackward0_copy(S.AliasBackward0):
    __slots__ = ()


class AsStridedBackward0_copy(AsStridedBackward0):
    __slots__ = ()


class ExpandBackward0_copy(S.ExpandBackward0):
    __slots__ = ()


class PermuteBackward0_copy(S.PermuteBackward0):
    __slots__ = ()


class SelectBackward0_copy(S.SelectBackward0):
    __slots__ = ()


class SliceBackward0_copy(SliceBackward0):
    __slots__ = ()


class SplitBackward0_copy(SplitBackward0):
    __slots__ = ()


class SplitWithSizesBackward0_copy(SplitWithSizesBackward0):
    __slots__ = ()


class SqueezeBackward0_copy(S.SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward1_copy(S.SqueezeBackward1):
    __slots__ = ()


class SqueezeBackward2_copy(S.SqueezeBackward2):
    __slots__ = ()


class TBackward0_copy(S.TBackward0):
    __slots__ = ()


class TransposeBackward0_copy(S.TransposeBackward0):
    __slots__ = ()


class UnbindBackward0_copy(S.UnbindBackward0):
    __slots__ = ()


class UnfoldBackward0_copy(S.UnfoldBackward0):
    __slots__ = ()


class UnsqueezeBackward0_copy(S.UnsqueezeBackward0):
    __slots__ = ()


class ViewBackward0_copy(S.ViewBackward0):
    __slots__ = ()


class ViewAsRealBackward0_copy(ViewAsRealBackward0):
    __slots__ = ()


_COPY_NODES = {c.__mro__[1]: c for c in (
    AliasBackward0_copy, AsStridedBackward0_copy, ExpandBackward0_copy, PermuteBackward0_copy,
    SelectBackward0_copy, SliceBackward0_copy, SplitBackward0_copy,
    SplitWithSizesBackward0_copy, SqueezeBackward0_copy, SqueezeBackward1_copy,
    SqueezeBackward2_copy, TBackward0_copy, TransposeBackward0_copy, UnbindBackward0_copy,
    UnfoldBackward0_copy, UnsqueezeBackward0_copy, ViewBackward0_copy,
    ViewAsRealBackward0_copy)}
_COPY_NODES[S.DiagonalBackward0] = S.DiagonalBackward0_copy


def _fresh(view):
    """A contiguous copy of `view`'s values that takes over view's node, renamed `_copy`."""
    res = wrap(np.array(view._data, order="C", copy=True))
    node = view._grad_fn
    if node is not None:
        if type(node) in _COPY_NODES:
            node.__class__ = _COPY_NODES[type(node)]
        res._grad_fn = node
        res._output_nr = view._output_nr
        res._requires_grad = True
    for lv in LEVELS:           # forward AD: the view's tangent, copied likewise
        tan = tangent(view, lv)
        if tan is not None:
            set_tangent(res, lv, wrap(np.array(tan._data, order="C", copy=True)))
    return res


def _out(res, out, name, input):
    """out=: torch's single-output `_copy` ops want out's dtype exactly, and an out written
    from a tensor that requires grad gets the NotImplemented node (no derivative for the out=
    form)."""
    if out is None:
        return res
    if not isinstance(out, Tensor):
        return write_out(res, out)
    if STATE.enabled and out._requires_grad:
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires "
                           f"grad.")
    if out._data.dtype != res._data.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.C_NAMES[res._data.dtype.name]}"
                           f", but got {D.C_NAMES[out._data.dtype.name]} instead")
    grad = res._requires_grad
    res._requires_grad = False          # (the node goes to out below, as NotImplemented)
    write_out(res, out, name)
    if grad:
        node = NotImplementedBackward()
        node._op = name
        link(out, node, input)
    return out


def _one(view, out, name, input):
    return _out(_fresh(view), out, name, input)


# torch's kernel names in the out-list length error (found by running torch)
_OUT_NAMES = {"split_copy": "split_copy_Tensor_out()",
              "split_with_sizes_copy": "split_with_sizes_copy_out",
              "unbind_copy": "unbind_copy_int_out"}


def _many(views, out, name):
    res = [_fresh(v) for v in views]
    if out is None:
        return tuple(res)
    if not isinstance(out, (list, tuple)) or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != len(res):
        raise RuntimeError(f"{_OUT_NAMES[name]} expected an out= argument of size "
                           f"{len(res)}, got size {len(out)}")
    for r, o in zip(res, out):
        r._requires_grad = False        # (torch's out= form of these records no gradient)
        write_out(r, o, name)
    return None


def _data(input):
    try:
        return input._data
    except AttributeError as e:
        raise not_tensor(e) from None


def alias_copy(input, *, out=None):
    _data(input)
    return _one(S.alias(input), out, "alias_copy", input)


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    return _one(S.as_strided(input, size, stride, storage_offset), out, "as_strided_copy",
                input)


def detach_copy(input, *, out=None):
    """input's values, detached, in fresh memory; torch defines no derivative for it, so a
    copy of a tensor that requires grad gets the NotImplemented node."""
    res = wrap(np.array(_data(input), order="C", copy=True))
    if LEVELS and dual(input):
        raise NotImplementedError("Trying to use forward AD with aten::detach_copy that does "
                                  "not support it.")
    if STATE.enabled and input._requires_grad:
        node = NotImplementedBackward()
        node._op = "detach_copy"
        link(res, node, input)
    return _out(res, out, "detach_copy", input)


def diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None):
    return _one(S.diagonal(input, offset, dim1, dim2), out, "diagonal_copy", input)


def expand_copy(input, size, *, implicit=False, out=None):
    check_args("expand_copy", ("size", 2, "tuple of ints", size))
    return _one(S.expand(input, size, implicit=implicit), out, "expand_copy", input)


def permute_copy(input, dims, *, out=None):
    check_args("permute_copy", ("dims", 2, "tuple of ints", dims))
    return _one(S.permute(input, dims), out, "permute_copy", input)


def select_copy(input, dim, index, *, out=None):
    return _one(S.select(input, dim, index), out, "select_copy", input)


def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    x = _data(input)
    d = wrap_dim(dim, x.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _one(slice_dim(input, d, start, end, step, (dim, start, end)), out, "slice_copy",
                input)


def split_copy(input, split_size, dim=0, *, out=None):
    if not isinstance(split_size, (int, np.integer)) or isinstance(split_size, bool):
        check_args("split_copy", ("split_size", 2, "int", split_size))
    return _many(split(input, split_size, dim), out, "split_copy")


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    return _many(split_with_sizes(input, split_sizes, dim), out, "split_with_sizes_copy")


def squeeze_copy(input, dim=S.OMITTED, *, out=None):
    if dim is not S.OMITTED and not (
            isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) or
            isinstance(dim, (tuple, list)) and all(isinstance(d, (int, np.integer)) and
                                                   not isinstance(d, bool) for d in dim)):
        raise invalid_args("squeeze_copy", (input, dim))
    return _one(S.squeeze(input, dim), out, "squeeze_copy", input)


def t_copy(input, *, out=None):
    return _one(S.t(input), out, "t_copy", input)


def transpose_copy(input, dim0, dim1, *, out=None):
    _data(input)
    return _one(S.transpose(input, dim0, dim1), out, "transpose_copy", input)


def unbind_copy(input, dim=0, *, out=None):
    return _many(S.unbind(input, dim), out, "unbind_copy")


def unfold_copy(input, dimension, size, step, *, out=None):
    return _one(S.unfold(input, dimension, size, step), out, "unfold_copy", input)


def unsqueeze_copy(input, dim, *, out=None):
    return _one(S.unsqueeze(input, dim), out, "unsqueeze_copy", input)


def view_copy(input, size, *, out=None):
    """view's values for any layout: a view of a transposed tensor that view() refuses works
    here, as in torch (the copy is a reshape), with view's node under the `_copy` name."""
    x = _data(input)
    if isinstance(size, D.dtype):
        return _one(S.view(input, size), out, "view_copy", input)
    if not isinstance(size, (tuple, list)) or not all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in size):
        raise invalid_args("view_copy", (input, size))
    shape = S.infer_size(S.size_args((size,), "view_copy"), x.size)
    res = wrap(np.array(np.reshape(x, shape), order="C", copy=True))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ViewBackward0_copy()
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return _out(res, out, "view_copy", input)


def view_as_real_copy(input, *, out=None):
    return _one(view_as_real(input), out, "view_as_real_copy", input)


def view_as_complex_copy(input, *, out=None):
    if STATE.enabled and getattr(input, "_requires_grad", False):
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation "
                           "for outputs with complex dtype.")
    return _one(view_as_complex(input), out, "view_as_complex_copy", input)


# ------------------------------------------------------------------ slice_inverse

class SliceInverseBackward0(Node):           # derivatives.yaml: slice_inverse
    """self gets the slice of grad, src gets grad with the slice zeroed (together: the whole
    of grad, when self is src's slice as functionalization makes it)."""
    __slots__ = ("_saved_dim", "_saved_start", "_saved_end", "_saved_step", "_self_sizes")

    def apply(self, grad):
        dim, start, end, step = (self._saved_dim, self._saved_start, self._saved_end,
                                 self._saved_step)
        g_src = None
        if self.next_functions[1][0] is not None:
            zeros = grad.new_zeros(self._self_sizes)
            g_src = grad.slice_scatter(zeros, dim, start, end, step)
        g_self = None
        if self.next_functions[0][0] is not None:
            g_self = grad[(slice(None),) * (dim % grad.ndim) + (slice(start, end, step),)]
        return g_self, g_src


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of src.slice(dim, start, end, step) for functionalization: a view of
    input's memory with src's sizes, strides and storage offset (input is expected to be that
    slice of a tensor laid out as src)."""
    x = _data(input)
    check_args("slice_inverse", ("src", 2, "Tensor", src))
    arr = S._strided_view(input, src._data.shape, src.stride(), src.storage_offset())
    res = make_view(wrap(arr), input)
    if STATE.enabled and (input._requires_grad or src._requires_grad):
        node = SliceInverseBackward0()
        node._saved_dim, node._saved_start, node._saved_end = dim, start, end
        node._saved_step, node._self_sizes = step, x.shape
        link(res, node, input, src)
    for lv in LEVELS:           # forward AD: the same view of input's tangent
        tan = tangent(input, lv)
        if tan is not None:
            set_tangent(res, lv, wrap(S._strided_view(tan, src._data.shape, src.stride(),
                                                      src.storage_offset())))
    return res
