"""_trilinear, the op under torch.bilinear and F.bilinear (TrilinearBackward0): for the 2-D case
bilinear uses, out[b, o] = sum_ij i1[b, i] * i2[o, i, j] * i3[b, j]."""
import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..tensor import wrap
from ._args import needs
from ._args import not_tensor

__all__ = ["bilinear"]


class TrilinearBackward0(Node):              # derivatives.yaml: _trilinear
    # torch's saved expand/sumdim lists describe this one contraction (bilinear's)
    __slots__ = ("_saved_i1", "_saved_i2", "_saved_i3", "_saved_expand1", "_saved_expand2",
                 "_saved_expand3", "_saved_sumdim")
    _saved_names = ("_saved_i1", "_saved_i2", "_saved_i3")

    def apply(self, grad):
        x1, w, x2 = self._saved_i1, self._saved_i2, self._saved_i3
        g1 = g2 = g3 = None
        if needs(self, 0):      # sum_oj grad[b,o] W[o,i,j] x2[b,j]
            g1 = (grad.matmul(w.flatten(1)).reshape(-1, w._data.shape[1], w._data.shape[2]) *
                  x2.unsqueeze(1)).sum(2)
        if needs(self, 1):      # grad[b,o] x1[b,i] x2[b,j], summed over b
            g2 = grad.t().matmul((x1.unsqueeze(2) * x2.unsqueeze(1)).flatten(1)).reshape(
                w._data.shape)
        if needs(self, 2):      # sum_oi grad[b,o] x1[b,i] W[o,i,j]
            wt = w.transpose(0, 1).flatten(1)                    # (i, o*j)
            g3 = (x1.matmul(wt).reshape(-1, w._data.shape[0], w._data.shape[2]) *
                  grad.unsqueeze(2)).sum(1)
        return g1, g2, g3


def trilinear_bilinear(i1, i2, i3):
    """The bilinear form of torch._trilinear on 2-D inputs i1 (B, I), i3 (B, J) and a weight
    i2 (O, I, J): result (B, O)."""
    x1, w, x2 = i1._data, i2._data, i3._data
    o, ii, j = w.shape
    # (B, I) @ (I, O*J) -> (B, O, J), then contract J with x2
    t = (x1 @ w.transpose(1, 0, 2).reshape(ii, o * j)).reshape(-1, o, j)
    res = np.matmul(t, x2[:, :, None])[:, :, 0]
    out = wrap(res)
    if STATE.enabled and (i1._requires_grad or i2._requires_grad or i3._requires_grad) or \
            LEVELS and dual(i1, i2, i3):
        node = TrilinearBackward0()
        node._saved_i1, node._saved_i2, node._saved_i3 = i1, i2, i3
        node._saved_expand1, node._saved_expand2, node._saved_expand3 = (1, 3), (0,), (1, 2)
        node._saved_sumdim = (2, 3)
        link(out, node, i1, i2, i3)
    return out


_SHORT = {"float32": "float", "float64": "double", "float16": "half"}


def bilinear(input1, input2, weight, bias=None):
    """x1^T W x2 + b over the last dims, composed as torch composes it: both inputs viewed
    2-D, _trilinear (TrilinearBackward0), the result viewed back, + bias."""
    try:
        x1, x2, w = input1._data, input2._data, weight._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x1.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if x1.ndim != x2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {x1.ndim} and "
                           f"{x2.ndim}")
    for i in range(x1.ndim - 1):
        if x1.shape[i] != x2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {x1.shape[i]} and {x2.shape[i]}")
    if w.ndim != 3:
        raise RuntimeError("number of dimensions must match")
    if x1.shape[-1] != w.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{x1.shape[-1]} but expected {w.shape[1]}")
    if x2.shape[-1] != w.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{x2.shape[-1]} but expected {w.shape[2]}")
    if bias is not None and (bias._data.ndim == 0 or bias._data.shape[0] != w.shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias._data.shape[0] if bias._data.ndim else 1} but expected "
                           f"{w.shape[0]}")
    dts = [("input1", x1), ("input2", x2), ("weight", w)] + \
        ([("bias", bias._data)] if bias is not None else [])
    if len({a.dtype for _, a in dts}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {_SHORT.get(a.dtype.name, a.dtype.name)}" for n, a in dts))
    out = trilinear_bilinear(input1.reshape(-1, x1.shape[-1]), weight,
                              input2.reshape(-1, x2.shape[-1]))
    out = out.reshape(x1.shape[:-1] + (w.shape[0],))
    return out if bias is None else out + bias
