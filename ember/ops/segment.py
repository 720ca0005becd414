"""torch.segment_reduce (a prototype op in torch): reduce consecutive segments of data along
`axis`, the segment lengths given per row of the leading dimensions (lengths=) or as their
boundaries (offsets=). Empty segments give `initial`, or the reduction's identity (sum 0, prod
1, max -inf, min inf; mean nan). Loaded on first use (Note [Lazy layer ops])."""
import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, NotImplementedBackward, link
from ..dtypes import type_name
from ..tensor import wrap
from ._args import check_args, not_tensor, wrap_dim

__all__ = ["segment_reduce"]

_EMPTY = {"sum": 0.0, "mean": np.nan, "max": -np.inf, "min": np.inf, "prod": 1.0}


def _blocks(x, lengths, axis):
    """x as (B, N, T) and the lengths as (B, S), B the leading and T the trailing sizes."""
    b = int(np.prod(x.shape[:axis], dtype=np.int64))
    return x.reshape(b, x.shape[axis], -1), lengths.reshape(b, -1)


def _starts(lens):
    return np.concatenate([np.zeros((lens.shape[0], 1), np.int64),
                           np.cumsum(lens, axis=1)], axis=1)


def _forward(x, lens, reduce, initial):
    """x: (B, N, T), lens: (B, S) -> (B, S, T)."""
    xb, lb = x, lens
    starts = _starts(lb)
    out = np.empty((xb.shape[0], lb.shape[1], xb.shape[2]), x.dtype)
    for i in range(xb.shape[0]):
        for s in range(lb.shape[1]):
            seg = xb[i, starts[i, s]:starts[i, s + 1]]
            n = seg.shape[0]
            if n == 0:
                out[i, s] = _EMPTY[reduce] if initial is None else initial
                continue
            init = initial
            if reduce in ("sum", "mean"):
                v = seg.sum(axis=0) + (0 if init is None else init)
                out[i, s] = v / n if reduce == "mean" else v
            elif reduce == "prod":
                out[i, s] = seg.prod(axis=0) * (1 if init is None else init)
            else:
                f = np.maximum if reduce == "max" else np.minimum
                v = f.reduce(seg, axis=0)
                out[i, s] = v if init is None else f(v, init)
    return out


class SegmentReduceBackward0(Node):          # derivatives.yaml: _segment_reduce_backward
    __slots__ = ("_saved_axis", "_saved_data", "_saved_initial", "_saved_lengths",
                 "_saved_offsets", "_saved_reduce", "_saved_result")

    def apply(self, grad):
        data = self._saved_data._data
        axis = self._saved_axis
        lens = self._saved_lengths
        lens = np.diff(self._saved_offsets._data, axis=-1) if lens is None else lens._data
        xb, lb = _blocks(data, lens.astype(np.int64), axis)
        gb = grad._data.reshape(xb.shape[0], lb.shape[1], -1)
        rb = self._saved_result._data.reshape(gb.shape)
        starts = _starts(lb)
        reduce, init = self._saved_reduce, self._saved_initial
        out = np.zeros(xb.shape, data.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(xb.shape[0]):
                for s in range(lb.shape[1]):
                    a, b = starts[i, s], starts[i, s + 1]
                    if a >= b:
                        continue
                    seg, g, r = xb[i, a:b], gb[i, s], rb[i, s]
                    if reduce == "sum":
                        out[i, a:b] = g
                    elif reduce == "mean":
                        out[i, a:b] = g / (b - a)
                    elif reduce in ("max", "min"):
                        hit = seg == r
                        out[i, a:b] = np.where(hit, g / hit.sum(axis=0), 0)
                    else:
                        out[i, a:b] = _prod_grad(seg, g, r, init)
        res = wrap(out.reshape(data.shape))
        data_t = self._saved_data
        if STATE.enabled and (grad._requires_grad or data_t._requires_grad):
            node = NotImplementedBackward()     # (torch defines no double backward)
            node._op = "_segment_reduce_backward"
            link(res, node, grad, data_t)
        return res,


def _prod_grad(seg, g, r, init):
    """d prod / d x_j: the product of the others (with initial): result / x_j where x_j is not
    0; at the one zero of a segment, the product of the rest; 0 where two or more are zero."""
    zero = seg == 0
    nz = zero.sum(axis=0)
    others = np.where(zero, 1, seg).prod(axis=0) * (1 if init is None else init)
    return np.where(nz == 0, g * r / seg, np.where(zero & (nz == 1), g * others, 0))


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    try:
        x = data._data
    except AttributeError as e:
        raise not_tensor(e) from None
    check_args("segment_reduce", ("reduce", 2, "str", reduce))
    if reduce not in _EMPTY:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if lengths is None and offsets is None:
        if indices is not None:
            raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    axis = wrap_dim(axis, x.ndim)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    if lengths is not None:
        lens = lengths._data
        kernel = "_segment_reduce_lengths_cpu_kernel1"
    else:
        lens = offsets._data
        kernel = "_segment_reduce_offsets_cpu_kernel1"
    if lens.dtype not in (np.int32, np.int64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(lens.dtype)}'")
    if lens.ndim - 1 != axis:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    if lengths is None:
        lens = np.diff(lens, axis=-1)
    lens = lens.astype(np.int64)
    if not unsafe:
        if (lens.sum(axis=-1) != x.shape[axis]).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
        if (lens < 0).any():
            raise RuntimeError("lengths contains negative value!")
    xb, lb = _blocks(x, lens, axis)
    out = _forward(xb, lb, reduce, initial)
    res = wrap(out.reshape(x.shape[:axis] + (lb.shape[1],) + x.shape[axis + 1:]))
    if STATE.enabled and data._requires_grad:
        node = SegmentReduceBackward0()
        node._saved_axis, node._saved_data, node._saved_initial = axis, data, initial
        node._saved_lengths, node._saved_offsets = lengths, offsets
        node._saved_reduce, node._saved_result = reduce, wrap(res._data)
        link(res, node, data)
    return res
