"""ember attention and transformer layers against torch: F.scaled_dot_product_attention (the
fused CPU op and the math path), F.multi_head_attention_forward / nn.MultiheadAttention, and
the Transformer encoder / decoder layers and stacks: outputs, gradients of inputs and
parameters, grad_fn graphs, reprs, initialisation, warnings and errors; float64 numerical
gradient checks and double backward."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, check, check_error, gradcheck, gradgradcheck
from test_nn_rnn import dag_signature

R = np.random.default_rng(23)


def randn(*shape):
    return R.standard_normal(shape)


def F(lib):
    return lib.nn.functional


# ---------------------------------------------------------------- scaled_dot_product_attention

def _mask(kind, L, S, batch=2):
    if kind == "bool":
        return np.random.default_rng(1).random((L, S)) > 0.3
    if kind == "rows":          # one query row masked out entirely
        m = np.ones((L, S), bool)
        m[1] = False
        return m
    if kind == "float":
        return randn(L, S)
    if kind == "float4":
        return randn(batch, 1, L, S)
    return None


SDPA = {
    # name: (shapes of q, k, v, kwargs; attn_mask given by kind), fused: torch's fused op
    "fused": ([(2, 2, 3, 4)] * 3, {}, True),
    "fused_causal_L_ne_S": ([(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)], dict(is_causal=True),
                            True),
    "fused_bool_mask": ([(2, 2, 3, 4)] * 3, dict(attn_mask="bool"), True),
    "fused_float_mask": ([(2, 2, 3, 4)] * 3, dict(attn_mask="float"), True),
    "fused_4d_mask": ([(2, 2, 3, 4)] * 3, dict(attn_mask="float4"), True),
    "fused_mask_and_causal": ([(2, 2, 3, 4)] * 3, dict(attn_mask="bool", is_causal=True), True),
    "fused_masked_row": ([(1, 2, 3, 4)] * 3, dict(attn_mask="rows"), True),
    "fused_gqa": ([(2, 4, 3, 4), (2, 2, 3, 4), (2, 2, 3, 4)], dict(enable_gqa=True), True),
    "fused_scale": ([(2, 2, 3, 4)] * 3, dict(scale=0.3), True),
    "math_2d": ([(3, 4), (5, 4), (5, 6)], {}, False),
    "math_2d_causal": ([(3, 4), (5, 4), (5, 6)], dict(is_causal=True), False),
    "math_2d_masked_row": ([(3, 4), (3, 4), (3, 2)], dict(attn_mask="rows"), False),
    "math_3d": ([(2, 3, 4)] * 3, {}, False),
    "math_3d_bool": ([(2, 3, 4)] * 3, dict(attn_mask="bool"), False),
    "math_value_dim": ([(2, 2, 3, 4), (2, 2, 3, 4), (2, 2, 3, 5)], {}, False),
    "math_broadcast_batch": ([(2, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4)], {}, False),
    "math_5d_gqa": ([(1, 2, 4, 3, 4), (1, 2, 2, 3, 4), (1, 2, 2, 3, 4)],
                    dict(enable_gqa=True), False),
}


def _sdpa_program(kw):
    def fn(L, q, k, v, *mask):
        kw2 = dict(kw)
        kind = kw.get("attn_mask")
        if kind in ("bool", "rows"):
            kw2["attn_mask"] = L.tensor(_mask(kind, q.shape[-2], k.shape[-2]))
        elif kind is not None:
            kw2["attn_mask"] = mask[0]
        return F(L).scaled_dot_product_attention(q, k, v, **kw2)
    return fn


def _sdpa_inputs(name, dtype):
    shapes, kw, _ = SDPA[name]
    arrays = [randn(*s).astype(dtype) for s in shapes]
    if kw.get("attn_mask") in ("float", "float4"):
        arrays.append(_mask(kw["attn_mask"], shapes[0][-2], shapes[1][-2]).astype(dtype))
    return arrays


@pytest.mark.parametrize("name", sorted(SDPA))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sdpa(name, dtype):
    shapes, kw, fused = SDPA[name]
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else {}
    t, e = check(_sdpa_program(kw), *_sdpa_inputs(name, dtype), grad_inputs=[0, 1, 2], **tol)
    if fused:
        assert type(t.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    if fused or len(shapes[0]) == 2:
        # (the math path of batched inputs goes through ember.matmul, whose N-D chain is
        # one UnsafeViewBackward0 where torch records Expand -> View -> Bmm -> UnsafeView)
        assert dag_signature(t) == dag_signature(e)


def test_sdpa_fused_output_layout():
    """The fused op allocates its output like the query: MultiheadAttention's
    permute(2, 0, 1, 3).contiguous() is then a view, with no copy (no CloneBackward0)."""
    for lib in (torch, ember):
        q = lib.randn(6, 2, 4).view(3, 2, 2, 4).permute(1, 2, 0, 3)     # (B, H, L, E)
        out = F(lib).scaled_dot_product_attention(q, q, q)
        assert out.permute(2, 0, 1, 3).is_contiguous()


@pytest.mark.parametrize("name", ["fused", "fused_gqa", "fused_bool_mask", "math_2d_causal",
                                  "math_3d"])
def test_sdpa_gradcheck(name):
    _, kw, _ = SDPA[name]
    arrays = _sdpa_inputs(name, np.float64)
    consts = [ember.tensor(a) for a in arrays[3:]]
    fn = _sdpa_program(kw)
    gradcheck(lambda q, k, v: fn(ember, q, k, v, *consts), *[a * 0.5 for a in arrays[:3]])
    gradgradcheck(lambda q, k, v: fn(ember, q, k, v, *consts), *[a * 0.5 for a in arrays[:3]])


def test_sdpa_dropout():
    """dropout_p > 0 takes the math path: MulBackward0 by a mask in {0, 1 / (1 - p)}."""
    q = randn(2, 2, 3, 4)
    for lib in (torch, ember):
        qt = lib.tensor(q, requires_grad=True)
        out = F(lib).scaled_dot_product_attention(qt, qt, qt, dropout_p=0.4)
        names = [n for n, _ in dag_signature(out)]
        assert "MulBackward0" in names and "SafeSoftmaxBackward0" in names
    ones = ember.ones(1, 1, 64, 64)
    p = F(ember).scaled_dot_product_attention(ones, ones, ember.eye(64).reshape(1, 1, 64, 64),
                                              dropout_p=0.5)
    vals = np.unique(np.round(p.numpy() * 64, 5))
    assert set(vals) <= {0.0, 2.0}
    check(lambda L, q: F(L).scaled_dot_product_attention(q, q, q, dropout_p=1.0),
          randn(2, 3, 4))


SDPA_ERRORS = [
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 3, 4), L.zeros(2, 3, 4),
                                                L.zeros(2, 3, 4), attn_mask=L.ones(
                                                    3, 3, dtype=L.bool), is_causal=True),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 3, 4), L.zeros(2, 3, 4),
                                                L.zeros(2, 3, 4), attn_mask=L.ones(
                                                    3, 3, dtype=L.int64)),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 3, 4), L.zeros(2, 3, 4),
                                                L.zeros(2, 3, 4), attn_mask=L.ones(
                                                    3, 3, dtype=L.float64)),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 3, 4), L.zeros(2, 3, 4,
                                                                      dtype=L.float64),
                                                L.zeros(2, 3, 4)),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(4), L.zeros(2, 3, 4), L.zeros(2, 3, 4)),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 3, 4), L.zeros(2, 3, 4),
                                                L.zeros(2, 3, 4), dropout_p=1.5),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 2, 3, 4), L.zeros(2, 3, 3, 4),
                                                L.zeros(2, 3, 3, 4), enable_gqa=True),
    lambda L: F(L).scaled_dot_product_attention(L.zeros(2, 2, 3, 4), L.zeros(2, 2, 3, 4),
                                                L.zeros(2, 2, 3, 4), attn_mask=L.zeros(4, 3)),
]


@pytest.mark.parametrize("k", range(len(SDPA_ERRORS)))
def test_sdpa_errors(k):
    check_error(SDPA_ERRORS[k])


# ---------------------------------------------------------------- MultiheadAttention

_CALLS = {}


def init_calls(make, monkeypatch):
    """The random / fill primitives (Tensor.uniform_, normal_, fill_) a constructor calls, in
    order. Called with make=None: ember's list of the last call, to compare with the torch
    list returned by the call itself."""
    if make is None:
        return _CALLS.pop("ember")
    for lib in (torch, ember):
        seen = _CALLS[lib.__name__] = []

        def spy(kind, real):
            def f(tensor, *args, **kwargs):
                seen.append((kind, tuple(tensor.shape)))
                return real(tensor, *args, **kwargs)
            return f
        for kind in ("uniform_", "normal_", "fill_"):
            monkeypatch.setattr(lib.Tensor, kind, spy(kind, getattr(lib.Tensor, kind)))
        make(lib)
        monkeypatch.undo()
    return _CALLS.pop("torch")


def _mha_state(kw):
    torch.manual_seed(5)
    m = torch.nn.MultiheadAttention(**kw)
    return {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}


def run_mha(kw, fkw=None, shapes=((3, 2, 4),), dtype=np.float64, train=True, signature=True):
    """nn.MultiheadAttention with torch's weights in both libraries: outputs (values,
    grad_fn names, graphs) and the gradients of the inputs and every parameter. One shape:
    self-attention (query is key is value)."""
    fkw = fkw or {}
    state = _mha_state(kw)
    arrays = [randn(*s).astype(dtype) for s in shapes]
    res = {}
    for lib in (torch, ember):
        m = lib.nn.MultiheadAttention(**kw)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        if dtype == np.float64:
            m.double()
        m.train(train)
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        q, k, v = (xs * 3)[:3] if len(xs) == 1 else xs
        args = {}
        for name, val in fkw.items():
            if isinstance(val, np.ndarray):
                val = lib.tensor(val.astype(dtype) if val.dtype.kind == "f" else val)
            args[name] = val
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, w = m(q, k, v, **args)
        outs = [out] + ([w] if w is not None else [])
        loss = sum((o * lib.tensor(np.linspace(-1, 1, o.numel()).reshape(
            tuple(o.shape)).astype(dtype))).sum() for o in outs)
        loss.backward()
        grads = [x.grad for x in xs] + [p.grad for p in m.parameters()]
        res[lib] = (outs, grads, dag_signature(*outs))
    (to, tg, ts), (eo, eg, es) = res[torch], res[ember]
    tol = (2e-5, 2e-6) if dtype == np.float32 else (1e-9, 1e-11)
    assert len(to) == len(eo)
    for a, b in zip(to, eo):
        assert_close(a.detach().numpy(), b.detach().numpy(), *tol, "output")
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    for a, b in zip(tg, eg):
        assert_close(a.numpy(), b.numpy(), *tol, "grad")
    if signature:
        assert ts == es
    return res


def _bool(*shape, p=0.3, seed=2):
    m = np.random.default_rng(seed).random(shape) < p
    m[..., 0] = False           # every query keeps at least one key
    return m


MHA = {
    "self": (dict(embed_dim=4, num_heads=2), {}, ((3, 2, 4),)),
    "self_no_weights": (dict(embed_dim=4, num_heads=2), dict(need_weights=False),
                        ((3, 2, 4),)),
    "per_head_weights": (dict(embed_dim=4, num_heads=2), dict(average_attn_weights=False),
                         ((3, 2, 4),)),
    "masks": (dict(embed_dim=6, num_heads=3), dict(attn_mask=_bool(3, 3),
                                                   key_padding_mask=_bool(2, 3)),
              ((3, 2, 6),)),
    "masks_no_weights": (dict(embed_dim=4, num_heads=2), dict(attn_mask=_bool(3, 3),
                                                              need_weights=False),
                         ((3, 2, 4),)),
    "padding_no_weights": (dict(embed_dim=4, num_heads=2), dict(
        key_padding_mask=_bool(2, 3), need_weights=False), ((3, 2, 4),)),
    "float_3d_mask": (dict(embed_dim=4, num_heads=2), dict(attn_mask=randn(4, 3, 3)),
                      ((3, 2, 4),)),
    "causal": (dict(embed_dim=4, num_heads=2), dict(
        attn_mask=np.triu(np.full((3, 3), -np.inf), 1), is_causal=True, need_weights=False),
               ((3, 2, 4),)),
    "causal_weights": (dict(embed_dim=4, num_heads=2), dict(
        attn_mask=np.triu(np.full((3, 3), -np.inf), 1), is_causal=True), ((3, 2, 4),)),
    "bias_kv_zero_attn": (dict(embed_dim=4, num_heads=2, add_bias_kv=True, add_zero_attn=True),
                          dict(attn_mask=_bool(3, 3), key_padding_mask=_bool(2, 3)),
                          ((3, 2, 4),)),
    "cross": (dict(embed_dim=4, num_heads=2), {}, ((3, 2, 4), (5, 2, 4), (5, 2, 4))),
    "kdim_vdim": (dict(embed_dim=4, num_heads=2, kdim=3, vdim=5), {},
                  ((3, 2, 4), (5, 2, 3), (5, 2, 5))),
    "kdim_vdim_no_weights": (dict(embed_dim=4, num_heads=2, kdim=3, vdim=5),
                             dict(need_weights=False), ((3, 2, 4), (5, 2, 3), (5, 2, 5))),
    "unbatched": (dict(embed_dim=4, num_heads=2), dict(key_padding_mask=_bool(3)),
                  ((3, 4),)),
    "unbatched_no_weights": (dict(embed_dim=4, num_heads=2), dict(need_weights=False),
                             ((3, 4),)),
}


@pytest.mark.parametrize("name", sorted(MHA))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mha(name, dtype):
    kw, fkw, shapes = MHA[name]
    run_mha(kw, fkw, shapes, dtype)


def test_mha_encoder_decoder_shares_key_and_value():
    """key is value (not the query): the packed projection runs twice (q, then k and v)."""
    state = _mha_state(dict(embed_dim=4, num_heads=2))
    q, mem = randn(3, 2, 4), randn(5, 2, 4)
    sigs = []
    for lib in (torch, ember):
        m = lib.nn.MultiheadAttention(4, 2).double()
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        memory = lib.tensor(mem, requires_grad=True)
        out, _ = m(lib.tensor(q, requires_grad=True), memory, memory)
        sigs.append((out.detach().numpy(), dag_signature(out)))
    assert_close(sigs[0][0], sigs[1][0], 1e-10, 1e-12)
    assert sigs[0][1] == sigs[1][1]


def test_mha_batch_first_bias_free_and_eval():
    # batch_first transposes the inputs (strided) and bias=False projects without bias: the
    # projection then goes through ember.matmul's N-D form (graph compared in core tests)
    run_mha(dict(embed_dim=4, num_heads=2, batch_first=True), {}, ((2, 3, 4),),
            signature=False)
    run_mha(dict(embed_dim=4, num_heads=2, bias=False), {}, ((3, 2, 4),), signature=False)
    run_mha(dict(embed_dim=4, num_heads=2, dropout=0.5), {}, ((3, 2, 4),), train=False)


def test_mha_dropout_draws():
    for lib in (torch, ember):
        m = lib.nn.MultiheadAttention(4, 2, dropout=0.5)
        x = lib.randn(3, 2, 4, requires_grad=True)
        out, w = m(x, x, x)
        names = [n for n, _ in dag_signature(out)]
        assert names.count("MulBackward0") == 2     # q scaling and the dropout mask


def test_mha_api_repr_init(monkeypatch):
    for kw in (dict(embed_dim=4, num_heads=2), dict(embed_dim=4, num_heads=2, kdim=3, vdim=5,
                                                     bias=False, add_bias_kv=True)):
        t, e = torch.nn.MultiheadAttention(**kw), ember.nn.MultiheadAttention(**kw)
        assert repr(t) == repr(e)
        assert [(n, tuple(p.shape)) for n, p in t.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in e.named_parameters()]
        assert list(t.state_dict()) == list(e.state_dict())
        for attr in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads",
                     "dropout", "batch_first", "head_dim", "add_zero_attn"):
            assert getattr(t, attr) == getattr(e, attr)
        assert (t.bias_k is None) == (e.bias_k is None)
    assert init_calls(lambda L: L.nn.MultiheadAttention(6, 2, kdim=3, add_bias_kv=True),
                      monkeypatch) == init_calls(None, None)
    m = ember.nn.MultiheadAttention(8, 2)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= np.sqrt(6 / (8 + 24)) and w.std() > 0.15
    assert not m.in_proj_bias.detach().numpy().any()
    assert not m.out_proj.bias.detach().numpy().any()


def test_mha_gradcheck():
    m = ember.nn.MultiheadAttention(4, 2, add_bias_kv=True).double()

    def f(q, k):
        out, w = m(q, k, k, attn_mask=ember.tensor(_bool(2, 3)))
        return ember.cat([out.reshape(-1), w.reshape(-1)])
    gradcheck(f, randn(2, 1, 4), randn(3, 1, 4))
    m = ember.nn.MultiheadAttention(4, 2).double()
    gradgradcheck(lambda q: m(q, q, q, need_weights=False)[0], randn(3, 1, 4))


MHA_ERRORS = [
    lambda L: L.nn.MultiheadAttention(4, 3),
    lambda L: L.nn.MultiheadAttention(0, 2),
    lambda L: L.nn.MultiheadAttention(4, 0),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 4), L.zeros(3, 4)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3), L.zeros(3, 2, 4), L.zeros(3, 2, 4)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4),
                                            key_padding_mask=L.zeros(3, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4),
                                            key_padding_mask=L.zeros(3, 3, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4),
                                            attn_mask=L.zeros(3, 3, 3, 1, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4),
                                            attn_mask=L.zeros(3, 3, 3, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4), attn_mask=L.zeros(3, 2)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4), attn_mask=L.zeros(3, 3, 3)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4),
                                            attn_mask=L.zeros(3, 3, dtype=L.int64)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4),
                                            key_padding_mask=L.zeros(3, 3, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2, add_zero_attn=True)(
        L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4),
        key_padding_mask=L.zeros(2, 4, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4), is_causal=True),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 5), L.zeros(3, 2, 4),
                                            L.zeros(3, 2, 4)),
    lambda L: L.nn.MultiheadAttention(4, 2)(L.zeros(3, 2, 4), L.zeros(4, 2, 4),
                                            L.zeros(5, 2, 4)),
    lambda L: L.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)(
        L.zeros(3, 2, 4), L.zeros(4, 2, 3), L.zeros(5, 2, 5)),
    lambda L: L.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)(
        L.zeros(3, 2, 4), L.zeros(4, 2, 4), L.zeros(4, 2, 5)),
    lambda L: F(L).multi_head_attention_forward(
        L.zeros(3, 2, 4), L.zeros(3, 2, 4), L.zeros(3, 2, 4), 5, 2, L.zeros(12, 4),
        L.zeros(12), None, None, False, 0.0, L.zeros(4, 4), L.zeros(4)),
    lambda L: F(L)._none_or_dtype(3),
]


@pytest.mark.parametrize("k", range(len(MHA_ERRORS)))
def test_mha_errors(k):
    check_error(MHA_ERRORS[k])


def test_mha_mismatched_mask_warning():
    for lib in (torch, ember):
        m = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 2, 4)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and "
                                             "attn_mask is deprecated"):
            m(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool),
              attn_mask=lib.zeros(3, 3))


# ---------------------------------------------------------------- transformer layers

def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


def run_layer(make, shapes, kwargs=None, dtype=np.float64, train=False, signature=True):
    """A transformer module with torch's weights in both libraries (eval mode unless train:
    dropout then draws and only the graphs are compared): output values and grad_fn graph,
    gradients of the inputs and of every parameter."""
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = {k: v.detach().numpy().copy() for k, v in make(torch).state_dict().items()}
    arrays = [randn(*s) for s in shapes]
    res = {}
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = make(lib)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        if dtype == np.float64:
            m.double()
        m.train(train)
        xs = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        kw = {k: lib.tensor(v.astype(dtype) if v.dtype.kind == "f" else v)
              if isinstance(v, np.ndarray) else v for k, v in (kwargs or {}).items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = m(*xs, **kw)
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)).astype(
            dtype))).sum().backward()
        grads = [x.grad for x in xs] + [p.grad for p in m.parameters()]
        res[lib] = (out, grads, dag_signature(out))
    (to, tg, ts), (eo, eg, es) = res[torch], res[ember]
    if signature:
        assert ts == es, "grad_fn graph differs"
    if train:
        return
    tol = (1e-4, 1e-5) if dtype == np.float32 else (1e-9, 1e-10)
    assert_close(to.detach().numpy(), eo.detach().numpy(), *tol, "output")
    assert type(to.grad_fn).__name__ == type(eo.grad_fn).__name__
    for a, b in zip(tg, eg):
        assert (a is None) == (b is None)
        if a is not None:
            assert_close(a.numpy(), b.numpy(), *tol, "grad")


def _enc(L, **kw):
    return L.nn.TransformerEncoderLayer(8, 2, 16, **kw)


def _dec(L, **kw):
    return L.nn.TransformerDecoderLayer(8, 2, 16, **kw)


LAYERS = {
    "encoder_layer": (lambda L: _enc(L), [(3, 2, 8)], {}),
    "encoder_layer_norm_first_gelu": (lambda L: _enc(L, norm_first=True, activation="gelu"),
                                      [(3, 2, 8)], {}),
    "encoder_layer_callable_activation": (lambda L: _enc(L, activation=L.nn.functional.silu,
                                                         layer_norm_eps=1e-3), [(3, 2, 8)], {}),
    "encoder_layer_masks": (lambda L: _enc(L), [(3, 2, 8)], dict(
        src_mask=_causal(3), src_key_padding_mask=np.array([[False, False, True],
                                                             [False, False, False]]))),
    "encoder_layer_unbatched": (lambda L: _enc(L), [(3, 8)], dict(is_causal=True,
                                                                  src_mask=_causal(3))),
    "encoder": (lambda L: L.nn.TransformerEncoder(_enc(L), 2, norm=L.nn.LayerNorm(8)),
                [(3, 2, 8)], {}),
    "encoder_detects_causal": (lambda L: L.nn.TransformerEncoder(_enc(L), 2), [(3, 2, 8)],
                               dict(mask=_causal(3))),
    "decoder_layer": (lambda L: _dec(L), [(3, 2, 8), (4, 2, 8)], {}),
    "decoder_layer_norm_first_masks": (lambda L: _dec(L, norm_first=True, activation="gelu"),
                                       [(3, 2, 8), (4, 2, 8)], dict(
        tgt_mask=_causal(3), memory_key_padding_mask=np.array([[False] * 3 + [True],
                                                               [False] * 4]))),
    "decoder": (lambda L: L.nn.TransformerDecoder(_dec(L), 2, norm=L.nn.LayerNorm(8)),
                [(3, 2, 8), (4, 2, 8)], dict(tgt_mask=_causal(3))),
    "transformer": (lambda L: L.nn.Transformer(8, 2, 2, 1, 16), [(4, 2, 8), (3, 2, 8)],
                    dict(tgt_mask=_causal(3), src_key_padding_mask=np.array(
                        [[False] * 3 + [True], [False] * 4]))),
    "transformer_unbatched_norm_first": (lambda L: L.nn.Transformer(8, 2, 1, 1, 16,
                                                                    norm_first=True),
                                         [(4, 8), (3, 8)], {}),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transformer_layers(name, dtype):
    make, shapes, kwargs = LAYERS[name]
    run_layer(make, shapes, kwargs, dtype)


def test_transformer_batch_first_and_bias_free():
    # a batch_first input reaches the projections transposed, bias=False projects without
    # bias: both go through ember.matmul's N-D form (its graph is compared in core tests)
    run_layer(lambda L: _enc(L, batch_first=True), [(2, 3, 8)], signature=False)
    run_layer(lambda L: L.nn.Transformer(8, 2, 1, 1, 16, batch_first=True, bias=False),
              [(2, 4, 8), (2, 3, 8)], signature=False)


def test_transformer_dropout_graph():
    """Training mode: attention dropout (scaled_dot_product_attention's math path) and the
    layers' Dropout modules, as many mask multiplications as in torch."""
    counts = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = lib.nn.Transformer(8, 2, 1, 1, 16)
        out = m(lib.randn(4, 2, 8), lib.randn(3, 2, 8))
        names = [n for n, _ in dag_signature(out)]
        counts.append([names.count(n) for n in ("MulBackward0", "SafeSoftmaxBackward0",
                                                  "NativeLayerNormBackward0")])
    assert counts[0] == counts[1] and counts[0][0] > 0


def test_encoder_nested_tensor_path_pads_with_zeros():
    """In inference with a left-aligned padding mask and batch_first, torch runs the encoder
    on nested tensors and returns 0 at the padded positions (before the final norm)."""
    x = randn(2, 3, 8).astype(np.float32)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        def make(L):
            return L.nn.TransformerEncoder(_enc(L, batch_first=True), 2,
                                           norm=L.nn.LayerNorm(8))
        state = {k: v.detach().numpy() for k, v in make(torch).state_dict().items()}
    masks = [np.array([[False, False, True], [False, False, False]]),
             np.array([[True, False, False], [False, False, False]])]     # not left-aligned
    outs = {}
    for lib in (torch, ember):
        m = make(lib)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        m.norm.bias.data = lib.tensor(np.arange(8, dtype=np.float32))
        m.eval()
        for k, mask in enumerate(masks):
            with lib.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")      # (the nested tensors' prototype note)
                outs[lib, k] = m(lib.tensor(x), src_key_padding_mask=lib.tensor(mask)).numpy()
            outs[lib, k, "grad"] = m(lib.tensor(x), src_key_padding_mask=lib.tensor(
                mask)).detach().numpy()
    for key in [(0,), (1,), (0, "grad"), (1, "grad")]:
        assert_close(outs[(torch,) + key], outs[(ember,) + key], 1e-5, 1e-5, str(key))
    assert np.allclose(outs[ember, 0][0, 2], np.arange(8))          # LayerNorm(0) = bias
    assert not np.allclose(outs[ember, 0, "grad"][0, 2], np.arange(8))


def test_transformer_gradcheck_and_double_backward():
    m = ember.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0).double()
    gradcheck(lambda x: m(x, src_mask=ember.tensor(_causal(3))), randn(3, 1, 4))
    gradgradcheck(lambda x: m(x), randn(2, 1, 4))


def test_transformer_api_repr_warnings_init(monkeypatch):
    def build(L):
        return [L.nn.Transformer(8, 2, 1, 1, 16),
                L.nn.TransformerDecoderLayer(8, 2, 16, activation="gelu", norm_first=True,
                                             bias=False, layer_norm_eps=1e-6),
                L.nn.TransformerEncoder(_enc(L), 2, norm=L.nn.LayerNorm(8))]
    mods = {}
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mods[lib] = build(lib)
    for t, e in zip(mods[torch], mods[ember]):
        assert repr(t) == repr(e)
        assert [(n, tuple(p.shape)) for n, p in t.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in e.named_parameters()]
    assert init_calls(lambda L: L.nn.Transformer(8, 2, 1, 1, 16), monkeypatch) == \
        init_calls(None, None)
    t, e = (_enc(L) for L in (torch, ember))
    assert (t.activation_relu_or_gelu, t.norm_first) == (e.activation_relu_or_gelu,
                                                         e.norm_first)
    assert e.activation is ember.nn.functional.relu
    assert _enc(ember, activation="gelu").activation is ember.nn.functional.gelu
    assert _enc(ember, activation=ember.nn.GELU()).activation_relu_or_gelu == 2
    for sz, dt in ((3, None), (2, "float64")):
        a = torch.nn.Transformer.generate_square_subsequent_mask(
            sz, dtype=getattr(torch, dt) if dt else None)
        b = ember.nn.Transformer.generate_square_subsequent_mask(
            sz, dtype=getattr(ember, dt) if dt else None)
        assert repr(a) == repr(b)


def test_nested_tensor_prototype_warning_once_per_process():
    program = """
import warnings, torch, ember
for lib in (torch, ember):
    m = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                  1).eval()
    for _ in range(2):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.no_grad():
                m(lib.zeros(2, 3, 8), src_key_padding_mask=lib.tensor([[False, False, True],
                                                                       [False] * 3]))
        print([(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w])
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lines = out.stdout.splitlines()
    assert len(lines) == 4, out.stderr
    assert lines[:2] == lines[2:] and "nested tensors is in prototype stage" in lines[0]
    assert lines[1] == "[]"


@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True, norm_first=True),
                                dict(batch_first=True, activation=lambda x: x),
                                dict(batch_first=True, bias=False)])
def test_nested_tensor_warning(kw):
    got = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(_enc(lib, **kw), 2)
        got.append([(type(x.message).__name__, str(x.message)) for x in w])
    assert got[0] == got[1] and len(got[0]) == 1
    got = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.Linear(3, 3), 1)
            lib.nn.TransformerEncoder(_enc(lib, batch_first=True), 1)
            lib.nn.TransformerEncoder(L := _enc(lib), 1, enable_nested_tensor=False)
        got.append([str(x.message) for x in w])
        assert L is not None
    assert got[0] == got[1] and len(got[0]) == 1


TRANSFORMER_ERRORS = [
    lambda L: _enc(L, activation="tanh"),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(L.zeros(3, 2, 8), L.zeros(4, 3, 8)),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(L.zeros(2, 3, 8),
                                                                 L.zeros(3, 4, 8)),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(L.zeros(3, 2, 8), L.zeros(4, 2, 7)),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(L.zeros(3, 2, 8), L.zeros(4, 8)),
    lambda L: _enc(L)(L.zeros(3, 2, 8), src_key_padding_mask=L.zeros(2, 3, dtype=L.int64)),
]


@pytest.mark.parametrize("k", range(len(TRANSFORMER_ERRORS)))
def test_transformer_errors(k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(TRANSFORMER_ERRORS[k])


@pytest.mark.parametrize("make", [
    lambda L: L.nn.MultiheadAttention(6, 2, kdim=3, add_bias_kv=True),
    lambda L: L.nn.Transformer(8, 2, 1, 2, 16)])
def test_default_init_matches_torch(make):
    states = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            states.append({k: v.detach().numpy() for k, v in make(lib).state_dict().items()})
    for k in states[0]:
        np.testing.assert_array_equal(states[0][k], states[1][k], err_msg=k)


@pytest.mark.parametrize("name", ["sdpa", "mha", "transformer"])
def test_dropout_matches_torch(name):
    """Train-mode dropout (attention weights, the layers' Dropout modules) draws torch's
    masks: outputs and gradients agree."""
    q = randn(2, 2, 3, 4).astype(np.float32)
    src, tgt = randn(4, 2, 8).astype(np.float32), randn(3, 2, 8).astype(np.float32)
    res = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "mha":
                m = lib.nn.MultiheadAttention(8, 2, dropout=0.3)
            elif name == "transformer":
                m = lib.nn.Transformer(8, 2, 1, 1, 16)
        a = lib.tensor(q if name == "sdpa" else src, requires_grad=True)
        lib.manual_seed(1)
        if name == "sdpa":
            out = F(lib).scaled_dot_product_attention(a, a, a, dropout_p=0.4)
        elif name == "mha":
            out = m(a, a, a)[0]
        else:
            out = m(a, lib.tensor(tgt))
        out.pow(2).sum().backward()
        res.append([out.detach().numpy(), a.grad.numpy()])
    for x, y in zip(*res):
        assert_close(x, y, 1e-5, 1e-5, name)
