"""Embedding lookups: embedding (EmbeddingBackward0), embedding_bag (EmbeddingBagBackward0) and
the in-place max_norm renormalisation of the weight (embedding_renorm_).

Backward formulas are written with Tensor methods (index_add, indexing, sum), so they record
a graph under create_graph; the NumPy forms (np_apply) give the same numbers for the plain
backward pass."""
import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..tensor import wrap
from ._args import needs
from ._args import not_tensor
from ._views import mark_written

__all__ = []

# the number torch's nodes show for "no padding index" (-1 read as an unsigned 64-bit int)
_NO_PADDING = 18446744073709551615


def _check_indices(indices, op):
    try:
        dt = indices._data.dtype
    except AttributeError as e:
        raise not_tensor(e) from None
    if dt != np.int64 and dt != np.int32:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{indices.type()} instead (while checking arguments for {op})")


def _freq_scale(idx, num_weights, dtype):
    """1 / (how often each index occurs), per position: scale_grad_by_freq."""
    counts = np.bincount(idx, minlength=num_weights)
    return (1.0 / counts[idx]).astype(dtype)


# ---------------------------------------------------------------- embedding

class EmbeddingBackward0(Node):              # derivatives.yaml: embedding
    __slots__ = ("_saved_indices", "_saved_padding_idx", "_saved_scale_grad_by_freq",
                 "_saved_sparse", "_saved_weight_sym_argsize_0")
    _saved_names = ("_saved_indices",)

    def apply(self, grad):
        return embedding_dense_backward(grad, self._saved_indices,
                                        self._saved_weight_sym_argsize_0,
                                        self._saved_padding_idx,
                                        self._saved_scale_grad_by_freq),

    def np_apply(self, grad):
        return _dense_backward_np(grad, self._saved_indices._data,
                                  self._saved_weight_sym_argsize_0, self._saved_padding_idx,
                                  self._saved_scale_grad_by_freq),


def _dense_backward_np(g, indices, num_weights, padding_idx, scale_grad_by_freq):
    """embedding's weight gradient on arrays: the rows of g added at their indices (the
    padding index's left out, each scaled by 1 / its index's count with scale_grad_by_freq)."""
    d = g.shape[-1]
    idx = indices.reshape(-1).astype(np.int64, copy=False)
    rows = g.reshape(-1, d)
    if padding_idx != _NO_PADDING:
        keep = idx != padding_idx
        if not keep.all():
            pos = np.flatnonzero(keep)
            idx, rows = idx[pos], rows[pos]
    if scale_grad_by_freq:
        rows = rows * _freq_scale(idx, num_weights, g.dtype)[:, None]
    out = np.zeros((num_weights, d), g.dtype)
    np.add.at(out, idx, rows)
    return out


def embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """embedding's weight gradient as an op of its own, as torch records it under create_graph
    (EmbeddingDenseBackwardBackward0)."""
    res = wrap(_dense_backward_np(grad._data, indices._data, num_weights, padding_idx,
                                  scale_grad_by_freq))
    if STATE.enabled and grad._requires_grad or LEVELS and dual(grad):
        node = EmbeddingDenseBackwardBackward0()
        node._saved_indices, node._saved_padding_idx = indices, padding_idx
        node._num_weights, node._scale_grad_by_freq = num_weights, scale_grad_by_freq
        link(res, node, grad)
    return res


class EmbeddingDenseBackwardBackward0(Node):  # derivatives.yaml: embedding_dense_backward
    __slots__ = ("_num_weights", "_saved_indices", "_saved_padding_idx", "_scale_grad_by_freq")
    _saved_names = ("_saved_indices",)

    def apply(self, grad):
        # embedding_dense_double_backward: grad.index_select(0, indices.reshape(-1)), the
        # padding index's rows filled with 0, viewed as indices' shape + (-1,). (torch leaves
        # out scale_grad_by_freq's scale here; ember applies it, so the derivative is right.)
        idx = self._saved_indices
        flat = idx.reshape(-1)
        gg = grad.index_select(0, flat)
        if self._scale_grad_by_freq:
            scale = _freq_scale(flat._data.astype(np.int64), self._num_weights,
                                grad._data.dtype)
            gg = gg * wrap(scale[:, None])
        if self._saved_padding_idx != _NO_PADDING:
            gg = gg.masked_fill((idx == self._saved_padding_idx).reshape(-1, 1), 0)
        return gg.view(tuple(idx._data.shape) + (-1,)),


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: rows of weight picked by indices (output shape indices.shape + (D,))."""
    _check_indices(indices, "embedding")
    w = weight._data
    if w.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data
    n = w.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    res = wrap(w[idx])
    if STATE.enabled and weight._requires_grad or LEVELS and dual(weight):
        node = EmbeddingBackward0()
        node._saved_indices = indices
        node._saved_padding_idx = padding_idx if padding_idx >= 0 else _NO_PADDING
        node._saved_scale_grad_by_freq = bool(scale_grad_by_freq)
        node._saved_sparse = bool(sparse)
        node._saved_weight_sym_argsize_0 = n
        link(res, node, weight)
    return res


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Scale each row of weight that indices use and whose norm exceeds max_norm down to
    max_norm (with torch's 1e-7 guard), in place; the caller holds no_grad."""
    w = weight._data
    rows = np.unique(indices._data.reshape(-1))
    bad = (rows < -w.shape[0]) | (rows >= w.shape[0])
    error = None
    if bad.any():       # torch renormalises the rows (in sorted order) before the bad one
        k = int(np.argmax(bad))
        error = IndexError(f"select(): index {rows[k]} out of range for tensor of size "
                           f"{list(w.shape)} at dimension 0")
        rows = rows[:k]
    if rows.size:
        sel = w[rows]
        p = float(norm_type)
        a = np.abs(sel)
        if p == np.inf:
            norms = a.max(1)
        elif p == 1:
            norms = a.sum(1)
        elif p == 2:
            norms = np.sqrt((a * a).sum(1))
        else:
            norms = (a ** p).sum(1) ** (1.0 / p)
        big = norms > max_norm
        if big.any():
            scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
            w[rows[big]] = sel[big] * scale[:, None]
    mark_written(weight)
    if error is not None:
        raise error
    return weight


# ---------------------------------------------------------------- embedding_bag

_MODES = {"sum": 0, "mean": 1, "max": 2}


class EmbeddingBagBackward0(Node):           # derivatives.yaml: _embedding_bag
    # bag_of: the bag of each (kept) position; pos: the kept positions (None: all);
    # max_rows: for mode max, the index picked for each (bag, column)
    __slots__ = ("_saved_indices", "_saved_offsets", "_saved_mode", "_saved_padding_idx",
                 "_saved_scale_grad_by_freq", "_saved_sparse", "_saved_weight",
                 "_saved_per_sample_weights", "_saved_weight_sym_argsize_0", "_saved_result1",
                 "_saved_result2", "_saved_result3", "_bag_of", "_pos", "_bag_size")
    _saved_names = ("_saved_indices", "_saved_offsets", "_saved_weight",
                    "_saved_per_sample_weights", "_saved_result1", "_saved_result2",
                    "_saved_result3")

    def apply(self, grad):
        gw = gp = None
        n, d = self._saved_weight_sym_argsize_0, grad._data.shape[-1]
        if self._saved_mode == 2:
            if needs(self, 0):
                picked = self._saved_result3._data        # (B, D) index per bag and column
                full = self._bag_size > 0
                flat = (picked[full] * d + np.arange(d)).reshape(-1)
                gw = grad.new_zeros((n * d,)).index_add(
                    0, wrap(flat), grad[wrap(np.flatnonzero(full))].reshape(-1)).reshape(n, d)
            return gw, None
        idx = self._saved_indices._data.reshape(-1).astype(np.int64, copy=False)
        pos, bag_of = self._pos, self._bag_of
        if pos is not None:
            idx = idx[pos]
        rows = grad[wrap(bag_of)]
        if needs(self, 1):
            psw_rows = (rows * self._saved_weight[wrap(idx)]).sum(1)
            if pos is None:
                gp = psw_rows
            else:
                gp = psw_rows.new_zeros(self._saved_indices._data.size).index_add(
                    0, wrap(pos), psw_rows)
        if needs(self, 0):
            scale = self._scale(grad._data.dtype)
            if scale is not None:
                rows = rows * wrap(scale[:, None])
            psw = self._saved_per_sample_weights
            if psw is not None:
                w = psw.reshape(-1)
                if pos is not None:
                    w = w[wrap(pos)]
                rows = rows * w.unsqueeze(1)
            gw = rows.new_zeros((n, d)).index_add(0, wrap(idx), rows)
        return gw, gp

    def _scale(self, dtype):
        """Per-row factor: 1/bag size for the mean, 1/frequency for scale_grad_by_freq."""
        scale = None
        if self._saved_mode == 1:
            scale = (1.0 / self._bag_size[self._bag_of]).astype(dtype)
        if self._saved_scale_grad_by_freq:
            # counted over every index, padding included (as torch does)
            f = _bag_freq_scale(self._saved_indices._data.reshape(-1), dtype)
            if self._pos is not None:
                f = f[self._pos]
            scale = f if scale is None else scale * f
        return scale


def _bag_freq_scale(idx, dtype):
    """embedding_bag's scale_grad_by_freq as torch computes it: the k-th smallest distinct
    index is divided by the count of the index at position k of the sorted indices (not by
    its own count; they differ when counts vary)."""
    uniq, inverse, counts = np.unique(idx, return_inverse=True, return_counts=True)
    per_sorted = np.repeat(counts, counts)        # count of each element of sort(idx)
    return (1.0 / per_sorted[:uniq.size][inverse]).astype(dtype)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """Sums, means or maxima of the embedding rows in each bag: bag b holds the positions
    offsets[b] .. offsets[b+1]-1 of the 1-D indices. Returns the (B, D) result."""
    _check_indices(indices, "embedding_bag")
    w = weight._data
    idx = indices._data.astype(np.int64, copy=False)
    off = offsets._data.astype(np.int64, copy=False)
    n_w, d = w.shape
    total = idx.shape[0]
    if off.size and off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {off[0]}")
    if off.size and off[-1] > total:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {total} but "
                           f"got offsets[-1] of {off[-1]}")
    if off.size > 1 and (np.diff(off) < 0).any():
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")
    bad = (idx < 0) | (idx >= n_w)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise RuntimeError(f"Index {k} of input takes value {idx[k]} which is not in the valid "
                           f"range [0, {n_w})")
    if include_last_offset:
        # the last offset only marks the bag count: the last bag runs to the end of the input
        # (torch's general kernel; its float32 fast path stops the sum at offsets[-1])
        n_bags = max(off.size - 1, 0)
        bounds = np.append(off[:n_bags], total)
    else:
        n_bags = off.size
        bounds = np.append(off, total)
    bag_of_all = np.repeat(np.arange(n_bags), np.diff(bounds)) if n_bags else \
        np.zeros(0, np.int64)
    cut = bag_of_all.size       # positions before offsets[0]: none (offsets[0] is 0)
    pos = None
    if padding_idx >= 0 or cut < total:
        keep = idx[:cut] != padding_idx
        if not keep.all() or cut < total:
            pos = np.flatnonzero(keep)
    kept_idx = idx if pos is None else idx[pos]
    bag_of = bag_of_all if pos is None else bag_of_all[pos]
    bag_size = np.bincount(bag_of, minlength=n_bags)
    rows = w[kept_idx]
    psw = None
    if per_sample_weights is not None:
        psw = per_sample_weights._data.reshape(-1)
        rows = rows * (psw if pos is None else psw[pos])[:, None]
    # the kept rows are grouped by bag, in order: one reduceat over the non-empty bags
    full = bag_size > 0
    starts = (np.cumsum(bag_size) - bag_size)[full]
    out = np.zeros((n_bags, d), w.dtype)
    picked = None
    if mode == 2:
        if rows.shape[0]:
            out[full] = np.maximum.reduceat(rows, starts, axis=0)
        # the first position in each bag holding its maximum, per column (torch's choice)
        picked = np.full((n_bags, d), -1, np.int64)
        if rows.shape[0]:
            hit = np.where(rows == out[bag_of], np.arange(rows.shape[0])[:, None],
                           rows.shape[0] - 1)         # (a NaN maximum matches nothing)
            picked[full] = kept_idx[np.minimum.reduceat(hit, starts, axis=0)]
    else:
        if rows.shape[0]:
            out[full] = np.add.reduceat(rows, starts, axis=0)
        if mode == 1:
            out[full] /= bag_size[full, None].astype(w.dtype)
    res = wrap(out)
    psw_req = per_sample_weights is not None and per_sample_weights._requires_grad
    if STATE.enabled and (weight._requires_grad or psw_req) or LEVELS and dual(weight):
        node = EmbeddingBagBackward0()
        node._saved_indices = indices
        node._saved_offsets = offsets
        node._saved_mode = mode
        node._saved_padding_idx = padding_idx if padding_idx >= 0 else _NO_PADDING
        node._saved_scale_grad_by_freq = bool(scale_grad_by_freq)
        node._saved_sparse = bool(sparse)
        node._saved_weight = weight if psw_req else None
        node._saved_per_sample_weights = per_sample_weights
        node._saved_weight_sym_argsize_0 = n_w
        node._saved_result1 = wrap(bag_of_all)
        node._saved_result2 = wrap(bag_size)
        node._saved_result3 = wrap(picked if picked is not None else np.zeros(0, np.int64))
        node._bag_of = bag_of
        node._pos = pos
        node._bag_size = bag_size
        link(res, node, weight, per_sample_weights)
    return res
