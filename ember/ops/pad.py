"""Padding: constant (any number of trailing dims; negative pads crop), reflect and replicate
(1-3 trailing dims: one gather per padded axis; its adjoint, per axis, a few adds of strided
slices: take_adjoint) and circular (composed of slices and copies, as torch composes it), with
F.pad's front end."""
__all__ = ["constant_pad_nd"]

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..tensor import Tensor, wrap
from ._args import needs
from ._args import not_tensor, wrong_type, channels_last_result
from ._windows import take_adjoint


# ------------------------------------------------------------------ constant

class ConstantPadNdBackward0(Node):          # derivatives.yaml: constant_pad_nd
    __slots__ = ("_saved_pad",)

    def apply(self, grad):
        return constant_pad_nd(grad, [-p for p in self._saved_pad]),

    def np_apply(self, g):
        return _constant_pad_np(g, [-p for p in self._saved_pad], 0),


def _constant_pad_np(x, pad, value):
    """x padded with `value` (pad: (last-dim left, last-dim right, next-to-last left, ...));
    negative pads crop."""
    n = len(pad) // 2
    shape, src, dst = list(x.shape), [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for i in range(n):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = x.shape[d]
        m = size + lo + hi
        if m < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[d] = m
        src[d] = slice(max(-lo, 0), size - max(-hi, 0))
        dst[d] = slice(max(lo, 0), m - max(hi, 0))
    if all(p <= 0 for p in pad):
        return x[tuple(src)].copy()
    out = np.full(shape, value, x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return out


def constant_pad_nd(input, pad, value=0):
    """torch.constant_pad_nd (node ConstantPadNdBackward0)."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    try:
        pad = tuple(int(p) for p in pad)
    except (TypeError, ValueError):
        raise wrong_type(pad, "tuple of ints") from None
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)} while the input "
                           f"has {x.ndim} dimensions.")
    if x.dtype.kind == "b":
        value = bool(value)
    elif x.dtype.kind in "iu":
        value = int(value)
    res = wrap(_constant_pad_np(x, pad, value))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = ConstantPadNdBackward0()
        node._saved_pad = pad
        link(res, node, input)
    return res


# ------------------------------------------------------------------ reflect / replicate

def _index_maps(shape, pad, reflect):
    """For each padded axis (last first, as pad lists them): the source index of every
    output position."""
    maps = []
    for i in range(len(pad) // 2):
        size = shape[-1 - i]
        lo, hi = pad[2 * i], pad[2 * i + 1]
        j = np.arange(-lo, size + hi)
        if reflect:
            j = np.abs(j)                                 # reflect about 0 ...
            j = (size - 1) - np.abs((size - 1) - j)       # ... and about size - 1
        else:
            j = np.clip(j, 0, size - 1)
        maps.append(j)
    return maps


def _gather_np(x, maps):
    for i, idx in enumerate(maps):
        x = np.take(x, idx, axis=x.ndim - 1 - i)
    return x


def _scatter_np(g, maps, shape):
    """The adjoint of _gather_np: g summed back into an array of the input's shape."""
    for i, idx in enumerate(maps):
        ax = g.ndim - 1 - i
        g = take_adjoint(g, idx, shape[ax], ax)
    return g


class _PadNode(Node):
    __slots__ = ("_saved_padding", "_saved_self")
    _saved_names = ("_saved_self",)
    _reflect = True

    def apply(self, grad):
        return _pad_backward(grad, self._saved_self, self._saved_padding, self._reflect),

    def np_apply(self, g):
        x = self._saved_self._data
        return _scatter_np(g, _index_maps(x.shape, self._saved_padding, self._reflect),
                           x.shape),


class ReflectionPad1DBackward0(_PadNode):    # derivatives.yaml: reflection_pad1d
    __slots__ = ()


class ReflectionPad2DBackward0(_PadNode):    # derivatives.yaml: reflection_pad2d
    __slots__ = ()


class ReflectionPad3DBackward0(_PadNode):    # derivatives.yaml: reflection_pad3d
    __slots__ = ()


class ReplicationPad1DBackward0(_PadNode):   # derivatives.yaml: replication_pad1d
    __slots__ = ()
    _reflect = False


class ReplicationPad2DBackward0(_PadNode):   # derivatives.yaml: replication_pad2d
    __slots__ = ()
    _reflect = False


class ReplicationPad3DBackward0(_PadNode):   # derivatives.yaml: replication_pad3d
    __slots__ = ()
    _reflect = False


class _PadBackwardNode(Node):
    # the gradient of a pad's backward (linear in grad) is the pad itself; none for self
    __slots__ = ("_saved_padding", "_self_meta")
    _reflect = True

    def apply(self, grad):
        g = _pad(grad, self._saved_padding, self._reflect) if needs(self, 0) else None
        return g, wrap(np.zeros(*self._self_meta)) if needs(self, 1) else None


class ReflectionPad1DBackwardBackward0(_PadBackwardNode):   # reflection_pad1d_backward
    __slots__ = ()


class ReflectionPad2DBackwardBackward0(_PadBackwardNode):   # reflection_pad2d_backward
    __slots__ = ()


class ReflectionPad3DBackwardBackward0(_PadBackwardNode):   # reflection_pad3d_backward
    __slots__ = ()


class ReplicationPad1DBackwardBackward0(_PadBackwardNode):  # replication_pad1d_backward
    __slots__ = ()
    _reflect = False


class ReplicationPad2DBackwardBackward0(_PadBackwardNode):  # replication_pad2d_backward
    __slots__ = ()
    _reflect = False


class ReplicationPad3DBackwardBackward0(_PadBackwardNode):  # replication_pad3d_backward
    __slots__ = ()
    _reflect = False


_NODES = {(True, 1): ReflectionPad1DBackward0, (True, 2): ReflectionPad2DBackward0,
          (True, 3): ReflectionPad3DBackward0, (False, 1): ReplicationPad1DBackward0,
          (False, 2): ReplicationPad2DBackward0, (False, 3): ReplicationPad3DBackward0}
_BACKWARD_NODES = {
    (True, 1): ReflectionPad1DBackwardBackward0, (True, 2): ReflectionPad2DBackwardBackward0,
    (True, 3): ReflectionPad3DBackwardBackward0, (False, 1): ReplicationPad1DBackwardBackward0,
    (False, 2): ReplicationPad2DBackwardBackward0, (False, 3): ReplicationPad3DBackwardBackward0}


def _pad(input, padding, reflect):
    """reflection_padNd / replication_padNd on checked arguments."""
    x = input._data
    res = wrap(_gather_np(x, _index_maps(x.shape, padding, reflect)))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = _NODES[reflect, len(padding) // 2]()
        node._saved_padding, node._saved_self = padding, input
        link(res, node, input)
    return res


def _pad_backward(grad, input, padding, reflect):
    """reflection_padNd_backward / replication_padNd_backward as an op (differentiable in
    grad)."""
    x = input._data
    res = wrap(_scatter_np(grad._data, _index_maps(x.shape, padding, reflect), x.shape))
    if STATE.enabled and (grad._requires_grad or input._requires_grad):
        node = _BACKWARD_NODES[reflect, len(padding) // 2]()
        node._saved_padding = padding
        node._self_meta = (x.shape, x.dtype)
        link(res, node, grad, input)
    return res


def _check_pad_input(x, n, name, padding, reflect):
    """torch's checks of reflection/replication padding's input."""
    if x.dtype.kind == "b":
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')
    rest = x.shape[1:] if x.ndim == n + 2 else x.shape
    if 0 in rest:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(x.shape)}")
    shape = list(x.shape)
    for i in range(n):
        lo, hi = padding[2 * i], padding[2 * i + 1]
        d = x.ndim - 1 - i
        size = x.shape[d]
        if reflect and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {d} of input {list(x.shape)}")
        shape[d] = size + lo + hi
    if not reflect and min(shape) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{shape}")


# ------------------------------------------------------------------ circular

_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.")


def _pad_circular(input, pad):
    """Circular padding as torch composes it: the (cropped) input copied into a narrowed
    view of an empty tensor, then, one padded dim at a time (the last first), each side
    filled by copying the narrowed slice of the output that wraps around to it."""
    x = input._data
    n = len(pad) // 2
    shape = list(x.shape)
    src = input
    for i in range(n):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = x.shape[d]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] = size + lo + hi
        if shape[d] < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        start = min(max(-lo, 0), size)
        src = src.narrow(d, start, max(size - start - max(-hi, 0), 0))
    out = wrap(np.empty(shape, x.dtype))
    dst = out
    for i in range(n):
        d = x.ndim - 1 - i
        lo = pad[2 * i]
        dst = dst.narrow(d, max(lo, 0), src._data.shape[d])
    dst.copy_(src)
    if 0 in shape:
        return out
    for i in range(n):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        m = shape[d]
        if lo > 0:
            start = m - lo - max(hi, 0)
            if start < lo:
                raise RuntimeError(_OVERLAP)
            out.narrow(d, 0, lo).copy_(out.narrow(d, start, lo))
        if hi > 0:
            start = max(lo, 0)
            if start + hi > m - hi:
                raise RuntimeError(_OVERLAP)
            out.narrow(d, m - hi, hi).copy_(out.narrow(d, start, hi))
    return out


# ------------------------------------------------------------------ F.pad

def _not_supported(n_pad, ndim):
    return NotImplementedError(
        f"Padding size {n_pad} is not supported for {ndim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_mode(args, kwargs):
    return args[1] if len(args) > 1 else kwargs.get("mode", "constant")


# (torch's circular padding writes C order; its constant padding's gradient is C order too)
@channels_last_result(grads=lambda x, args, kwargs: _pad_mode(args, kwargs) != "constant",
                      when=lambda args, kwargs: _pad_mode(args, kwargs) != "circular")
def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    try:
        pad = tuple(int(p) for p in pad)
    except (TypeError, ValueError):
        raise wrong_type(pad, "tuple of ints") from None
    x = input._data
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {x.ndim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pad) // 2
    if n not in (1, 2, 3) or x.ndim not in (n + 1, n + 2):
        raise _not_supported(len(pad), x.ndim)
    if mode == "circular":
        return _pad_circular(input, pad)
    reflect = mode == "reflect"
    name = ("reflection" if reflect else "replication") + f"_pad{n}d"
    _check_pad_input(x, n, name, pad, reflect)
    return _pad(input, pad, reflect)
