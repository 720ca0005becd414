"""Resampling: upsampling by nearest, nearest-exact, (bi/tri)linear and bicubic interpolation
(F.interpolate's modes; 'area' is adaptive average pooling), and pixel shuffle / unshuffle.

Every interpolation is separable: along each spatial axis (the last first, the order in
which torch's kernels combine them) the output is a weighted sum of a few gathers of the
input (1 tap for nearest, 2 for linear, 4 for cubic), and its adjoint adds the weighted
gradient back to the taps' sources (take_adjoint: a few adds of strided slices). The source indices and weights follow torch's float
arithmetic (the scale in float32 for nearest, in the input's precision for the others), so
the same input elements are read."""
__all__ = ["pixel_shuffle", "pixel_unshuffle"]     # (torch's top-level names; the rest: F.*)

import math
import warnings

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._windows import take_adjoint, invalid_arguments
from ._args import channels_last_result


# ------------------------------------------------------------------ source indices, weights

def _nearest_taps(n_in, n_out, scale, exact, shortcuts):
    """torch's nearest source index: floor(dst * s) (nearest-exact: floor((dst + .5) * s)),
    s = 1/scale_factor if given else n_in/n_out, in float32. shortcuts: torch's nearest_idx,
    which copies an axis that keeps its size and halves dst for an axis that doubles
    (Note [Same size])."""
    d = np.arange(n_out)
    if shortcuts and not exact:
        if n_out == n_in:
            return [(d, None)]
        if n_out == 2 * n_in:
            return [(d >> 1, None)]
    s = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    if exact:
        src = np.floor(((d + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(d.astype(np.float32) * s)
    return [(np.minimum(src.astype(np.int64), n_in - 1), None)]


def _area_scale(n_in, n_out, align_corners, scale, dtype):
    """torch's area_pixel_compute_scale, in the interpolation's precision."""
    if align_corners:
        return dtype.type(n_in - 1) / dtype.type(n_out - 1) if n_out > 1 else dtype.type(0)
    if scale:
        return dtype.type(1.0 / scale)
    return dtype.type(n_in) / dtype.type(n_out)


def _source(n_in, n_out, align_corners, scale, dtype, cubic):
    """torch's area_pixel_compute_source_index for every output position."""
    s = _area_scale(n_in, n_out, align_corners, scale, dtype)
    d = np.arange(n_out).astype(dtype)
    if align_corners:
        return s * d
    src = s * (d + dtype.type(0.5)) - dtype.type(0.5)
    return src if cubic else np.maximum(src, dtype.type(0))


def _linear_taps(n_in, n_out, align_corners, scale, dtype):
    src = _source(n_in, n_out, align_corners, scale, dtype, False)
    i0 = src.astype(np.int64)
    l1 = np.clip(src - i0.astype(dtype), 0, 1).astype(dtype)
    i1 = np.where(i0 < n_in - 1, i0 + 1, i0)
    return [(i0, (1 - l1).astype(dtype)), (i1, l1)]


_CUBIC_A = -0.75


def _cubic_taps(n_in, n_out, align_corners, scale, dtype):
    """Keys' cubic convolution (A = -0.75) on the 4 nearest sources, clamped at the edges."""
    src = _source(n_in, n_out, align_corners, scale, dtype, True)
    f = np.floor(src)
    t = (src - f).astype(dtype)
    a = dtype.type(_CUBIC_A)
    u = t + 1
    w0 = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    v = 1 - t
    w2 = ((a + 2) * v - (a + 3)) * v * v + 1
    w3 = 1 - w0 - w1 - w2
    i = f.astype(np.int64)
    return [(np.clip(i + k, 0, n_in - 1), w.astype(dtype))
            for k, w in zip((-1, 0, 1, 2), (w0, w1, w2, w3))]


def _taps(mode, n_in, n_out, align_corners, scale, dtype, shortcuts=False):
    if mode == "nearest":
        return _nearest_taps(n_in, n_out, scale, False, shortcuts)
    if mode == "nearest-exact":
        return _nearest_taps(n_in, n_out, scale, True, shortcuts)
    calc = dtype if dtype.kind == "f" and dtype.itemsize >= 4 else np.dtype(np.float32)
    if mode == "bicubic":
        return _cubic_taps(n_in, n_out, align_corners, scale, calc)
    return _linear_taps(n_in, n_out, align_corners, scale, calc)


# Note [Same size]: torch's kernels do not always resample with the given scale factor:
# linear modes copy an axis that keeps its size (both ways); nearest uses nearest_idx, which
# copies such an axis and halves the index of one that doubles, in the backward always but in
# the forward only in 2-D; bicubic copies the gradient back when every axis keeps its size;
# nearest-exact never. ember follows, so the same elements are read.

def _resample_np(x, mode, out, align_corners, scales):
    n = len(out)
    src = x
    for i in range(n - 1, -1, -1):            # the last axis first
        ax = x.ndim - n + i
        if x.shape[ax] == out[i] and mode == "linear":
            continue                          # Note [Same size]
        taps = _taps(mode, x.shape[ax], out[i], align_corners, scales[i], x.dtype, n == 2)
        res = None
        for idx, w in taps:
            v = np.take(x, idx, ax)
            if w is not None:
                v *= w.astype(x.dtype).reshape((-1,) + (1,) * (x.ndim - 1 - ax))
            res = v if res is None else np.add(res, v, out=res)
        x = res
    return x.copy() if x is src else x


def _resample_backward_np(g, mode, shape, align_corners, scales):
    """The adjoint of _resample_np: g (..., *out) summed back into `shape`."""
    n = len(scales)
    src = g
    if mode == "bicubic" and g.shape[-n:] == tuple(shape[-n:]):
        return g.copy()                       # Note [Same size]
    for i in range(n):                        # the adjoint: the first axis first
        ax = g.ndim - n + i
        if g.shape[ax] == shape[ax] and mode in ("linear", "nearest"):
            continue                          # Note [Same size]
        taps = _taps(mode, shape[ax], g.shape[ax], align_corners, scales[i], g.dtype, True)
        res = None
        for idx, w in taps:
            if w is not None:
                w = w.astype(g.dtype).reshape((-1,) + (1,) * (g.ndim - 1 - ax))
            v = take_adjoint(g if w is None else g * w, idx, shape[ax], ax)
            res = v if res is None else np.add(res, v, out=res)
        g = res
    return g.copy() if g is src else g


# ------------------------------------------------------------------ the ops and their nodes

class _UpsampleNode(Node):
    # torch saves one scale per spatial dim, named by the dim (_saved_scales_h, ...)
    __slots__ = ("_saved_output_size", "_saved_self_sym_sizes", "_saved_align_corners")
    _mode = "nearest"
    _scale_names = ()

    def _scales(self):
        return tuple(getattr(self, n) for n in self._scale_names)

    def _align(self):
        return getattr(self, "_saved_align_corners", None)   # (set for linear and cubic)

    def apply(self, grad):
        return upsample_backward(grad, self._mode, self._saved_self_sym_sizes,
                                 self._saved_output_size, self._align(), self._scales()),

    def np_apply(self, g):
        return _resample_backward_np(g, self._mode, self._saved_self_sym_sizes, self._align(),
                                     self._scales()),


class _UpsampleBackwardNode(Node):
    # the gradient of an upsampling's backward (linear in grad) is the upsampling itself
    __slots__ = ("_saved_output_size", "_saved_align_corners")
    _mode = "nearest"
    _scale_names = ()
    _scales = _UpsampleNode._scales
    _align = _UpsampleNode._align

    def apply(self, grad):
        return upsample(grad, self._mode, self._saved_output_size, self._align(),
                        self._scales()),


class UpsampleNearest1DBackward0(_UpsampleNode):            # upsample_nearest1d
    __slots__ = ("_saved_scales",)
    _scale_names = ("_saved_scales",)


class UpsampleNearest2DBackward0(_UpsampleNode):            # upsample_nearest2d
    __slots__ = ("_saved_scales_h", "_saved_scales_w")
    _scale_names = ("_saved_scales_h", "_saved_scales_w")


class UpsampleNearest3DBackward0(_UpsampleNode):            # upsample_nearest3d
    __slots__ = ("_saved_scales_d", "_saved_scales_h", "_saved_scales_w")
    _scale_names = ("_saved_scales_d", "_saved_scales_h", "_saved_scales_w")


class UpsampleNearestExact1DBackward0(UpsampleNearest1DBackward0):   # _upsample_nearest_exact1d
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleNearestExact2DBackward0(UpsampleNearest2DBackward0):   # _upsample_nearest_exact2d
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleNearestExact3DBackward0(UpsampleNearest3DBackward0):   # _upsample_nearest_exact3d
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleLinear1DBackward0(UpsampleNearest1DBackward0):         # upsample_linear1d
    __slots__ = ()
    _mode = "linear"


class UpsampleBilinear2DBackward0(UpsampleNearest2DBackward0):       # upsample_bilinear2d
    __slots__ = ()
    _mode = "linear"


class UpsampleBicubic2DBackward0(UpsampleNearest2DBackward0):        # upsample_bicubic2d
    __slots__ = ()
    _mode = "bicubic"


class UpsampleTrilinear3DBackward0(UpsampleNearest3DBackward0):      # upsample_trilinear3d
    __slots__ = ()
    _mode = "linear"


class UpsampleNearest1DBackwardBackward0(_UpsampleBackwardNode):   # upsample_nearest1d_backward
    __slots__ = ("_saved_scales",)
    _scale_names = ("_saved_scales",)


class UpsampleNearest2DBackwardBackward0(_UpsampleBackwardNode):   # upsample_nearest2d_backward
    __slots__ = ("_saved_scales_h", "_saved_scales_w")
    _scale_names = ("_saved_scales_h", "_saved_scales_w")


class UpsampleNearest3DBackwardBackward0(_UpsampleBackwardNode):   # upsample_nearest3d_backward
    __slots__ = ("_saved_scales_d", "_saved_scales_h", "_saved_scales_w")
    _scale_names = ("_saved_scales_d", "_saved_scales_h", "_saved_scales_w")


class UpsampleNearestExact1DBackwardBackward0(UpsampleNearest1DBackwardBackward0):
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleNearestExact2DBackwardBackward0(UpsampleNearest2DBackwardBackward0):
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleNearestExact3DBackwardBackward0(UpsampleNearest3DBackwardBackward0):
    __slots__ = ()
    _mode = "nearest-exact"


class UpsampleLinear1DBackwardBackward0(UpsampleNearest1DBackwardBackward0):
    __slots__ = ()
    _mode = "linear"


class UpsampleBilinear2DBackwardBackward0(UpsampleNearest2DBackwardBackward0):
    __slots__ = ()
    _mode = "linear"


class UpsampleBicubic2DBackwardBackward0(UpsampleNearest2DBackwardBackward0):
    __slots__ = ()
    _mode = "bicubic"


class UpsampleTrilinear3DBackwardBackward0(UpsampleNearest3DBackwardBackward0):
    __slots__ = ()
    _mode = "linear"


_NODES = {("nearest", 1): UpsampleNearest1DBackward0, ("nearest", 2): UpsampleNearest2DBackward0,
          ("nearest", 3): UpsampleNearest3DBackward0,
          ("nearest-exact", 1): UpsampleNearestExact1DBackward0,
          ("nearest-exact", 2): UpsampleNearestExact2DBackward0,
          ("nearest-exact", 3): UpsampleNearestExact3DBackward0,
          ("linear", 1): UpsampleLinear1DBackward0, ("linear", 2): UpsampleBilinear2DBackward0,
          ("linear", 3): UpsampleTrilinear3DBackward0,
          ("bicubic", 2): UpsampleBicubic2DBackward0}
_BACKWARD_NODES = {
    ("nearest", 1): UpsampleNearest1DBackwardBackward0,
    ("nearest", 2): UpsampleNearest2DBackwardBackward0,
    ("nearest", 3): UpsampleNearest3DBackwardBackward0,
    ("nearest-exact", 1): UpsampleNearestExact1DBackwardBackward0,
    ("nearest-exact", 2): UpsampleNearestExact2DBackwardBackward0,
    ("nearest-exact", 3): UpsampleNearestExact3DBackwardBackward0,
    ("linear", 1): UpsampleLinear1DBackwardBackward0,
    ("linear", 2): UpsampleBilinear2DBackwardBackward0,
    ("linear", 3): UpsampleTrilinear3DBackwardBackward0,
    ("bicubic", 2): UpsampleBicubic2DBackwardBackward0}


def _set_common(node, output_size, align_corners, scales):
    node._saved_output_size = output_size
    for name, s in zip(node._scale_names, scales):
        setattr(node, name, s)
    if node._mode in ("linear", "bicubic"):
        node._saved_align_corners = align_corners


def upsample(input, mode, output_size, align_corners, scales):
    """upsample_<mode><n>d on checked arguments: mode is 'nearest', 'nearest-exact', 'linear'
    (linear, bilinear, trilinear by the rank) or 'bicubic'; scales: the scale factors given
    (None: derived from the sizes)."""
    x = input._data
    res = wrap(_resample_np(x, mode, output_size, align_corners, scales))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = _NODES[mode, len(output_size)]()
        _set_common(node, output_size, align_corners, scales)
        node._saved_self_sym_sizes = x.shape
        link(res, node, input)
    return res


def upsample_backward(grad, mode, input_size, output_size, align_corners, scales):
    """The gradient of upsample as an op (differentiable in grad)."""
    res = wrap(_resample_backward_np(grad._data, mode, input_size, align_corners, scales))
    if STATE.enabled and grad._requires_grad or LEVELS and dual(grad):
        node = _BACKWARD_NODES[mode, len(output_size)]()
        _set_common(node, output_size, align_corners, scales)
        link(res, node, grad)
    return res


# ------------------------------------------------------------------ F.interpolate

_RANK_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_OP_NAMES = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact",
             "linear": "upsample_linear", "bilinear": "upsample_bilinear",
             "trilinear": "upsample_trilinear", "bicubic": "upsample_bicubic"}


def _size_value(v):
    if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
        return int(v._data)
    return v


@channels_last_result(grads=False)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    x = input._data
    n = x.ndim - 2
    spatial = list(x.shape[2:])
    output_size = scales = None
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        size = _size_value(size)
        if isinstance(size, (list, tuple)):
            if len(size) != n:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{spatial} and output size of {size}. Please provide input "
                                 f"tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            output_size = [_size_value(v) for v in size]
        else:
            output_size = [size] * max(n, 0)
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != n:
                raise ValueError(f"Input and scale_factor must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{spatial} and scale_factor of shape {scale_factor}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"scale_factor in (s1, s2, ...,sK) format.")
            scales = list(scale_factor)
        else:
            scales = [scale_factor] * max(n, 0)
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [math.floor(float(s) * float(f)) for s, f in zip(spatial, scales)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic") and x.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if antialias:
        raise NotImplementedError("ember: interpolate(antialias=True) is not supported")
    if x.ndim not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", "linear",
                                                "bilinear", "trilinear", "bicubic"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {x.ndim}D) for the modes: {_MODES} (got {mode})")
    if mode in _RANK_MODES and x.ndim != _RANK_MODES[mode]:
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs "
                                  f"{_RANK_MODES[mode]}D input")
    if mode == "area":
        from . import pool  # (pool.py loads on first use: Note [Lazy layer ops] in ember/__init__)
        pool = (pool.adaptive_avg_pool1d, pool.adaptive_avg_pool2d, pool.adaptive_avg_pool3d)[n - 1]
        return pool(input, output_size)
    name = f"{_OP_NAMES[mode]}{n}d"
    if output_size is not None and any(not isinstance(v, (int, np.integer)) or
                                       isinstance(v, bool) for v in output_size):
        raise invalid_arguments(name, (input, list(output_size), None), {})
    if scales is not None:
        if any(isinstance(f, Tensor) for f in scales):
            raise invalid_arguments(name, (input, None, list(scales)), {})
        output_size = [math.floor(float(s) * float(f)) for s, f in zip(spatial, scales)]
        scales = tuple(float(f) for f in scales)
    else:
        scales = (None,) * n
    output_size = tuple(int(v) for v in output_size)
    _check_upsample(x, output_size, name, mode)
    kind = "linear" if mode in ("bilinear", "trilinear") else mode
    return upsample(input, kind, output_size, align_corners, scales)


def _check_upsample(x, output_size, name, mode):
    n = len(output_size)
    dims = ("D", "H", "W")[3 - n:]
    if any(s <= 0 for s in x.shape[2:]) or any(o <= 0 for o in output_size):
        ins = ", ".join(f"{d}: {s}" for d, s in zip(dims, x.shape[2:]))
        outs = ", ".join(f"{d}: {s}" for d, s in zip(dims, output_size))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}) output ({outs})")
    if x.shape[1] == 0 or x.shape[0] == 0 and mode not in ("nearest", "nearest-exact",
                                                             "linear", "bilinear"):
        raise RuntimeError(f"Non-empty {x.ndim}D data tensor expected but got a tensor with "
                           f"sizes {list(x.shape)}")
    if x.dtype.kind in "iub" and not (x.dtype == np.uint8 and mode.startswith("nearest")):
        suffix = "_channels_last" if n == 2 else ""
        raise NotImplementedError(f'"{name}{suffix}" not implemented for '
                                  f"'{type_name(x.dtype)}'")


def upsample_fn(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                _name="upsample"):
    """torch.nn.functional.upsample (deprecated alias of interpolate)."""
    warnings.warn(f"`nn.functional.{_name}` is deprecated. Use `nn.functional.interpolate` "
                  f"instead.", stacklevel=3)
    return interpolate(input, size, scale_factor, mode, align_corners)


# ------------------------------------------------------------------ pixel shuffle

def _shuffle_np(x, r):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r), a new array."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    oc, k = c // (r * r), len(lead)
    out = np.empty(lead + (oc, h * r, w * r), x.dtype)
    out.reshape(lead + (oc, h, r, w, r))[...] = x.reshape(lead + (oc, r, r, h, w)).transpose(
        tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return out


def _unshuffle_np(x, r):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), a new array."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    out = np.empty(lead + (c * r * r, h // r, w // r), x.dtype)
    out.reshape(lead + (c, r, r, h // r, w // r))[...] = x.reshape(
        lead + (c, h // r, r, w // r, r)).transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1,
                                                                      k + 3))
    return out


class PixelShuffleBackward0(Node):           # derivatives.yaml: pixel_shuffle
    __slots__ = ("_saved_upscale_factor",)

    def apply(self, grad):
        return pixel_unshuffle(grad, self._saved_upscale_factor),

    def np_apply(self, g):
        return _unshuffle_np(g, self._saved_upscale_factor),


class PixelUnshuffleBackward0(Node):         # derivatives.yaml: pixel_unshuffle
    __slots__ = ("_saved_downscale_factor",)

    def apply(self, grad):
        return pixel_shuffle(grad, self._saved_downscale_factor),

    def np_apply(self, g):
        return _shuffle_np(g, self._saved_downscale_factor),


def _factor(input, factor, fn, arg):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(factor, (int, np.integer)) or isinstance(factor, bool):
        raise TypeError(f"{fn}(): argument '{arg}' (position 2) must be int, not "
                        f"{type(factor).__name__}")
    x = input._data
    if x.ndim < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input "
                           f"with {x.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {arg}, but got {factor}")
    return int(factor)


def pixel_shuffle(input, upscale_factor):
    """torch.nn.functional.pixel_shuffle (PixelShuffleBackward0)."""
    r = _factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    res = wrap(_shuffle_np(input._data, r))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = PixelShuffleBackward0()
        node._saved_upscale_factor = r
        link(res, node, input)
    return res


def pixel_unshuffle(input, downscale_factor):
    """torch.nn.functional.pixel_unshuffle (PixelUnshuffleBackward0)."""
    r = _factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    h, w = input._data.shape[-2:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    res = wrap(_unshuffle_np(input._data, r))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = PixelUnshuffleBackward0()
        node._saved_downscale_factor = r
        link(res, node, input)
    return res
