"""Convolution: conv1d/2d/3d and their transposes are one op, `convolution` (node
ConvolutionBackward0), whose derivative `convolution_backward` is an op too (node
ConvolutionBackwardBackward0), so gradients of every order are convolutions again.

Each is im2col + one BLAS product: a strided view of every window of the (padded) input,
copied once into a matrix and multiplied with the weight (grouped: a batched product over the
groups); the gradient of the input is the product's adjoint followed by col2im (one
whole-array add per kernel offset). A transposed convolution is the gradient of the input of
a plain one, and the other way round. F.unfold / F.fold are im2col / col2im themselves
(nodes Im2ColBackward0 / Col2ImBackward0), each the other's derivative."""
__all__ = ["convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "conv_tbc"]   # (unfold/fold: F.unfold, F.fold; torch has no top-level names)

import warnings
from math import prod

import numpy as np

from .._amp_state import AUTOCAST, lower
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, init_node, use   # (init_node, use: node with 3 outputs)
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, like_format
from .complex import view_as_real
from ._windows import windows, add_windows, offsets, int_tuple, invalid_arguments
from .pad import constant_pad_nd


# Note [Conv layout]: the im2col matrix is either one per sample, (N, C*K, L) (L: output
# positions), or one for the whole batch with the batch innermost, (C*K, L*N). col2im adds
# one kernel offset at a time into the input; its rows are L's last axis long in the first
# layout and that times N in the second, so small images (where NumPy's per-row cost
# dominates) go batch-last, large ones per sample (no transposes).
_BATCH_LAST_WIDTH = 16


def _batch_last(n, out):
    return n > 1 and bool(out) and out[-1] < _BATCH_LAST_WIDTH


def _padded(x, padding, batch_last):
    """x (N, C, *S) zero-padded on both sides of each spatial axis, as (N, C, *Sp) or, batch
    last, (C, *Sp, N); one copy at most."""
    if batch_last:
        x = np.moveaxis(x, 0, -1)
        lead, tail = x.shape[:1], x.shape[-1:]
    else:
        lead, tail = x.shape[:2], ()
    if not any(padding):
        return np.ascontiguousarray(x)
    sp = x.shape[len(lead):x.ndim - len(tail)]
    xp = np.zeros(lead + tuple(s + 2 * p for s, p in zip(sp, padding)) + tail, x.dtype)
    xp[(slice(None),) * len(lead) + tuple(slice(p, p + s) for s, p in zip(sp, padding))] = x
    return xp


def _unpadded(xp, shape, padding, batch_last):
    """The inverse of _padded: the (N, C, *S) centre of xp, C-contiguous."""
    if batch_last:
        xp = np.moveaxis(xp, -1, 0)
    if any(padding):
        xp = xp[(slice(None), slice(None)) +
                tuple(slice(p, p + s) for s, p in zip(shape[2:], padding))]
    return np.ascontiguousarray(xp)


def _im2col(x, kernel, stride, padding, dilation, out, groups, batch_last):
    """The windows of x (N, C, *S) as matrices: (N, G, C/G*K, L), or (G, C/G*K, L*N)."""
    n, c = x.shape[:2]
    ck = c // groups * prod(kernel)
    xp = _padded(x, padding, batch_last)
    if batch_last:
        return windows(xp, 1, kernel, stride, dilation, out).reshape(groups, ck, prod(out) * n)
    return windows(xp, 2, kernel, stride, dilation, out).reshape(n, groups, ck, prod(out))


def _out_rows(g, groups, batch_last):
    """An output-shaped array g (N, O, *out) as the product's rows: (N, G, O/G, L), or
    (G, O/G, L*N)."""
    n, o = g.shape[:2]
    size = prod(g.shape[2:])
    if batch_last:
        return np.ascontiguousarray(np.moveaxis(g, 0, -1)).reshape(groups, o // groups,
                                                                   size * n)
    return g.reshape(n, groups, o // groups, size)


def _conv_np(x, w, stride, padding, dilation, groups, out=None):
    """Cross-correlation of x (N, C, *S) with w (O, C/groups, *K): (N, O, *out)."""
    n = x.shape[0]
    o, kernel = w.shape[0], w.shape[2:]
    if out is None:
        out = tuple((s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, st, p, d in
                    zip(x.shape[2:], kernel, stride, padding, dilation))
    bl = _batch_last(n, out)
    cols = _im2col(x, kernel, stride, padding, dilation, out, groups, bl)
    w2 = w.reshape(groups, o // groups, cols.shape[-2])
    res = np.matmul(w2, cols)
    if bl:
        return np.ascontiguousarray(np.moveaxis(res.reshape((o,) + out + (n,)), -1, 0))
    return res.reshape((n, o) + out)


def _conv_grad_input(g, w, shape, stride, padding, dilation, groups, rows=None):
    """The adjoint of _conv_np in x: g (N, O, *out) -> (N, C, *S) for input shape `shape`
    (rows: g as _out_rows gives it, if already made)."""
    n, c = shape[:2]
    out, kernel = g.shape[2:], w.shape[2:]
    if c == groups > 1:
        return _depthwise_grad_input(g, w, shape, stride, padding, dilation, groups)
    bl = _batch_last(n, out)
    if rows is None:
        rows = _out_rows(g, groups, bl)
    wt = w.reshape(groups, w.shape[0] // groups, prod(w.shape[1:])).transpose(0, 2, 1)
    cols = np.matmul(wt, rows)
    sp = tuple(s + 2 * p for s, p in zip(shape[2:], padding))
    if bl:
        full = add_windows(cols.reshape((c,) + kernel + out + (n,)), (c,) + sp + (n,), 1,
                           kernel, stride, dilation, out)
    else:
        full = add_windows(cols.reshape((n, c) + kernel + out), (n, c) + sp, 2, kernel,
                           stride, dilation, out)
    return _unpadded(full, shape, padding, bl)


def _depthwise_grad_input(g, w, shape, stride, padding, dilation, groups):
    """_conv_grad_input for one input channel per group: the product's inner dimension is
    the few outputs of a channel, too small for BLAS, so each kernel offset adds its
    weighted gradient into the input directly."""
    n, c = shape[:2]
    out, kernel = g.shape[2:], w.shape[2:]
    m = w.shape[0] // groups
    g = g.reshape((n, c, m) + out)
    w = w.reshape((c, m) + tuple(kernel))
    full = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(shape[2:], padding)), g.dtype)
    tail = (None,) * len(out)
    for k, sl in offsets(kernel, stride, dilation, out):
        wk = w[(slice(None), slice(None)) + k][(slice(None), slice(None)) + tail]
        term = g * wk if m > 1 else g[:, :, 0] * wk[:, 0]
        full[(slice(None), slice(None)) + sl] += term.sum(2) if m > 1 else term
    return _unpadded(full, shape, padding, False)


def _conv_grad_weight(g, x, wshape, stride, padding, dilation, groups, rows=None):
    """The adjoint of _conv_np in w: g (N, O, *out), x (N, C, *S) -> wshape."""
    n = x.shape[0]
    out, kernel = g.shape[2:], wshape[2:]
    bl = _batch_last(n, out)
    cols = _im2col(x, kernel, stride, padding, dilation, out, groups, bl)
    if rows is None:
        rows = _out_rows(g, groups, bl)
    # (cols @ rows^T, transposed after, is the faster order for BLAS on these shapes)
    if bl:
        gw = np.matmul(cols, rows.transpose(0, 2, 1))
    else:
        gw = np.matmul(cols, rows.transpose(0, 1, 3, 2)).sum(0)
    return np.ascontiguousarray(gw.transpose(0, 2, 1)).reshape(wshape)


def _forward_np(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        out = _transposed_size(x.shape[2:], w.shape[2:], stride, padding, dilation,
                               output_padding)
        shape = (x.shape[0], w.shape[1] * groups) + out
        res = _conv_grad_input(x, w, shape, stride, padding, dilation, groups)
    else:
        res = _conv_np(x, w, stride, padding, dilation, groups)
    if b is not None:
        res += b.reshape((-1,) + (1,) * (res.ndim - 2))
    return res


def _transposed_size(size, kernel, stride, padding, dilation, output_padding):
    return tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, k, st, p, d, op in
                 zip(size, kernel, stride, padding, dilation, output_padding))


def _backward_np(g, x, w, stride, padding, dilation, transposed, groups, mask):
    """(grad input, grad weight, grad bias) of convolution as arrays (None where the mask
    is off)."""
    gi = gw = gb = None
    if transposed:
        if mask[0]:
            gi = _conv_np(g, w, stride, padding, dilation, groups, x.shape[2:])
        if mask[1]:
            gw = _conv_grad_weight(x, g, w.shape, stride, padding, dilation, groups)
    elif mask[0] or mask[1]:
        rows = _out_rows(g, groups, _batch_last(g.shape[0], g.shape[2:]))    # (shared)
        if mask[0]:
            gi = _conv_grad_input(g, w, x.shape, stride, padding, dilation, groups, rows)
        if mask[1]:
            gw = _conv_grad_weight(g, x, w.shape, stride, padding, dilation, groups, rows)
    if mask[2]:
        gb = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
    # channels last as the forward's result (Note [Channels last])
    return (gi if gi is None else like_format(gi, x, w),
            gw if gw is None else like_format(gw, x, w), gb)


# ------------------------------------------------------------------ the op and its nodes

class ConvolutionBackward0(Node):            # derivatives.yaml: convolution
    __slots__ = ("_saved_input", "_saved_weight", "_saved_bias_sym_sizes_opt",
                 "_saved_stride", "_saved_padding", "_saved_dilation", "_saved_transposed",
                 "_saved_output_padding", "_saved_groups")
    _saved_names = ("_saved_input", "_saved_weight")

    def apply(self, grad):
        return convolution_backward(
            grad, self._saved_input, self._saved_weight, self._saved_bias_sym_sizes_opt,
            self._saved_stride, self._saved_padding, self._saved_dilation,
            self._saved_transposed, self._saved_output_padding, self._saved_groups,
            (needs(self, 0), needs(self, 1), needs(self, 2)))

    def np_apply(self, g):
        return _backward_np(g, self._saved_input._data, self._saved_weight._data,
                            self._saved_stride, self._saved_padding, self._saved_dilation,
                            self._saved_transposed, self._saved_groups,
                            (needs(self, 0), needs(self, 1), needs(self, 2)))


class ConvolutionBackwardBackward0(Node):    # derivatives.yaml: convolution_backward
    # convolution is bilinear in (input, weight), so each second derivative is a
    # convolution, or convolution_backward, with one argument replaced by its tangent
    __slots__ = ("_saved_grad_output", "_saved_input", "_saved_weight", "_saved_stride",
                 "_saved_padding", "_saved_dilation", "_saved_transposed",
                 "_saved_output_padding", "_saved_groups")
    _saved_names = ("_saved_grad_output", "_saved_input", "_saved_weight")
    _n_outputs = 3

    def apply(self, grads):
        gg_input, gg_weight, gg_bias = grads
        g, x, w = self._saved_grad_output, self._saved_input, self._saved_weight
        args = (self._saved_stride, self._saved_padding, self._saved_dilation,
                self._saved_transposed, self._saved_output_padding, self._saved_groups)
        d_grad = d_input = d_weight = None
        if needs(self, 0):
            if gg_input is not None:
                d_grad = convolution(gg_input, w, None, *args)
            if gg_weight is not None:
                term = convolution(x, gg_weight, None, *args)
                d_grad = term if d_grad is None else d_grad + term
            if gg_bias is not None:
                term = gg_bias.reshape((1, -1) + (1,) * (g._data.ndim - 2))
                d_grad = term.expand(g.shape) if d_grad is None else d_grad + term
        if needs(self, 1) and gg_weight is not None:
            d_input = convolution_backward(g, x, gg_weight, None, *args,
                                           (True, False, False))[0]
        if needs(self, 2) and gg_input is not None:
            d_weight = convolution_backward(g, gg_input, w, None, *args,
                                            (False, True, False))[1]
        return d_grad, d_input, d_weight


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution on checked arguments (tuples of ints of the spatial rank)."""
    if input._data.dtype.kind == "c":
        return _complex_convolution(input, weight, bias, stride, padding, dilation, transposed,
                                    output_padding, groups)
    b = None if bias is None else bias._data
    x, w = input._data, weight._data
    res = wrap(like_format(_forward_np(x, w, b, stride, padding, dilation, transposed,
                                       output_padding, groups), x, w))
    if STATE.enabled and (input._requires_grad or weight._requires_grad or
                          bias is not None and bias._requires_grad) or \
            LEVELS and dual(input, weight, bias):
        node = ConvolutionBackward0()
        node._saved_input, node._saved_weight = input, weight
        node._saved_bias_sym_sizes_opt = (0,) if bias is None else bias._data.shape
        node._saved_stride, node._saved_padding = stride, padding
        node._saved_dilation, node._saved_transposed = dilation, transposed
        node._saved_output_padding, node._saved_groups = output_padding, groups
        link(res, node, input, weight, bias)
    return res


def _complex_convolution(input, weight, bias, *args):
    """A complex convolution from three real ones, as torch composes it (Gauss's trick):
    a = x_r * w_r + b_r, b = x_i * w_i, c = (x_r + x_i) * (w_r + w_i) + (b_r + b_i);
    result (a - b) + (c - a - b) i."""
    xr, xi = (view_as_real(input).select(-1, i) for i in (0, 1))
    wr, wi = (view_as_real(weight).select(-1, i) for i in (0, 1))
    br = bi = None
    if bias is not None:
        br, bi = (view_as_real(bias).select(-1, i) for i in (0, 1))
    a = convolution(xr, wr, br, *args)
    b = convolution(xi, wi, None, *args)
    c = convolution(xr + xi, wr + wi, None if bias is None else br + bi, *args)
    return (a - b) + (c - a - b) * 1j


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """(grad input, grad weight, grad bias) of convolution, as an op of its own (None where
    output_mask is off): differentiable in grad_output, input and weight."""
    x, w = input._data, weight._data
    outs = [None if a is None else wrap(a) for a in _backward_np(
        grad_output._data, x, w, stride, padding, dilation, transposed, groups, output_mask)]
    if STATE.enabled and (grad_output._requires_grad or input._requires_grad or
                          weight._requires_grad):
        node = ConvolutionBackwardBackward0()
        node._saved_grad_output, node._saved_input = grad_output, input
        node._saved_weight = weight
        node._saved_stride, node._saved_padding = stride, padding
        node._saved_dilation, node._saved_transposed = dilation, transposed
        node._saved_output_padding, node._saved_groups = output_padding, groups
        nb = w.shape[1] * groups if transposed else w.shape[0]
        metas = [(x.shape, x.dtype), (w.shape, w.dtype), ((nb,), w.dtype)]
        init_node(node, (use(grad_output), use(input), use(weight)), metas)
        for i, o in enumerate(outs):
            if o is not None:
                o._grad_fn, o._output_nr, o._requires_grad = node, i, True
    return tuple(outs)


# ------------------------------------------------------------------ checks (torch's texts)

_CPP_NAMES = {"Float": "float", "Double": "double", "Long": "long int", "Int": "int",
              "Short": "short int", "Char": "signed char", "Byte": "unsigned char",
              "Bool": "bool", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
              "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}
_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _sizes(v):
    return " x ".join(map(str, v))


def _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch's checks of a convolution's arguments, in torch's order."""
    x, w = input._data, weight._data
    if w.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    n = w.ndim - 2
    named = [("stride", stride), ("padding", padding), ("dilation", dilation)]
    if transposed:
        named.append(("output_padding", output_padding))
    for name, v in named:
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(v)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if transposed and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if x.ndim != w.ndim:
        raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional "
                           f"weight {list(w.shape)}, but got {x.ndim}-dimensional input of "
                           f"size {list(x.shape)} instead")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size [{list(w.shape)}] "
                           f"instead")
    kernel = w.shape[2:]
    if any(k <= 0 for k in kernel):
        if n == 3:
            raise RuntimeError(f"kernel size should be greater than zero, but got: "
                               f"{' x '.join(map(str, kernel))} (TxHxW)")
        k2 = (1,) * (2 - n) + kernel
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{k2[0]} kernel_width: {k2[1]}")
    if transposed:
        if x.shape[1] != w.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected "
                               f"input{list(x.shape)} to have {w.shape[0]} channels, but got "
                               f"{x.shape[1]} channels instead")
        nb = w.shape[1] * groups
    else:
        if x.shape[1] != w.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {list(w.shape)}, "
                               f"expected input{list(x.shape)} to have {w.shape[1] * groups} "
                               f"channels, but got {x.shape[1]} channels instead")
        nb = w.shape[0]
    if bias is not None:
        bd = bias._data
        if bd.dtype != x.dtype:
            if transposed:
                raise RuntimeError(f"Input type (torch.{type_name(x.dtype)}Tensor) and bias "
                                   f"type (torch.{type_name(bd.dtype)}Tensor) should be the "
                                   f"same or input should be a MKLDNN tensor and bias is a "
                                   f"dense tensor")
            raise RuntimeError(f"Input type ({_CPP_NAMES[type_name(x.dtype)]}) and bias type "
                               f"({_CPP_NAMES[type_name(bd.dtype)]}) should be the same")
        if bd.ndim != 1 or bd.shape[0] != nb:
            what = "transposed=1, " if transposed else ""
            raise RuntimeError(f"Given {what}weight of size {list(w.shape)}, expected bias to "
                               f"be 1-dimensional with {nb} elements, but got bias of size "
                               f"{list(bd.shape)} instead")
    if transposed:
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            names = _AXES[max(n, 2)]
            pad = lambda v: (0,) * (len(names) - n) + tuple(v)    # 1-D runs as 2-D
            ones = lambda v: (1,) * (len(names) - n) + tuple(v)
            parts = [f"output_padding_{a}: {v}" for a, v in zip(names, pad(output_padding))]
            parts += [f"stride_{a}: {v}" for a, v in zip(names, ones(stride))]
            parts += [f"dilation_{a}: {v}" for a, v in zip(names, ones(dilation))]
            raise RuntimeError("output padding must be smaller than either stride or "
                               "dilation, but got " + " ".join(parts))
        out = _transposed_size(x.shape[2:], kernel, stride, padding, dilation, output_padding)
        if any(o < 1 for o in out):
            lead = (1,) * (2 - n)                                  # 1-D runs as 2-D
            raise RuntimeError(f"Given input size per channel: ({_sizes(lead + x.shape[2:])})"
                               f". Calculated output size per channel: "
                               f"({_sizes(lead + out)}). Output size is too small")
    else:
        padded = tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
        dk = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
        if any(p < k for p, k in zip(padded, dk)):
            raise RuntimeError(f"Calculated padded input size per channel: ({_sizes(padded)})"
                               f". Kernel size: ({_sizes(dk)}). Kernel size can't be greater "
                               f"than actual input size")
    if x.dtype != w.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found "
                           f"{type_name(w.dtype)}")
    if x.dtype.kind == "b":
        raise NotImplementedError(f'"slow_conv{n}d_cpu" not implemented for \'Bool\'')


# ------------------------------------------------------------------ conv1d/2d/3d

_SAME_WARNED = False


def _warn_same():
    """torch warns once per process (TORCH_WARN_ONCE) about the copy 'same' may need."""
    global _SAME_WARNED
    if not _SAME_WARNED:
        _SAME_WARNED = True
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=5)


def _conv(name, n, input, weight, bias, stride, padding, dilation, groups):
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor) or \
            bias is not None and not isinstance(bias, Tensor) or \
            not isinstance(groups, (int, np.integer)) or isinstance(groups, bool):
        raise _invalid(name, input, weight, bias, stride, padding, dilation, groups)
    if AUTOCAST.cpu:                    # Note [Autocast hook]
        input, weight, bias = lower(input, weight, bias)
    try:
        st = int_tuple(stride, n, name, "stride")
        dil = int_tuple(dilation, n, name, "dilation")
        pad = padding if isinstance(padding, str) else int_tuple(padding, n, name, "padding")
    except TypeError:
        raise _invalid(name, input, weight, bias, stride, padding, dilation, groups) from None
    stride, padding, dilation = st, pad, dil
    input, unbatched = _batched(name, n, input)
    if isinstance(padding, str):
        input, padding = _string_padding(input, weight, padding, stride, dilation)
    _check(input, weight, bias, stride, padding, dilation, False, (0,) * n, groups)
    res = convolution(input, weight, bias, stride, padding, dilation, False, (0,) * n,
                      int(groups))
    return res.squeeze(0) if unbatched else res


def _batched(name, n, input):
    """(input with a batch dim, whether it had none): an n-d convolution takes (C, *spatial)
    or (N, C, *spatial)."""
    nd = input._data.ndim
    if nd not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input._data.shape)}")
    return (input.unsqueeze(0), True) if nd == n + 1 else (input, False)


def _string_padding(input, weight, padding, stride, dilation):
    """padding='valid' is no padding; 'same' pads d*(k-1) in all, half on each side, the odd
    element (if any) after the input: by a zero pad of the input (ConstantPadNd), as torch."""
    if padding == "valid":
        return input, (0,) * len(stride)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    kernel = weight._data.shape[2:]
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    left = tuple(t // 2 for t in total)
    extra = [t - 2 * lo for t, lo in zip(total, left)]
    if any(extra):
        _warn_same()
        pads = []
        for e in reversed(extra):
            pads += [0, e]
        input = constant_pad_nd(input, pads)
    return input, left


def _invalid(name, input, weight, *rest):
    """torch's TypeError for arguments its overloads do not accept (the optional ones
    described as keywords)."""
    keys = ("bias", "stride", "padding", "dilation", "groups")
    defaults = (None, 1, 0, 1, 1)
    kwargs = {k: v for k, v, d in zip(keys, rest, defaults)
              if not (v is d or type(v) is int and v == d)}
    return invalid_arguments(name, (input, weight), kwargs)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


# ------------------------------------------------------------------ transposed

def _conv_transpose(name, n, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    for arg, v, pos in (("input", input, 1), ("weight", weight, 2)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"{name}(): argument 'bias' (position 3) must be Tensor, not "
                        f"{type(bias).__name__}")
    stride = int_tuple(stride, n, name, "stride")
    padding = int_tuple(padding, n, name, "padding")
    output_padding = int_tuple(output_padding, n, name, "output_padding")
    dilation = int_tuple(dilation, n, name, "dilation")
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool):
        raise TypeError(f"{name}(): argument 'groups' must be int, not "
                        f"{type(groups).__name__}")
    if AUTOCAST.cpu:                    # Note [Autocast hook]
        input, weight, bias = lower(input, weight, bias)
    input, unbatched = _batched(name, n, input)
    _check(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    res = convolution(input, weight, bias, stride, padding, dilation, True, output_padding,
                      int(groups))
    return res.squeeze(0) if unbatched else res


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ------------------------------------------------------------------ unfold / fold (im2col)

class Im2ColBackward0(Node):                 # derivatives.yaml: im2col
    __slots__ = ("_saved_kernel_size", "_saved_dilation", "_saved_padding", "_saved_stride",
                 "_saved_self_sym_argsize_minus_2", "_saved_self_sym_argsize_minus_1")

    def apply(self, grad):
        return col2im(grad, (self._saved_self_sym_argsize_minus_2,
                             self._saved_self_sym_argsize_minus_1), self._saved_kernel_size,
                      self._saved_dilation, self._saved_padding, self._saved_stride),

    def np_apply(self, g):
        return _col2im_np(g, (self._saved_self_sym_argsize_minus_2,
                              self._saved_self_sym_argsize_minus_1), self._saved_kernel_size,
                          self._saved_dilation, self._saved_padding, self._saved_stride),


class Col2ImBackward0(Node):                 # derivatives.yaml: col2im
    __slots__ = ("_saved_kernel_size", "_saved_dilation", "_saved_padding", "_saved_stride")

    def apply(self, grad):
        return im2col(grad, self._saved_kernel_size, self._saved_dilation,
                      self._saved_padding, self._saved_stride),

    def np_apply(self, g):
        return _im2col_np(g, self._saved_kernel_size, self._saved_dilation,
                          self._saved_padding, self._saved_stride),


def _blocks(size, kernel, dilation, padding, stride):
    return tuple((s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in
                 zip(size, kernel, dilation, padding, stride))


def _im2col_np(x, kernel, dilation, padding, stride):
    """(..., C, H, W) -> (..., C*kh*kw, L): every window as a column."""
    lead = x.shape[:-3]
    x = x.reshape((-1,) + x.shape[-3:])
    out = _blocks(x.shape[2:], kernel, dilation, padding, stride)
    cols = windows(_padded(x, padding, False), 2, kernel, stride, dilation, out)
    return cols.reshape(lead + (x.shape[1] * prod(kernel), prod(out)))


def _col2im_np(cols, output_size, kernel, dilation, padding, stride):
    """(..., C*kh*kw, L) -> (..., C, H, W): each column added back where it was read."""
    lead = cols.shape[:-2]
    c = cols.shape[-2] // prod(kernel)
    out = _blocks(output_size, kernel, dilation, padding, stride)
    cols = cols.reshape((-1, c) + tuple(kernel) + out)
    n = cols.shape[0]
    sp = tuple(s + 2 * p for s, p in zip(output_size, padding))
    full = add_windows(cols, (n, c) + sp, 2, kernel, stride, dilation, out)
    return _unpadded(full, (n, c) + tuple(output_size), padding, False).reshape(
        lead + (c,) + tuple(output_size))


def im2col(input, kernel_size, dilation, padding, stride):
    """torch._C._nn.im2col on checked arguments (node Im2ColBackward0)."""
    x = input._data
    res = wrap(_im2col_np(x, kernel_size, dilation, padding, stride))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = Im2ColBackward0()
        node._saved_kernel_size, node._saved_dilation = kernel_size, dilation
        node._saved_padding, node._saved_stride = padding, stride
        node._saved_self_sym_argsize_minus_2 = x.shape[-2]
        node._saved_self_sym_argsize_minus_1 = x.shape[-1]
        link(res, node, input)
    return res


def col2im(input, output_size, kernel_size, dilation, padding, stride):
    """torch._C._nn.col2im on checked arguments (node Col2ImBackward0)."""
    res = wrap(_col2im_np(input._data, output_size, kernel_size, dilation, padding, stride))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = Col2ImBackward0()
        node._saved_kernel_size, node._saved_dilation = kernel_size, dilation
        node._saved_padding, node._saved_stride = padding, stride
        link(res, node, input)
    return res


def _pair_args(fn, first, **args):
    """F.unfold / F.fold's size arguments (from position `first` on): each an int or a pair,
    as torch parses them."""
    out = []
    for pos, (name, v) in enumerate(args.items(), first):
        if not isinstance(v, (tuple, list)):
            v = (v, v)
        v = int_tuple(v, 2, fn, name, pos)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        out.append(v)
    return out


def _check_window_args(kernel, dilation, padding, stride):
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: "
                           f"{stride[0]} stride_width: {stride[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation[0]} dilation_width: {dilation[1]}")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: "
                           f"{padding[0]} pad_width: {padding[1]}")


def _check_im2col_dtype(x, name):
    if x.dtype.kind in "iu":
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for '
                                  f"'{type_name(x.dtype)}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.unfold: (N, C, H, W) -> (N, C*kh*kw, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"im2col(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    kernel, dilation, padding, stride = _pair_args(
        "im2col", 2, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    x = input._data
    if x.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got 2)")
    if x.ndim > 4 or 0 in x.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(x.shape)}")
    _check_window_args(kernel, dilation, padding, stride)
    out = _blocks(x.shape[-2:], kernel, dilation, padding, stride)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[-2:])}, "
                           f"kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"calculated shape of the array of sliding blocks as {out}, but "
                           f"its components must be at least one.")
    _check_im2col_dtype(x, "im2col")
    return im2col(input, kernel, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.fold: (N, C*kh*kw, L) -> (N, C, H, W), overlaps summed."""
    if not isinstance(input, Tensor):
        raise TypeError(f"col2im(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    output_size, kernel, dilation, padding, stride = _pair_args(
        "col2im", 2, output_size=output_size, kernel_size=kernel_size, dilation=dilation,
        padding=padding, stride=stride)
    x = input._data
    if x.ndim not in (2, 3) or 0 in x.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(x.shape)}")
    _check_window_args(kernel, dilation, padding, stride)
    k = kernel[0] * kernel[1]
    if x.shape[-2] % k:
        raise RuntimeError(f"Expected size of input's dimension {x.ndim - 2} to be divisible by "
                           f"the product of kernel_size, but got input.size({x.ndim - 2})="
                           f"{x.shape[-2]} and kernel_size={kernel}.")
    out = _blocks(output_size, kernel, dilation, padding, stride)
    if out[0] * out[1] != x.shape[-1]:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected "
                           f"size of input's dimension {x.ndim - 1} to match the calculated "
                           f"number of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, "
                           f"but got input.size({x.ndim - 1})={x.shape[-1]}.")
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, "
                           f"calculated shape of the array of sliding blocks as {out}, but "
                           f"its components must be at least one.")
    _check_im2col_dtype(x, "col2im")
    return col2im(input, output_size, kernel, dilation, padding, stride)


# ---------------------------------------------------------------- conv_tbc (fairseq)

class ConvTbcBackward0(Node):                # derivatives.yaml: conv_tbc
    __slots__ = ("_saved_bias", "_saved_pad", "_saved_self", "_saved_weight")
    _saved_names = ("_saved_self", "_saved_weight", "_saved_bias")

    def apply(self, grad):
        """Each gradient is a conv_tbc again: the input's is the full correlation of grad
        with the flipped, transposed kernel (then the padding cut off); the weight's
        correlates the padded input (batch as channels) with grad (as the kernel)."""
        x, w, pad = self._saved_self, self._saved_weight, self._saved_pad
        k, c, o = w.shape
        gx = gw = gb = None
        if needs(self, 0):
            zc = wrap(np.zeros(c, grad._data.dtype))
            full = conv_tbc(grad, w.flip(0).transpose(1, 2), zc, k - 1)
            gx = _time_pad(full, -pad)
        if needs(self, 1):
            zo = wrap(np.zeros(o, grad._data.dtype))
            gw = conv_tbc(_time_pad(x, pad).transpose(1, 2), grad, zo, 0)
        if needs(self, 2):
            gb = grad.sum((0, 1))
        return gx, gw, gb


def _time_pad(t, pad):
    """t (T, B, C) with pad zeros at both ends of time (pad < 0: that many cut off)."""
    return constant_pad_nd(t, (0, 0, 0, 0, pad, pad), 0) if pad else t


def _tbc_np(x, w, b, pad):
    k = w.shape[0]
    if pad > 0:
        x = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    elif pad < 0:
        x = x[-pad:x.shape[0] + pad]
    t_out = x.shape[0] - k + 1
    out = np.empty((t_out,) + x.shape[1:2] + w.shape[2:], x.dtype)
    out[...] = b
    for i in range(k):      # one BLAS product per kernel tap: (T*B, C) @ (C, O)
        out += x[i:i + t_out] @ w[i]
    return out


def conv_tbc(input, weight, bias, pad=0):
    """fairseq's temporal convolution on (time, batch, channel) input: weight (K, C_in,
    C_out), out[t] = bias + sum_k input[t + k - pad] @ weight[k]."""
    x, w, b = input._data, weight._data, bias._data
    if x.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if w.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if b.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if b.shape[0] != w.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if x.shape[2] != w.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    t_out = x.shape[0] + 2 * int(pad) - w.shape[0] + 1
    if t_out < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {t_out}: "
                           f"[{t_out}, {x.shape[1]}, {w.shape[2]}]")
    if x.dtype != w.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{type_name(x.dtype)} and {type_name(w.dtype)}")
    res = wrap(_tbc_np(x, w, b, int(pad)))
    if STATE.enabled and (input._requires_grad or weight._requires_grad or
                          bias._requires_grad) or LEVELS and dual(input, weight, bias):
        node = ConvTbcBackward0()
        node._saved_self, node._saved_weight, node._saved_bias = input, weight, bias
        node._saved_pad = int(pad)
        link(res, node, input, weight, bias)
    return res
