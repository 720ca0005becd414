"""Shape ops and views. A view shares its base's NumPy memory exactly when torch's does."""
__all__ = ["view", "reshape", "expand", "unsqueeze", "squeeze", "unbind"]

import numpy as np

from ..autograd.graph import Node, link, link_multi
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, Size, wrap
from ._common import wrap_dim


def size_args(args):
    """Sizes given as varargs, a tuple, a list, a Size, or a 1-elem tensor list."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)


def infer_size(shape, numel):
    """Resolve one -1 in a view shape; torch's errors for bad shapes."""
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class ViewBackward0(Node):                   # derivatives.yaml: view
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),


def view(input, *shape):
    x = input._data
    shape = infer_size(size_args(shape), x.size)
    try:
        r = np.reshape(x, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return _view_result(input, r, shape)


def _view_result(input, r, shape):
    res = wrap(r)
    if STATE.enabled and input._requires_grad:
        node = ViewBackward0()
        node._saved_self_sym_sizes = input._data.shape
        link(res, node, input)
    return res


class UnsafeViewBackward0(Node):             # derivatives.yaml: _unsafe_view
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),


def reshape(input, *shape):
    x = input._data
    shape = infer_size(size_args(shape), x.size)
    try:
        r = np.reshape(x, shape, copy=False)
    except ValueError:
        # not viewable: torch copies (clone) and then views the copy
        return input.clone(memory_format=None)._reshape_copy(shape)
    return _view_result(input, r, shape)


def _reshape_copy(copied, shape):
    res = wrap(np.reshape(copied._data, shape))
    if STATE.enabled and copied._requires_grad:
        node = UnsafeViewBackward0()
        node._saved_self_sym_sizes = copied._data.shape
        link(res, node, copied)
    return res


class ExpandBackward0(Node):                 # derivatives.yaml: expand
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        from ..autograd.engine import _sum_to
        return _sum_to(grad, self._saved_self_sym_sizes),


def expand(input, *sizes):
    x = input._data
    sizes = size_args(sizes)
    if len(sizes) < x.ndim:
        raise RuntimeError(f"expand(torch.{input.dtype.name}{{{list(x.shape)}}}, size="
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
        elif cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(x.shape)}")
        target.append(s)
    target = tuple(target)
    if target == x.shape:
        r = x.view()
    else:
        r = np.broadcast_to(x, target)
    res = wrap(r)
    if STATE.enabled and input._requires_grad:
        node = ExpandBackward0()
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


class UnsqueezeBackward0(Node):
    __slots__ = ("_saved_dim",)

    def apply(self, grad):
        return grad.squeeze(self._saved_dim),


def unsqueeze(input, dim):
    x = input._data
    d = wrap_dim(dim, x.ndim + 1)
    res = wrap(np.expand_dims(x, d))
    if STATE.enabled and input._requires_grad:
        node = UnsqueezeBackward0()
        node._saved_dim = d
        link(res, node, input)
    return res


class SqueezeBackward0(Node):                # squeeze(): all size-1 dims
    __slots__ = ("_saved_self_sym_sizes",)

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),


class SqueezeBackward1(Node):                # squeeze.dim
    __slots__ = ("_saved_dim", "_saved_self_sym_sizes")

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),


class SqueezeBackward2(Node):                # squeeze.dims
    __slots__ = ("_saved_dim", "_saved_self_sym_sizes")

    def apply(self, grad):
        return grad.reshape(self._saved_self_sym_sizes),


def squeeze(input, dim=None):
    x = input._data
    if dim is None:
        node = SqueezeBackward0()
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
    else:
        multi = isinstance(dim, (tuple, list))
        dims = [wrap_dim(d, x.ndim) for d in (dim if multi else (dim,))]
        node = SqueezeBackward2() if multi else SqueezeBackward1()
        node._saved_dim = tuple(dims) if multi else dims[0]
        axes = tuple(d for d in dims if x.ndim and x.shape[d] == 1)
    res = wrap(np.squeeze(x, axis=axes) if axes else x.view())
    if STATE.enabled and input._requires_grad:
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


class UnbindBackward0(Node):                 # derivatives.yaml: unbind.int
    __slots__ = ("_saved_dim", "_n_outputs", "_shape", "_dtype")

    def apply(self, grads):
        from .. import creation
        parts = [g if g is not None else creation.zeros(self._shape, dtype=self._dtype)
                 for g in grads]
        return stack_grads(parts, self._saved_dim),


def stack_grads(parts, dim):
    from .join import stack
    return stack(parts, dim)


def unbind(input, dim=0):
    x = input._data
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, x.ndim)
    outs = [wrap(x[(slice(None),) * d + (i,)])
            for i in range(x.shape[d])]
    if STATE.enabled and input._requires_grad:
        node = UnbindBackward0()
        node._saved_dim = d
        node._n_outputs = len(outs)
        node._shape = x.shape[:d] + x.shape[d + 1:]
        node._dtype = input.dtype
        link_multi(outs, node, input)
    return tuple(outs)


def _bind():
    T = Tensor
    T.view, T.reshape, T.expand, T.unsqueeze, T.squeeze, T.unbind = \
        view, reshape, expand, unsqueeze, squeeze, unbind
    T._reshape_copy = _reshape_copy
    T.view_as = lambda self, other: view(self, other._data.shape)
    T.reshape_as = lambda self, other: reshape(self, other._data.shape)
    T.expand_as = lambda self, other: expand(self, other._data.shape)


_bind()
