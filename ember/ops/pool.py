"""Pooling: max (with indices), average, adaptive average and adaptive max pooling over the last
two dims, max unpooling, and the 1-D forms (a 2-D pool on an unsqueezed input, as torch runs
them). Each pool is a loop over the kernel offsets of whole-array operations on strided views
(no loop over pixels); the max pools' backward scatters through the saved flat indices with one
np.add.at. Each backward is an op of its own whose node names torch's double backward."""
__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d"]     # (torch's top-level names; the rest: F.* only)

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..random import rand
from ..tensor import Tensor, wrap
from ._args import needs
from ._args import wrong_type, check_args, channels_last_result
from ._windows import offsets, int_tuple


# ------------------------------------------------------------------ helpers

def _pool_size(size, k, s, p, d, ceil_mode):
    """torch's pooling output length (ceil_mode: the last window must start inside the
    input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _pad_to(x, padding, out, kernel, stride, dilation, value):
    """x's last two dims padded with `value`: `padding` before, and after as far as the last
    window reaches (ceil_mode may need more than `padding`)."""
    extra = [max((o - 1) * s + d * (k - 1) + 1 - n - p, 0) for n, o, k, s, p, d in
             zip(x.shape[-2:], out, kernel, stride, padding, dilation)]
    if not any(padding) and not any(extra):
        return x
    shape = x.shape[:-2] + tuple(n + p + e for n, p, e in zip(x.shape[-2:], padding, extra))
    xp = np.full(shape, value, x.dtype)
    xp[(..., slice(padding[0], padding[0] + x.shape[-2]),
        slice(padding[1], padding[1] + x.shape[-1]))] = x
    return xp


def _argmax_views(views):
    """The elementwise max over a list of equally shaped views and which view holds it:
    torch's rule, the first largest, except that a NaN wins (the last NaN). A tournament:
    neighbours are compared pairwise, level by level (a tie keeps the earlier one)."""
    kt = np.int8 if len(views) < 128 else np.int32
    level = [(v, i) for i, v in enumerate(views)]      # (max so far, its view: int or array)
    while len(level) > 1:
        nxt = []
        for j in range(0, len(level) - 1, 2):
            (ma, ka), (mb, kb) = level[j], level[j + 1]
            later = mb > ma
            if type(ka) is int and kb == ka + 1 and kt is np.int8:
                k = later.view(np.int8)                 # (a fresh array of 0 and 1)
                if ka:
                    k += kt(ka)
            else:
                k = np.where(later, kt(kb) if type(kb) is int else kb, ka)
            nxt.append((np.maximum(ma, mb), k))
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    m, k = level[0]
    if type(k) is int:                                  # a single view
        m, k = m.copy(), np.zeros(m.shape, kt)
    # (a sum is NaN when some element is: a cheap test for the rare case; inf - inf or an
    # overflow only send it down the exact path)
    if m.dtype.kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            nan = np.isnan(np.add.reduce(m, axis=None))
    if m.dtype.kind == "f" and nan:
        for i, v in enumerate(views):
            k = np.where(np.isnan(v), kt(i), k)
    return m, k


def _plane_scatter(g, indices, size):
    """Each element of g (..., *out) added at its flat index within its plane of `size`
    elements: (..., size)."""
    lead = g.shape[:indices.ndim - 2]
    planes = int(np.prod(lead, dtype=np.int64))
    res = np.zeros(planes * size, g.dtype)
    idx = indices.reshape(planes, indices.shape[-2] * indices.shape[-1])
    g = g.reshape(idx.shape)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        # a max pool window entirely in the padding (possible with dilation) has an index
        # outside its plane, as in torch (whose backward then writes out of bounds): its
        # gradient reaches no input element
        keep = (idx >= 0) & (idx < size)
        idx, g = np.where(keep, idx, 0), np.where(keep, g, 0)
    flat = idx + (np.arange(planes) * size)[:, None]
    np.add.at(res, flat.reshape(-1), g.reshape(-1))
    return res.reshape(lead + (size,))


def _plane_gather(x, indices):
    """x (..., H, W) read at each plane's flat indices: indices' shape."""
    flat = x.reshape(x.shape[:-2] + (-1,))
    return np.take_along_axis(flat, indices.reshape(indices.shape[:-2] + (-1,)),
                              -1).reshape(indices.shape)


def _dims_check(x):
    if x.ndim not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(x.shape)}")


# ------------------------------------------------------------------ max_pool2d

def _max_pool_np(x, kernel, stride, padding, dilation, ceil_mode, with_indices):
    h, w = x.shape[-2:]
    out = tuple(_pool_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
                zip((h, w), kernel, stride, padding, dilation))
    low = _lowest(x.dtype)
    xp = _pad_to(x, padding, out, kernel, stride, dilation, low)
    views = [xp[(...,) + sl] for _, sl in offsets(kernel, stride, dilation, out)]
    if not with_indices:
        m = views[0].copy()
        for v in views[1:]:
            np.maximum(m, v, out=m)
        return m, None
    m, k = _argmax_views(views)
    # flat input index of window element k at output (i, j): (i*sh - ph + kh*dh) * W + ...
    kh, kw = np.divmod(np.arange(kernel[0] * kernel[1]), kernel[1])
    offs = kh * dilation[0] * w + kw * dilation[1]
    rows = np.arange(out[0]) * stride[0] - padding[0]
    cols = np.arange(out[1]) * stride[1] - padding[1]
    idx = np.take(offs, k)
    idx += rows[:, None] * w + cols
    if (any(padding) or xp is not x) and m.size and (m == low).any():
        # every input element of such a window is the lowest value: torch keeps the first
        # element inside the input (its maximum starts there), not a padded position
        first = [np.maximum(-((o * s - p) // d), 0) * d + o * s - p for o, s, p, d in
                 ((np.arange(n), s, p, d) for n, s, p, d in zip(out, stride, padding, dilation))]
        lowest = first[0][:, None] * w + first[1]
        idx = np.where(m == low, lowest, idx)
    return m, idx.astype(np.int64, copy=False)


class MaxPool2DWithIndicesBackward0(Node):   # derivatives.yaml: max_pool2d_with_indices
    __slots__ = ("_saved_self", "_saved_kernel_size", "_saved_stride", "_saved_padding",
                 "_saved_dilation", "_saved_ceil_mode", "_saved_result1")
    _saved_names = ("_saved_self", "_saved_result1")

    def apply(self, grad):
        return max_pool2d_with_indices_backward(
            grad, self._saved_self, self._saved_kernel_size, self._saved_stride,
            self._saved_padding, self._saved_dilation, self._saved_ceil_mode,
            self._saved_result1),

    def np_apply(self, g):
        x = self._saved_self._data
        return _plane_scatter(g, self._saved_result1._data,
                              x.shape[-2] * x.shape[-1]).reshape(x.shape),


def _self_zeros(node):
    """A pool backward's derivative in its input: zeros (torch's zeros_like(self)), when
    wanted."""
    return wrap(np.zeros(*node._self_meta)) if needs(node, 1) else None


class MaxPool2DWithIndicesBackwardBackward0(Node):   # max_pool2d_with_indices_backward
    __slots__ = ("_saved_indices", "_self_meta")

    def apply(self, grad):
        return (_gather(grad, self._saved_indices) if needs(self, 0) else None,
                _self_zeros(self))


def _gather(grad, indices):
    """grad (..., H, W) read at each plane's flat indices, with ember ops (differentiable)."""
    idx = indices._data
    flat = grad.reshape(idx.shape[:-2] + (-1,))
    return flat.gather(-1, wrap(idx.reshape(idx.shape[:-2] + (-1,)))).view(idx.shape)


def max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch.max_pool2d_with_indices on checked arguments: (output, indices)."""
    x = input._data
    need = STATE.enabled and input._requires_grad or LEVELS and dual(input)
    m, idx = _max_pool_np(x, kernel_size, stride or kernel_size, padding, dilation, ceil_mode,
                          True)
    res, indices = wrap(m), wrap(idx)
    if need:
        node = MaxPool2DWithIndicesBackward0()
        node._saved_self, node._saved_kernel_size = input, kernel_size
        node._saved_stride, node._saved_padding = stride, padding
        node._saved_dilation, node._saved_ceil_mode = dilation, ceil_mode
        node._saved_result1 = indices
        link(res, node, input)
    return res, indices


def max_pool2d_with_indices_backward(grad, input, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    """The gradient of max_pool2d_with_indices as an op (differentiable in grad)."""
    x = input._data
    res = wrap(_plane_scatter(grad._data, indices._data,
                              x.shape[-2] * x.shape[-1]).reshape(x.shape))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = MaxPool2DWithIndicesBackwardBackward0()
        node._saved_indices = indices
        node._self_meta = (input._data.shape, input._data.dtype)
        link(res, node, grad, input)
    return res


def _pool_args(fn, kernel_size, stride, padding, dilation=1):
    """max_pool2d / avg_pool2d's size arguments parsed and checked as torch does."""
    kernel = int_tuple(kernel_size, 2, fn, "kernel_size", 2)
    if len(kernel) != 2:
        raise RuntimeError(f"{fn}: kernel_size must either be a single int, or a tuple of two "
                           f"ints")
    if stride is None or isinstance(stride, (tuple, list)) and not len(stride):
        stride = ()
    else:
        stride = int_tuple(stride, 2, fn, "stride", 3)
        if len(stride) != 2:
            raise RuntimeError(f"{fn}: stride must either be omitted, a single int, or a tuple "
                               f"of two ints")
    padding = int_tuple(padding, 2, fn, "padding", 4)
    if len(padding) != 2:
        raise RuntimeError(f"{fn}: padding must either be a single int, or a tuple of two ints")
    dilation = int_tuple(dilation, 2, fn, "dilation", 5)
    if len(dilation) != 2:
        raise RuntimeError(f"{fn}: dilation must be either a single int, or a tuple of two "
                           f"ints")
    return kernel, stride, padding, dilation


def _pool_checks(x, kernel, stride, padding, dilation, ceil_mode):
    """torch's pool2d_shape_check."""
    st = stride or kernel
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in st):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding[0]}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    _dims_check(x)
    out = [_pool_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip(x.shape[-2:], kernel, st, padding, dilation)]
    if any(o < 1 for o in out):
        c, h, w = x.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}). Output size is too small")


@channels_last_result
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """torch.nn.functional.max_pool2d (MaxPool2DWithIndicesBackward0)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"max_pool2d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    kernel, stride, padding, dilation = _pool_args("max_pool2d", kernel_size, stride, padding,
                                                   dilation)
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _pool_checks(x, kernel, stride, padding, dilation, ceil_mode)
    if not return_indices and not (STATE.enabled and input._requires_grad or
                                   LEVELS and dual(input)):
        m, _ = _max_pool_np(x, kernel, stride or kernel, padding, dilation, ceil_mode, False)
        return wrap(m)
    out, indices = max_pool2d_with_indices(input, kernel, stride, padding, dilation,
                                           bool(ceil_mode))
    return (out, indices) if return_indices else out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """torch.nn.functional.max_pool1d: a 2-D pool over (..., 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"max_pool1d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    k = int_tuple(kernel_size, 1, "max_pool1d", "kernel_size", 2)
    s = k if stride is None or isinstance(stride, (tuple, list)) and not len(stride) else \
        int_tuple(stride, 1, "max_pool1d", "stride", 3)
    p = int_tuple(padding, 1, "max_pool1d", "padding", 4)
    d = int_tuple(dilation, 1, "max_pool1d", "dilation", 5)
    x = input._data
    if x.ndim not in (2, 3) or 0 in x.shape[-2:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(x.shape)}")
    if k[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got "
                           f"{k[0]}")
    if s[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if p[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
    if p[0] > k[0] // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p[0]} and kernel_size={k[0]}")
    if d[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[0]}")
    out = _pool_size(x.shape[-1], k[0], s[0], p[0], d[0], ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    res = max_pool2d(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), (1, d[0]),
                     ceil_mode, return_indices)
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


# ------------------------------------------------------------------ avg_pool2d

def _avg_divisor(size, out, k, s, p, count_include_pad):
    """Per output position along one dim: the number of elements its window averages."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def _avg_pool_np(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    out = tuple(_pool_size(n, k, s, p, 1, ceil_mode) for n, k, s, p in
                zip(x.shape[-2:], kernel, stride, padding))
    xp = _pad_to(x, padding, out, kernel, stride, (1, 1), 0)
    acc = None
    for _, sl in offsets(kernel, stride, (1, 1), out):
        v = xp[(...,) + sl]
        acc = v.copy() if acc is None else np.add(acc, v, out=acc)
    div = _divisor(x.shape[-2:], out, kernel, stride, padding, count_include_pad,
                   divisor_override)
    if x.dtype.kind in "iu":            # C++ integer division: truncation toward zero
        q = np.abs(acc) // div
        return np.where(acc < 0, -q, q).astype(x.dtype)
    acc /= div.astype(x.dtype) if isinstance(div, np.ndarray) else div
    return acc


def _divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    dh, dw = (_avg_divisor(n, o, k, s, p, count_include_pad) for n, o, k, s, p in
              zip(size, out, kernel, stride, padding))
    return dh[:, None] * dw


def _avg_pool_backward_np(g, shape, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override):
    out = g.shape[-2:]
    div = _divisor(shape[-2:], out, kernel, stride, padding, count_include_pad,
                   divisor_override)
    g = g / (div.astype(g.dtype) if isinstance(div, np.ndarray) else g.dtype.type(div))
    extra = [max((o - 1) * s + k - n - p, 0) for n, o, k, s, p in
             zip(shape[-2:], out, kernel, stride, padding)]
    full = np.zeros(shape[:-2] + tuple(n + p + e for n, p, e in
                                       zip(shape[-2:], padding, extra)), g.dtype)
    for _, sl in offsets(kernel, stride, (1, 1), out):
        full[(...,) + sl] += g
    return np.ascontiguousarray(full[(..., slice(padding[0], padding[0] + shape[-2]),
                                      slice(padding[1], padding[1] + shape[-1]))])


class AvgPool2DBackward0(Node):              # derivatives.yaml: avg_pool2d
    __slots__ = ("_saved_self", "_saved_kernel_size", "_saved_stride", "_saved_padding",
                 "_saved_ceil_mode", "_saved_count_include_pad", "_saved_divisor_override")
    _saved_names = ("_saved_self",)

    def _args(self):
        return (self._saved_kernel_size, self._saved_stride, self._saved_padding,
                self._saved_ceil_mode, self._saved_count_include_pad,
                self._saved_divisor_override)

    def apply(self, grad):
        return avg_pool2d_backward(grad, self._saved_self, *self._args()),

    def np_apply(self, g):
        k, s, p, c, inc, div = self._args()
        return _avg_pool_backward_np(g, self._saved_self._data.shape, k, s or k, p, c, inc,
                                     div),


class AvgPool2DBackwardBackward0(Node):      # derivatives.yaml: avg_pool2d_backward
    __slots__ = ("_saved_kernel_size", "_saved_stride", "_saved_padding", "_saved_ceil_mode",
                 "_saved_count_include_pad", "_saved_divisor_override", "_self_meta")

    def apply(self, grad):
        g = None
        if needs(self, 0):
            g = avg_pool2d_op(grad, self._saved_kernel_size, self._saved_stride,
                              self._saved_padding, self._saved_ceil_mode,
                              self._saved_count_include_pad, self._saved_divisor_override)
        return g, _self_zeros(self)


def _save_avg_args(node, kernel_size, stride, padding, ceil_mode, count_include_pad,
                   divisor_override):
    """The arguments avg_pool{2,3}d's nodes and their backward-backward nodes save."""
    node._saved_kernel_size, node._saved_stride = kernel_size, stride
    node._saved_padding, node._saved_ceil_mode = padding, ceil_mode
    node._saved_count_include_pad = count_include_pad
    node._saved_divisor_override = divisor_override


def _avg_linked(arr, node_cls, input, args):
    """arr, avg_pool2d/3d's result, recorded as node_cls (which saves input and the pool's
    arguments, args)."""
    res = wrap(arr)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        node._saved_self = input
        _save_avg_args(node, *args)
        link(res, node, input)
    return res


def _avg_backward_linked(arr, node_cls, grad, input, args):
    """arr, the gradient of avg_pool2d/3d as an op, recorded as its backward-backward node
    node_cls (differentiable in grad)."""
    res = wrap(arr)
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = node_cls()
        node._self_meta = (input._data.shape, input._data.dtype)
        _save_avg_args(node, *args)
        link(res, node, grad, input)
    return res


def avg_pool2d_op(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override):
    """torch.nn.functional.avg_pool2d on checked arguments (node AvgPool2DBackward0)."""
    return _avg_linked(_avg_pool_np(input._data, kernel_size, stride or kernel_size, padding,
                                    ceil_mode, count_include_pad, divisor_override),
                       AvgPool2DBackward0, input, (kernel_size, stride, padding, ceil_mode,
                                                   count_include_pad, divisor_override))


def avg_pool2d_backward(grad, input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    """The gradient of avg_pool2d as an op (differentiable in grad)."""
    return _avg_backward_linked(
        _avg_pool_backward_np(grad._data, input._data.shape, kernel_size, stride or kernel_size,
                              padding, ceil_mode, count_include_pad, divisor_override),
        AvgPool2DBackwardBackward0, grad, input,
        (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override))


@channels_last_result
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool2d (AvgPool2DBackward0)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"avg_pool2d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding)
    x = input._data
    if x.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got -3)")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _pool_checks(x, kernel, stride, padding, (1, 1), ceil_mode)
    return avg_pool2d_op(input, kernel, stride, padding, bool(ceil_mode),
                         bool(count_include_pad), divisor_override)


def _check_1d(x, name):
    if x.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {name})")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """torch.nn.functional.avg_pool1d: a 2-D pool over (..., 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"avg_pool1d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    k = int_tuple(kernel_size, 1, "avg_pool1d", "kernel_size", 2)
    s = k if stride is None or isinstance(stride, (tuple, list)) and not len(stride) else \
        int_tuple(stride, 1, "avg_pool1d", "stride", 3)
    p = int_tuple(padding, 1, "avg_pool1d", "padding", 4)
    _check_1d(input._data, "avg_pool1d")
    return avg_pool2d(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode,
                      count_include_pad).squeeze(-2)


# ------------------------------------------------------------------ adaptive pools

def _adaptive_bounds(size, out):
    """torch's adaptive windows along one dim: [floor(i*size/out), ceil((i+1)*size/out))."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_matrix(size, out, dtype):
    """The (out, size) matrix that averages each adaptive window."""
    start, end = _adaptive_bounds(size, out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _along(x, a, ax):
    """The (out, n) matrix a applied along axis ax of x."""
    if ax == x.ndim - 1:
        return np.matmul(x, a.T)
    return np.moveaxis(np.matmul(a, np.moveaxis(x, ax, -2)), -2, ax)


def _adaptive_avg_np(x, out):
    """Averages over adaptive windows: separable, one small matrix product per axis."""
    n = len(out)
    for i in range(n):
        ax = x.ndim - n + i
        x = _along(x, _adaptive_matrix(x.shape[ax], out[i], x.dtype), ax)
    return np.ascontiguousarray(x)


def _adaptive_avg_backward_np(g, shape, n):
    """The adjoint of _adaptive_avg_np: g summed back into `shape`."""
    for i in range(n):
        ax = g.ndim - n + i
        g = _along(g, _adaptive_matrix(shape[ax], g.shape[ax], g.dtype).T, ax)
    return np.ascontiguousarray(g)


class AdaptiveAvgPool2DBackward0(Node):      # derivatives.yaml: _adaptive_avg_pool2d
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)
    _n = 2

    def apply(self, grad):
        return adaptive_avg_pool_backward(grad, self._saved_self, self._n),

    def np_apply(self, g):
        _check_grad_output(g, self._n)
        return _adaptive_avg_backward_np(g, self._saved_self._data.shape, self._n),


class AdaptiveAvgPool3DBackward0(AdaptiveAvgPool2DBackward0):   # _adaptive_avg_pool3d
    __slots__ = ()
    _n = 3


class AdaptiveAvgPool2DBackwardBackward0(Node):   # _adaptive_avg_pool2d_backward
    # (torch saves the output size as _saved_grad_output_sym_argsize_minus_2, _minus_1)
    __slots__ = ("_output_size", "_self_meta")
    _n = 2

    def apply(self, grad):
        return (adaptive_avg_pool_op(grad, self._output_size) if needs(self, 0) else None,
                _self_zeros(self))


class AdaptiveAvgPool3DBackwardBackward0(AdaptiveAvgPool2DBackwardBackward0):
    __slots__ = ()                               # _adaptive_avg_pool3d_backward
    _n = 3


def adaptive_avg_pool_op(input, output_size):
    """torch._adaptive_avg_pool2d / 3d on a checked output size (node
    AdaptiveAvgPool2DBackward0 / 3D)."""
    res = wrap(_adaptive_avg_np(input._data, output_size))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = (AdaptiveAvgPool2DBackward0 if len(output_size) == 2 else
                AdaptiveAvgPool3DBackward0)()
        node._saved_self = input
        link(res, node, input)
    return res


def _check_grad_output(g, n):
    for d in range(1 if g.ndim == n + 1 else 2, g.ndim):
        if g.shape[d] == 0:
            raise RuntimeError(f"adaptive_avg_pool{n}d_backward(): Expected grad_output to have "
                               f"non-zero size for non-batch dimensions, but grad_output has "
                               f"sizes {list(g.shape)} with dimension {d} being empty")


def adaptive_avg_pool_backward(grad, input, n):
    """The gradient of adaptive_avg_pool2d / 3d as an op (differentiable in grad)."""
    _check_grad_output(grad._data, n)
    res = wrap(_adaptive_avg_backward_np(grad._data, input._data.shape, n))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = (AdaptiveAvgPool2DBackwardBackward0 if n == 2 else
                AdaptiveAvgPool3DBackwardBackward0)()
        node._output_size = grad._data.shape[-n:]
        node._self_meta = (input._data.shape, input._data.dtype)
        link(res, node, grad, input)
    return res


def _output_size(output_size, x, fn, n=2):
    """An adaptive pool's output size: an int, or a tuple with None for 'keep the input's'."""
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = (int(output_size),) * n
    else:
        # (torch's F.adaptive_*_pool takes len() first: its TypeError for None or an object)
        sizes = tuple(output_size[i] for i in range(len(output_size)))
        for i, v in enumerate(sizes):
            if v is not None and not (isinstance(v, (int, np.integer)) and
                                      not isinstance(v, bool)):
                raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of "
                                f"ints, but found element of type {type(v).__name__} at pos {i}")
        if len(sizes) != n:
            raise RuntimeError(f"{fn}: output_size must be {n}")
    try:
        return tuple(x.shape[-n + i] if v is None else int(v) for i, v in enumerate(sizes))
    except (TypeError, ValueError):
        raise wrong_type(output_size, "tuple of ints") from None


def _adaptive_checks(x, fn, out, sep="", n=2):
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{fn}(): Expected {n + 1}D or {n + 2}D tensor, but got{sep} "
                           f"{list(x.shape)}")
    for d in range(1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with dimension "
                               f"{d} being empty")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(map(str, out))}}}")


def _adaptive_avg(input, output_size, n):
    fn = f"adaptive_avg_pool{n}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    x = input._data
    out = _output_size(output_size, x, fn, n)
    _adaptive_checks(x, fn, out, n=n)
    if all(o == 1 for o in out):                # torch takes the mean (MeanBackward1)
        return input.mean(tuple(range(-1, -n - 1, -1)), keepdim=True)
    if x.dtype.kind not in "fc":
        raise NotImplementedError(f'"{fn}" not implemented for \'{type_name(x.dtype)}\'')
    return adaptive_avg_pool_op(input, out)


def _not_to_one(input, args, kwargs):
    """Whether adaptive_avg_pool2d's gradient keeps channels last: not for an output of one
    element per plane (torch computes that one as a mean)."""
    size = args[0] if args else kwargs.get("output_size")
    size = (size, size) if isinstance(size, int) else tuple(size)
    return any((input.shape[-2 + i] if n is None else n) != 1 for i, n in enumerate(size))


@channels_last_result(grads=_not_to_one)
def adaptive_avg_pool2d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool2d (a mean for an output of 1x1, as torch)."""
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool3d (a mean for an output of 1x1x1, as torch)."""
    return _adaptive_avg(input, output_size, 3)


def adaptive_avg_pool1d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool1d: a 2-D pool over (..., 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool1d(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    size = _one_size(output_size, "adaptive_avg_pool1d")
    _check_1d(input._data, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _one_size(output_size, fn):
    check_args(fn, ("output_size", 2, "tuple of ints", output_size))
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got "
                               f"{len(output_size)})")
        output_size = output_size[0]
    return output_size


def _adaptive_max_np(x, out):
    """Max over each adaptive window, and its flat index in the plane."""
    h, w = x.shape[-2:]
    (sh, eh), (sw, ew) = _adaptive_bounds(h, out[0]), _adaptive_bounds(w, out[1])
    kh, kw = int((eh - sh).max(initial=0)), int((ew - sw).max(initial=0))
    # window rows/cols, the short windows padded with their own last element (a repeat
    # changes neither the max nor which element comes first)
    rows = np.minimum(sh[:, None] + np.arange(kh), eh[:, None] - 1)     # (OH, kh)
    cols = np.minimum(sw[:, None] + np.arange(kw), ew[:, None] - 1)     # (OW, kw)
    views = [x[..., rows[:, i][:, None], cols[:, j]] for i in range(kh) for j in range(kw)]
    if not views:
        return np.zeros(x.shape[:-2] + tuple(out), x.dtype), \
            np.zeros(x.shape[:-2] + tuple(out), np.int64)
    m, k = _argmax_views(views)
    i, j = np.divmod(k, kw)
    idx = rows[np.arange(out[0])[:, None], i] * w + cols[np.arange(out[1]), j]
    return m, idx.astype(np.int64, copy=False)


class AdaptiveMaxPool2DBackward0(Node):      # derivatives.yaml: adaptive_max_pool2d
    __slots__ = ("_saved_self", "_saved_result1")
    _saved_names = ("_saved_self", "_saved_result1")

    _nd = 2         # the pooled dims (AdaptiveMaxPool3DBackward0: 3)

    def apply(self, grad):
        return _adaptive_max_backward(grad, self._saved_self, self._saved_result1, self._nd),

    def np_apply(self, g):
        return _scatter_into(g, self._saved_result1._data, self._saved_self._data.shape,
                             self._nd),


class AdaptiveMaxPool2DBackwardBackward0(Node):   # adaptive_max_pool2d_backward
    __slots__ = ("_saved_indices", "_self_meta")

    def apply(self, grad):
        return (_gather(grad, self._saved_indices) if needs(self, 0) else None,
                _self_zeros(self))


def _scatter_into(g, indices, shape, nd):
    """g added at its flat indices within each plane (nd 2) or volume (nd 3) of an input of
    `shape`."""
    size = int(np.prod(shape[-nd:]))
    return (_plane_scatter if nd == 2 else _volume_scatter)(g, indices, size).reshape(shape)


def _adaptive_max_op(input, output_size, kernel, node_cls):
    """adaptive_max_pool2d/3d on a checked output size: (output, indices) of the NumPy kernel,
    linked to node_cls."""
    m, idx = kernel(input._data, output_size)
    # (C order whatever the input's layout, as torch's kernels write; channels last is
    # adaptive_max_pool2d's decorator's)
    res, indices = wrap(np.ascontiguousarray(m)), wrap(np.ascontiguousarray(idx))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = node_cls()
        node._saved_self, node._saved_result1 = input, indices
        link(res, node, input)
    return res, indices


def _adaptive_max_backward(grad, input, indices, nd):
    """The gradient of adaptive_max_pool2d (nd 2) or 3d as an op (differentiable in grad)."""
    x = input._data
    res = wrap(_scatter_into(grad._data, indices._data, x.shape, nd))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = (AdaptiveMaxPool2DBackwardBackward0 if nd == 2
                else AdaptiveMaxPool3DBackwardBackward0)()
        node._saved_indices = indices
        node._self_meta = (x.shape, x.dtype)
        link(res, node, grad, input)
    return res


def adaptive_max_pool2d_op(input, output_size):
    """torch.adaptive_max_pool2d on a checked output size: (output, indices)."""
    return _adaptive_max_op(input, output_size, _adaptive_max_np, AdaptiveMaxPool2DBackward0)


@channels_last_result
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool2d (AdaptiveMaxPool2DBackward0)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool2d(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    x = input._data
    out = _output_size(output_size, x, "adaptive_max_pool2d")
    _adaptive_checks(x, "adaptive_max_pool2d", out, ":")
    if x.dtype.kind not in "f":
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    res, indices = adaptive_max_pool2d_op(input, out)
    return (res, indices) if return_indices else res


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool1d: a 2-D pool over (..., 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool1d(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    size = _one_size(output_size, "adaptive_max_pool1d")
    _check_1d(input._data, "adaptive_max_pool1d")
    res, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    res = res.squeeze(-2)
    return (res, indices.squeeze(-2)) if return_indices else res


# ------------------------------------------------------------------ max_unpool

class MaxUnpool2DBackward0(Node):            # derivatives.yaml: max_unpool2d
    __slots__ = ("_saved_indices",)
    _saved_names = ("_saved_indices",)

    def apply(self, grad):
        return _gather(grad, self._saved_indices), None

    def np_apply(self, g):
        return _plane_gather(g, self._saved_indices._data), None


def max_unpool2d_op(input, indices, output_size):
    """torch.max_unpool2d on checked arguments: each value written at its flat index in a
    zero plane of output_size."""
    x, idx = input._data, indices._data
    size = output_size[0] * output_size[1]
    lead = x.shape[:-2]
    planes = int(np.prod(lead, dtype=np.int64))
    out = np.zeros(planes * size, x.dtype)
    out[(idx.reshape(planes, x.shape[-2] * x.shape[-1]) +
         (np.arange(planes) * size)[:, None]).reshape(-1)] = x.reshape(-1)
    res = wrap(out.reshape(lead + tuple(output_size)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MaxUnpool2DBackward0()
        node._saved_indices = indices
        link(res, node, input, None)
    return res


def _unpool_size(x, kernel, stride, padding, output_size, n):
    default = [(x.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return tuple(default)
    sizes = list(output_size)
    if len(sizes) == n + 2:
        sizes = sizes[2:]
    if len(sizes) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements,"
                         f" but it has a length of '{len(sizes)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < sizes[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return tuple(int(s) for s in sizes)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """torch.nn.functional.max_unpool2d (MaxUnpool2DBackward0)."""
    kernel = int_tuple(kernel_size, 2, "max_unpool2d", "kernel_size")
    stride = kernel if stride is None else int_tuple(stride, 2, "max_unpool2d", "stride")
    padding = int_tuple(padding, 2, "max_unpool2d", "padding")
    out = _unpool_size(input._data, kernel, stride, padding, output_size, 2)
    return _max_unpool(input, indices, out, "max_unpooling2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """torch.nn.functional.max_unpool1d: a 2-D unpool over (..., 1, L)."""
    kernel = int_tuple(kernel_size, 1, "max_unpool1d", "kernel_size")
    stride = kernel if stride is None else int_tuple(stride, 1, "max_unpool1d", "stride")
    padding = int_tuple(padding, 1, "max_unpool1d", "padding")
    out = _unpool_size(input._data, kernel, stride, padding, output_size, 1)
    return _max_unpool(input.unsqueeze(-2), indices.unsqueeze(-2), (1,) + out,
                       "max_unpooling2d").squeeze(-2)


def _max_unpool(input, indices, out, name):
    x, idx = input._data, indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{type_name(idx.dtype)}")
    if idx.shape != x.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: "
                           f"{list(idx.shape)}")
    if x.ndim not in (3, 4):
        raise RuntimeError(f"Input to {name} should be a 3d or 4d Tensor, but got a tensor "
                           f"with {x.ndim} dimensions.")
    size = out[0] * out[1]
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            raise RuntimeError(f"Found an invalid max index: {idx[bad].flat[0]} (output volumes "
                               f"are of size {out[0]}x{out[1]})")
    return max_unpool2d_op(input, indices, out)


# ------------------------------------------------------------------ max_pool3d

def _max_pool3d_np(x, kernel, stride, padding, dilation, ceil_mode):
    """(max, flat index within each D*H*W volume) over every 3-d window (torch's rules for
    ties, NaN and all-lowest windows, as _max_pool_np in 2-d)."""
    sp = x.shape[-3:]
    out = tuple(_pool_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
                zip(sp, kernel, stride, padding, dilation))
    low = _lowest(x.dtype)
    extra = [max((o - 1) * s + d * (k - 1) + 1 - n - p, 0) for n, o, k, s, p, d in
             zip(sp, out, kernel, stride, padding, dilation)]
    xp = x
    if any(padding) or any(extra):
        xp = np.full(x.shape[:-3] + tuple(n + p + e for n, p, e in zip(sp, padding, extra)),
                     low, x.dtype)
        xp[(...,) + tuple(slice(p, p + n) for p, n in zip(padding, sp))] = x
    views = [xp[(...,) + sl] for _, sl in offsets(kernel, stride, dilation, out)]
    m, k = _argmax_views(views)
    h, w = sp[1], sp[2]
    kd, kh, kw = np.unravel_index(np.arange(int(np.prod(kernel))), kernel)
    offs = (kd * dilation[0] * h + kh * dilation[1]) * w + kw * dilation[2]
    starts = [np.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    idx = np.take(offs, k) + ((starts[0][:, None, None] * h + starts[1][:, None]) * w +
                              starts[2])
    if xp is not x and m.size and (m == low).any():
        first = [np.maximum(-(st // d), 0) * d + st for st, d in zip(starts, dilation)]
        lowest = (first[0][:, None, None] * h + first[1][:, None]) * w + first[2]
        idx = np.where(m == low, lowest, idx)
    return m, idx.astype(np.int64, copy=False)


def _volume_scatter(g, indices, size):
    """_plane_scatter over (..., D, H, W) volumes."""
    lead = indices.shape[:-3]
    flat = lead + (indices.shape[-3], indices.shape[-2] * indices.shape[-1])
    return _plane_scatter(g.reshape(flat), indices.reshape(flat), size)


class MaxPool3DWithIndicesBackward0(Node):   # derivatives.yaml: max_pool3d_with_indices
    __slots__ = ("_saved_ceil_mode", "_saved_dilation", "_saved_kernel_size", "_saved_padding",
                 "_saved_result1", "_saved_self", "_saved_stride")
    _saved_names = ("_saved_self", "_saved_result1")

    def apply(self, grad):
        return max_pool3d_with_indices_backward(
            grad, self._saved_self, self._saved_kernel_size, self._saved_stride,
            self._saved_padding, self._saved_dilation, self._saved_ceil_mode,
            self._saved_result1),


class MaxPool3DWithIndicesBackwardBackward0(Node):   # max_pool3d_with_indices_backward
    __slots__ = ("_saved_indices", "_self_meta")

    def apply(self, grad):
        g = None
        if needs(self, 0):
            idx = self._saved_indices._data
            lead = idx.shape[:-3]
            g = grad.reshape(lead + (-1,)).gather(-1, wrap(idx.reshape(lead + (-1,)))) \
                .view(idx.shape)
        return g, _self_zeros(self)


def max_pool3d_with_indices_backward(grad, input, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    """The gradient of max_pool3d_with_indices as an op (differentiable in grad)."""
    x = input._data
    res = wrap(_volume_scatter(grad._data, indices._data,
                               int(np.prod(x.shape[-3:]))).reshape(x.shape))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = MaxPool3DWithIndicesBackwardBackward0()
        node._saved_indices = indices
        node._self_meta = (x.shape, x.dtype)
        link(res, node, grad, input)
    return res


def _pool3d_args(fn, kernel_size, stride, padding, dilation=1):
    k = int_tuple(kernel_size, 3, fn, "kernel_size", 2)
    if len(k) != 3:
        raise RuntimeError(f"{fn}: kernel_size must either be a single int, or a tuple of "
                           f"three ints")
    if stride is None or isinstance(stride, (tuple, list)) and not len(stride):
        s = k
    else:
        s = int_tuple(stride, 3, fn, "stride", 3)
        if len(s) != 3:
            raise RuntimeError(f"{fn}: stride must either be omitted, a single int, or a tuple "
                               f"of three ints")
    p = int_tuple(padding, 3, fn, "padding", 4)
    if len(p) != 3:
        raise RuntimeError(f"{fn}: padding must either be a single int, or a tuple of three "
                           f"ints")
    d = int_tuple(dilation, 3, fn, "dilation", 5)
    if len(d) != 3:
        raise RuntimeError(f"{fn}: dilation must be either a single int, or a tuple of three "
                           f"ints")
    return k, s, p, d


def _pool3d_checks(x, kernel, stride, padding, dilation, ceil_mode):
    """torch's pool3d_shape_check."""
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: "
                           f"{dilation[0]} dilationH: {dilation[1]} dilationW: {dilation[2]}")
    if x.ndim not in (4, 5) or 0 in x.shape[-4:]:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding[0]}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    out = [_pool_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip(x.shape[-3:], kernel, stride, padding, dilation)]
    if any(o < 1 for o in out):
        c, t, h, w = x.shape[-4:]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def max_pool3d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """torch.nn.functional.max_pool3d_with_indices: (output, indices), node
    MaxPool3DWithIndicesBackward0."""
    k, s, p, d = _pool3d_args("max_pool3d", kernel_size, stride, padding, dilation)
    x = input._data
    _pool3d_checks(x, k, s, p, d, ceil_mode)
    m, idx = _max_pool3d_np(x, k, s, p, d, bool(ceil_mode))
    res, indices = wrap(m), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MaxPool3DWithIndicesBackward0()
        # (as torch saves them: tuples, an omitted stride as (); the formula reads the indices)
        node._saved_self, node._saved_kernel_size = input, tuple(k)
        omitted = stride is None or isinstance(stride, (tuple, list)) and not len(stride)
        node._saved_stride, node._saved_padding = () if omitted else tuple(s), tuple(p)
        node._saved_dilation, node._saved_ceil_mode = tuple(d), bool(ceil_mode)
        node._saved_result1 = indices
        link(res, node, input)
    return res, indices


@channels_last_result
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """torch.nn.functional.max_pool3d (and torch.max_pool3d)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"max_pool3d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


# ------------------------------------------------------------------ avg_pool3d

def _divisor3d(size, out, kernel, stride, padding, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    dt, dh, dw = (_avg_divisor(n, o, k, s, p, count_include_pad) for n, o, k, s, p in
                  zip(size, out, kernel, stride, padding))
    return dt[:, None, None] * dh[:, None] * dw


def _window_extra(size, out, kernel, stride, padding):
    return [max((o - 1) * s + k - n - p, 0) for n, o, k, s, p in
            zip(size, out, kernel, stride, padding)]


def _avg_pool3d_np(x, kernel, stride, padding, ceil_mode, count_include_pad,
                   divisor_override):
    sp = x.shape[-3:]
    out = tuple(_pool_size(n, k, s, p, 1, ceil_mode) for n, k, s, p in
                zip(sp, kernel, stride, padding))
    extra = _window_extra(sp, out, kernel, stride, padding)
    xp = np.zeros(x.shape[:-3] + tuple(n + p + e for n, p, e in zip(sp, padding, extra)),
                  x.dtype)
    xp[(...,) + tuple(slice(p, p + n) for p, n in zip(padding, sp))] = x
    acc = None
    for _, sl in offsets(kernel, stride, (1, 1, 1), out):
        v = xp[(...,) + sl]
        acc = v.copy() if acc is None else np.add(acc, v, out=acc)
    div = _divisor3d(sp, out, kernel, stride, padding, count_include_pad, divisor_override)
    if x.dtype.kind in "iu":            # C++ integer division: truncation toward zero
        q = np.abs(acc) // div
        return np.where(acc < 0, -q, q).astype(x.dtype)
    acc /= div.astype(x.dtype) if isinstance(div, np.ndarray) else div
    return acc


def _avg_pool3d_backward_np(g, shape, kernel, stride, padding, count_include_pad,
                            divisor_override):
    sp, out = shape[-3:], g.shape[-3:]
    div = _divisor3d(sp, out, kernel, stride, padding, count_include_pad, divisor_override)
    g = g / (div.astype(g.dtype) if isinstance(div, np.ndarray) else g.dtype.type(div))
    extra = _window_extra(sp, out, kernel, stride, padding)
    full = np.zeros(shape[:-3] + tuple(n + p + e for n, p, e in zip(sp, padding, extra)),
                    g.dtype)
    for _, sl in offsets(kernel, stride, (1, 1, 1), out):
        full[(...,) + sl] += g
    return np.ascontiguousarray(full[(...,) + tuple(slice(p, p + n)
                                                    for p, n in zip(padding, sp))])


class AvgPool3DBackward0(Node):              # derivatives.yaml: avg_pool3d
    __slots__ = ("_saved_ceil_mode", "_saved_count_include_pad", "_saved_divisor_override",
                 "_saved_kernel_size", "_saved_padding", "_saved_self", "_saved_stride")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        # (an omitted stride is saved as torch saves it, (): the kernel size)
        return avg_pool3d_backward(grad, self._saved_self, self._saved_kernel_size,
                                   self._saved_stride or self._saved_kernel_size,
                                   self._saved_padding,
                                   self._saved_ceil_mode, self._saved_count_include_pad,
                                   self._saved_divisor_override),


class AvgPool3DBackwardBackward0(Node):      # derivatives.yaml: avg_pool3d_backward
    __slots__ = ("_saved_ceil_mode", "_saved_count_include_pad", "_saved_divisor_override",
                 "_saved_kernel_size", "_saved_padding", "_saved_stride", "_self_meta")

    def apply(self, grad):
        g = None
        if needs(self, 0):
            g = _avg_pool3d_op(grad, self._saved_kernel_size, self._saved_stride,
                               self._saved_padding, self._saved_ceil_mode,
                               self._saved_count_include_pad, self._saved_divisor_override)
        return g, _self_zeros(self)


def _avg_pool3d_op(input, kernel, stride, padding, ceil_mode, count_include_pad,
                   divisor_override, given_stride=None):
    """given_stride: the stride as torch saves it (() where the caller omitted it)."""
    return _avg_linked(_avg_pool3d_np(input._data, kernel, stride, padding, ceil_mode,
                                      count_include_pad, divisor_override),
                       AvgPool3DBackward0, input,
                       (tuple(kernel), tuple(stride) if given_stride is None else given_stride,
                        tuple(padding), ceil_mode, count_include_pad, divisor_override))


def avg_pool3d_backward(grad, input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    """The gradient of avg_pool3d as an op (differentiable in grad: its derivative is
    avg_pool3d again)."""
    return _avg_backward_linked(
        _avg_pool3d_backward_np(grad._data, input._data.shape, kernel_size, stride, padding,
                                count_include_pad, divisor_override),
        AvgPool3DBackwardBackward0, grad, input,
        (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override))


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool3d (AvgPool3DBackward0)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"avg_pool3d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    fn = "avg_pool3d"
    k = int_tuple(kernel_size, 3, fn, "kernel_size", 2)
    if len(k) != 3:
        raise RuntimeError(f"{fn}: kernel_size must be a single int, or a tuple of three ints")
    given = ()
    if stride is None or isinstance(stride, (tuple, list)) and not len(stride):
        s = k
    else:
        s = given = int_tuple(stride, 3, fn, "stride", 3)
        if len(s) != 3:
            raise RuntimeError(f"{fn}: stride must be omitted, a single int, or a tuple of "
                               f"three ints")
    p = int_tuple(padding, 3, fn, "padding", 4)
    if len(p) != 3:
        raise RuntimeError(f"{fn}: padding must be a single int, or a tuple of three ints")
    x = input._data
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if any(v <= 0 for v in k) or any(v <= 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if x.ndim not in (4, 5) or 0 in x.shape[-4:]:
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    t, h, w = x.shape[-3:]
    if t < k[0] or h < k[1] or w < k[2]:
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    _pool3d_checks(x, k, s, p, (1, 1, 1), ceil_mode)
    return _avg_pool3d_op(input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                          divisor_override, tuple(given))


# ------------------------------------------------------------------ adaptive_max_pool3d

def _adaptive_max3d_np(x, out):
    """Max over each adaptive 3-d window, and its flat index in the D*H*W volume (windows
    scanned depth, row, column first; torch's first-largest / NaN rule via _argmax_views)."""
    sp = x.shape[-3:]
    pos, ks = [], []
    for n, o in zip(sp, out):
        s, e = _adaptive_bounds(n, o)
        k = int((e - s).max(initial=0))
        # (short windows repeat their last element: no change to the max or the first one)
        pos.append(np.minimum(s[:, None] + np.arange(k), e[:, None] - 1))   # (O, k)
        ks.append(k)
    shape = x.shape[:-3] + tuple(out)
    if not all(ks):
        return np.zeros(shape, x.dtype), np.zeros(shape, np.int64)
    a, b, c = pos
    views = [x[..., a[:, i][:, None, None], b[:, j][:, None], c[:, k]]
             for i in range(ks[0]) for j in range(ks[1]) for k in range(ks[2])]
    m, w = _argmax_views(views)
    i, rest = np.divmod(w, ks[1] * ks[2])
    j, k = np.divmod(rest, ks[2])
    o0, o1, o2 = (np.arange(o) for o in out)
    idx = ((a[o0[:, None, None], i] * sp[1] + b[o1[:, None], j]) * sp[2] + c[o2, k])
    return m, idx.astype(np.int64, copy=False)


def _volume_gather(grad, indices):
    """grad (..., D, H, W) read at each volume's flat indices, with ember ops
    (differentiable; torch's double backward: a gather, then ViewBackward0)."""
    idx = indices._data
    lead = idx.shape[:-3]
    return grad.reshape(lead + (-1,)).gather(-1, wrap(idx.reshape(lead + (-1,)))) \
        .view(idx.shape)


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):   # adaptive_max_pool3d
    __slots__ = ()
    _nd = 3


class AdaptiveMaxPool3DBackwardBackward0(Node):   # adaptive_max_pool3d_backward
    __slots__ = ("_saved_indices", "_self_meta")

    def apply(self, grad):
        return (_volume_gather(grad, self._saved_indices) if needs(self, 0) else None,
                _self_zeros(self))


def adaptive_max_pool3d_op(input, output_size):
    """torch.adaptive_max_pool3d on a checked output size: (output, indices)."""
    return _adaptive_max_op(input, output_size, _adaptive_max3d_np, AdaptiveMaxPool3DBackward0)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """torch.nn.functional.adaptive_max_pool3d (AdaptiveMaxPool3DBackward0)."""
    fn = "adaptive_max_pool3d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    x = input._data
    if not (isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool)):
        try:
            sizes = list(output_size)
        except TypeError:
            raise wrong_type(output_size, "tuple of ints") from None
        if x.ndim <= len(sizes):       # (torch's Python layer fills None from input.size())
            raise ValueError(f"Input dimension should be at least {len(sizes) + 1}")
        for pos, v in enumerate(sizes):
            if v is not None and not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple "
                                f"of ints, but found element of type {type(v).__name__} at "
                                f"pos {pos}")
        if len(sizes) != 3:
            raise RuntimeError(f"{fn}(): internal error: output_size.size() must be 3")
        output_size = sizes
    out = _output_size(output_size, x, fn, 3)
    if x.ndim not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got: {list(x.shape)}")
    for d in range(1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with dimension "
                               f"{d} being empty")
    if any(o < 0 for o in out):
        shape = list(x.shape[:-3]) + list(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(o for o in out if o < 0)}: {shape}")
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"{fn}_cpu" not implemented for \'{type_name(x.dtype)}\'')
    res, indices = adaptive_max_pool3d_op(input, out)
    return (res, indices) if return_indices else res


# ------------------------------------------------------------------ max_unpool3d

class MaxUnpool3DBackward0(Node):            # derivatives.yaml: max_unpool3d
    __slots__ = ("_saved_indices",)
    _saved_names = ("_saved_indices",)

    def apply(self, grad):
        return _volume_gather(grad, self._saved_indices), None

    def np_apply(self, g):
        idx = self._saved_indices._data
        lead = idx.shape[:-3]
        return np.take_along_axis(g.reshape(lead + (-1,)), idx.reshape(lead + (-1,)),
                                  -1).reshape(idx.shape), None


def max_unpool3d_op(input, indices, output_size):
    """torch.max_unpool3d on checked arguments: each value written at its flat index in a
    zero volume of output_size."""
    x, idx = input._data, indices._data
    size = int(np.prod(output_size))
    lead = x.shape[:-3]
    vols = int(np.prod(lead, dtype=np.int64))
    out = np.zeros(vols * size, x.dtype)
    out[(idx.reshape(vols, -1) + (np.arange(vols) * size)[:, None]).reshape(-1)] = \
        x.reshape(-1)
    res = wrap(out.reshape(lead + tuple(output_size)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = MaxUnpool3DBackward0()
        node._saved_indices = indices
        link(res, node, input, None)
    return res


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """torch.nn.functional.max_unpool3d (MaxUnpool3DBackward0)."""
    kernel = int_tuple(kernel_size, 3, "max_unpool3d", "kernel_size")
    stride = kernel if stride is None else int_tuple(stride, 3, "max_unpool3d", "stride")
    padding = int_tuple(padding, 3, "max_unpool3d", "padding")
    x, idx = input._data, indices._data
    if x.ndim < 3:
        raise IndexError("tuple index out of range")   # (torch's Python layer, input.size())
    # (torch's Python layer sizes the output from the kernel's length)
    out = _unpool_size(x, kernel, stride, padding, output_size, len(kernel))
    if len(out) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in "
                           f"output_size, but got {len(out)} elements.")
    if x.ndim not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {x.ndim} dimensions.")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{list(stride)}")
    if idx.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if idx.shape != x.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: "
                           f"{list(idx.shape)}")
    if x.dtype.kind not in "f":
        raise NotImplementedError(f'"max_unpool3d" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    size = out[0] * out[1] * out[2]
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            raise RuntimeError(f"Found an invalid max index: {idx[bad].flat[0]} (output volumes "
                               f"are of size {out[0]}x{out[1]}x{out[2]})")
    return max_unpool3d_op(input, indices, out)


# ------------------------------------------------------------------ fractional_max_pool2d / 3d

def _fractional_starts(u, size, out, k):
    """torch's pseudo-random window starts along one dim, one row per plane: with alpha =
    (size - k) / (out - 1) in the input's dtype, start_i = int((i + u) * alpha) - int(u *
    alpha) for i < out - 1, and the last window ends at the input's end."""
    dt = u.dtype.type
    if out == 1:
        return np.full(u.shape + (1,), size - k, np.int64)
    alpha = dt(size - k) / dt(out - 1)
    i = np.arange(out - 1).astype(u.dtype)
    first = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    return np.concatenate([first, np.full(u.shape + (1,), size - k, np.int64)], -1)


def _fractional_np(x, kernel, out, samples):
    """(max, flat index in the plane/volume) of each fractional window; samples (N, C, n)."""
    n = len(kernel)
    sp = x.shape[-n:]
    lead = x.shape[:-n]
    u = samples.reshape(lead + (n,))
    # (2-d: sample 0 drives the width, 1 the height; 3-d: 0 time, 1 height, 2 width)
    col = [1, 0] if n == 2 else [0, 1, 2]
    starts = [_fractional_starts(u[..., col[d]], sp[d], out[d], kernel[d]) for d in range(n)]
    flat = x.reshape(lead + (-1,))
    strides = [int(np.prod(sp[d + 1:])) for d in range(n)]
    base = 0
    for d in range(n):     # start index of each window, broadcast over the output grid
        shape = lead + tuple(out[e] if e == d else 1 for e in range(n))
        base = base + starts[d].reshape(shape) * strides[d]
    offs = [sum(o * s for o, s in zip(off, strides)) for off in np.ndindex(*kernel)]
    if not offs or not all(out):
        shape = lead + tuple(out)
        return np.zeros(shape, x.dtype), np.zeros(shape, np.int64)
    cand = [base + o for o in offs]
    views = [np.take_along_axis(flat, c.reshape(lead + (-1,)), -1).reshape(c.shape)
             for c in cand]
    m, k = _argmax_views(views)
    idx = base + np.take(np.array(offs, np.int64), k)
    return m, idx.astype(np.int64, copy=False)


class FractionalMaxPool2DBackward0(Node):    # derivatives.yaml: fractional_max_pool2d
    __slots__ = ("_saved_kernel_size", "_saved_output_size", "_saved_result1", "_saved_self")
    _saved_names = ("_saved_self", "_saved_result1")
    _n = 2

    def apply(self, grad):
        return fractional_max_pool_backward(grad, self._saved_self, self._saved_result1,
                                            self._n),

    def np_apply(self, g):
        x = self._saved_self._data
        n = self._n
        lead = x.shape[:-n]
        size = int(np.prod(x.shape[-n:]))
        idx = self._saved_result1._data.reshape(lead + (1, -1))
        return _plane_scatter(g.reshape(idx.shape), idx, size).reshape(x.shape),


class FractionalMaxPool3DBackward0(FractionalMaxPool2DBackward0):   # fractional_max_pool3d
    __slots__ = ()
    _n = 3


class FractionalMaxPool2DBackwardBackward0(Node):   # fractional_max_pool2d_backward
    __slots__ = ("_saved_indices", "_self_meta")

    _n = 2

    def apply(self, grad):
        g = None
        if needs(self, 0):
            g = (_volume_gather if self._n == 3 else _gather)(grad, self._saved_indices)
        return g, _self_zeros(self)


class FractionalMaxPool3DBackwardBackward0(FractionalMaxPool2DBackwardBackward0):
    __slots__ = ()                           # fractional_max_pool3d_backward
    _n = 3


def fractional_max_pool_backward(grad, input, indices, n):
    """The gradient of fractional_max_pool2d / 3d as an op (differentiable in grad)."""
    x = input._data
    lead = x.shape[:-n]
    idx = indices._data.reshape(lead + (1, -1))
    res = wrap(_plane_scatter(grad._data.reshape(idx.shape), idx,
                              int(np.prod(x.shape[-n:]))).reshape(x.shape))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = (FractionalMaxPool2DBackwardBackward0 if n == 2 else
                FractionalMaxPool3DBackwardBackward0)()
        node._saved_indices = indices
        node._self_meta = (x.shape, x.dtype)
        link(res, node, grad, input)
    return res


_FMP_DIMS = ("time", "height", "width")


def fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                        _random_samples, n):
    """torch.nn.functional.fractional_max_pool2d / 3d (FractionalMaxPool2DBackward0 / 3D):
    max pools over windows whose starts torch draws from _random_samples (uniform in [0, 1),
    drawn with torch.rand's stream as torch does when not given)."""
    fn = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an "
                         f"output_ratio")
    kernel = int_tuple(kernel_size, n, fn, "kernel_size")
    x = input._data
    if output_size is None:
        # (torch's Python layer: 3-d repeats a single ratio, 2-d takes len() of it)
        if not isinstance(output_ratio, (tuple, list)):
            if n == 2:
                raise TypeError(f"object of type '{type(output_ratio).__name__}' has no len()")
            output_ratio = (output_ratio,) * n
        ratio = tuple(output_ratio)
        if len(ratio) < n:
            raise IndexError("tuple index out of range")
        out = tuple(int(input.size(-n + d) * ratio[d]) for d in range(n))
    else:
        out = int_tuple(output_size, n, fn, "output_size")
    if _random_samples is None:
        batch = 1 if x.ndim == n + 1 else input.size(0)
        _random_samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype)
    s = _random_samples._data
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{fn}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(x.shape)}")
    if s.ndim != 3 or s.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{s.shape[2] if s.ndim == 3 else s.ndim}.")
    if s.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    for d in range(n):
        name = _FMP_DIMS[3 - n + d]
        if out[d] + kernel[d] - 1 > x.shape[-n + d]:
            raise RuntimeError(f"{fn}{'_out' if n == 3 else ''}(): pool {name} {kernel[d]} too large relative to input "
                               f"{name} {x.shape[-n + d]}")
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"{fn}_out_frame" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    m, idx = _fractional_np(x, kernel, out, s)
    res, indices = wrap(m), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = (FractionalMaxPool2DBackward0 if n == 2 else FractionalMaxPool3DBackward0)()
        node._saved_self, node._saved_result1 = input, indices
        node._saved_kernel_size, node._saved_output_size = tuple(kernel), tuple(out)
        link(res, node, input)
    return (res, indices) if return_indices else res
