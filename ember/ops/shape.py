"""Shape ops and views. A view shares its base's NumPy memory exactly when torch's does:
view ops return NumPy views of the input's array (never a copy); ops that copy in torch
(flip, roll, repeat, tril, ...) return fresh arrays."""
__all__ = ["reshape", "flatten", "unflatten", "ravel", "squeeze", "unsqueeze", "permute",
           "transpose", "swapaxes", "swapdims", "t", "adjoint", "movedim", "moveaxis",
           "broadcast_to", "broadcast_tensors", "broadcast_shapes", "tile",
           "unbind", "select", "flip", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag",
           "diag_embed", "diagflat", "diagonal", "trace", "meshgrid", "atleast_1d", "atleast_2d",
           "atleast_3d", "select_scatter", "diagonal_scatter", "tril_indices", "triu_indices"]

import sys
import warnings
from operator import index as _index

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import (Node, link, link_multi, sum_to, same_meta, saved_arg, saved_unsigned,
                              unsigned)
from ..dtypes import type_name
from ..tensor import Tensor, Size, contiguous_format, wrap
from ._args import wrap_dim, wrap_dims, broadcast_error, write_out
from ._args import no_memory, not_tensor, wrong_type, check_args, invalid_args
from ._args import OVERLOADED, OMITTED, torch_view
from ._views import (AsStridedBackward0, _c_strides, _memory, check_inplace, inplace,
                     inplace_source, make_view, masked, mark_written, reshaped_in_place,
                     _alias_saved_outputs, OVERLAP)

_as_strided = np.lib.stride_tricks.as_strided


def size_args(args, name=None, arg="size"):
    """Sizes given as varargs, a tuple, a list or a Size (ints, NumPy ints or integer
    tensors of one element); floats are refused with a TypeError as torch does."""
    single = len(args) == 1
    if single and isinstance(args[0], (tuple, list)):
        args, single = args[0], False
    for a in args:
        if type(a) is not int:
            break
    else:
        return tuple(args)
    try:
        return tuple([a if type(a) is int else _index(a) for a in args])
    except TypeError:
        i, bad = next((i, a) for i, a in enumerate(args) if not _is_index(a))
        what = f"{name}(): argument '{arg}'" if name else f"argument '{arg}'"
        kind = type(bad).__name__
        # torch's parser: a lone non-int is no tuple; a sequence is one when its first element
        # is an int, and a later element then fails to unpack
        if single:
            raise TypeError(f"{what} (position 1) must be tuple of ints, not {kind}") from None
        if i:
            raise TypeError(f"{what} failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {kind}\"") from None
        if name in OVERLOADED:         # rand(t, ...): no overload takes a tensor first
            raise invalid_args(name, args) from None
        raise TypeError(f"{what} (position 1) must be tuple of ints, but found element of type "
                        f"{kind} at pos {i}") from None


def _is_index(a):
    try:
        _index(a)
        return True
    except TypeError:
        return False


def infer_size(shape, numel):
    """Resolve one -1 in a view shape; torch's errors for bad shapes."""
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{list(shape)}")
    if numel == known or (infer is not None and known > 0 and numel % known == 0):
        if infer is not None:
            if known == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                                   f"{list(shape)} because the unspecified dimension size -1 "
                                   f"can be any value and is ambiguous")
            shape = shape[:infer] + (numel // known,) + shape[infer + 1:]
        return shape
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


# ------------------------------------------------------------------ view / reshape / flatten

class ViewBackward0(Node):                   # derivatives.yaml: view
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):                 # a view of the tangent where its layout allows
        return ts[0].reshape(out._data.shape)


VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def view(input, *shape, size=None):
    if size is not None:
        shape = (size,)
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return _view_dtype(input, shape[0])
    x = input._data
    shape = infer_size(size_args(shape, "view"), x.size)
    try:
        r = np.reshape(x, shape, copy=False)
    except ValueError:
        raise RuntimeError(VIEW_ERROR) from None
    return _view_result(input, torch_view(x, r))


def _view_dtype(input, dtype):
    """Reinterpret the bytes (torch records no history for a dtype view)."""
    x = input._data
    new = dtype.np.itemsize
    old = x.dtype.itemsize
    if new != old:
        what = (f"to view {type_name(x.dtype)} as {type_name(dtype.np)} (different element "
                f"sizes)")
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        ratio = new // old
        if new > old and x.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                               f"{x.shape[-1]}")
        if x.strides[-1] != old:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got "
                               f"{x.strides[-1] // old}")
        if new > old:
            root = x
            while isinstance(root.base, np.ndarray):
                root = root.base
            off = (x.__array_interface__["data"][0] - root.__array_interface__["data"][0]) \
                // old
            if off % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} "
                                   f"{what}, but got {off}")
    return wrap(x.view(dtype.np))        # shares memory; torch reports no _base for it


def _view_result(input, r):
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ViewBackward0()
        node._saved_self_sym_sizes = input._data.shape
        link(res, node, input)
    return res


class UnsafeViewBackward0(ViewBackward0):    # derivatives.yaml: _unsafe_view (view's formula)
    __slots__ = ()


def _unsafe_view(input, shape):
    """torch's _unsafe_view: input's elements in a new shape, recorded as a new tensor rather
    than a view (input is a fresh intermediate, e.g. a product, that nothing else holds)."""
    res = wrap(np.reshape(input._data, shape))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = UnsafeViewBackward0()
        node._saved_self_sym_sizes = input._data.shape
        link(res, node, input)
    return res


class ReshapeAliasBackward0(ViewBackward0):  # derivatives.yaml: _reshape_alias (view's formula)
    __slots__ = ()


def reshape(input, *shape, **kwargs):
    if "shape" in kwargs:
        shape = (kwargs.pop("shape"),)
    if kwargs:
        raise TypeError(f"reshape() got an unexpected keyword argument '{next(iter(kwargs))}'")
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    shape = infer_size(size_args(shape, "reshape", "shape"), x.size)
    try:
        r = np.reshape(x, shape, copy=False)
    except ValueError:
        # not viewable: torch copies (clone) and then views the copy without sharing
        return _reshape_copy(input.clone(memory_format=contiguous_format), shape)
    r = torch_view(x, r)
    if x.flags.c_contiguous:
        return _view_result(input, r)
    # viewable but not contiguous: torch's reshape records _reshape_alias, not view
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ReshapeAliasBackward0()
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def _reshape_copy(copied, shape):
    return _unsafe_view(copied, shape)


def view_as(input, other):
    try:
        return view(input, other._data.shape)
    except AttributeError as e:
        raise not_tensor(e) from None


def reshape_as(input, other):
    try:
        return reshape(input, other._data.shape)
    except AttributeError as e:
        raise not_tensor(e) from None


def flatten(input, start_dim=0, end_dim=-1):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        wrap_dim(start_dim, 0)
        wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s = wrap_dim(start_dim, x.ndim)
    e = wrap_dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for k in x.shape[s:e + 1]:
        n *= k
    return reshape(input, x.shape[:s] + (n,) + x.shape[e + 1:])


def unflatten(input, dim, sizes):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = x.shape[d]
    try:
        full = infer_size(sizes, n)
    except RuntimeError as e:
        if str(e).startswith(("only one", "invalid shape")):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor") from None
    return view(input, x.shape[:d] + full + x.shape[d + 1:])


def ravel(input):
    try:
        return view(input.contiguous(), -1)
    except AttributeError as e:
        raise not_tensor(e) from None


class AliasBackward0(Node):                  # derivatives.yaml: alias
    __slots__ = ()

    def apply(self, grad):
        return grad,

    def jvp(self, ts, xs, out):
        return alias(ts[0])


def alias(input):
    """A view of the whole tensor (x[...], x[()]): torch's alias."""
    res = make_view(wrap(input._data.view()), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, AliasBackward0(), input, meta=same_meta(input))
    return res


# ------------------------------------------------------------------ squeeze / unsqueeze

class UnsqueezeBackward0(Node):              # derivatives.yaml: unsqueeze
    __slots__ = ("_dim", "_dim_arg",)
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        return grad.squeeze(self._dim),

    def jvp(self, ts, xs, out):
        return ts[0].unsqueeze(self._dim)


def unsqueeze(input, dim):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, x.ndim + 1)
    shp = x.shape
    new = shp[:d] + (1,) + shp[d:]
    r = x.reshape(new)
    if r.size:
        # torch's strides (Note [Size-1 strides]): the others kept, the new dim's from the
        # dim it goes before (NumPy's reshape of a contiguous array lays it all out anew)
        st = x.strides
        st = st[:d] + (shp[d] * st[d] if d < x.ndim else x.itemsize,) + st[d:]
        if st != r.strides:
            r = np.lib.stride_tricks.as_strided(x, new, st)
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = UnsqueezeBackward0()
        node._dim, node._dim_arg = d, dim
        link(res, node, input)
    return res


def _unsqueeze_to(grad, sizes, dims=None):
    """squeeze's backward (derivatives.yaml's unsqueeze_to): grad.unsqueeze(d) for each d of
    `dims` (default: every dim) where sizes[d] == 1, in increasing order; nothing squeezed:
    grad itself."""
    n = len(sizes)
    if dims is not None:
        dims = {wrap_dim(d, n) if n else 0 for d in ((dims,) if isinstance(dims, int) else dims)}
    for d in range(n):
        if sizes[d] == 1 and (dims is None or d in dims):
            grad = grad.unsqueeze(d)
    return grad


class SqueezeBackward0(Node):                # squeeze(): all size-1 dims
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return _unsqueeze_to(grad, self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):
        return ts[0].squeeze()


class SqueezeBackward1(Node):                # squeeze.dim
    __slots__ = ("_dim", "_dim_arg", "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        return _unsqueeze_to(grad, self._saved_self_sym_sizes, self._dim),

    def jvp(self, ts, xs, out):
        return ts[0].squeeze(self._dim)


class SqueezeBackward2(Node):                # squeeze.dims
    __slots__ = ("_dim", "_dim_arg", "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        return _unsqueeze_to(grad, self._saved_self_sym_sizes, self._dim),

    def jvp(self, ts, xs, out):
        return ts[0].squeeze(self._dim)


def squeeze(input, dim=OMITTED):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None:
        raise invalid_args("squeeze", (input, dim))
    if dim is OMITTED:
        node = SqueezeBackward0()
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
    else:
        multi = isinstance(dim, (tuple, list))
        dims = wrap_dims(dim, x.ndim) if multi else (wrap_dim(dim, x.ndim),)
        node = SqueezeBackward2() if multi else SqueezeBackward1()
        node._dim = dims if multi else dims[0]
        node._dim_arg = tuple(dim) if multi else dim
        axes = tuple(d for d in dims if x.ndim and x.shape[d] == 1)
    r = np.squeeze(x, axis=axes) if axes else x.view()
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


# ------------------------------------------------------------------ permute / transpose

class PermuteBackward0(Node):                # derivatives.yaml: permute
    __slots__ = ("_dims", "_dims_arg",)
    _saved_dims = saved_arg("_dims", "_dims_arg")

    def apply(self, grad):
        return grad.permute(tuple(np.argsort(self._dims).tolist())),

    def jvp(self, ts, xs, out):
        return ts[0].permute(self._dims)


def permute(input, *dims, **kwargs):
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"permute() got an unexpected keyword argument '{next(iter(kwargs))}'")
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    dims = size_args(dims, "permute", "dims")
    if len(dims) != x.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {x.ndim} is not equal to len(dims) = {len(dims)}")
    raw, dims = dims, tuple(wrap_dim(d, x.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    res = make_view(wrap(np.transpose(x, dims)), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = PermuteBackward0()
        node._dims, node._dims_arg = dims, raw
        link(res, node, input)
    return res


class TransposeBackward0(Node):              # derivatives.yaml: transpose.int
    __slots__ = ("_dim0", "_dim0_arg", "_dim1", "_dim1_arg")
    _saved_dim0 = saved_arg("_dim0", "_dim0_arg")
    _saved_dim1 = saved_arg("_dim1", "_dim1_arg")

    def apply(self, grad):
        return grad.transpose(self._dim0, self._dim1),

    def jvp(self, ts, xs, out):
        return ts[0].transpose(self._dim0, self._dim1)


def transpose(input, dim0, dim1):
    x = input._data
    n = x.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    res = make_view(wrap(np.swapaxes(x, d0, d1) if n else x.view()), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = TransposeBackward0()
        node._dim0, node._dim1 = d0, d1
        node._dim0_arg, node._dim1_arg = dim0, dim1
        link(res, node, input)
    return res


swapaxes = swapdims = transpose


class TBackward0(Node):                      # derivatives.yaml: t
    __slots__ = ()

    def apply(self, grad):
        return grad.t(),

    def jvp(self, ts, xs, out):
        return ts[0].t()

    def np_apply(self, g):      # a gradient is a temporary: no view bookkeeping needed
        return g.T,


def t(input):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    res = make_view(wrap(x.T if x.ndim == 2 else x.view()), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(res, TBackward0(), input)
    return res


_WARNED = set()


def warn_once(key, message):
    """torch emits these warnings once per process (TORCH_WARN_ONCE), whatever the filters."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def _T(self):
    n = self._data.ndim
    if n == 0:
        warn_once("T0", "Tensor.T is deprecated on 0-D tensors. This function is the identity "
                  "in these cases.")
    elif n != 2:
        warn_once("T", "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                  "of a tensor.")
    return permute(self, tuple(range(n - 1, -1, -1)))


def _mT(self):
    n = self._data.ndim
    if n == 0:
        warn_once("mT0", "Tensor.mT is deprecated on 0-D tensors. This function is the "
                  "identity in these cases.")
        return self
    if n < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return transpose(self, -2, -1)


def _conj(t_):
    return t_.conj() if t_._data.dtype.kind == "c" else t_


def _H(self):
    n = self._data.ndim
    if n == 0:
        warn_once("H0", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return _conj(self)
    if n != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D "
                           f"tensor. For batches of matrices, consider using tensor.mH")
    return _conj(transpose(self, -2, -1))      # (the dims torch passes: its _saved_dim0/1)


def _mH(self):
    try:
        n = self._data.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    if n == 0:
        warn_once("mH0", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
        return _conj(self)
    if n < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return _conj(transpose(self, -2, -1))


def adjoint(input):
    return _mH(input)


def movedim(input, source, destination):
    x = input._data
    n = x.ndim
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(src)} dims) should contain the same number of dims as "
                           f"destination ({list(dst)} dims)")
    src = tuple(wrap_dim(int(d), n) for d in src)
    dst = tuple(wrap_dim(int(d), n) for d in dst)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if n == 0:
        return permute(input, ())
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = tuple(o if o is not None else next(rest) for o in order)
    return permute(input, order)


moveaxis = movedim


# ------------------------------------------------------------------ expand / broadcast / repeat

class ExpandBackward0(Node):                 # derivatives.yaml: expand
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return sum_to(grad, self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):
        return ts[0].expand(out._data.shape)


def expand(input, *sizes, size=None, implicit=False):
    if size is not None:
        sizes = (size,)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    sizes = size_args(sizes, "expand")
    if len(sizes) < x.ndim:
        raise RuntimeError(f"expand(torch.{type_name(x.dtype)}Tensor{{{list(x.shape)}}}, size="
                           f"{list(sizes)}): the number of sizes provided ({len(sizes)}) must be "
                           f"greater or equal to the number of dimensions in the tensor "
                           f"({x.ndim})")
    lead = len(sizes) - x.ndim
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target.append(s)
            continue
        cur = x.shape[i - lead]
        if s == -1:
            s = cur
        elif cur != s:
            if cur != 1 or s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({cur}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(x.shape)}")
        target.append(s)
    target = tuple(target)
    if target == x.shape:
        r = x.view()
    else:
        r = np.broadcast_to(x, target)
        st = r.strides
        if 1 in target:
            # torch keeps the input's stride on a dim it does not expand, and gives a new
            # size-1 dim the stride a contiguous layout would (the next dim's size times its
            # stride); NumPy gives 0 to every size-1 dim (matmul's fold test reads these)
            st = list(st[:lead]) + [d if n == 1 else e for n, d, e in
                                    zip(target[lead:], x.strides, st[lead:])]
            for i in range(lead - 1, -1, -1):
                if target[i] == 1:
                    st[i] = 0 if i == len(st) - 1 else target[i + 1] * st[i + 1]
            st = tuple(st)
        if not any(d == 0 and n > 1 for n, d in zip(target, st)):
            # expanded only along size-1 dims: no element is shared, so it stays writable
            r = np.lib.stride_tricks.as_strided(x, target, st)
        elif st != r.strides:
            r = np.lib.stride_tricks.as_strided(x, target, st, writeable=False)
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ExpandBackward0()
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def expand_as(input, other):
    try:
        return expand(input, other._data.shape)
    except AttributeError as e:
        raise not_tensor(e) from None


def broadcast_to(input, size):
    check_args("broadcast_to", ("size", 2, "tuple of ints", size))
    return expand(input, size)


def _broadcast_to_method(self, *size, **kwargs):
    """Tensor.broadcast_to: the sizes as one sequence, or spread as ints (torch's method
    accepts `x.broadcast_to(2, 2, 3)`), or size=."""
    if "size" in kwargs and not size:
        return broadcast_to(self, kwargs.pop("size"), **kwargs)
    if not size:
        raise TypeError('broadcast_to() missing 1 required positional arguments: "size"')
    if len(size) > 1:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size):
            raise TypeError(f"broadcast_to() takes 1 positional argument but {len(size)} were "
                            f"given")
        size = (size,)
    return broadcast_to(self, *size, **kwargs)


def broadcast_shapes(*shapes):
    out = []
    for k, shp in enumerate(shapes):
        if shp is None:                         # torch reads None as an empty shape
            continue
        if isinstance(shp, (int, np.integer)):
            shp = (int(shp),)
        elif isinstance(shp, (list, tuple, str)):
            for v in shp:
                if not isinstance(v, (int, np.integer)):
                    # (torch compares each size with 0 first)
                    raise TypeError(f"'<' not supported between instances of "
                                    f"'{type(v).__name__}' and 'int'")
            shp = tuple(int(v) for v in shp)
        else:
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shp}")
        for v in shp:
            if v < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        if len(shp) > len(out):
            out = [1] * (len(shp) - len(out)) + out
        for i in range(1, len(shp) + 1):
            have, v = out[-i], shp[-i]
            if have == v or v == 1:
                continue
            if have == 1:
                out[-i] = v
            else:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {v} at {-i}! "
                                   f"Mismatching argument at index {k} had {shp}; but expected "
                                   f"shape should be broadcastable to {out}")
    return Size(out)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for k, tt in enumerate(tensors):
        try:
            s = tt._data.shape
        except AttributeError as e:
            raise not_tensor(e) from None
        try:
            shape = np.broadcast_shapes(shape, s)
        except ValueError:
            a = next(u for u in tensors[:k] if _bc_fail(u._data.shape, s))
            raise broadcast_error(a._data, tt._data) from None
    return tuple(tt if tt._data.shape == shape else expand(tt, shape) for tt in tensors)


def _bc_fail(a, b):
    try:
        np.broadcast_shapes(a, b)
        return False
    except ValueError:
        return True


class RepeatBackward0(Node):                 # derivatives.yaml: repeat
    __slots__ = ("_saved_repeats", "_saved_self_sym_sizes")

    def apply(self, grad):
        # repeat_backward: zeros if a repeat is 0; the leading dims summed away one by one,
        # then one reshape to (repeat, size) pairs (repeats of 1 left out) and one sum
        reps, sizes = self._saved_repeats, self._saved_self_sym_sizes
        if 0 in reps:
            return wrap(np.zeros(sizes, grad._data.dtype)),
        lead = len(reps) - len(sizes)
        for _ in range(lead):
            grad = grad.sum(0)
        inter, dims = [], []
        for r, s in zip(reps[lead:], sizes):
            if r != 1:
                inter.append(r)
                dims.append(len(inter) - 1)
            inter.append(s)
        if dims:
            grad = grad.reshape(inter).sum(dims)
        return grad,

    def jvp(self, ts, xs, out):
        return ts[0].repeat(self._saved_repeats)


def repeat(input, *repeats, **kwargs):
    if "repeats" in kwargs:
        repeats = (kwargs.pop("repeats"),)
    if kwargs:
        raise TypeError(f"repeat() got an unexpected keyword argument '{next(iter(kwargs))}'")
    x = input._data
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = size_args(repeats, "repeat", "repeats")
    if len(reps) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    full = (1,) * (len(reps) - x.ndim) + x.shape
    target = [s * r for s, r in zip(full, reps)]
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {target}")
    try:
        res = wrap(np.tile(x, reps) if x.size and all(reps) else np.empty(target, x.dtype))
    except MemoryError:
        raise no_memory(target, x.dtype) from None
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = RepeatBackward0()
        node._saved_repeats = reps
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def tile(input, dims):
    check_args("tile", ("dims", 2, "tuple of ints", dims))
    reps = size_args((dims,) if isinstance(dims, (int, np.integer)) else tuple(dims), "tile",
                     "dims")
    n = input._data.ndim
    if len(reps) < n:
        reps = (1,) * (n - len(reps)) + reps
    return repeat(input, reps)


# ------------------------------------------------------------------ embedding helpers
# The backward of a view op (select, slice, diagonal, unfold) writes the gradient into zeros
# of the input's shape through the same view; its own derivative is the view op again.

class _EmbedNode(Node):
    __slots__ = ("_fwd", "_embed")

    def apply(self, grad):
        return self._fwd(grad),

    def jvp(self, ts, xs, out):                 # linear: the same embedding of the tangent
        sizes, writer = self._embed
        return embed(ts[0], sizes, writer, type(self), self._fwd)


class SelectBackwardBackward0(_EmbedNode):
    __slots__ = ()


class SliceBackwardBackward0(_EmbedNode):
    __slots__ = ()


class DiagonalBackwardBackward0(_EmbedNode):
    __slots__ = ()


class UnfoldBackwardBackward0(_EmbedNode):
    __slots__ = ()


def embed(grad, sizes, writer, node_cls, fwd):
    """zeros(sizes) with `writer(zeros_array, grad_array)` applied; differentiable with
    derivative fwd(gradgrad)."""
    z = np.zeros(sizes, grad._data.dtype)
    writer(z, grad._data)
    res = wrap(z)
    if STATE.enabled and grad._requires_grad or LEVELS and dual(grad):
        node = node_cls()
        node._fwd = fwd
        node._embed = (sizes, writer)
        link(res, node, grad)
    return res


# ------------------------------------------------------------------ select / unbind

class SelectBackward0(Node):                 # derivatives.yaml: select.int
    __slots__ = ("_dim", "_dim_arg", "_index", "_index_arg", "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_index = saved_arg("_index", "_index_arg")

    def apply(self, grad):
        d, i = self._dim, self._index

        def writer(z, g):
            z[(slice(None),) * d + (i,)] = g
        return embed(grad, self._saved_self_sym_sizes, writer, SelectBackwardBackward0,
                     lambda gg: select(gg, d, i)),

    def jvp(self, ts, xs, out):
        return select(ts[0], self._dim, self._index)


def select(input, dim, index):
    x = input._data
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x.ndim)
    index = raw_index = int(index)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {dim}")
    if index < 0:
        index += n
    res = make_view(wrap(x[(slice(None),) * d + (index, Ellipsis)]), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SelectBackward0()
        node._dim, node._index = d, index
        node._dim_arg, node._index_arg = dim, raw_index
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


class UnbindBackward0(Node):                 # derivatives.yaml: unbind.int
    __slots__ = ("_saved_dim", "_n_outputs")

    def apply(self, grads):
        if not isinstance(grads, list):
            grads = [grads]
        ref = next(g for g in grads if g is not None)
        parts = [g if g is not None else ref.new_zeros(ref.shape) for g in grads]
        from .join import stack   # join.py imports this module: stack is needed only here
        return stack(parts, self._saved_dim),

    def jvp(self, ts, xs, out):
        parts = unbind(ts[0], self._saved_dim)
        return list(parts) if type(out) is list else parts[0]


def unbind(input, dim=0):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, x.ndim)
    pre = (slice(None),) * d
    outs = [make_view(wrap(x[pre + (i, Ellipsis)]), input, multi=True) for i in range(x.shape[d])]
    if (STATE.enabled and input._requires_grad or LEVELS and dual(input)) and outs:
        node = UnbindBackward0()
        node._saved_dim = d
        node._n_outputs = len(outs)
        if len(outs) == 1:     # the engine treats a one-output node as a plain node
            link(outs[0], node, input)
        else:
            link_multi(outs, node, input)
    elif STATE.enabled and input._grad_fn is not None and input._grad_fn._refused:
        raise RuntimeError(input._grad_fn._refused)     # (no outputs: torch reads it anyway)
    return tuple(outs)


# ------------------------------------------------------------------ flip / roll / rot90

class FlipBackward0(Node):                   # derivatives.yaml: flip
    __slots__ = ("_dims", "_dims_arg",)
    _saved_dims = saved_arg("_dims", "_dims_arg")

    def apply(self, grad):
        return grad.flip(self._dims),

    def jvp(self, ts, xs, out):
        return ts[0].flip(self._dims)


def flip(input, *dims, **kwargs):
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    raw = size_args(dims, "flip", "dims")
    dims = wrap_dims(raw, x.ndim)
    if x.ndim == 0 or not dims:
        r = x.copy()
    else:
        r = np.flip(x, dims).copy(order="K")     # torch keeps the input's memory layout
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = FlipBackward0()
        node._dims, node._dims_arg = dims, raw
        link(res, node, input)
    return res


def fliplr(input):
    try:
        if input._data.ndim < 2:
            raise RuntimeError("Input must be >= 2-d.")
    except AttributeError as e:
        raise not_tensor(e) from None
    return flip(input, (1,))


def flipud(input):
    try:
        if input._data.ndim < 1:
            raise RuntimeError("Input must be >= 1-d.")
    except AttributeError as e:
        raise not_tensor(e) from None
    return flip(input, (0,))


class RollBackward0(Node):                   # derivatives.yaml: roll
    __slots__ = ("_shifts", "_dims", "_dims_arg")
    _saved_dims = saved_arg("_dims", "_dims_arg")
    _saved_shifts = saved_unsigned("_shifts")

    def apply(self, grad):
        return grad.roll(tuple(-s for s in self._shifts), self._dims),

    def jvp(self, ts, xs, out):
        return ts[0].roll(self._shifts, self._dims)


def roll(input, shifts, dims=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    try:
        shifts = (int(shifts),) if isinstance(shifts, (int, np.integer)) else \
            tuple(int(s) for s in shifts)
    except (TypeError, ValueError):
        raise wrong_type(shifts, "tuple of ints") from None
    if dims is None:
        dims = ()
    dims = given = (int(dims),) if isinstance(dims, (int, np.integer)) else \
        tuple(int(d) for d in dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        r = np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    else:
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
        dims = tuple(wrap_dim(d, x.ndim) for d in dims)
        r = np.roll(x, shifts, dims) if x.ndim else x.copy()
    res = wrap(np.ascontiguousarray(r) if r.ndim else r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = RollBackward0()
        node._shifts, node._dims, node._dims_arg = shifts, dims, given
        link(res, node, input)
    return res


class Rot90Backward0(Node):                  # derivatives.yaml: rot90
    __slots__ = ("_k", "_dims")
    _saved_k = saved_unsigned("_k")
    _saved_dims = saved_unsigned("_dims")

    def apply(self, grad):
        return grad.rot90(-self._k, self._dims),

    def jvp(self, ts, xs, out):
        return ts[0].rot90(self._k, self._dims)


def rot90(input, k=1, dims=(0, 1)):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    dims = tuple(int(d) for d in dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    d0, d1 = wrap_dim(dims[0], x.ndim), wrap_dim(dims[1], x.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    try:
        k = int(k)
    except (TypeError, ValueError):
        raise wrong_type(k, "int") from None
    m = k % 4
    # torch's layout: a flip (fresh, in the input's layout) then a transpose view
    if m == 1:
        r = np.swapaxes(np.flip(x, d1).copy(order="K"), d0, d1)
    elif m == 2:
        r = np.flip(x, (d0, d1)).copy(order="K")
    elif m == 3:
        r = np.swapaxes(np.flip(x, d0).copy(order="K"), d0, d1)
    else:
        r = np.ascontiguousarray(x).copy() if x.flags.c_contiguous else np.ascontiguousarray(x)
    res = wrap(r)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = Rot90Backward0()
        node._k, node._dims = k, dims
        link(res, node, input)
    return res


# ------------------------------------------------------------------ tril / triu

class TrilBackward0(Node):                   # derivatives.yaml: tril
    __slots__ = ("_diagonal",)
    _saved_diagonal = saved_unsigned("_diagonal")

    def apply(self, grad):
        return grad.tril(self._diagonal),

    def jvp(self, ts, xs, out):
        return ts[0].tril(self._diagonal)


class TriuBackward0(Node):                   # derivatives.yaml: triu
    __slots__ = ("_diagonal",)
    _saved_diagonal = saved_unsigned("_diagonal")

    def apply(self, grad):
        return grad.triu(self._diagonal),

    def jvp(self, ts, xs, out):
        return ts[0].triu(self._diagonal)


def _tri(name, npfn, node_cls):
    def op(input, diagonal=0, *, out=None):
        try:
            x = input._data
        except AttributeError as e:
            raise not_tensor(e) from None
        if x.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        diagonal = _diagonal(diagonal)
        res = wrap(npfn(x, diagonal))
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = node_cls()
            node._diagonal = diagonal
            link(res, node, input)
        if out is not None:
            return write_out(res, out, name)
        return res
    op.__name__ = name
    return op


tril = _tri("tril", np.tril, TrilBackward0)
triu = _tri("triu", np.triu, TriuBackward0)


def _diagonal(diagonal, frame=None):
    """tril/triu's diagonal: an int (an integral 0-d tensor too), not a float or a bool."""
    if type(diagonal) is int:
        return diagonal
    try:
        if isinstance(diagonal, (bool, float)):
            raise TypeError
        return _index(diagonal)
    except (TypeError, ValueError, RuntimeError):
        raise wrong_type(diagonal, "int", frame=frame or sys._getframe(1)) from None


def _check_tri_batches(self, diagonal):
    """tril_/triu_ of 4 or more dims: torch writes in place when the batch dims lay the
    matrices out one after another (the first batch dim may be expanded or of size 1), and
    otherwise writes a contiguous copy back with copy_, which refuses a tensor with an
    expanded dim (as it refuses any copy into one). Found by experiment."""
    x = self._data
    if x.ndim < 4 or x.flags.c_contiguous:
        return
    shape, isz = x.shape, x.itemsize
    _diagonal(diagonal, sys._getframe(1))
    check_inplace(self, STATE.enabled and self._requires_grad, write=False)
    expected = shape[-1] * shape[-2]
    for i in range(x.ndim - 3, -1, -1):
        st = x.strides[i] // isz
        if i == 0 and (st == 0 or shape[0] == 1):
            continue
        if st != expected:
            break
        expected *= shape[i]
    else:
        return
    if any(st == 0 and n > 1 for st, n in zip(x.strides, shape)):
        raise RuntimeError(OVERLAP)


def tril_(self, diagonal=0):
    _check_tri_batches(self, diagonal)
    return inplace(self, tril(inplace_source(self), diagonal),
                   written=masked(lambda: ~np.tril(np.ones(self._data.shape, np.bool_),
                                                   diagonal)))


def triu_(self, diagonal=0):
    # (into an expanded tensor too, as in torch: the elements zeroed are the ones written)
    _check_tri_batches(self, diagonal)
    return inplace(self, triu(inplace_source(self), diagonal),
                   written=masked(lambda: ~np.triu(np.ones(self._data.shape, np.bool_),
                                                   diagonal)))


# ------------------------------------------------------------------ diagonal family

def _diag_view(x, offset, d1, d2):
    """A writable NumPy view of the diagonal (NumPy's own is read-only)."""
    r = np.diagonal(x, offset, d1, d2)
    if x.flags.writeable:
        r.flags.writeable = True
    return r


def _diag_dims(ndim, offset, dim1, dim2):
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class DiagonalBackward0(Node):               # derivatives.yaml: diagonal
    __slots__ = ("_offset", "_saved_dim1", "_saved_dim2", "_saved_self_sym_sizes")
    _saved_offset = saved_unsigned("_offset")

    def apply(self, grad):
        return diagonal_backward(grad, self._saved_self_sym_sizes, self._offset,
                                 self._saved_dim1, self._saved_dim2),

    def jvp(self, ts, xs, out):
        return diagonal(ts[0], self._offset, self._saved_dim1, self._saved_dim2)


class DiagonalBackward0_copy(DiagonalBackward0):   # derivatives.yaml: diagonal_copy
    __slots__ = ()

    def jvp(self, ts, xs, out):
        return diagonal(ts[0], self._offset, self._saved_dim1, self._saved_dim2).clone()


def diagonal_backward(grad, sizes, offset, d1, d2):
    def writer(z, g):
        _diag_view(z, offset, d1, d2)[...] = g
    return embed(grad, sizes, writer, DiagonalBackwardBackward0,
                 lambda gg: diagonal(gg, offset, d1, d2))


def diagonal(input, offset=0, dim1=0, dim2=1):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d1, d2 = _diag_dims(x.ndim, offset, dim1, dim2)
    try:
        offset = int(offset)
    except (TypeError, ValueError):
        raise wrong_type(offset, "int") from None
    res = make_view(wrap(_diag_view(x, offset, d1, d2)), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = DiagonalBackward0()
        node._offset, node._saved_dim1, node._saved_dim2 = offset, d1, d2
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


class DiagEmbedBackward0(Node):              # derivatives.yaml: diag_embed
    __slots__ = ("_offset", "_dim1", "_dim1_arg", "_dim2", "_dim2_arg")
    _saved_dim1 = saved_arg("_dim1", "_dim1_arg")
    _saved_dim2 = saved_arg("_dim2", "_dim2_arg")
    _saved_offset = saved_unsigned("_offset")

    def apply(self, grad):
        return diagonal(grad, self._offset, self._dim1, self._dim2),

    def jvp(self, ts, xs, out):
        return diag_embed(ts[0], self._offset, self._dim1, self._dim2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    n = x.ndim + 1
    d1, d2 = _diag_dims(n, offset, dim1, dim2)
    try:
        offset = int(offset)
    except (TypeError, ValueError):
        raise wrong_type(offset, "int") from None
    k = (x.shape[-1] if x.ndim else 1) + abs(offset)
    batch = list(x.shape[:-1])
    shape = [0] * n
    it = iter(batch)
    for i in range(n):
        shape[i] = k if i in (d1, d2) else next(it)
    z = np.zeros(shape, x.dtype)
    _diag_view(z, offset, d1, d2)[...] = x
    res = wrap(z)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = DiagEmbedBackward0()
        node._offset, node._dim1, node._dim2 = offset, d1, d2
        node._dim1_arg, node._dim2_arg = dim1, dim2
        link(res, node, input)
    return res


def diag(input, diagonal=0, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim == 1:
        res = diag_embed(input, diagonal, -2, -1)      # (as torch passes them)
    elif x.ndim == 2:
        try:
            res = wrap(np.diagonal(x, int(diagonal)).copy())
        except (TypeError, ValueError):
            raise wrong_type(diagonal, "int") from None
        if STATE.enabled and input._requires_grad or LEVELS and dual(input):
            node = DiagonalBackward0_copy()
            node._offset, node._saved_dim1, node._saved_dim2 = int(diagonal), 0, 1
            node._saved_self_sym_sizes = x.shape
            link(res, node, input)
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D")
    if out is not None:
        return write_out(res, out)
    return res


def diagflat(input, offset=0):
    return diag_embed(reshape(input, -1), offset, -2, -1)


class TraceBackward0(Node):                  # derivatives.yaml: trace
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        # trace_backward: zeros(numel).index_fill_(0, diagonal positions, grad).view(sizes)
        from .scatter import index_fill
        sizes = self._saved_self_sym_sizes
        pos = np.arange(min(sizes)) * (sizes[1] + 1)
        flat = wrap(np.zeros(sizes[0] * sizes[1], grad._data.dtype))
        return index_fill(flat, 0, wrap(pos), grad).view(sizes),

    def jvp(self, ts, xs, out):
        return trace(ts[0])


def trace(input):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dt = np.int64 if x.dtype.kind in "biu" else x.dtype
    res = wrap(np.trace(x, dtype=dt))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = TraceBackward0()
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


# ------------------------------------------------------------------ unfold

class UnfoldBackward0(Node):                 # derivatives.yaml: unfold
    __slots__ = ("_dimension", "_dimension_arg", "_saved_size", "_saved_step",
                 "_saved_self_sym_sizes")
    _saved_dimension = saved_arg("_dimension", "_dimension_arg")

    def apply(self, grad):
        return unfold_backward(grad, self._saved_self_sym_sizes, self._dimension,
                               self._saved_size, self._saved_step),

    def jvp(self, ts, xs, out):
        return unfold(ts[0], self._dimension, self._saved_size, self._saved_step)


def unfold_backward(grad, sizes, d, size, step):
    def writer(z, g):
        zz = z if z.ndim else z.reshape(1)
        count = (zz.shape[d] - size) // step + 1
        g = g.reshape(zz.shape[:d] + (count,) + zz.shape[d + 1:] + (size,))
        pre = (slice(None),) * d
        for k in range(size):      # element k of every window: one strided slice
            zz[pre + (slice(k, k + (count - 1) * step + 1, step),)] += g[..., k]
    return embed(grad, sizes, writer, UnfoldBackwardBackward0,
                 lambda gg: unfold(gg, d, size, step))


def unfold(input, dimension, size, step):
    x = input._data
    d = wrap_dim(dimension, x.ndim)
    xs = x.reshape(1) if x.ndim == 0 else x
    n = xs.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (n - size) // step + 1
    shape = xs.shape[:d] + (count,) + xs.shape[d + 1:] + (size,)
    st = xs.strides
    strides = st[:d] + (st[d] * step,) + st[d + 1:] + (st[d],)
    # writable even where windows overlap: torch lets in-place ops write such views (what
    # they then give is undefined, as torch's Tensor.expand docs warn)
    r = _as_strided(xs, shape, strides, writeable=x.flags.writeable)
    if x.ndim == 0:
        r = r.reshape(size)
    res = make_view(wrap(r), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = UnfoldBackward0()
        node._dimension, node._saved_size, node._saved_step = d, size, step
        node._dimension_arg = dimension
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


# ------------------------------------------------------------------ meshgrid / atleast

MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                    "indexing argument.")


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, tt in enumerate(tensors):        # (torch checks the types before it warns)
        if not isinstance(tt, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(tt).__name__}")
    if indexing is None:
        warn_once("meshgrid", MESHGRID_WARNING)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tt in tensors[1:]:
        try:
            if tt._data.dtype != tensors[0]._data.dtype:
                raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        except AttributeError as e:
            raise not_tensor(e) from None
    for tt in tensors:
        try:
            if tt._data.ndim > 1:
                raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                                   f"but got: {tt}")
        except AttributeError as e:
            raise not_tensor(e) from None
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(tt._data.size for tt in ts)
    n = len(ts)
    outs = []
    for i, tt in enumerate(ts):
        vs = [1] * n
        vs[i] = -1
        outs.append(expand(view(tt, vs), shape))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def _tensor_seq(tensors, name):
    """The tensors of atleast_*d(*tensors) or atleast_*d(list): a lone argument that is no
    sequence matches no overload of torch's, and every element must be a Tensor."""
    ts = tensors[0] if len(tensors) == 1 else tensors
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(ts).__name__}), but expected one of:\n * (Tensor input)\n")
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return ts


def atleast_1d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t_ = tensors[0]
        return reshape(t_, (1,)) if t_._data.ndim == 0 else t_
    return tuple(atleast_1d(t_) for t_ in _tensor_seq(tensors, "atleast_1d"))


def atleast_2d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t_ = tensors[0]
        n = t_._data.ndim
        if n == 0:
            return reshape(t_, (1, 1))
        return unsqueeze(t_, 0) if n == 1 else t_
    return tuple(atleast_2d(t_) for t_ in _tensor_seq(tensors, "atleast_2d"))


def atleast_3d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t_ = tensors[0]
        n = t_._data.ndim
        if n == 0:
            return reshape(t_, (1, 1, 1))
        if n == 1:
            return unsqueeze(unsqueeze(t_, 0), -1)
        return unsqueeze(t_, -1) if n == 2 else t_
    return tuple(atleast_3d(t_) for t_ in _tensor_seq(tensors, "atleast_3d"))


# ------------------------------------------------------------------ *_scatter
# out = input.clone() with src written into a view of it. Derivatives: the gradient with
# that region zeroed (the same scatter, of zeros) for input; the region of the gradient
# (the view op) for src.

class _ScatterNode(Node):
    __slots__ = ("_op", "_view", "_src_shape", "_args")   # _args: the view's, as given

    def apply(self, grad):
        gi = gs = None
        if self.next_functions[0][0] is not None:
            gi = self._op(grad, wrap(np.zeros(self._src_shape, grad._data.dtype)))
        if self.next_functions[1][0] is not None:
            gs = self._view(grad)
        return gi, gs

    def jvp(self, ts, xs, out):                 # src's tangent written into input's
        return self._op(ts[0], ts[1])


def _given(i):
    """torch's _saved_<name> for the view's argument i, as the caller gave it (unsigned)."""
    return property(lambda self: unsigned(self._args[i]))


class SelectScatterBackward0(_ScatterNode):
    __slots__ = ()
    _saved_dim, _saved_index = _given(0), _given(1)


class SliceScatterBackward0(_ScatterNode):
    __slots__ = ()
    _saved_dim, _saved_start, _saved_end, _saved_step = (_given(i) for i in range(4))


class DiagonalScatterBackward0(_ScatterNode):
    __slots__ = ()
    _saved_offset, _saved_dim1, _saved_dim2 = (_given(i) for i in range(3))


def scatter_into(input, src, region, node_cls, op, view_op, args):
    """input.clone() with src written into region(clone's array); args: the view's arguments
    as the caller gave them (torch's saved ones)."""
    out = input._data.copy()
    v = region(out)
    try:
        if v.shape != src._data.shape:
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(src._data.shape)}, slice size = {list(v.shape)}")
    except AttributeError as e:
        raise not_tensor(e) from None
    v[...] = src._data
    res = wrap(out)
    if STATE.enabled and (input._requires_grad or src._requires_grad) or \
            LEVELS and dual(input, src):
        node = node_cls()
        node._op, node._view, node._src_shape = op, view_op, src._data.shape
        node._args = args
        link(res, node, input, src)
    return res


def select_scatter(input, src, dim, index):
    x = input._data
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    given = dim, index
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {dim}")
    index %= n
    idx = (slice(None),) * d + (index,)
    return scatter_into(input, src, lambda a: a[idx], SelectScatterBackward0,
                        lambda g, z: select_scatter(g, z, d, index),
                        lambda g: select(g, d, index), given)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    try:
        d1, d2 = _diag_dims(input._data.ndim, offset, dim1, dim2)
    except AttributeError as e:
        raise not_tensor(e) from None
    try:
        offset = int(offset)
    except (TypeError, ValueError):
        raise wrong_type(offset, "int") from None
    return scatter_into(input, src, lambda a: _diag_view(a, offset, d1, d2),
                        DiagonalScatterBackward0,
                        lambda g, z: diagonal_scatter(g, z, offset, d1, d2),
                        lambda g: diagonal(g, offset, d1, d2), (offset, dim1, dim2))


def _tri_indices(name, fn):
    def op(row, col, offset=0, *, dtype=None, device=None, layout=None):
        check_args(name, ("row", 1, "int", row), ("col", 2, "int", col),
                   ("offset", 3, "int", offset))
        dt = D.int64 if dtype is None else dtype
        if dt.np.kind not in "iu":
            raise NotImplementedError(f'"{name}" not implemented for \'{type_name(dt.np)}\'')
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        r, c = fn(row, offset, col)
        return wrap(np.stack([r, c]).astype(dt.np).reshape(2, -1))
    op.__name__ = name
    return op


tril_indices = _tri_indices("tril_indices", np.tril_indices)
triu_indices = _tri_indices("triu_indices", np.triu_indices)


# ------------------------------------------------------------------ in-place metadata changes
# x.t_(), x.unsqueeze_(0), ...: the tensor itself becomes the view; torch names these nodes
# with the next overload number (TBackward1, SqueezeBackward3...).

class TBackward1(TBackward0):
    __slots__ = ()


class TransposeBackward1(TransposeBackward0):
    __slots__ = ()


class UnsqueezeBackward1(UnsqueezeBackward0):
    __slots__ = ()


class SqueezeBackward3(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward4(SqueezeBackward1):
    __slots__ = ()


class SqueezeBackward5(SqueezeBackward2):
    __slots__ = ()


_INPLACE_NODE = {TBackward0: TBackward1, TransposeBackward0: TransposeBackward1,
                 UnsqueezeBackward0: UnsqueezeBackward1, SqueezeBackward0: SqueezeBackward3,
                 SqueezeBackward1: SqueezeBackward4, SqueezeBackward2: SqueezeBackward5}


def _meta_inplace(op):
    def method(self, *args, **kwargs):
        check_inplace(self, STATE.enabled and self._requires_grad, write=False)
        res = op(self, *args, **kwargs)
        _alias_saved_outputs(self)      # (before self's array changes: found by identity)
        self._data = res._data
        if res._x and "fw" in res._x:    # the tangents change shape with self
            self._extra()["fw"] = res._x["fw"]
        node = res._grad_fn
        if node is not None:
            node.__class__ = _INPLACE_NODE[type(node)]
            self._grad_fn = node
            self._output_nr = 0
        reshaped_in_place(self, node is not None)
        return self
    method.__name__ = op.__name__ + "_"
    return method


def _base(self):
    x = self._x
    return x.get("base") if x else None


def _is_view(self):
    return bool(self._x and "base" in self._x)


_t_inplace = _meta_inplace(t)


def t_(self):
    x = getattr(self, "_data", None)
    if x is not None and x.ndim > 2:
        check_inplace(self, STATE.enabled and self._requires_grad, write=False)
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _t_inplace(self)
transpose_ = swapaxes_ = swapdims_ = _meta_inplace(transpose)
unsqueeze_ = _meta_inplace(unsqueeze)
squeeze_ = _meta_inplace(squeeze)


# ================================================================ surface ops (issue 14):
# as_strided (a view op), as_strided_ and as_strided_scatter
__all__ += ["as_strided", "as_strided_", "as_strided_scatter"]


def _strided_view(input, size, stride, storage_offset):
    """A NumPy view of input's memory with element size/stride/offset (offset counted from
    the start of the memory input lives in, as torch counts it from its storage)."""
    x = input._data
    size = tuple(int(_index(s)) for s in size)
    stride = tuple(int(_index(s)) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    mem = _memory(x)     # (through an unfold's as_strided too: else a copy was viewed)
    isz = x.itemsize
    start = (x.__array_interface__["data"][0] - mem.__array_interface__["data"][0]) // isz
    off = start if storage_offset is None else int(storage_offset)
    need = 0 if 0 in size else off + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    span = mem.nbytes // isz
    if need > span:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {off}, and itemsize {isz} requiring a storage size of "
                           f"{need * isz} are out of bounds for storage of size {span * isz}")
    strides = tuple(s * isz for s in stride)
    if mem.flags.c_contiguous or mem.flags.f_contiguous:
        # a view whose base is the owner of input's memory (so it is found as a view)
        return np.ndarray(size, x.dtype, buffer=mem, offset=off * isz, strides=strides)
    flat = np.ndarray((span,), x.dtype, buffer=np.ascontiguousarray(mem))
    return np.lib.stride_tricks.as_strided(flat[off:], size, strides)


def as_strided(input, size, stride, storage_offset=None):
    arr = _strided_view(input, size, stride, storage_offset)
    res = make_view(wrap(arr), input)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = AsStridedBackward0()
        node._view, node._base = arr, input._data
        node._given = arr.shape, tuple(int(_index(s)) for s in stride), \
            None if storage_offset is None else int(storage_offset)
        link(res, node, input)
    return res


def as_strided_(self, size, stride, storage_offset=None):
    if STATE.enabled and self._requires_grad or LEVELS and dual(self):
        raise RuntimeError("as_strided_ of a tensor that requires grad is not supported by "
                           "ember (its history would not follow the new geometry)")
    arr = _strided_view(self, size, stride, storage_offset)
    check_inplace(self, False)
    self._data = arr
    mark_written(self)
    return self


class AsStridedScatterBackward0(Node):       # derivatives.yaml: as_strided_scatter
    __slots__ = ("_idx", "_given")      # _given: (size, stride, storage_offset) as torch saves
    _saved_size = property(lambda self: self._given[0])
    _saved_stride = property(lambda self: self._given[1])
    _saved_storage_offset = property(lambda self: self._given[2])

    def apply(self, grad):
        flat = grad.reshape(-1)
        idx = wrap(self._idx.reshape(-1))
        # (torch's formula ends in as_strided views of its geometry: so do these, C-ordered
        # over the fresh flat tensors)
        g0 = flat.index_fill(0, idx, 0).as_strided(grad.shape, _c_strides(grad.shape)) \
            if self.next_functions[0][0] else None
        g1 = flat[idx].as_strided(self._idx.shape, _c_strides(self._idx.shape)) \
            if self.next_functions[1][0] else None
        return g0, g1


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input (as a contiguous tensor) with src written where the strided view
    (size, stride, storage_offset, in input's elements) lies."""
    x = input._data
    pos = np.arange(x.size, dtype=np.int64)
    idx = _strided_view(wrap(pos), size, stride, 0 if storage_offset is None
                        else storage_offset).copy()
    if tuple(src.shape) != idx.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(idx.shape)}")
    out = np.array(x, order="C").reshape(-1)
    out[idx.reshape(-1)] = src._data.reshape(-1)
    res = wrap(out.reshape(x.shape))
    if STATE.enabled and (input._requires_grad or src._requires_grad) or \
            LEVELS and dual(input, src):
        node = AsStridedScatterBackward0()
        node._idx = idx
        node._given = idx.shape, tuple(int(_index(s)) for s in stride), \
            None if storage_offset is None else int(storage_offset)
        link(res, node, input, src)
    return res
