"""Attention ops: _safe_softmax (the math path's softmax: rows that are all -inf give 0, not
NaN) and the fused CPU attention op that torch's scaled_dot_product_attention picks for 4-D
inputs (one node, ScaledDotProductFlashAttentionForCpuBackward0). The math path itself is a
composition of ember ops, in ember/nn/functional.py."""
import math

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import Node, link
from ..tensor import wrap
from ._args import requires
from .reduce import SoftmaxBackward0


class SafeSoftmaxBackward0(SoftmaxBackward0):    # derivatives.yaml: _safe_softmax
    # softmax's derivative: a zeroed row has a zero output, so its gradient is zero too
    __slots__ = ()


def _safe_softmax(input, dim):
    """softmax over dim, with 0 (not NaN) for slices whose entries are all -inf."""
    x = input._data
    d = dim % x.ndim
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(x, axis=d, keepdims=True) if x.size else 0
        e = np.exp(x - m)
        y = e / np.sum(e, axis=d, keepdims=True)
    if x.size:
        y = np.where(np.all(x == -np.inf, axis=d, keepdims=True), 0, y)
    res = wrap(np.asarray(y, x.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = SafeSoftmaxBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_result = res.detach()
        link(res, node, input)
    return res


def _float_mask(mask, dtype):
    """An additive mask: a bool mask (True = attend) as 0 / -inf, a float one as it is."""
    if mask._data.dtype == np.bool_:
        return wrap(np.where(mask._data, dtype.type(0), dtype.type(-np.inf)))
    return mask


def _attention(query, key, value, attn_mask, is_causal, scale):
    """softmax(q k^T * scale + mask) v in ember ops (the fused op's arithmetic; key and value
    with as many heads as the query). Returns the output, the attention weights and the
    masked, scaled scores."""
    s = query.matmul(key.transpose(-2, -1)) * scale
    L, S = s._data.shape[-2:]
    if is_causal:
        s = s.masked_fill(wrap(~np.tri(L, S, dtype=np.bool_)), -math.inf)
    if attn_mask is not None:
        s = s + _float_mask(attn_mask, s._data.dtype)
    p = _safe_softmax(s, -1)
    return p.matmul(value), p, s


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    # derivatives.yaml: _scaled_dot_product_flash_attention_for_cpu
    __slots__ = ("_saved_query", "_saved_key", "_saved_value", "_saved_output",
                 "_saved_logsumexp", "_saved_attn_mask", "_saved_dropout_p",
                 "_saved_is_causal", "_saved_scale")
    _saved_names = ("_saved_query", "_saved_key", "_saved_value", "_saved_output",
                    "_saved_logsumexp", "_saved_attn_mask")

    def apply(self, grad):
        # the forward is recomputed in ember ops, so that create_graph records the
        # gradient's dependence on q, k and v (torch's own op has no double backward)
        q, k, v = self._saved_query, self._saved_key, self._saved_value
        scale = _scale(q, self._saved_scale)
        rep = q._data.shape[1] // k._data.shape[1]
        kk = k.repeat_interleave(rep, 1) if rep > 1 else k
        vv = v.repeat_interleave(rep, 1) if rep > 1 else v
        out, p, _ = _attention(q, kk, vv, self._saved_attn_mask, self._saved_is_causal,
                               scale)
        dv = p.transpose(-2, -1).matmul(grad)
        dp = grad.matmul(vv.transpose(-2, -1))
        ds = p * (dp - (grad * out).sum(-1, keepdim=True))
        dq = ds.matmul(kk) * scale
        dk = ds.transpose(-2, -1).matmul(q) * scale
        if rep > 1:          # the repeated heads' gradients summed back into their group
            B, H, S, E = dk._data.shape
            dk = dk.reshape(B, H // rep, rep, S, E).sum(2)
            dv = dv.reshape(B, H // rep, rep, S, dv._data.shape[-1]).sum(2)
        return dq, dk, dv


def _scale(query, scale):
    return 1.0 / math.sqrt(query._data.shape[-1]) if scale is None else scale


def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0,
                                                  is_causal=False, *, attn_mask=None,
                                                  scale=None):
    """Attention of 4-D (batch, heads, L, E) inputs as one op: (output, logsumexp). The
    output is laid out in memory as the query is (torch allocates it like the query)."""
    rep = query._data.shape[1] // key._data.shape[1]
    with no_grad():
        out, p, s = _attention(wrap(query._data), wrap(np.repeat(key._data, rep, 1)),
                               wrap(np.repeat(value._data, rep, 1)), attn_mask, is_causal,
                               _scale(query, scale))
        lse = s.logsumexp(-1)
    arr = np.empty_like(query._data)
    arr[...] = out._data
    res = wrap(arr)
    if requires(query, key, value):
        node = ScaledDotProductFlashAttentionForCpuBackward0()
        node._saved_query, node._saved_key, node._saved_value = query, key, value
        node._saved_output = wrap(arr)
        node._saved_logsumexp = lse
        node._saved_attn_mask = attn_mask
        node._saved_dropout_p = dropout_p
        node._saved_is_causal = is_causal
        node._saved_scale = scale
        link(res, node, query, key, value)
    return res, lse
