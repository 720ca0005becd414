"""Spatial sampling: grid_sample (torch.grid_sampler_2d/3d, nodes GridSampler2DBackward0 /
GridSampler3DBackward0) and affine_grid (torch.affine_grid_generator, node
AffineGridGeneratorBackward0).

Note [Grid sampling as taps]: a sample is a weighted sum of input values at integer
positions ("taps"). Along each spatial axis a grid coordinate g in [-1, 1] becomes a source
position p (unnormalized, then padded: clipped or reflected), and each interpolation mode
gives per-axis taps (an integer index and a weight that is a polynomial in t = p - floor(p)):
nearest one tap (rint(p), weight 1), linear two (floor, 1 - t; floor + 1, t), cubic four
(floor - 1 + k, torch's cubic-convolution coefficients with A = -0.75; for cubic the padding
is applied to each tap's index instead of to p). A corner is one tap per axis; its weight is
the product of the per-axis weights, zero where the corner lies outside the input. p is
piecewise affine in g (p = mult * g + c with mult, c constant between breakpoints), so the
backward writes t as an ember expression in grid with those constants: the gradients are
ember ops (gather, scatter_add, products) and differentiate again for double backward."""
__all__ = ["affine_grid", "affine_grid_generator", "grid_sample", "grid_sampler",
           "grid_sampler_2d", "grid_sampler_3d"]

import itertools
import warnings

import numpy as np

from ..autograd import grad as _grad
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE, enable_grad, no_grad
from ..autograd.graph import Node, link, link_multi
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import check_args, needs, not_tensor
from .join import cat, stack

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_A = -0.75     # torch's cubic convolution parameter


# ---------------------------------------------------------------- source positions

def _unnormalize(g, size, align):
    """[-1, 1] -> pixel position, and d(position)/dg."""
    if align:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _clip(p, size):
    """p clipped to [0, size - 1], and its derivative (0 at and beyond the ends, as torch)."""
    inside = (p > 0) & (p < size - 1)
    return np.clip(p, 0, size - 1), inside.astype(p.dtype)


def _reflect(p, twice_low, twice_high):
    """p reflected into [twice_low / 2, twice_high / 2], and its derivative (+-1)."""
    if twice_low == twice_high:
        return np.zeros_like(p), np.zeros_like(p)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    d = p - low
    sign = np.where(d < 0, -1.0, 1.0).astype(p.dtype)
    a = d * sign
    flips = np.floor(a / span)
    extra = np.fmod(a, span)
    even = np.fmod(flips, 2) == 0
    return (np.where(even, extra + low, span - extra + low).astype(p.dtype),
            np.where(even, sign, -sign).astype(p.dtype))


def _pad(p, size, padding, align):
    """torch's compute_coordinates: p under the padding mode, and its derivative."""
    if padding == 1:
        return _clip(p, size)
    if padding == 2:
        r, m = _reflect(p, 0, 2 * (size - 1)) if align else _reflect(p, -1, 2 * size - 1)
        c, m2 = _clip(r, size)
        return c, m * m2
    return p, np.ones_like(p)


# ---------------------------------------------------------------- per-axis taps

def _cc1(x):
    return ((_A + 2) * x - (_A + 3)) * x * x + 1


def _cc2(x):
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A


def _dcc1(x):
    return (3 * (_A + 2) * x - 2 * (_A + 3)) * x


def _dcc2(x):
    return (3 * _A * x - 10 * _A) * x + 8 * _A


# (weight(t), d weight / dt) for each tap of a mode; t a NumPy array or an ember Tensor
_LINEAR = ((lambda t: 1 - t, lambda t: -1.0), (lambda t: t, lambda t: 1.0))
_NEAREST = ((lambda t: 1.0, lambda t: 0.0),)
_CUBIC = ((lambda t: _cc2(t + 1), lambda t: _dcc2(t + 1)),
          (lambda t: _cc1(t), lambda t: _dcc1(t)),
          (lambda t: _cc1(1 - t), lambda t: -_dcc1(1 - t)),
          (lambda t: _cc2(2 - t), lambda t: -_dcc2(2 - t)))


def _axis_taps(g, size, mode, padding, align):
    """For one axis: t (NumPy), mult (dt/dg), the tap indices (int arrays) and the mode's
    tap weight functions."""
    p, mult = _unnormalize(g, size, align)
    if mode == 2:
        f = np.floor(p)
        idx = []
        for k in range(4):
            q, _ = _pad(f - 1 + k, size, padding, align)
            idx.append(q.astype(np.int64))
        return p - f, np.full_like(p, mult), idx, _CUBIC
    p, m = _pad(p, size, padding, align)
    if mode == 1:
        return np.zeros_like(p), np.zeros_like(p), [np.rint(p).astype(np.int64)], _NEAREST
    f = np.floor(p)
    fi = f.astype(np.int64)
    return p - f, m * mult, [fi, fi + 1], _LINEAR


class _Corners:
    """Every corner (one tap per axis) of a sampling: flat input index (N, M), in-bounds
    mask, and per axis the tap number."""

    def __init__(self, x_shape, grid, mode, padding, align):
        spatial = x_shape[2:]
        d = len(spatial)
        n = grid.shape[0]
        self.out_spatial = grid.shape[1:-1]
        g = grid.reshape(n, -1, d)
        self.axes = [_axis_taps(g[..., d - 1 - a], spatial[a], mode, padding, align)
                     for a in range(d)]
        strides = [int(np.prod(spatial[a + 1:])) for a in range(d)]
        self.corners = []
        for taps in itertools.product(*[range(len(ax[2])) for ax in self.axes]):
            lin = 0
            mask = True
            for a, k in enumerate(taps):
                i = self.axes[a][2][k]
                mask = mask & (i >= 0) & (i < spatial[a])
                lin = lin + np.clip(i, 0, spatial[a] - 1) * strides[a]
            self.corners.append((taps, lin, mask))

    def weight(self, ts, skip=None, dtype=None):
        """Per corner, the product of the axes' tap weights at ts (t per axis) times the
        mask; with skip=a, axis a's weight replaced by its derivative."""
        out = []
        tensors = not isinstance(ts[0], np.ndarray)
        for taps, _, mask in self.corners:
            w = wrap(mask.astype(dtype)) if tensors else mask.astype(dtype)
            for a, k in enumerate(taps):
                fn, dfn = self.axes[a][3][k]
                f = (dfn if a == skip else fn)(ts[a])
                w = f * w
            out.append(w)
        return out


def _gather_np(x, lin):
    n, c = x.shape[:2]
    flat = x.reshape(n, c, -1)
    return np.take_along_axis(flat, np.broadcast_to(lin[:, None, :], (n, c, lin.shape[1])), 2)


def _sample_np(x, grid, mode, padding, align):
    cs = _Corners(x.shape, grid, mode, padding, align)
    ts = [ax[0] for ax in cs.axes]
    n, c = x.shape[:2]
    out = np.zeros((n, c, ts[0].shape[1]), x.dtype)
    for (_, lin, _), w in zip(cs.corners, cs.weight(ts, dtype=x.dtype)):
        out += np.asarray(w, x.dtype)[:, None, :] * _gather_np(x, lin)
    return out.reshape((n, c) + cs.out_spatial)


def _grid_grads(grad, x, grid, mode, padding, align, need_x, need_g):
    """Note [Grid sampling as taps]: the input's gradient scatters grad times each corner's
    weight back to the corner; the grid's is, per axis, the sum over corners and channels of
    grad * value * d(weight)/dt, times dt/dg (ember ops: differentiable when recording)."""
    cs = _Corners(x._data.shape, grid._data, mode, padding, align)
    n, c = x._data.shape[:2]
    d = len(cs.axes)
    m = cs.axes[0][0].shape[1]
    gflat = grid.reshape(n, m, d)
    ts = []
    for a, (t, mult, _, _) in enumerate(cs.axes):
        if STATE.enabled and grid._requires_grad:   # t as a function of the grid
            g = gflat[..., d - 1 - a]
            ts.append(g * wrap(mult) + wrap(t - mult * g._data))
        else:
            ts.append(wrap(t))
    gr = grad.reshape(n, c, m)
    lins = [wrap(np.ascontiguousarray(np.broadcast_to(lin[:, None, :], (n, c, m))))
            for _, lin, _ in cs.corners]
    dt = x._data.dtype
    gx = gg = None
    if need_x:
        ws = cs.weight(ts, dtype=dt)
        src = [gr * w.reshape(n, 1, m) for w in ws]
        flat = wrap(np.zeros((n, c, int(np.prod(x._data.shape[2:]))), dt))
        gx = flat.scatter_add(2, _cat(lins), _cat(src)).reshape(x._data.shape)
    if need_g:
        if mode == 1:
            gg = wrap(np.zeros(grid._data.shape, grid._data.dtype))
        else:
            xf = x.reshape(n, c, -1)
            vals = [(gr * xf.gather(2, lin)).sum(1) for lin in lins]
            parts = []
            for a in range(d):
                dws = cs.weight(ts, skip=a, dtype=dt)
                s = 0
                for v, w in zip(vals, dws):
                    s = v * w + s
                parts.append(s * wrap(cs.axes[a][1]))
            gg = stack(parts[::-1], -1).reshape(grid._data.shape)
    return gx, gg


class GridSampler2DBackward0(Node):          # derivatives.yaml: grid_sampler_2d
    __slots__ = ("_saved_align_corners", "_saved_grid", "_saved_input",
                 "_saved_interpolation_mode", "_saved_padding_mode")
    _saved_names = ("_saved_input", "_saved_grid")

    def apply(self, grad):
        x, grid = self._saved_input, self._saved_grid
        args = (self._saved_interpolation_mode, self._saved_padding_mode,
                self._saved_align_corners)
        if not STATE.enabled:
            return _grid_grads(grad, x, grid, *args, needs(self, 0), needs(self, 1))
        # create_graph: torch's one node GridSampler2DBackwardBackward0 (3D) makes both
        # gradients from (grad, input, grid)
        with no_grad():
            gx, gg = _grid_grads(grad, x, grid, *args, True, True)
        outs = [wrap(gx._data), wrap(gg._data)]
        if grad._requires_grad or x._requires_grad or grid._requires_grad:
            node = (GridSampler3DBackwardBackward0 if isinstance(self, GridSampler3DBackward0)
                    else GridSampler2DBackwardBackward0)()
            node._saved_grad_output, node._saved_input, node._saved_grid = grad, x, grid
            node._saved_interpolation_mode, node._saved_padding_mode = args[:2]
            node._saved_align_corners = args[2]
            link_multi(outs, node, grad, x, grid)
        return (outs[0] if needs(self, 0) else None), (outs[1] if needs(self, 1) else None)


class GridSampler3DBackward0(GridSampler2DBackward0):   # derivatives.yaml: grid_sampler_3d
    __slots__ = ()


class GridSampler2DBackwardBackward0(Node):  # derivatives.yaml: grid_sampler_2d_backward
    """The derivative of the grid sampler's gradients (gx, gg) in (grad, input, grid): the
    vector-Jacobian product of _grid_grads' ember-op expression, rebuilt on the saved tensors
    and differentiated with autograd.grad (so it differentiates again). Nearest mode: the
    grid's part is zeros, as torch's."""
    __slots__ = ("_saved_align_corners", "_saved_grad_output", "_saved_grid", "_saved_input",
                 "_saved_interpolation_mode", "_saved_padding_mode")
    _saved_names = ("_saved_grad_output", "_saved_input", "_saved_grid")
    _n_outputs = 2

    def apply(self, grads):
        ggx, ggg = grads
        saved = (self._saved_grad_output, self._saved_input, self._saved_grid)
        mode = self._saved_interpolation_mode
        create = STATE.enabled
        with enable_grad():
            gx, gg = _grid_grads(*saved, mode, self._saved_padding_mode,
                                 self._saved_align_corners, ggx is not None, ggg is not None)
        outs, gos = [], []
        for o, g in ((gx, ggx), (gg, ggg)):
            if o is not None and g is not None and o._requires_grad:
                outs.append(o)
                gos.append(g)
        want = [i for i in range(3) if needs(self, i)]
        res = [None, None, None]
        if outs and want:
            got = _grad(outs, [saved[i] for i in want], gos, create_graph=create,
                        allow_unused=True)
            for i, g in zip(want, got):
                res[i] = g
        if mode == 1 and needs(self, 2) and res[2] is None:
            res[2] = wrap(np.zeros(saved[2]._data.shape, saved[2]._data.dtype))
        return tuple(res)


class GridSampler3DBackwardBackward0(GridSampler2DBackwardBackward0):
    __slots__ = ()                           # derivatives.yaml: grid_sampler_3d_backward


def _cat(ts):
    return ts[0] if len(ts) == 1 else cat(ts, 2)


def _check(input, grid, mode, nd):
    """torch's checks, in its order; nd: 2 (grid_sampler_2d) or 3."""
    try:
        x, g = input._data, grid._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.shape[0] != g.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(x.shape)} and grid with sizes "
                           f"{list(g.shape)}")
    if g.shape[-1] != x.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(g.shape)}")
    for i in range(2, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(x.shape)} with "
                               f"dimension {i} being empty")
    if not (x.ndim == nd + 2 and g.ndim == x.ndim):
        raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(x.shape)} and grid "
                           f"with sizes {list(g.shape)}")
    if mode == 2 and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"grid_sampler_{nd}d_cpu_kernel_impl\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    if x.dtype != g.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found "
                           f"{type_name(g.dtype)}")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: modes as ints (0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
    1 border, 2 reflection)."""
    try:
        fn = grid_sampler_2d if input._data.ndim == 4 else grid_sampler_3d
    except AttributeError as e:
        raise not_tensor(e) from None
    return fn(input, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler(input, grid, mode, padding, align, node_cls):
    _check(input, grid, mode, 2 if node_cls is GridSampler2DBackward0 else 3)
    res = wrap(_sample_np(input._data, grid._data, mode, padding, bool(align)))
    if STATE.enabled and (input._requires_grad or grid._requires_grad) or \
            LEVELS and dual(input, grid):
        node = node_cls()
        node._saved_input, node._saved_grid = input, grid
        node._saved_interpolation_mode, node._saved_padding_mode = mode, padding
        node._saved_align_corners = bool(align)
        link(res, node, input, grid)
    return res


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners,
                         GridSampler2DBackward0)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners,
                         GridSampler3DBackward0)


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners="
                  "False since 1.3.0. Please specify align_corners=True if the old behavior is "
                  "desired. See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if isinstance(input, Tensor):
        check_args("grid_sampler", ("grid", 2, "Tensor", grid))
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


# ---------------------------------------------------------------- affine_grid

def _base_grid(size, align, dtype):
    """(prod(spatial), d + 1) rows (x, y[, z], 1) of the normalized output positions."""
    spatial = list(size[2:])
    axes = []
    for s in spatial:
        v = np.linspace(-1, 1, s) if s > 1 else np.zeros(s)
        if not align and s > 0:
            v = v * (s - 1) / s
        axes.append(v.astype(dtype))
    mesh = np.meshgrid(*axes, indexing="ij")       # (D,) H, W order
    cols = [m.reshape(-1) for m in mesh[::-1]]       # x (W) first
    cols.append(np.ones(int(np.prod(spatial)), dtype))
    return np.stack(cols, -1)


class AffineGridGeneratorBackward0(Node):    # derivatives.yaml: affine_grid_generator
    __slots__ = ("_saved_align_corners", "_saved_size")

    def apply(self, grad):
        # affine_grid_generator_backward: base_grid.view(N, HW, d + 1).transpose(1, 2)
        # .bmm(grad.view(N, HW, d)).transpose(1, 2)
        size = self._saved_size
        n, d = size[0], len(size) - 2
        base = _base_grid(size, self._saved_align_corners, grad._data.dtype)
        bt = wrap(np.ascontiguousarray(np.broadcast_to(base.T, (n,) + base.T.shape)))
        g = grad.view(n, -1, d) if grad.is_contiguous() else grad.reshape(n, -1, d)
        return bt.bmm(g).transpose(1, 2),


def affine_grid_generator(theta, size, align_corners):
    size = tuple(int(s) for s in size)
    t = theta._data
    n, d = size[0], len(size) - 2
    base = _base_grid(size, align_corners, t.dtype)
    res = wrap((base @ np.swapaxes(t, 1, 2)).reshape((n,) + size[2:] + (d,)))
    if STATE.enabled and theta._requires_grad or LEVELS and dual(theta):
        node = AffineGridGeneratorBackward0()
        node._saved_size = size
        node._saved_align_corners = bool(align_corners)
        link(res, node, theta)
    return res


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    t = theta._data
    if t.dtype.kind not in "fc":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    shown = size
    tshown = "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"
    if len(size) == 4:
        if t.ndim != 3 or t.shape[-2:] != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{shown}. Got {tshown}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if t.ndim != 3 or t.shape[-2:] != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{shown}. Got {tshown}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {shown}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=2)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {shown}")
    return affine_grid_generator(theta, list(size), align_corners)
