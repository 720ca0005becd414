"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, with
the tie order of torch's CPU kernels (forward, node, derivative)."""
__all__ = ["median", "nanmedian", "mode", "topk", "sort", "argsort", "msort", "kthvalue"]

import math

import numpy as np

from .. import return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, saved_alias, saved_arg
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import wrap_dim, write_out
from ._args import not_tensor, check_args, invalid_args, args_fit, OMITTED, c_strides
from .reduce import (MaxBackward0, MaxBackward1, _complex_check, _kernel_check, _np_aliases,
                     _pymin, _scatter_add)

# ---------------------------------------------------------------- tie order of torch's CPU kernels
# Which of several equal elements topk / kthvalue report depends on the selection algorithm
# torch's CPU kernels run (libstdc++ nth_element / partial_sort / sort for topk, a
# median-of-three quickselect for kthvalue). Rows without relevant ties take the fast NumPy
# path; rows with ties replay those algorithms on (value, index) pairs.
# Replays run in Python: beyond this many elements per call, ties keep NumPy's stable order.
_REPLAY_LIMIT = 1 << 16


def _cmp_top(largest):
    if largest:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _lg(n):
    return n.bit_length() - 1


def _move_median_to_first(v, result, a, b, c, comp):
    if comp(v[a], v[b]):
        if comp(v[b], v[c]):
            v[result], v[b] = v[b], v[result]
        elif comp(v[a], v[c]):
            v[result], v[c] = v[c], v[result]
        else:
            v[result], v[a] = v[a], v[result]
    elif comp(v[a], v[c]):
        v[result], v[a] = v[a], v[result]
    elif comp(v[b], v[c]):
        v[result], v[c] = v[c], v[result]
    else:
        v[result], v[b] = v[b], v[result]


def _partition_pivot(v, first, last, comp):
    _move_median_to_first(v, first, first + 1, first + (last - first) // 2, last - 1, comp)
    lo, hi, piv = first + 1, last, v[first]
    while True:
        while comp(v[lo], piv):
            lo += 1
        hi -= 1
        while comp(piv, v[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _insertion_sort(v, first, last, comp):
    for i in range(first + 1, last):
        val = v[i]
        if comp(val, v[first]):
            v[first + 1:i + 1] = v[first:i]
            v[first] = val
        else:
            j = i
            while comp(val, v[j - 1]):
                v[j] = v[j - 1]
                j -= 1
            v[j] = val


def _adjust_heap(v, first, hole, n, value, comp):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if comp(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value


def _make_heap(v, first, last, comp):
    n = last - first
    if n < 2:
        return
    parent = (n - 2) // 2
    while True:
        _adjust_heap(v, first, parent, n, v[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(v, first, last, result, comp):
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, comp)


def _partial_sort(v, first, middle, last, comp):
    _make_heap(v, first, middle, comp)
    for i in range(middle, last):
        if comp(v[i], v[first]):
            _pop_heap(v, first, middle, i, comp)
    while middle - first > 1:
        middle -= 1
        _pop_heap(v, first, middle, middle, comp)


def _nth_element(v, nth, comp):
    first, last = 0, len(v)
    if nth == last:
        return
    depth = 2 * _lg(last)
    while last - first > 3:
        if depth == 0:
            _partial_sort(v, first, nth + 1, last, comp)   # heap_select + sort
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, comp)


def _introsort(v, first, last, depth, comp):
    while last - first > 16:
        if depth == 0:
            _partial_sort(v, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        _introsort(v, cut, last, depth, comp)
        last = cut


def _std_sort(v, first, last, comp):
    if last - first > 1:
        _introsort(v, first, last, 2 * _lg(last - first), comp)
        _insertion_sort(v, first, last, comp)


def _topk_row(row, k, largest, sorted_):
    comp = _cmp_top(largest)
    v = [(float(a) if row.dtype.kind == "f" else a, i) for i, a in enumerate(row.tolist())]
    n = len(v)
    if k * 64 <= n:
        _partial_sort(v, 0, k, n, comp)
    else:
        _nth_element(v, k - 1, comp)
        if sorted_:
            _std_sort(v, 0, k - 1, comp)
    return [i for _, i in v[:k]]


def _quickselect_row(row, k):
    """torch's quick_select_template (median-of-three, NaN as largest): index of the k-th
    smallest (0-based)."""
    v = [(a, i) for i, a in enumerate(row.tolist())]
    gt = lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]  # noqa: E731
    lo, hi = 0, len(v) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if gt(v[lo], v[hi]):
                v[lo], v[hi] = v[hi], v[lo]
            break
        p = lo + (hi - lo) // 2
        v[p], v[lo + 1] = v[lo + 1], v[p]
        if gt(v[lo + 1], v[hi]):
            v[lo + 1], v[hi] = v[hi], v[lo + 1]
        if gt(v[lo], v[hi]):
            v[lo], v[hi] = v[hi], v[lo]
        if gt(v[lo + 1], v[lo]):
            v[lo + 1], v[lo] = v[lo], v[lo + 1]
        i, j, piv = lo + 1, hi, v[lo]
        while True:
            i += 1
            while gt(piv, v[i]):
                i += 1
            j -= 1
            while gt(v[j], piv):
                j -= 1
            if j < i:
                break
            v[i], v[j] = v[j], v[i]
        v[lo], v[j] = v[j], v[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return v[k][1]


def _rows(x, d):
    """x with dim d moved last, as a 2-D array of rows."""
    xm = np.moveaxis(x, d, -1)
    return xm.reshape(-1, xm.shape[-1]) if xm.shape[-1] else xm.reshape(-1, 0)


def _unrows(r, x, d, n):
    xm_shape = np.moveaxis(x, d, -1).shape[:-1] + (n,)
    return np.moveaxis(r.reshape(xm_shape), -1, d)


def _eq_adjacent(sv):
    """Per row: whether sorted values sv (rows x m) hold equal neighbours (NaN == NaN)."""
    if sv.shape[1] < 2:
        return np.zeros(sv.shape[0], bool)
    a, b = sv[:, 1:], sv[:, :-1]
    eq = a == b
    if sv.dtype.kind in "fc":
        eq |= np.isnan(a) & np.isnan(b)
    return eq.any(axis=1)

# ---------------------------------------------------------------- sorting and selection


def _stable_order(x, axis, descending):
    """Stable argsort along axis with NaN as the largest value (torch's order)."""
    if x.dtype.kind in "fc":
        nan = np.isnan(x)
        if descending:
            return np.lexsort((-np.where(nan, 0, x), ~nan), axis=axis) if x.ndim else \
                np.zeros((), np.int64)
        return np.argsort(x, axis=axis, kind="stable")
    if descending:
        if x.dtype.kind == "b":
            key = ~x
        elif x.dtype.kind == "u":
            key = np.iinfo(x.dtype).max - x
        else:
            key = ~x
        return np.argsort(key, axis=axis, kind="stable")
    return np.argsort(x, axis=axis, kind="stable")


class SortBackward0(Node):                   # derivatives.yaml: sort.stable
    __slots__ = ("_idx", "_indices", "_dim", "_dim_arg", "_saved_self_sym_sizes")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    # _indices: the indices output, saved as torch saves it (a later in-place write to it,
    # or a second backward, is refused: Note [Versions]); the formula reads _idx (its
    # array); _saved_indices / _raw_saved_indices read _indices
    _saved_names = ("_indices",)
    _saved_indices, _raw_saved_indices = saved_alias("_indices")

    def apply(self, grad):
        # (a 0-dim input too: zeros.scatter(_add)(0, indices, grad), as torch records it)
        return _scatter_add(grad, self._dim, self._idx,
                            self._saved_self_sym_sizes),

    def jvp(self, ts, xs, out):                 # the tangent in the sorted order
        t = ts[0]
        return t.gather(self._dim, wrap(self._idx)) if t._data.ndim \
            else t.clone()


class SortBackward1(SortBackward0):          # derivatives.yaml: sort.stable (stable= given)
    __slots__ = ()


class TopkBackward0(SortBackward0):          # derivatives.yaml: topk
    __slots__ = ()


def _sort_order(x, d, descending, stable):
    """torch's CPU sort order: stable for stable=True and short rows (insertion sort);
    otherwise libstdc++'s introsort, replayed on rows whose values hold ties."""
    idx = _stable_order(x, d, descending).astype(np.int64)
    n = x.shape[d]
    if stable or n <= 16:
        return idx
    if x.ndim == 1 and x.dtype.kind in "iu" and not descending and n >= 32768:
        return idx                           # torch radix-sorts long 1-D integer input
    tied = np.nonzero(_eq_adjacent(_rows(np.take_along_axis(x, idx, d), d)))[0]
    if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
        rows, ir = _rows(x, d), _rows(idx, d).copy()
        comp = _cmp_top(descending)
        for r in tied:
            row = rows[r]
            v = [(a, i) for i, a in enumerate(row.tolist())]
            _std_sort(v, 0, n, comp)
            ir[r] = [i for _, i in v]
        idx = _unrows(ir, x, d, n)
    return idx


def sort(input, dim=-1, descending=False, stable=None, *, out=None, axis=None):
    if not args_fit(("bool", descending), ("bool", stable)):
        raise invalid_args("sort", (input,), {k: v for k, v in (("stable", stable), (
            "descending", descending)) if not args_fit(("bool", v))})
    if axis is not None:
        dim = axis
    if isinstance(dim, bool):
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    _complex_check(input, " Sort does not support complex dtypes on CPU")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        idx = _sort_order(x, d, descending, stable)
        vals = np.take_along_axis(x, idx, d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SortBackward0() if stable is None else SortBackward1()
        node._dim, node._idx, node._indices = d, idx, indices
        node._dim_arg = dim
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    return _pair_out(values, indices, out, _RT.sort, _RT.sort_out)


def _pair_out(values, indices, out, rt, rt_out):
    """(values, indices) as rt, or written into out=(values, indices) and returned as rt_out
    (sort's and topk's out=, which take the arrays as they are)."""
    if out is None:
        return rt((values, indices))
    write_out(values, out[0])
    write_out(indices, out[1])
    return rt_out(out)


def argsort(input, dim=-1, descending=False, stable=False, *, axis=None):
    if not args_fit(("bool", descending), ("bool", stable)):
        raise invalid_args("argsort", (input,), {k: v for k, v in (("stable", stable), (
            "descending", descending)) if not args_fit(("bool", v))})
    if axis is not None:
        dim = axis
    _complex_check(input, " Sort does not support complex dtypes on CPU")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return wrap(np.zeros((), np.int64))
    return wrap(_sort_order(x, d, descending, stable))


def msort(input, *, out=None):
    return write_out(sort(input, 0)[0], out, "sort")


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    check_args("topk", ("k", 2, "int", k), ("dim", 3, "int", dim), ("largest", 4, "bool", largest),
               ("sorted", 5, "bool", sorted))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _complex_check(input, " topk does not support complex dtypes on CPU")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        order = _stable_order(x, d, largest).astype(np.int64)
        idx = np.take(order, range(k), axis=d)
        if k:
            # rows where ties touch the first k+1 sorted values: replay torch's algorithm
            top = _rows(np.take_along_axis(x, np.take(order, range(_pymin(k + 1, n)), axis=d),
                                           d), d)
            # sorted=False: torch returns nth_element's arrangement, so replay every row
            tied = np.nonzero(_eq_adjacent(top) | (not sorted and k * 64 > n))[0]
            if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
                rows, ir = _rows(x, d), _rows(idx, d).copy()
                for r in tied:
                    ir[r] = _topk_row(rows[r], k, largest, sorted)
                idx = _unrows(ir, x, d, k)
        vals = np.take_along_axis(x, idx, d)
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = TopkBackward0()
        node._dim, node._idx, node._indices = d, idx, indices
        node._dim_arg = dim
        node._saved_self_sym_sizes = x.shape
        link(values, node, input)
    return _pair_out(values, indices, out, _RT.topk, _RT.topk_out)


class KthvalueBackward0(MaxBackward0):       # derivatives.yaml: kthvalue
    __slots__ = ()


class MedianBackward1(MaxBackward0):         # derivatives.yaml: median.dim
    __slots__ = ()


class NanmedianBackward1(MaxBackward0):      # derivatives.yaml: nanmedian.dim
    __slots__ = ()


class ModeBackward0(MaxBackward0):           # derivatives.yaml: mode
    __slots__ = ()


def _select_kth(input, dim, keepdim, pos_fn, node_cls, rt, name):
    """values/indices of the element at sorted position pos_fn(x_sorted, n) along dim."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        pos_fn(None, 1)
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"{'median' if name == 'nanmedian' else name}(): Expected "
                             f"reduction dim {d} to have non-zero size.")   # (torch's words)
        order = _stable_order(x, d, False).astype(np.int64)
        sx = np.take_along_axis(x, order, d)
        pos = pos_fn(sx, n, d)
        idx = np.take_along_axis(order, pos, d)
        if node_cls is KthvalueBackward0:
            kv = np.take_along_axis(sx, pos, d)
            eq = (x == kv) | (np.isnan(x) & np.isnan(kv)) if x.dtype.kind == "f" else x == kv
            tied = np.nonzero(_rows(eq, d).sum(axis=1) > 1)[0]
            if len(tied) and len(tied) * n <= _REPLAY_LIMIT:
                rows, ir = _rows(x, d), _rows(idx, d).copy()
                kk = int(pos.reshape(-1)[0])
                for r in tied:
                    ir[r] = _quickselect_row(rows[r], kk)
                idx = _unrows(ir, x, d, 1)
        elif node_cls is NanmedianBackward1 and x.dtype.kind == "f":
            # an all-NaN slice: torch's nth_element over equivalent elements picks this one
            allnan = np.isnan(x).all(axis=d, keepdims=True)
            if allnan.any():
                v = [(0, i) for i in range(n)]
                _nth_element(v, 0, lambda a, b: False)
                idx = np.where(allnan, v[0][1], idx)
        vals = np.take_along_axis(x, idx, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    return rt(_values_indices(vals, idx, input, node_cls, d, keepdim, dim))


def _values_indices(vals, idx, input, node_cls, d, keepdim, dim):
    """(values, indices) of a reduction that selects one element along dim d, values linked
    to node_cls (which scatters the gradient back to the indices) when input requires grad."""
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        node._dim, node._saved_keepdim = d, keepdim
        node._dim_arg = dim
        node._idx, node._indices = idx, indices
        node._saved_self_sym_sizes = input._data.shape
        link(values, node, input)
    return values, indices


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    check_args("kthvalue", ("k", 2, "int", k), ("dim", 3, "int", dim, True),
               ("keepdim", 4, "bool", keepdim))
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "kthvalue_cpu", "bc")
    def pos(sx, n, d=None):
        if not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}"
                               if d is not None else "kthvalue(): selected number k out of "
                               "range for dimension 0")
        if sx is None:
            return None
        shape = list(sx.shape)
        shape[d] = 1
        return np.full(shape, k - 1, np.int64)
    return write_pair(_select_kth(input, dim, keepdim, pos, KthvalueBackward0, _RT.kthvalue,
                                  "kthvalue"), out, _RT.kthvalue_out)


def write_pair(res, out, rt):
    """out=(values, indices): both written into (resized as torch resizes), that pair
    returned as rt (torch's return_types.<name>_out)."""
    if out is None:
        return res
    name = rt.__name__[:-len("_out")]
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    write_out(res[0], out[0], name)
    write_out(res[1], out[1], name)
    return rt((out[0], out[1]))


def _median_pos(ignore_nan):
    def pos(sx, n, d=None):
        if sx is None:
            return None
        shape = list(sx.shape)
        shape[d] = 1
        if sx.dtype.kind in "fc":
            valid = np.sum(~np.isnan(sx), axis=d, keepdims=True)
            if ignore_nan:
                return np.maximum((valid - 1) // 2, 0).astype(np.int64)
            return np.where(valid < n, valid, (n - 1) // 2).astype(np.int64)
        return np.full(shape, (n - 1) // 2, np.int64)
    return pos


class MedianBackward0(MaxBackward1):         # derivatives.yaml: median (whole tensor)
    __slots__ = ()


class NanmedianBackward0(MaxBackward1):      # derivatives.yaml: nanmedian (whole tensor)
    __slots__ = ()


def _median_all(input, ignore_nan):
    x = input._data
    name = "nanmedian" if ignore_nan else "median"
    if x.size == 0:             # torch: NaN, converted to the dtype (bool True, int64 min)
        with np.errstate(invalid="ignore"):
            v = np.asarray(np.nan).astype(x.dtype)
    else:
        flat = x.reshape(-1)
        if x.dtype.kind in "fc" and np.isnan(flat).any():
            if not ignore_nan:
                v = np.asarray(np.nan, x.dtype)
            else:
                valid = np.sort(flat[~np.isnan(flat)])
                v = np.asarray(valid[(valid.size - 1) // 2] if valid.size else np.nan, x.dtype)
        else:
            v = np.asarray(np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])
    res = wrap(v)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = NanmedianBackward0() if ignore_nan else MedianBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        link(res, node, input)
    return res


def _empty_reduction(x, dim):
    """Whether a median reduces over nothing: an empty tensor, or an empty dim."""
    if dim is None or not x.ndim:
        return x.size == 0
    return x.shape[wrap_dim(dim, x.ndim)] == 0


def median(input, dim=OMITTED, keepdim=False, *, out=None, axis=None, keepdims=None):
    return _median(input, dim, keepdim, out, axis, keepdims, False)


def nanmedian(input, dim=OMITTED, keepdim=False, *, out=None, axis=None, keepdims=None):
    return _median(input, dim, keepdim, out, axis, keepdims, True)


def _median(input, dim, keepdim, out, axis, keepdims, nan):
    """median (nan False: a NaN is the median) or nanmedian (NaNs ignored)."""
    fn = "nanmedian" if nan else "median"
    if dim is OMITTED:
        if out is not None:             # out= belongs to the dim overload
            raise TypeError(f'{fn}() missing 1 required positional arguments: "dim"')
    else:
        check_args(fn, ("dim", 2, "int", dim))
    dim, keepdim = _np_aliases(None if dim is OMITTED else dim, keepdim, axis, keepdims)
    try:
        if dim is not None:             # (torch checks the dim before the dtype)
            wrap_dim(dim, input._data.ndim)
        if not _empty_reduction(input._data, dim):  # (torch checks that before the dtype)
            _kernel_check(input, "median_cpu" if dim is None else "median_out", "bc")
    except AttributeError as e:
        raise not_tensor(e) from None
    if dim is None:
        return _median_all(input, nan)
    if nan:
        node_cls, rt, rt_out, name = (NanmedianBackward1, _RT.nanmedian, _RT.nanmedian_out,
                                      "nanmedian")
    else:
        node_cls, rt, rt_out, name = MedianBackward1, _RT.median, _RT.median_out, "median"
    return write_pair(_select_kth(input, dim, keepdim, _median_pos(nan), node_cls, rt, name),
                      out, rt_out)


def _mode_row(row):
    """torch's mode kernel: std::sort (value, index) pairs by value, take the first longest
    run; its index is that of the run's last element."""
    v = [(a, i) for i, a in enumerate(row.tolist())]
    _std_sort(v, 0, len(v), lambda a, b: a[0] < b[0])
    best = run = 0
    val, idx = v[0]
    for i in range(len(v)):
        run += 1
        if i == len(v) - 1 or v[i][0] != v[i + 1][0]:
            if run > best:
                best, val, idx = run, v[i][0], v[i][1]
            run = 0
    return val, idx


def mode(input, dim=-1, keepdim=False, *, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    _kernel_check(input, "mode_cpu")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
        xm = np.moveaxis(x, d, -1)
        rows = xm.reshape(-1, n)
        v = np.empty(rows.shape[0], x.dtype)
        ix = np.empty(rows.shape[0], np.int64)
        replay = rows.size <= _REPLAY_LIMIT
        for i, row in enumerate(rows):
            if not replay or n <= 16 and not (row != row).any():  # stable order suffices
                u, c = np.unique(row, return_counts=True)
                val = u[np.argmax(c)]
                ix[i] = n - 1 - np.argmax(row[::-1] == val)
            else:
                ix[i] = _mode_row(row)[1]
            v[i] = row[ix[i]]       # torch's value is the element at its index (0.0 or -0.0)
        vals = np.moveaxis(v.reshape(xm.shape[:-1] + (1,)), -1, d)
        idx = np.moveaxis(ix.reshape(xm.shape[:-1] + (1,)), -1, d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
        else:       # (torch's are contiguous: Note [Size-1 strides])
            vals, idx = c_strides(vals), c_strides(idx)
    return write_pair(_RT.mode(_values_indices(vals, idx, input, ModeBackward0, d, keepdim, dim)),
                      out, _RT.mode_out)


# ================================================================ surface ops (issue 14):
# unique, unique_consecutive, searchsorted, bucketize, isin
__all__ += ["unique", "unique_consecutive", "searchsorted", "bucketize", "isin"]


class _Underivable(Node):
    """A node for an op torch records but does not differentiate: backward raises its
    NotImplementedError naming the op."""
    __slots__ = ()
    _what = ""

    def apply(self, grad):
        raise NotImplementedError(f"the derivative for '{self._what}' is not implemented.")


class Unique2Backward0(_Underivable):
    __slots__ = ()
    _what = "_unique2"


class UniqueDimBackward0(_Underivable):
    __slots__ = ()
    _what = "unique_dim"


class UniqueConsecutiveBackward0(_Underivable):
    __slots__ = ()
    _what = "unique_consecutive"


def _unique_data(input, name):
    """unique's and unique_consecutive's input array (torch has no complex kernel for them)."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"{name}\" not implemented for '{type_name(x.dtype)}'")
    return x


def _starts(a):
    """Where a (1-d, or one row per slice) starts a new run of equal elements."""
    new = np.ones(len(a), bool)
    ne = a[1:] != a[:-1]
    new[1:] = ne if a.ndim == 1 else ne.any(axis=1)
    return new


def _run_counts(new):
    """The length of each run that `new` (from _starts) starts."""
    return np.diff(np.append(np.nonzero(new)[0], new.size))


def _unique_result(input, values, inverse, counts, node_cls, return_inverse, return_counts):
    out = wrap(values)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link(out, node_cls(), input)
    if not (return_inverse or return_counts):
        return out
    res = (out,)
    if return_inverse:
        res += (wrap(inverse.astype(np.int64)),)
    if return_counts:
        res += (wrap(counts.astype(np.int64)),)
    return res


def _rows_of(x, d):
    """x with dimension d first, flattened to one row per slice along d."""
    if x.size == 0 and x.shape[d]:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    m = np.moveaxis(x, d, 0)
    return m, m.reshape(m.shape[0], math.prod(m.shape[1:]))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    check_args("_unique2", ("sorted", None, "bool", sorted),
               ("return_inverse", None, "bool", return_inverse),
               ("return_counts", None, "bool", return_counts), ("dim", None, "int", dim, True))
    x = _unique_data(input, "unique")
    if dim is None:
        flat = x.reshape(-1)
        # NaNs stay apart, as in torch (each NaN is its own value)
        vals, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True,
                                   equal_nan=False)
        return _unique_result(input, vals, inv.reshape(x.shape), cnt, Unique2Backward0,
                              return_inverse, return_counts)
    d = wrap_dim(dim, x.ndim)
    moved, rows = _rows_of(x, d)
    if rows.shape[0] == 0:
        idx = inv = cnt = np.zeros(0, np.int64)
    else:
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
        new = _starts(rows[order])
        group = np.cumsum(new) - 1
        inv = np.empty(len(order), np.int64)
        inv[order] = group
        idx = order[new]
        cnt = _run_counts(new)
    vals = np.moveaxis(moved[idx], 0, d)
    return _unique_result(input, vals, inv, cnt, UniqueDimBackward0, return_inverse,
                          return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    check_args("unique_consecutive", ("return_inverse", None, "bool", return_inverse),
               ("return_counts", None, "bool", return_counts), ("dim", None, "int", dim, True))
    x = _unique_data(input, "unique_consecutive")
    if dim is None:
        flat = x.reshape(-1)
        new = _starts(flat)
        vals = flat[new]
        inv_shape = x.shape
    else:
        d = wrap_dim(dim, x.ndim)
        moved, rows = _rows_of(x, d)
        new = _starts(rows)
        vals = np.moveaxis(moved[new], 0, d)
        inv_shape = (rows.shape[0],)
    inv = (np.cumsum(new) - 1).reshape(inv_shape)
    cnt = _run_counts(new)
    if x.ndim == 0 and dim is None:
        vals = vals.reshape(1)
    return _unique_result(input, vals, inv, cnt, UniqueConsecutiveBackward0, return_inverse,
                          return_counts)


def _search_side(side, right):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        return side
    return "right" if right else "left"


def _searchsorted_rows(b, v, side):
    """searchsorted of each row of v (2-D) in the matching row of b (2-D), all rows at once:
    sort each row's boundaries and values together (ties ordered by side) and count the
    boundaries before each value."""
    n = b.shape[1]
    both = np.concatenate([b, v], axis=1)
    kind = np.concatenate([np.full(b.shape, 0 if side == "right" else 1),
                           np.full(v.shape, 1 if side == "right" else 0)], axis=1)
    order = np.lexsort((kind, both), axis=1)
    is_b = order < n
    before = np.cumsum(is_b, axis=1) - is_b
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.broadcast_to(np.arange(order.shape[1]), order.shape),
                      axis=1)
    return np.take_along_axis(before, pos[:, n:], axis=1)


def _search_rows(b, v, side):
    """torch's binary search of each row of v (2-D) in the matching row of b (2-D), all rows at
    once: lo/hi halved together, a step to the right where not (b[mid] >= v) (side 'right': not
    b[mid] > v), as torch's kernel steps. On sorted rows that is the count of boundaries
    before each value; on unsorted or NaN-holding ones (undefined, but torch gives an answer)
    it is torch's answer."""
    n = b.shape[1]
    lo = np.zeros(v.shape, np.int64)
    hi = np.full(v.shape, n, np.int64)
    r = np.arange(b.shape[0])[:, None]
    act = lo < hi
    while act.any():
        mid = (lo + hi) >> 1
        bm = b[r, np.minimum(mid, n - 1)]
        go = ~(bm > v) if side == "right" else ~(bm >= v)
        lo = np.where(act & go, mid + 1, lo)
        hi = np.where(act & ~go, mid, hi)
        act = lo < hi
    return lo


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    try:
        b = sorted_sequence._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if not args_fit(("Tensor or Number", input)) or input is None:
        raise invalid_args("searchsorted", (sorted_sequence, input))
    side = _search_side(side, right)
    if b.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    scalar = not isinstance(input, Tensor)
    v = np.asarray(input) if scalar else input._data
    if sorter is not None:
        b = np.take_along_axis(b, sorter._data, axis=-1)
    if b.ndim > 1 and (scalar or b.shape[:-1] != v.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor {list(b.shape)} "
                           f"and input value tensor {list(v.shape)}")
    dt = np.result_type(b.dtype, v.dtype)
    b, v = b.astype(dt, copy=False), v.astype(dt, copy=False)
    if b.ndim == 1:     # (on unsorted boundaries numpy's search may answer otherwise than torch)
        res = np.searchsorted(b, v, side=side)
    else:
        m = int(np.prod(b.shape[:-1]))
        rows = b.reshape(m, b.shape[-1])
        vs = v.reshape(m, v.size // m if m else 0)
        # sorted rows without NaN (a NaN fails some comparison, or b == b alone): the joint
        # sort; any others: torch's binary search step by step
        ordered = (rows[:, 1:] >= rows[:, :-1]).all() if rows.shape[1] > 1 else \
            (rows == rows).all()
        res = (_searchsorted_rows(rows, vs, side) if ordered else
               _search_rows(rows, vs, side)).reshape(v.shape)
    res = wrap(np.asarray(res, np.int32 if out_int32 else np.int64))
    return write_out(res, out)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    if not isinstance(boundaries, Tensor):
        raise TypeError(f"bucketize() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(boundaries).__name__}), but expected "
                        f"one of:")
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    if not (isinstance(elements, Tensor) or isinstance(test_elements, Tensor)) or not \
            args_fit(("Tensor or Number", elements), ("Tensor or Number", test_elements),
                     ("bool", assume_unique),
                     ("bool", invert)) or None in (elements, test_elements):
        kw = {k: v for k, v in (("assume_unique", assume_unique), ("invert", invert)) if v}
        raise invalid_args("isin", (elements, test_elements), kw)
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    for a in (e, t):
        if a.dtype.kind == "c":
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{type_name(a.dtype)}")
    return write_out(wrap(np.isin(e, t, invert=invert)), out)
