"""torch.nn's legacy autograd Functions: CrossMapLRN2d (Lua torch's SpatialCrossMapLRN),
whose node is CrossMapLRN2dBackward.

Its formulas, found by running torch (they are not LocalResponseNorm's, and its backward is not
the derivative of its forward):
- forward: with p = int((size - 1) / 2 + 1), the channel sums of squares run as
  s_0 = x_0^2 + ... + x_{min(p, C) - 1}^2 and, for c >= 1,
  s_c = s_{c-1} + x_{c+p-1}^2 (while c < C - p + 1) - x_{c-p}^2 (while c > p): x_0^2 is never
  taken off, so channel 0 reaches every later channel. scale = k + alpha / size * s and
  out = x * scale^-beta.
- backward: with q = int(size - (size - 1) / 2) and r = g * out / scale,
  dx_c = g_c * scale_c^-beta - 2 alpha beta / size * x_c * (r_{c-q} + ... + r_{c+size-1-q})
  (indices outside [0, C) left out); size 1 (q = 1) fails as torch's narrow does.
"""
import numpy as np

from .. import dtypes as D
from ..autograd.function import Function
from ..autograd.grad_mode import STATE
from ..tensor import wrap


def _scale(x, size, alpha, k):
    """The running channel sums of squares (forward's formula above), as scale."""
    c = x.shape[1]
    pre = int((size - 1) / 2 + 1)
    sq = x * x
    scale = np.empty_like(x)
    first = np.zeros_like(x[:, 0])
    for i in range(min(pre, c)):
        first += sq[:, i]
    scale[:, 0] = first
    for i in range(1, c):
        cur = scale[:, i - 1].copy()
        if i < c - pre + 1:
            cur += sq[:, i + pre - 1]
        if i > pre:
            cur -= sq[:, i - pre]
        scale[:, i] = cur
    return scale * x.dtype.type(alpha / size) + x.dtype.type(k)


class CrossMapLRN2d(Function):
    """The legacy cross-channel LRN over an (N, C, H, W) input."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        x = input._data
        if x.dtype.kind not in "fc":
            raise RuntimeError(f"result type {D.type_name(D.get_default_dtype().np)} can't "
                               f"be cast to the desired output type {D.type_name(x.dtype)}")
        alpha / size            # (size 0: torch's ZeroDivisionError, before the channel check)
        if x.shape[1] == 0:
            raise IndexError(f"select(): index 0 out of range for tensor of size "
                             f"[{', '.join(map(str, x.shape))}] at dimension 1")
        scale = _scale(x, size, alpha, k)
        out = np.power(scale, x.dtype.type(-beta)) * x
        ctx._scale = scale
        output = wrap(out)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        if STATE.enabled:       # (create_graph: torch's backward writes through out=)
            raise RuntimeError("mul(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        input, output = ctx.saved_tensors
        x, out, g = input._data, output._data, grad_output._data
        size, scale = ctx.size, ctx._scale
        c = x.shape[1]
        q = int(size - (size - 1) / 2)
        if q + c > c + size - 1:
            raise RuntimeError(f"start ({q}) + length ({c}) exceeds dimension size "
                               f"({c + size - 1}).")
        ratio = g * out / scale
        padded = np.zeros((x.shape[0], c + size - 1) + x.shape[2:], x.dtype)
        padded[:, q:q + c] = ratio
        accum = np.zeros_like(x[:, 0])
        for i in range(size - 1):
            accum += padded[:, i]
        grad = np.empty_like(x)
        coef = x.dtype.type(2 * ctx.alpha * ctx.beta / size)
        base = np.power(scale, x.dtype.type(-ctx.beta)) * g
        for i in range(c):
            accum += padded[:, i + size - 1]
            grad[:, i] = base[:, i] - coef * x[:, i] * accum
            accum -= padded[:, i]
        return wrap(grad), None, None, None, None
