"""Joining and splitting: cat, stack (and their backward nodes)."""
__all__ = ["cat", "concat", "concatenate", "stack", "narrow"]

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import wrap_dim, write_out


class CatBackward0(Node):                    # derivatives.yaml: cat
    __slots__ = ("_saved_dim", "_sizes")

    def apply(self, grad):
        out, start = [], 0
        for (node, _), n in zip(self.next_functions, self._sizes):
            out.append(grad.narrow(self._saved_dim, start, n) if node is not None and n else None)
            start += n
        return tuple(out)


def cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    # torch skips 1-D empty tensors when concatenating
    parts = [t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)] or tensors[:1]
    ref = parts[0]._data
    d = wrap_dim(dim, ref.ndim)
    rt = parts[0].dtype
    for t in parts[1:]:
        rt = D.promote_types(rt, t.dtype)
    for i, t in enumerate(parts):
        if t._data.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and "
                               f"{t._data.ndim}")
        for k in range(ref.ndim):
            if k != d and t._data.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[k]} but got size "
                                   f"{t._data.shape[k]} for tensor number {i} in the list.")
    res = wrap(np.concatenate([t._data for t in parts], axis=d, dtype=rt.np))
    if STATE.enabled and any(t._requires_grad for t in parts):
        node = CatBackward0()
        node._saved_dim = d
        node._sizes = [t._data.shape[d] for t in parts]
        link(res, node, *parts)
    if out is not None:
        return write_out(res, out)
    return res


concat = concatenate = cat


class StackBackward0(Node):                  # derivatives.yaml: stack
    __slots__ = ("_saved_dim",)

    def apply(self, grad):
        return tuple(g if node is not None else None
                     for g, (node, _) in zip(grad.unbind(self._saved_dim), self.next_functions))


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t._data.shape)} at entry {i}")
    d = wrap_dim(dim, len(shape) + 1)
    rt = tensors[0].dtype
    for t in tensors[1:]:
        rt = D.promote_types(rt, t.dtype)
    res = wrap(np.stack([t._data for t in tensors], axis=d, dtype=rt.np))
    if STATE.enabled and any(t._requires_grad for t in tensors):
        node = StackBackward0()
        node._saved_dim = d
        link(res, node, *tensors)
    if out is not None:
        return write_out(res, out)
    return res


class NarrowBackward0(Node):
    __slots__ = ("_saved_dim", "_saved_start", "_saved_self_sym_sizes")

    def apply(self, grad):
        from .. import creation
        full = creation.zeros(self._saved_self_sym_sizes, dtype=grad.dtype)
        n = grad.shape[self._saved_dim]
        return _pad_into(full, grad, self._saved_dim, self._saved_start, n),


def _pad_into(full, grad, dim, start, n):
    """Differentiable placement of grad into a zero tensor (cat of zeros around it)."""
    shape = list(full.shape)
    before = list(shape); before[dim] = start
    after = list(shape); after[dim] = shape[dim] - start - n
    from .. import creation
    parts = []
    if start:
        parts.append(creation.zeros(before, dtype=grad.dtype))
    parts.append(grad)
    if after[dim]:
        parts.append(creation.zeros(after, dtype=grad.dtype))
    return cat(parts, dim) if len(parts) > 1 else grad


def narrow(input, dim, start, length):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if start < 0:
        start += x.shape[d]
    if start < 0 or start + length > x.shape[d] or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({x.shape[d]}).")
    idx = (slice(None),) * d + (slice(start, start + length),)
    res = wrap(x[idx])
    if STATE.enabled and input._requires_grad:
        node = NarrowBackward0()
        node._saved_dim = d
        node._saved_start = start
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def _bind():
    Tensor.narrow = narrow


_bind()
