"""ember.nn RNN / LSTM / GRU, their cells, the torch.lstm-style functions and nn.utils.rnn,
against torch: outputs, final states, every gradient (input, states, parameters), grad_fn
graphs, reprs, initialisation, errors; float64 numerical gradient checks, double backward."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, check, check_error, gradcheck, gradgradcheck, tolerances

R = np.random.default_rng(11)


def randn(*shape, scale=1.0):
    return R.standard_normal(shape) * scale


def dag_signature(*tensors):
    """The graph behind tensors: (node name, ((child index, output_nr) or None, ...)) per
    node, numbered in depth-first order over next_functions. Equal signatures mean the same
    graph, node for node and edge for edge."""
    ids, out = {}, []
    for t in tensors:
        if t.grad_fn is None or t.grad_fn in ids:
            continue
        stack = [(t.grad_fn, False)]
        while stack:
            fn, done = stack.pop()
            if done:
                ids[fn] = len(out)
                out.append((type(fn).__name__, tuple(
                    None if g is None else (ids[g], nr) for g, nr in fn.next_functions)))
            elif fn not in ids:
                ids[fn] = None
                stack.append((fn, True))
                stack.extend((g, False) for g, _ in reversed(fn.next_functions)
                             if g is not None and g not in ids)
    return out


def _flat(out):
    if hasattr(out, "batch_sizes"):         # PackedSequence
        res = [out.data, out.batch_sizes]
        for idx in (out.sorted_indices, out.unsorted_indices):
            if idx is not None:
                res.append(idx)
        return res
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat(o))
        return res
    return [out]


def _state(cls, kw):
    """torch's initial weights for a module (its own default init)."""
    torch.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = getattr(torch.nn, cls)(**kw)
    return {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}


def run_module(cls, kw, x, hx=None, dtype=np.float32, lengths=None, train=True,
               signature=True):
    """The module with torch's weights, in both libraries, on the same input (and states);
    compares outputs (values, dtypes, grad_fn names), the graph, and the gradients of the
    input, the states and every parameter."""
    state = _state(cls, kw)
    res = {}
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = getattr(lib.nn, cls)(**kw)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        if dtype == np.float64:
            m.double()
        m.train(train)
        xt = lib.tensor(x.astype(dtype), requires_grad=True)
        inp = xt
        if lengths is not None:
            inp = lib.nn.utils.rnn.pack_padded_sequence(
                xt, lengths, batch_first=kw.get("batch_first", False), enforce_sorted=False)
        hs = None
        if hx is not None:
            hs = tuple(lib.tensor(h.astype(dtype), requires_grad=True) for h in hx)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if hs is None:
                out = m(inp)
            else:
                out = m(inp, hs if len(hs) == 2 else hs[0])
        outs = _flat(out)
        loss = 0
        rng = np.random.default_rng(5)
        for o in outs:
            if o.requires_grad:
                loss = loss + (o * lib.tensor(rng.standard_normal(tuple(o.shape)).astype(
                    dtype))).sum()
        loss.backward()
        grads = [xt.grad] + [h.grad for h in hs or ()]
        pgrads = {n: p.grad for n, p in m.named_parameters()}
        res[lib] = (outs, grads, pgrads, dag_signature(*outs) if signature else None)
    (tout, tg, tpg, tsig), (eout, eg, epg, esig) = res[torch], res[ember]
    rtol, atol = tolerances(dtype)
    if dtype == np.float32:
        rtol, atol = 2e-5, 2e-6
    assert len(tout) == len(eout)
    for i, (a, b) in enumerate(zip(tout, eout)):
        assert str(a.dtype) == str(b.dtype), f"output {i} dtype"
        assert_close(a.detach().numpy(), b.detach().numpy(), rtol, atol, f"output {i}")
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__ or \
            a.grad_fn is None and b.grad_fn is None, f"output {i} grad_fn"
    for i, (a, b) in enumerate(zip(tg, eg)):
        assert (a is None) == (b is None)
        assert_close(a.numpy(), b.numpy(), rtol, atol, f"input {i} grad")
    assert tpg.keys() == epg.keys()
    for name in tpg:
        assert_close(tpg[name].numpy(), epg[name].numpy(), rtol, atol, f"{name}.grad")
    if signature:
        assert tsig == esig, "grad_fn graph differs"
    return res


# ---------------------------------------------------------------- the layers

LAYERS = {
    # name: (class, kwargs, input shape, states (shapes) or None)
    "rnn": ("RNN", dict(input_size=3, hidden_size=5), (4, 2, 3), None),
    "rnn_h0": ("RNN", dict(input_size=3, hidden_size=5), (4, 2, 3), [(1, 2, 5)]),
    "rnn_relu_2l_bi": ("RNN", dict(input_size=3, hidden_size=4, num_layers=2,
                                   nonlinearity="relu", bidirectional=True), (3, 2, 3),
                       [(4, 2, 4)]),
    "rnn_unbatched": ("RNN", dict(input_size=3, hidden_size=4), (3, 3), [(1, 4)]),
    "gru": ("GRU", dict(input_size=3, hidden_size=4), (4, 2, 3), [(1, 2, 4)]),
    "gru_2l_bi": ("GRU", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                  (3, 2, 3), None),
    "gru_unbatched_2l": ("GRU", dict(input_size=3, hidden_size=4, num_layers=2), (3, 3),
                         [(2, 4)]),
    "lstm": ("LSTM", dict(input_size=3, hidden_size=5), (4, 2, 3), None),
    "lstm_states": ("LSTM", dict(input_size=3, hidden_size=5), (4, 2, 3),
                    [(1, 2, 5), (1, 2, 5)]),
    "lstm_2l_bi": ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                   (3, 2, 3), [(4, 2, 4), (4, 2, 4)]),
    "lstm_unbatched": ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2), (3, 3),
                       [(2, 4), (2, 4)]),
    "lstm_proj": ("LSTM", dict(input_size=3, hidden_size=5, proj_size=2), (3, 2, 3),
                  [(1, 2, 2), (1, 2, 5)]),
    "lstm_proj_2l_bi": ("LSTM", dict(input_size=3, hidden_size=4, proj_size=3, num_layers=2,
                                     bidirectional=True), (3, 2, 3), None),
    "lstm_one_step": ("LSTM", dict(input_size=3, hidden_size=4), (1, 2, 3), None),
    "lstm_empty_batch": ("LSTM", dict(input_size=3, hidden_size=4), (2, 0, 3), None),
}

# ember.matmul of an N-D input and a matrix records UnsafeViewBackward0 over its operands,
# where torch records View -> Mm -> UnsafeView (and a Clone for a strided input): the
# layers whose input projection goes through that matmul (no bias, or a batch_first input
# transposed into a strided tensor) are compared node for node in a core test, not here
MATMUL_CHAIN = {
    "lstm_nobias": ("LSTM", dict(input_size=3, hidden_size=4, bias=False), (3, 2, 3),
                    [(1, 2, 4), (1, 2, 4)]),
    "rnn_batch_first": ("RNN", dict(input_size=3, hidden_size=4, batch_first=True), (2, 3, 3),
                        [(1, 2, 4)]),
    "gru_batch_first_bi": ("GRU", dict(input_size=3, hidden_size=4, batch_first=True,
                                       bidirectional=True), (2, 3, 3), None),
    "lstm_batch_first": ("LSTM", dict(input_size=3, hidden_size=4, batch_first=True),
                         (2, 3, 3), [(1, 2, 4), (1, 2, 4)]),
    "lstm_batch_first_2l": ("LSTM", dict(input_size=3, hidden_size=4, batch_first=True,
                                         num_layers=2), (2, 3, 3), None),
    "gru_nobias": ("GRU", dict(input_size=3, hidden_size=4, bias=False), (3, 2, 3), None),
    "rnn_nobias_unbatched": ("RNN", dict(input_size=3, hidden_size=4, bias=False), (3, 3),
                             None),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer(name, dtype):
    cls, kw, shape, states = LAYERS[name]
    hx = None if states is None else [randn(*s) for s in states]
    run_module(cls, kw, randn(*shape), hx, dtype)


@pytest.mark.parametrize("name", sorted(MATMUL_CHAIN))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_batch_first_and_no_bias(name, dtype):
    cls, kw, shape, states = MATMUL_CHAIN[name]
    hx = None if states is None else [randn(*s) for s in states]
    res = run_module(cls, kw, randn(*shape), hx, dtype, signature=False)
    # the output's own node is torch's (TransposeBackward0 for LSTM, TransposeBackward1 for
    # the in-place transpose of RNN and GRU)
    (tout, *_), (eout, *_) = res[torch], res[ember]
    assert [type(t.grad_fn).__name__ for t in tout] == [type(t.grad_fn).__name__ for t in eout]


PACKED = {
    "rnn": ("RNN", dict(input_size=3, hidden_size=4), (4, 3, 3), [3, 4, 1], None),
    "rnn_bi_h0": ("RNN", dict(input_size=3, hidden_size=4, bidirectional=True), (4, 3, 3),
                  [2, 4, 2], [(2, 3, 4)]),
    "gru_2l_bi": ("GRU", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                  (4, 3, 3), [4, 1, 3], None),
    "lstm": ("LSTM", dict(input_size=3, hidden_size=4), (4, 3, 3), [4, 2, 3],
             [(1, 3, 4), (1, 3, 4)]),
    "lstm_2l_bi": ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                   (4, 3, 3), [1, 4, 2], None),
    "lstm_proj": ("LSTM", dict(input_size=3, hidden_size=4, proj_size=2), (3, 2, 3), [2, 3],
                  [(1, 2, 2), (1, 2, 4)]),
    "lstm_full_length": ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2), (3, 2, 3),
                         [3, 3], None),
    "lstm_batch_first": ("LSTM", dict(input_size=3, hidden_size=4, batch_first=True),
                         (3, 4, 3), [4, 2, 3], None),
}


@pytest.mark.parametrize("name", sorted(PACKED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_packed_layer(name, dtype):
    cls, kw, shape, lengths, states = PACKED[name]
    hx = None if states is None else [randn(*s) for s in states]
    run_module(cls, kw, randn(*shape), hx, dtype, lengths=lengths)


def test_eval_mode_and_dropout_one():
    # p = 1 zeroes the next layer's input without drawing random numbers; eval: no dropout
    kw = dict(input_size=3, hidden_size=4, num_layers=3, dropout=1.0)
    for cls in ("LSTM", "GRU"):
        run_module(cls, kw, randn(3, 2, 3), dtype=np.float64, train=True)
        run_module(cls, kw, randn(3, 2, 3), dtype=np.float32, train=False)


def test_dropout_graph_and_mask():
    """Train-mode dropout between layers: MulBackward0 with a mask in {0, 1 / (1 - p)}, in
    torch's graph (the values: test_dropout_between_layers_matches_torch)."""
    x = randn(6, 40, 3)
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.GRU(3, 8, num_layers=2, dropout=0.25)
        out, _ = m(lib.tensor(x, dtype=lib.float32))
        mul = [fn for fn, _ in out.grad_fn.next_functions[0][0].next_functions]
        sig = dag_signature(out)
        if lib is torch:
            tsig = sig
    assert tsig == sig
    assert any(name == "MulBackward0" for name, _ in sig) and mul
    m = ember.nn.LSTM(3, 50, num_layers=2, dropout=0.25)
    layer0 = ember.lstm(ember.tensor(x, dtype=ember.float32),
                        (ember.zeros(2, 40, 50), ember.zeros(2, 40, 50)),
                        m._flat_weights, True, 2, 0.25, True, False, False)[0]
    noise = layer0.grad_fn.next_functions[0][0]        # the dropped layer-0 output
    assert type(noise).__name__ == "MulBackward0"
    scaled = ember.ops.dropout.dropout(ember.ones(200, 50), 0.25, True).numpy()
    assert set(np.unique(scaled)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.65 < (scaled != 0).mean() < 0.85


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cells(dtype):
    cases = [("RNNCell", {}, (2, 3), [(2, 4)]), ("RNNCell", dict(nonlinearity="relu"), (3,),
                                                        None),
             ("RNNCell", dict(bias=False), (2, 3), None),
             ("GRUCell", {}, (2, 3), [(2, 4)]), ("GRUCell", dict(bias=False), (3,), [(4,)]),
             ("LSTMCell", {}, (2, 3), [(2, 4), (2, 4)]), ("LSTMCell", {}, (3,), None),
             ("LSTMCell", dict(bias=False), (3,), [(4,), (4,)])]
    for cls, kw, shape, states in cases:
        hx = None if states is None else [randn(*s) for s in states]
        run_module(cls, dict(input_size=3, hidden_size=4, **kw), randn(*shape), hx, dtype)


# ---------------------------------------------------------------- the functions

def _params(mode, I, H, L, D, bias, proj=0):
    G = {"lstm": 4, "gru": 3}.get(mode, 1)
    ps = []
    for layer in range(L):
        for _ in range(D):
            ps += [randn(G * H, I if layer == 0 else (proj or H) * D, scale=0.4),
                   randn(G * H, proj or H, scale=0.4)]
            if bias:
                ps += [randn(G * H, scale=0.4), randn(G * H, scale=0.4)]
            if proj:
                ps.append(randn(proj, H, scale=0.4))
    return ps


FUNCTIONS = [("rnn_tanh", {}), ("rnn_relu", dict(L=2, D=2)), ("gru", dict(bf=True)),
             ("gru", dict(bias=False, D=2)), ("lstm", dict(L=2)), ("lstm", dict(D=2, bf=True)),
             ("lstm", dict(proj=2, D=2))]


@pytest.mark.parametrize("mode,kw", FUNCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sequence_functions(mode, kw, dtype):
    L, D, bias, proj, bf = kw.get("L", 1), kw.get("D", 1), kw.get("bias", True), \
        kw.get("proj", 0), kw.get("bf", False)
    T, B, I, H = 3, 2, 3, 4
    ps = [p.astype(dtype) for p in _params(mode, I, H, L, D, bias, proj)]
    x = randn(B, T, I) if bf else randn(T, B, I)

    def fn(lib, x, h0, c0, *ps):
        f = getattr(lib, mode)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if mode == "lstm":
                return f(x, (h0, c0), list(ps), bias, L, 0.0, True, D == 2, bf)
            return f(x, h0, list(ps), bias, L, 0.0, True, D == 2, bf)
    check(fn, x.astype(dtype), randn(L * D, B, proj or H).astype(dtype),
          randn(L * D, B, H).astype(dtype), *ps, rtol=2e-5 if dtype == np.float32 else None)


def test_sequence_function_packed_form():
    ps = _params("gru", 3, 4, 1, 2, True)
    x = randn(5, 3)

    def fn(lib, data, h0, *ps):
        return lib.gru(data, lib.tensor([2, 2, 1]), h0, list(ps), True, 1, 0.0, True, True)
    check(fn, x, randn(2, 2, 4), *ps)


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "gru_cell"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cell_functions(name, dtype):
    G = 3 if name == "gru_cell" else 1
    args = [randn(2, 3), randn(2, 4), randn(G * 4, 3), randn(G * 4, 4), randn(G * 4),
            randn(G * 4)]
    check(lambda L, *a: getattr(L, name)(*a), *[a.astype(dtype) for a in args])
    check(lambda L, *a: getattr(L, name)(*a), *[a.astype(dtype) for a in args[:4]])


def test_lstm_cell_function():
    args = [randn(2, 3), randn(2, 4), randn(2, 4), randn(16, 3), randn(16, 4), randn(16),
            randn(16)]
    check(lambda L, x, h, c, *w: L.lstm_cell(x, (h, c), *w), *args)


# ---------------------------------------------------------------- gradients, numerically

def test_gradcheck_modules():
    for cls, kw in [("GRU", dict(bidirectional=True)), ("LSTM", dict(proj_size=2)),
                    ("RNN", dict(nonlinearity="relu"))]:
        m = getattr(ember.nn, cls)(2, 3, **kw).double()

        def f(x, h):
            if cls == "LSTM":
                out, (hn, cn) = m(x, (h[:, :, :2], h))
                return ember.cat([out.reshape(-1), hn.reshape(-1), cn.reshape(-1)])
            out, hn = m(x, h.repeat(2 if kw.get("bidirectional") else 1, 1, 1))
            return ember.cat([out.reshape(-1), hn.reshape(-1)])
        gradcheck(f, randn(3, 2, 2), randn(1, 2, 3))


def test_gradgradcheck_cells():
    for cls in ("GRUCell", "LSTMCell", "RNNCell"):
        m = getattr(ember.nn, cls)(2, 3).double()

        def f(x, h):
            out = m(x, (h, h * 0.5)) if cls == "LSTMCell" else m(x, h)
            return ember.cat([o.reshape(-1) for o in out]) if cls == "LSTMCell" else out
        gradgradcheck(f, randn(2, 2), randn(2, 3))


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_node_gradcheck(reverse):
    """The one-node LSTM layer (float32 in the modules; any dtype here), to second order."""
    from ember.ops.rnn import _lstm_layer_node
    T, B, I, H = 3, 2, 2, 3
    arrays = [randn(T, B, I, scale=0.5), randn(4 * H, I, scale=0.5), randn(4 * H, H, scale=0.5),
              randn(4 * H, scale=0.5), randn(4 * H, scale=0.5), randn(B, H, scale=0.5),
              randn(B, H, scale=0.5)]

    def f(*a):
        out, hy, cy = _lstm_layer_node(*a, reverse, (1, False, False, True))
        return ember.cat([out.reshape(-1), hy.reshape(-1) * 0.7, cy.reshape(-1) * 1.3])
    gradcheck(f, *arrays)
    gradgradcheck(f, *arrays)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_node_passes_agree(dtype, reverse):
    """MkldnnRnnLayerBackward0: the NumPy backward and the create_graph backward give the
    same bits (Note [LSTM layer arithmetic])."""
    from ember.ops.rnn import _lstm_layer_node
    T, B, I, H = 4, 3, 2, 5
    arrays = [randn(T, B, I), randn(4 * H, I), randn(4 * H, H), randn(4 * H), randn(4 * H),
              randn(B, H), randn(B, H)]
    ws = [randn(T, B, H), randn(B, H), randn(B, H)]

    def program():
        ts = [ember.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        outs = _lstm_layer_node(*ts, reverse, (1, False, False, True))
        return ts, sum((o * ember.tensor(w.astype(dtype))).sum() for o, w in zip(outs, ws))
    ts, loss = program()
    loss.backward()
    ts2, loss2 = program()
    grads = ember.autograd.grad(loss2, ts2, create_graph=True)
    for t, g in zip(ts, grads):
        np.testing.assert_array_equal(t.grad.numpy(), g.detach().numpy())


def test_double_backward_vs_torch():
    """Gradient penalty through a float32 LSTM (torch: its oneDNN layer) and a GRU."""
    state = {cls: _state(cls, dict(input_size=3, hidden_size=4)) for cls in ("LSTM", "GRU")}
    x = randn(3, 2, 3)
    res = {}
    for lib in (torch, ember):
        grads = []
        for cls in ("LSTM", "GRU"):
            m = getattr(lib.nn, cls)(3, 4)
            m.load_state_dict({k: lib.tensor(v) for k, v in state[cls].items()})
            xt = lib.tensor(x, dtype=lib.float32, requires_grad=True)
            out = m(xt)[0]
            g, = lib.autograd.grad((out * out).sum(), xt, create_graph=True)
            (g * g).sum().backward()
            grads += [xt.grad.numpy(), m.weight_hh_l0.grad.numpy()]
        res[lib] = grads
    for a, b in zip(res[torch], res[ember]):
        assert_close(a, b, 1e-4, 1e-5, "double backward")


# ---------------------------------------------------------------- module API

def test_parameters_names_shapes_repr():
    for cls, args, kw in [("LSTM", (3, 4), dict(proj_size=2, num_layers=2, bidirectional=True,
                                                bias=False)),
                          ("RNN", (3, 4, 2, "relu"), dict(batch_first=True, dropout=0.5)),
                          ("GRU", (3, 4, 2, False, True, 0.25, True), {}),
                          ("LSTM", (3, 4), dict(dropout=0)), ("RNNCell", (3, 4, False, "relu"),
                                                               {}),
                          ("RNNCell", (3, 4), dict(nonlinearity="bogus")),
                          ("LSTMCell", (3, 4), dict(bias=False)), ("GRUCell", (3, 4), {})]:
        mods = []
        for lib in (torch, ember):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mods.append(getattr(lib.nn, cls)(*args, **kw))
        t, e = mods
        assert repr(t) == repr(e)
        assert [(n, tuple(p.shape), p.dtype == torch.float32) for n, p in t.named_parameters()] \
            == [(n, tuple(p.shape), p.dtype == ember.float32) for n, p in e.named_parameters()]
        assert list(t.state_dict()) == list(e.state_dict())
        if not cls.endswith("Cell"):
            assert t._flat_weights_names == e._flat_weights_names
            assert t._all_weights == e._all_weights
            assert [[tuple(w.shape) for w in ws] for ws in t.all_weights] == \
                [[tuple(w.shape) for w in ws] for ws in e.all_weights]
            assert e.flatten_parameters() is None
            for attr in ("mode", "input_size", "hidden_size", "num_layers", "bias",
                         "batch_first", "dropout", "bidirectional", "proj_size"):
                assert getattr(t, attr) == getattr(e, attr), attr


def test_default_init_distribution_and_calls(monkeypatch):
    """reset_parameters: uniform_(-1/sqrt(hidden), 1/sqrt(hidden)) on every parameter, in
    torch's order (the same calls as torch makes)."""
    calls = {}
    for lib, init in ((torch, torch.nn.init), (ember, ember.nn.init)):
        seen = calls[lib] = []
        real = init.uniform_

        def spy(tensor, a=0.0, b=1.0, generator=None, _real=real, _seen=seen):
            _seen.append((tuple(tensor.shape), a, b))
            return _real(tensor, a, b)
        monkeypatch.setattr(init, "uniform_", spy)
        lib.nn.LSTM(3, 16, num_layers=2, proj_size=4, bidirectional=True)
        lib.nn.GRUCell(3, 9)
    assert calls[torch] == calls[ember]
    m = ember.nn.LSTM(5, 64)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= 1 / 8 and v.std() > 0.06


def test_dtype_device_kwargs_and_conversion():
    m = ember.nn.GRU(3, 4, dtype=ember.float64)
    assert m.weight_ih_l0.dtype == ember.float64
    m = ember.nn.LSTM(3, 4).double()
    assert m._flat_weights[0].dtype == ember.float64
    out, (h, c) = m(ember.randn(2, 1, 3, dtype=ember.float64))
    assert out.dtype == ember.float64
    m.weight_ih_l0 = ember.nn.Parameter(ember.zeros(16, 3, dtype=ember.float64))
    assert m._flat_weights[0] is m.weight_ih_l0


ERRORS = [
    lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    lambda L: L.nn.LSTM(3, 4, dropout=True),
    lambda L: L.nn.LSTM(3, 4, dropout="a"),
    lambda L: L.nn.LSTM(3, 0),
    lambda L: L.nn.LSTM(0, 4.0),
    lambda L: L.nn.LSTM(3.0, 4),
    lambda L: L.nn.LSTM(3, 4.0),
    lambda L: L.nn.LSTM(3, 4, num_layers=0),
    lambda L: L.nn.LSTM(3, 4, proj_size=-1),
    lambda L: L.nn.LSTM(3, 4, proj_size=4),
    lambda L: L.nn.GRU(3, 4, proj_size=2),
    lambda L: L.nn.RNN(3, 4, proj_size=2),
    lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda L: L.nn.RNN(3, 4, 1, "tanh", nonlinearity="relu"),
    lambda L: L.nn.LSTM(3),
    lambda L: L.nn.LSTM(10, 20, num_layers=2)(L.randn(5, 3, 3)),
    lambda L: L.nn.LSTM(10, 20, num_layers=2)(L.randn(5, 3, 10), (L.randn(2, 3, 20),)),
    lambda L: L.nn.LSTM(10, 20, num_layers=2)(L.randn(5, 3, 10),
                                              (L.randn(1, 3, 20), L.randn(2, 3, 20))),
    lambda L: L.nn.LSTM(10, 20, num_layers=2)(L.randn(5, 3, 10),
                                              (L.randn(2, 3, 20), L.randn(2, 3, 21))),
    lambda L: L.nn.LSTM(10, 20, num_layers=2)(L.randn(5, 3, 10), L.randn(2, 3, 20)),
    lambda L: L.nn.LSTM(10, 20)(L.randn(5, 3, 10, 1)),
    lambda L: L.nn.LSTM(10, 20)(L.randn(5, 10), (L.randn(1, 3, 20), L.randn(1, 3, 20))),
    lambda L: L.nn.LSTM(10, 20)(L.randn(5, 3, 10, dtype=L.float64)),
    lambda L: L.nn.LSTM(10, 20)(L.randint(0, 3, (5, 3, 10))),
    lambda L: L.nn.LSTM(10, 20)(L.randn(0, 3, 10)),
    lambda L: L.nn.GRU(10, 20, num_layers=2)(L.randn(5, 3, 10), L.randn(1, 3, 20)),
    lambda L: L.nn.GRU(10, 20)(L.randn(5, 3, 10), L.randn(1, 3, 20, 1)),
    lambda L: L.nn.GRU(10, 20)(L.randn(5, 10), L.randn(1, 3, 20)),
    lambda L: L.nn.GRU(10, 20)(L.randn(5, 3, 10), (L.randn(1, 3, 20),)),
    lambda L: L.nn.GRU(10, 20)(L.randn(5, 3, 3, 1)),
    lambda L: L.nn.RNN(10, 20)(L.randn(5, 3, 3, 1)),
    lambda L: L.nn.RNN(10, 20)(L.randn(5)),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 3)),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(3, 21), L.randn(3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(3, 20), L.randn(2, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10, 1)),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(20), L.randn(20))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(10), (L.randn(3, 20), L.randn(3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(3, 20, 1), L.randn(3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), (L.randn(3, 20), L.randn(3, 20, 1))),
    lambda L: L.nn.LSTMCell(10, 20)(L.randn(3, 10), L.randn(3, 20)),
    lambda L: L.nn.GRUCell(10, 20)(L.randn(3, 10), L.randn(3, 21)),
    lambda L: L.nn.GRUCell(10, 20)(L.randn(3, 10), L.randn(2, 20)),
    lambda L: L.nn.GRUCell(10, 20)(L.randn(3, 11)),
    lambda L: L.nn.GRUCell(10, 20)(L.randn(3, 10), L.randn(3, 20, 1)),
    lambda L: L.nn.RNNCell(10, 20)(L.randn(3, 10, 2)),
    lambda L: L.nn.RNNCell(10, 20, nonlinearity="x")(L.randn(3, 10)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors(k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(ERRORS[k])


def test_failed_forward_leaves_module_unchanged():
    m = ember.nn.LSTM(4, 3)
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    with pytest.raises(RuntimeError):
        m(ember.randn(2, 1, 5))
    assert all(np.array_equal(before[k], v.numpy()) for k, v in m.state_dict().items())


def test_warnings():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater "
                                             "than 1, but got dropout=0.5 and num_layers=1"):
            lib.nn.GRU(3, 4, dropout=0.5)


def test_projection_warning_once_per_process():
    program = """
import warnings, torch, ember
for lib in (torch, ember):
    for _ in range(2):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.LSTM(3, 4, proj_size=2)(lib.randn(2, 1, 3))
        # (torch's C++ warnings end with where in its sources they were raised)
        print(lib.__name__, [(x.category.__name__, str(x.message).split(" (Triggered")[0])
                             for x in w])
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lines = out.stdout.splitlines()
    assert len(lines) == 4, out.stderr
    assert lines[0].replace("torch", "ember", 1) == lines[2]
    assert lines[1].replace("torch", "ember", 1) == lines[3]
    assert "LSTM with projections is not supported with oneDNN" in lines[0]


# ---------------------------------------------------------------- nn.utils.rnn

def U(lib):
    return lib.nn.utils.rnn


UTILS = {
    "pack": (lambda L, x: U(L).pack_padded_sequence(x, [3, 1]), [randn(3, 2, 2)]),
    "pack_unsorted_ties": (lambda L, x: U(L).pack_padded_sequence(
        x, [1, 3, 3], enforce_sorted=False), [randn(3, 3, 2)]),
    "pack_batch_first": (lambda L, x: U(L).pack_padded_sequence(
        x, L.tensor([1, 3, 2]), batch_first=True, enforce_sorted=False), [randn(3, 4, 2)]),
    "pack_float_lengths": (lambda L, x: U(L).pack_padded_sequence(x, L.tensor([3., 2.])),
                           [randn(3, 2, 1)]),
    "pad_packed": (lambda L, x: U(L).pad_packed_sequence(
        U(L).pack_padded_sequence(x, [1, 3, 2], enforce_sorted=False)), [randn(3, 3, 2)]),
    "pad_packed_total": (lambda L, x: U(L).pad_packed_sequence(
        U(L).pack_padded_sequence(x, [3, 2, 2], batch_first=True), batch_first=True,
        total_length=5, padding_value=-1.5), [randn(3, 3, 2)]),
    "pad_sequence": (lambda L, a, b, c: U(L).pad_sequence([a, b, c]),
                     [randn(2, 3), randn(3, 3), randn(1, 3)]),
    "pad_sequence_left": (lambda L, a, b, c: U(L).pad_sequence(
        [a, b, c], batch_first=True, padding_value=2., padding_side="left"),
        [randn(2, 3), randn(3, 3), randn(1, 3)]),
    "pad_sequence_1d_broadcast": (lambda L, a, b: U(L).pad_sequence([a, b]),
                                  [randn(2, 3), randn(3, 1)]),
    "pack_sequence": (lambda L, a, b, c: U(L).pack_sequence([a, b, c], enforce_sorted=False),
                      [randn(2, 3), randn(3, 3), randn(1, 3)]),
    "unpack_sequence": (lambda L, a, b, c: U(L).unpack_sequence(
        U(L).pack_sequence([a, b, c], enforce_sorted=False)),
        [randn(2, 3), randn(3, 3), randn(1, 3)]),
    "unpad_sequence": (lambda L, x: U(L).unpad_sequence(x * 1, L.tensor([3, 1, 2])),
                       [randn(3, 3, 2)]),
    "unpad_batch_first": (lambda L, x: U(L).unpad_sequence(x, L.tensor([3, 1]),
                                                           batch_first=True), [randn(2, 4)]),
    "to_double": (lambda L, x: U(L).pack_padded_sequence(x, [3, 1]).double(),
                  [randn(3, 2, 2).astype(np.float32)]),
}


@pytest.mark.parametrize("name", sorted(UTILS))
def test_rnn_utils(name):
    fn, inputs = UTILS[name]
    res = check(lambda L, *ts: _flat(fn(L, *ts)), *inputs)
    assert dag_signature(*[t for t in res[0] if t.requires_grad]) == \
        dag_signature(*[t for t in res[1] if t.requires_grad])


UTIL_ERRORS = [
    lambda L: U(L).pack_padded_sequence(L.zeros(3, 2, 2), [1, 3]),
    lambda L: U(L).pack_padded_sequence(L.zeros(3, 2, 2), [3, 0]),
    lambda L: U(L).pack_padded_sequence(L.zeros(3, 2, 2), [3]),
    lambda L: U(L).pack_padded_sequence(L.zeros(3, 2, 2), L.tensor([[3, 1]])),
    lambda L: U(L).pack_padded_sequence(L.zeros(0, 2, 1), [0, 0]),
    lambda L: U(L).pack_padded_sequence(L.zeros(3), [3]),
    lambda L: U(L).pad_packed_sequence(U(L).pack_padded_sequence(L.zeros(3, 2, 2), [3, 1]),
                                       total_length=2),
    lambda L: U(L).pad_sequence([L.zeros(2, 3), L.zeros(2, 4)]),
    lambda L: U(L).pad_sequence([L.zeros(2, 3), L.zeros(2, 3, 3)]),
    lambda L: U(L).pad_sequence([]),
    lambda L: U(L).pad_sequence(5),
    lambda L: U(L).pad_sequence([L.zeros(2)], padding_side="middle"),
    lambda L: U(L).pack_sequence([L.zeros(2, 3), L.zeros(3, 3)]),
    lambda L: U(L).PackedSequence(L.zeros(4, 2), [2, 1, 1]),
]


@pytest.mark.parametrize("k", range(len(UTIL_ERRORS)))
def test_rnn_utils_errors(k):
    check_error(UTIL_ERRORS[k])


def test_packed_sequence_api():
    for lib in (torch, ember):
        p = U(lib).pack_padded_sequence(lib.ones(3, 2, 2), [3, 1])
        assert isinstance(p, tuple) and type(p).__name__ == "PackedSequence"
        assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
        assert p.float() is p and p.to(lib.float32) is p and p.cpu() is p
        assert p.double().data.dtype == lib.float64 and p.long().data.dtype == lib.int64
        assert not p.is_cuda and len(p) == 4
        q = U(lib).PackedSequence(p.data, p.batch_sizes, lib.tensor([1, 0]))
        assert q.unsorted_indices.tolist() == [1, 0]
        r = U(lib).PackedSequence((p.data, p.batch_sizes))
        assert r.batch_sizes is p.batch_sizes
    assert repr(U(torch).pack_padded_sequence(torch.ones(3, 2, 2), [3, 1])) == \
        repr(U(ember).pack_padded_sequence(ember.ones(3, 2, 2), [3, 1]))


def test_packed_lstm_classifier_trains_as_torch():
    """Embedding -> packed bidirectional 2-layer LSTM -> pad -> mean -> Linear, five SGD
    steps with torch's initial weights: the same losses."""
    def program(L, state):
        nn = L.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 6)
                self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
                self.fc = nn.Linear(16, 3)

            def forward(self, x, lengths):
                p = nn.utils.rnn.pack_padded_sequence(self.emb(x), lengths, batch_first=True,
                                                      enforce_sorted=False)
                out, _ = self.lstm(p)
                out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
                return self.fc(out.mean(1))
        net = Net()
        if state is None:
            state = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
        net.load_state_dict({k: L.tensor(v) for k, v in state.items()})
        opt = L.optim.SGD(net.parameters(), lr=0.5)
        x = L.tensor(np.random.default_rng(0).integers(1, 10, (4, 5)))
        lengths, y = L.tensor([5, 3, 4, 2]), L.tensor([0, 1, 2, 1])
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x, lengths), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return state, losses
    state, tl = program(torch, None)
    _, el = program(ember, state)
    np.testing.assert_allclose(el, tl, rtol=2e-6)


@pytest.mark.parametrize("make", [
    lambda L: L.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2),
    lambda L: L.nn.GRU(3, 5, bias=False), lambda L: L.nn.RNN(2, 3, nonlinearity="relu"),
    lambda L: L.nn.LSTMCell(3, 4), lambda L: L.nn.GRUCell(3, 4),
    lambda L: L.nn.RNNCell(3, 4)])
def test_default_init_matches_torch(make):
    """With torch's random stream (ember/random.py), the same seed gives the same weights."""
    states = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        states.append({k: v.detach().numpy() for k, v in make(lib).state_dict().items()})
    assert states[0].keys() == states[1].keys()
    for k in states[0]:
        np.testing.assert_array_equal(states[0][k], states[1][k], err_msg=k)


@pytest.mark.parametrize("cls,dtype", [("LSTM", np.float32), ("GRU", np.float64),
                                       ("RNN", np.float32)])
def test_dropout_between_layers_matches_torch(cls, dtype):
    """Train mode: the masks between layers are drawn as torch draws them (same calls on
    the same stream), so outputs and gradients agree."""
    x = randn(5, 3, 3)
    res = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = getattr(lib.nn, cls)(3, 4, num_layers=3, dropout=0.4)
        if dtype == np.float64:
            m.double()
        xt = lib.tensor(x.astype(dtype), requires_grad=True)
        lib.manual_seed(1)
        out, _ = m(xt)
        out.pow(2).sum().backward()
        res.append([out.detach().numpy(), xt.grad.numpy(), m.weight_ih_l1.grad.numpy()])
    for a, b in zip(*res):
        assert_close(a, b, 1e-5 if dtype == np.float32 else 1e-10, 1e-6, "dropout")


def test_inplace_write_to_lstm_output_is_caught():
    """The layer node saves its output: writing into it in place fails backward, in torch's
    words."""
    def fn(L):
        L.manual_seed(0)
        out, _ = L.nn.LSTM(3, 4)(L.randn(2, 1, 3, requires_grad=True))
        out.mul_(2)
        out.sum().backward()
    check_error(fn)
