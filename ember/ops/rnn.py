"""Recurrent layers as ops, run the way torch's CPU build runs them.

The cells (rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell) and the whole-sequence functions
(rnn_tanh, rnn_relu, gru, and lstm outside the case below) are compositions of ember ops, one
time step after another, as torch composes them: their grad_fn chains are torch's
(StackBackward0 over TanhBackward0, AddBackward0, AddmmBackward0, ...). A float32 LSTM without
projections on a padded (not packed) sequence is what torch hands to oneDNN: one
MkldnnRnnLayerBackward0 node per layer and direction, whose forward and backward through time
run here in NumPy (one matmul per step, the input projection of all steps in one matmul)."""
__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "rnn_tanh", "rnn_relu",
           "lstm", "gru"]

import warnings

import numpy as np

from ..autograd.graph import Node, link, link_multi
from ..tensor import Tensor, wrap
from ._args import invalid_args, needs, requires
from .dropout import dropout as _dropout
from .join import cat, stack
from .matmul import addmm, matmul


def _linear(input, weight, bias):
    """at::linear, built as ember.nn.functional.linear builds it (addmm for 2-D input,
    view + addmm + view for other contiguous input, else matmul + bias); ops may not import
    from nn, so the few lines are repeated here."""
    wt = weight.t()
    if bias is None:
        return matmul(input, wt)
    x = input._data
    if x.ndim == 2:
        return addmm(bias, input, wt)
    if x.ndim != 0 and x.flags.c_contiguous:
        out = addmm(bias, input.reshape(-1, x.shape[-1]), wt)
        return out.reshape(x.shape[:-1] + (out._data.shape[-1],))
    return matmul(input, wt) + bias


# ---------------------------------------------------------------- cells

def _check_cell(input, hx, w_ih, w_hh, idx):
    x = input._data
    if idx == 0 and x.shape[1] != w_ih._data.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected "
                           f"{w_ih._data.shape[1]}")
    h = hx._data
    if x.shape[0] != h.shape[0]:
        raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{idx} batch "
                           f"size {h.shape[0]}")
    size = w_hh._data.shape[1]
    if h.shape[1] != size:
        raise RuntimeError(f"hidden{idx} has inconsistent hidden_size: got {h.shape[1]}, "
                           f"expected {size}")


def _rnn_step(x_t, h, w_hh, b_hh, relu):
    """h' = act(h @ w_hh.T + b_hh + x_t), x_t the input projection of this step."""
    pre = _linear(h, w_hh, b_hh) + x_t
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x_t, h, c, w_hh, b_hh, w_hr):
    gates = _linear(h, w_hh, b_hh) + x_t
    i, f, g, o = gates.unsafe_chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * c + i * g
    hy = o * cy.tanh()
    if w_hr is not None:
        hy = _linear(hy, w_hr, None)
    return hy, cy


def _gru_step(x_t, h, w_hh, b_hh):
    ir, iz, in_ = x_t.unsafe_chunk(3, 1)
    hr, hz, hn = _linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh, 0)
    return _rnn_step(_linear(input, w_ih, b_ih), hx, w_hh, b_hh, False)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh, 0)
    return _rnn_step(_linear(input, w_ih, b_ih), hx, w_hh, b_hh, True)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    h, c = hx
    _check_cell(input, h, w_ih, w_hh, 0)
    _check_cell(input, c, w_ih, w_hh, 1)
    return _lstm_step(_linear(input, w_ih, b_ih), h, c, w_hh, b_hh, None)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh, 0)
    return _gru_step(_linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---------------------------------------------------------------- one layer, composed

def _step(mode, x_t, hidden, w):
    """One step of a layer (w: w_hh, b_hh, w_hr) from the input projection x_t."""
    if mode == "lstm":
        return _lstm_step(x_t, hidden[0], hidden[1], *w)
    if mode == "gru":
        return _gru_step(x_t, hidden, w[0], w[1])
    return _rnn_step(x_t, hidden, w[0], w[1], mode == "rnn_relu")


def _out(mode, hidden):
    return hidden[0] if mode == "lstm" else hidden


def _layer_padded(mode, input, hidden, w_ih, b_ih, w, reverse):
    """One direction of one layer over a (T, B, *) sequence: (outputs stacked, last hidden)."""
    steps = _linear(input, w_ih, b_ih).unbind(0)
    outs = [None] * len(steps)
    for t in (range(len(steps) - 1, -1, -1) if reverse else range(len(steps))):
        hidden = _step(mode, steps[t], hidden, w)
        outs[t] = _out(mode, hidden)
    return stack(outs, 0), hidden


def _rows(hidden, start, end):
    """The hidden state (a tensor, or LSTM's (h, c)) of batch rows start:end."""
    if isinstance(hidden, tuple):
        return tuple(t[start:end] for t in hidden)
    return hidden[start:end]


def _cat_rows(parts):
    if isinstance(parts[0], tuple):
        return tuple(cat([p[k] for p in parts], 0) for k in range(len(parts[0])))
    return cat(parts, 0)


def _layer_packed(mode, data, batch_sizes, hidden, w_ih, b_ih, w, reverse):
    """One direction of one layer over packed data: sequences drop out of the batch as they
    end (their last hidden state is kept aside) or, in reverse, join it as they begin."""
    proj = _linear(data, w_ih, b_ih)
    outs = []
    if not reverse:
        offset, last, done = 0, batch_sizes[0], []
        for bs in batch_sizes:
            x_t = proj[offset:offset + bs]
            offset += bs
            if bs < last:
                done.append(_rows(hidden, bs, last))
                hidden = _rows(hidden, 0, bs)
            last = bs
            hidden = _step(mode, x_t, hidden, w)
            outs.append(_out(mode, hidden))
        done.append(hidden)
        done.reverse()
        return cat(outs, 0), _cat_rows(done)
    initial = hidden
    offset, last = data._data.shape[0], batch_sizes[-1]
    hidden = _rows(initial, 0, last)
    for bs in reversed(batch_sizes):
        if bs > last:
            hidden = _cat_rows([hidden, _rows(initial, last, bs)])
        last = bs
        x_t = proj[offset - bs:offset]
        offset -= bs
        hidden = _step(mode, x_t, hidden, w)
        outs.append(_out(mode, hidden))
    outs.reverse()
    return cat(outs, 0), hidden


# ---------------------------------------------------------------- LSTM layer as one node

def _np_sigmoid_(x):
    """In place, the same arithmetic as ember's sigmoid (1 / (exp(-x) + 1))."""
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += 1
    np.reciprocal(x, out=x)


# Note [LSTM layer arithmetic]: the NumPy forward/backward (_lstm_forward_np, np_apply) and
# their ember-op twins (_lstm_forward_t, apply) do the same elementwise operations on the same
# operands in the same order, and the same matmuls on arrays of the same layout (the
# recurrent weight transposed into a contiguous copy), so that create_graph and the usual
# backward give the same bits. A change to one side must be made to the other.

def _lstm_forward_np(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """NumPy forward of one LSTM layer direction: the outputs (T, B, H), the last h and c,
    and the workspace (T, B, 6H): the activated gates i, f, g, o, the cell state, its tanh."""
    T, B = x.shape[:2]
    H = w_hh.shape[1]
    xp = np.matmul(x.reshape(T * B, x.shape[2]), w_ih.T)
    if b_ih is not None:
        xp += b_ih
        xp += b_hh
    xp = xp.reshape(T, B, 4 * H)
    whh_t = np.ascontiguousarray(w_hh.T)
    out = np.empty((T, B, H), x.dtype)
    ws = np.empty((T, B, 6 * H), x.dtype)
    h, c = h0, c0
    with np.errstate(over="ignore"):        # exp(-x) of a very negative gate: inf -> 0
        for t in (range(T - 1, -1, -1) if reverse else range(T)):
            w = ws[t]
            gates = w[:, :4 * H]
            np.matmul(h, whh_t, out=gates)
            gates += xp[t]
            _np_sigmoid_(gates[:, :2 * H])
            g = gates[:, 2 * H:3 * H]
            np.tanh(g, out=g)
            _np_sigmoid_(gates[:, 3 * H:])
            cy, tc = w[:, 4 * H:5 * H], w[:, 5 * H:]
            np.multiply(gates[:, H:2 * H], c, out=cy)
            cy += gates[:, :H] * g
            np.tanh(cy, out=tc)
            h = np.multiply(gates[:, 3 * H:], tc, out=out[t])
            c = cy
    return out, h, c, ws


def _lstm_forward_t(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """_lstm_forward_np in ember ops (recorded when grad mode is on): per time step, the
    activated gates, the cell state, its tanh and the output (Note [LSTM layer arithmetic])."""
    T, B = x._data.shape[:2]
    H = w_hh._data.shape[1]
    xp = matmul(x.reshape(T * B, x._data.shape[2]), w_ih.t())
    if b_ih is not None:
        xp = xp + b_ih
        xp = xp + b_hh
    xp = xp.reshape(T, B, 4 * H)
    whh_t = w_hh.t().contiguous()
    steps = [None] * T
    h, c = h0, c0
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        gates = matmul(h, whh_t) + xp[t]
        i = gates[:, :H].sigmoid()
        f = gates[:, H:2 * H].sigmoid()
        g = gates[:, 2 * H:3 * H].tanh()
        o = gates[:, 3 * H:].sigmoid()
        c = f * c + i * g
        tc = c.tanh()
        h = o * tc
        steps[t] = (i, f, g, o, c, tc, h)
    return steps


class MkldnnRnnLayerBackward0(Node):         # derivatives.yaml: mkldnn_rnn_layer
    """One LSTM layer direction over the whole sequence: inputs (input, weight_ih, weight_hh,
    bias_ih, bias_hh, hx, cx), outputs (output, hy, cy). The backward through time runs in
    NumPy (np_apply) or, with create_graph, in ember ops on a recomputed forward (apply):
    the same arithmetic, so the two give the same bits (Note [LSTM layer arithmetic])."""
    __slots__ = ("_saved_input", "_saved_weight0", "_saved_weight1", "_saved_weight2",
                 "_saved_weight3", "_saved_hx_", "_saved_cx_", "_saved_result0",
                 "_saved_result1", "_saved_result2", "_saved_result3", "_saved_reverse",
                 "_saved_has_biases", "_saved_hidden_size", "_saved_num_layers",
                 "_saved_batch_first", "_saved_bidirectional", "_saved_train",
                 "_saved_batch_sizes", "_saved_mode")
    _saved_names = ("_saved_input", "_saved_weight0", "_saved_weight1", "_saved_weight2",
                    "_saved_weight3", "_saved_hx_", "_saved_cx_", "_saved_result0",
                    "_saved_result1", "_saved_result2", "_saved_result3")
    _n_outputs = 3

    def np_apply(self, grads):
        g_out, g_hy, g_cy = grads
        w_hh = self._saved_weight1._data
        out, ws = self._saved_result0._data, self._saved_result3._data
        c0 = self._saved_cx_._data
        T, B, H = out.shape
        reverse = self._saved_reverse
        dt = out.dtype
        one = dt.type(1)
        dh = np.zeros((B, H), dt) if g_hy is None else g_hy
        dc = np.zeros((B, H), dt) if g_cy is None else g_cy
        # d(activation)/d(preactivation) of every gate: s (1 - s) for the sigmoids,
        # 1 - g^2 for the tanh gate; then dG = (gradient reaching each gate) * that
        dG = ws[:, :, :4 * H] * (one - ws[:, :, :4 * H])
        g_all = ws[:, :, 2 * H:3 * H]
        np.subtract(one, g_all * g_all, out=dG[:, :, 2 * H:3 * H])
        up = np.empty((B, 4 * H), dt)
        last = T - 1 if reverse else 0
        for t in (range(T) if reverse else range(T - 1, -1, -1)):
            w = ws[t]
            i, f, g, o = w[:, :H], w[:, H:2 * H], w[:, 2 * H:3 * H], w[:, 3 * H:4 * H]
            tc = w[:, 5 * H:]
            if g_out is not None:
                dh = dh + g_out[t]
            c_prev = c0 if t == last else ws[t + 1 if reverse else t - 1, :, 4 * H:5 * H]
            dc = dc + (dh * o) * (one - tc * tc)
            np.multiply(dc, g, out=up[:, :H])
            np.multiply(dc, c_prev, out=up[:, H:2 * H])
            np.multiply(dc, i, out=up[:, 2 * H:3 * H])
            np.multiply(dh, tc, out=up[:, 3 * H:])
            d = dG[t]
            d *= up
            dc = dc * f
            dh = np.matmul(d, w_hh)
        return self._grads_np(dG, dh, dc)

    def _grads_np(self, dG, dh0, dc0):
        x = self._saved_input._data
        T, B, G = dG.shape
        dG2 = dG.reshape(T * B, G)
        gx = gwi = gwh = gb = None
        if needs(self, 0):
            gx = np.matmul(dG2, self._saved_weight0._data).reshape(x.shape)
        if needs(self, 1):
            gwi = np.matmul(dG2.T, x.reshape(T * B, x.shape[2]))
        if needs(self, 2):
            hp = _previous(self._saved_result0._data, self._saved_hx_._data,
                           self._saved_reverse, np.concatenate)
            gwh = np.matmul(dG2.T, hp.reshape(T * B, hp.shape[2]))
        if needs(self, 3) or needs(self, 4):
            gb = dG2.sum(0)
        return (gx, gwi, gwh, gb if needs(self, 3) else None, gb if needs(self, 4) else None,
                dh0 if needs(self, 5) else None, dc0 if needs(self, 6) else None)

    def apply(self, grads):
        g_out, g_hy, g_cy = grads
        x, h0, c0 = self._saved_input, self._saved_hx_, self._saved_cx_
        w_ih, w_hh = self._saved_weight0, self._saved_weight1
        reverse = self._saved_reverse
        steps = _lstm_forward_t(x, w_ih, w_hh, self._saved_weight2, self._saved_weight3, h0,
                                c0, reverse)
        T = len(steps)
        B, H = h0._data.shape
        dt = h0._data.dtype
        dh = wrap(np.zeros((B, H), dt)) if g_hy is None else g_hy
        dc = wrap(np.zeros((B, H), dt)) if g_cy is None else g_cy
        dG = [None] * T
        last = T - 1 if reverse else 0
        for t in (range(T) if reverse else range(T - 1, -1, -1)):
            i, f, g, o, _, tc, _ = steps[t]
            if g_out is not None:
                dh = dh + g_out[t]
            c_prev = c0 if t == last else steps[t + 1 if reverse else t - 1][4]
            dc = dc + (dh * o) * (1 - tc * tc)
            slope = cat([i * (1 - i), f * (1 - f), 1 - g * g, o * (1 - o)], 1)
            dG[t] = slope * cat([dc * g, dc * c_prev, dc * i, dh * tc], 1)
            dc = dc * f
            dh = matmul(dG[t], w_hh)
        dG2 = stack(dG, 0).reshape(T * B, 4 * H)
        gx = gwi = gwh = gb = None
        if needs(self, 0):
            gx = matmul(dG2, w_ih).reshape(x._data.shape)
        if needs(self, 1):
            gwi = matmul(dG2.t(), x.reshape(T * B, x._data.shape[2]))
        if needs(self, 2):
            hp = _previous(stack([s[6] for s in steps], 0), h0, reverse, cat)
            gwh = matmul(dG2.t(), hp.reshape(T * B, H))
        if needs(self, 3) or needs(self, 4):
            gb = dG2.sum(0)
        return (gx, gwi, gwh, gb if needs(self, 3) else None, gb if needs(self, 4) else None,
                dh if needs(self, 5) else None, dc if needs(self, 6) else None)


def _previous(out, h0, reverse, concat):
    """Each step's incoming hidden state, in time order: h0 then the outputs shifted by one
    (forward), or the outputs shifted back then h0 (reverse)."""
    first = h0.reshape((1,) + tuple(h0.shape))
    if reverse:
        return concat([out[1:], first], 0)
    return concat([first, out[:-1]], 0)


def _lstm_layer_node(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, info):
    """Run one LSTM layer direction in NumPy; one MkldnnRnnLayerBackward0 when recording."""
    if not input._data.flags.c_contiguous:
        input = input.contiguous()      # (torch copies a strided input: CloneBackward0)
    bias = b_ih is not None
    out, hy, cy, ws = _lstm_forward_np(input._data, w_ih._data, w_hh._data,
                                       b_ih._data if bias else None,
                                       b_hh._data if bias else None, hx._data, cx._data,
                                       reverse)
    outs = [wrap(out), wrap(hy.copy()), wrap(cy.copy())]
    if requires(input, w_ih, w_hh, b_ih, b_hh, hx, cx):
        node = MkldnnRnnLayerBackward0()
        node._saved_input = input
        node._saved_weight0, node._saved_weight1 = w_ih, w_hh
        node._saved_weight2, node._saved_weight3 = b_ih, b_hh
        node._saved_hx_, node._saved_cx_ = hx, cx
        node._saved_result0, node._saved_result1, node._saved_result2 = \
            wrap(out), wrap(hy), wrap(cy)
        node._saved_result3 = wrap(ws)
        node._saved_reverse = reverse
        node._saved_has_biases = bias
        node._saved_hidden_size = w_hh._data.shape[1]
        (node._saved_num_layers, node._saved_batch_first, node._saved_bidirectional,
         node._saved_train) = info
        node._saved_batch_sizes = ()
        node._saved_mode = 2
        link_multi(outs, node, input, w_ih, w_hh, b_ih, b_hh, hx, cx)
    return outs


# ---------------------------------------------------------------- the sequence functions

def _groups(params, has_biases, n, proj):
    """params split per layer and direction: (w_ih, b_ih, (w_hh, b_hh, w_hr))."""
    per = 2 + 2 * bool(has_biases) + bool(proj)
    out = []
    for k in range(n):
        p = list(params[k * per:(k + 1) * per])
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        out.append((w_ih, b_ih, (w_hh, b_hh, p[-1] if proj else None)))
    return out


_WARNED = []


def _run(mode, input, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
         bidirectional, batch_first):
    """The RNN functions' shared body. hx: (L*D, B, H) tensor, or LSTM's (h0, c0)."""
    lstm = mode == "lstm"
    packed = batch_sizes is not None
    if not packed:
        if batch_first:
            input = input.transpose(0, 1)
        if input._data.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    D = 2 if bidirectional else 1
    proj = lstm and hx[0]._data.shape[2] != hx[1]._data.shape[2]
    groups = _groups(params, has_biases, num_layers * D, proj)
    if lstm and not proj and input._data.dtype == np.float32 and input._data.size:
        if not packed:
            return _run_lstm_layers(input, hx, groups, num_layers, dropout, train, D,
                                    batch_first)
        sizes = batch_sizes._data
        if (sizes == sizes[0]).all():       # no sequence ends early: a padded batch
            steps = input.view(sizes.shape[0], int(sizes[0]), input._data.shape[1])
            out, hy, cy = _run_lstm_layers(steps, hx, groups, num_layers, dropout, train, D,
                                           False)
            return out.view(input._data.shape[0], out._data.shape[2]), hy, cy
    if lstm and proj and input._data.dtype == np.float32 and not _WARNED:
        _WARNED.append(True)        # torch warns once per process
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                      "implementation.", UserWarning, stacklevel=3)
    if lstm:
        hs = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        hs = hx.unbind(0)
    sizes = [int(b) for b in batch_sizes._data] if packed else None
    layer_input = input
    finals = []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            w_ih, b_ih, w = groups[layer * D + d]
            if packed:
                out, last = _layer_packed(mode, layer_input, sizes, hs[layer * D + d], w_ih,
                                          b_ih, w, d == 1)
            else:
                out, last = _layer_padded(mode, layer_input, hs[layer * D + d], w_ih, b_ih,
                                          w, d == 1)
            outs.append(out)
            finals.append(last)
        layer_input = outs[0] if D == 1 else cat(outs, -1 if packed else 2)
        if dropout and train and layer < num_layers - 1:
            layer_input = _dropout(layer_input, dropout, train)
    output = layer_input
    if not packed and batch_first:
        # (torch's LSTM transposes out of place, its RNN and GRU in place: TransposeBackward1)
        output = output.transpose(0, 1) if lstm else output.transpose_(0, 1)
    if lstm:
        return output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)
    return output, stack(finals, 0)


def _run_lstm_layers(input, hx, groups, num_layers, dropout, train, D, batch_first):
    """The float32 LSTM: one MkldnnRnnLayerBackward0 per layer and direction."""
    h0, c0 = hx
    info = (num_layers, batch_first, D == 2, train)
    layer_input = input
    hys, cys = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            w_ih, b_ih, (w_hh, b_hh, _) = groups[k]
            out, hy, cy = _lstm_layer_node(layer_input, w_ih, w_hh, b_ih, b_hh,
                                           h0.select(0, k), c0.select(0, k), d == 1, info)
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        layer_input = outs[0] if D == 1 else cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_input = _dropout(layer_input, dropout, train)
    output = layer_input
    if batch_first:
        output = output.transpose(0, 1)
    return output, stack(hys, 0), stack(cys, 0)


def _sequence_args(name, args, kwargs, n_hidden):
    """The two overloads of torch's RNN functions: (input, hx, params, has_biases, num_layers,
    dropout, train, bidirectional, batch_first) and (data, batch_sizes, hx, params,
    has_biases, num_layers, dropout, train, bidirectional)."""
    names_padded = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
                    "bidirectional", "batch_first")
    names_packed = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers",
                    "dropout", "train", "bidirectional")
    # LSTM's hx is a list, the others' a tensor: a tensor right after the first argument
    # (LSTM) or in third place (the others) is the packed form's batch_sizes / hx
    k = 1 if n_hidden == 2 else 2
    packed = len(args) > k and isinstance(args[k], Tensor)
    names = names_packed if packed or "batch_sizes" in kwargs else names_padded
    if len(args) + len(kwargs) != len(names):
        raise invalid_args(name, args, kwargs)
    bound = dict(zip(names, args))
    bound.update(kwargs)
    return bound, names is names_packed


def _sequence(mode, name, args, kwargs):
    n_hidden = 2 if mode == "lstm" else 1
    a, packed = _sequence_args(name, args, kwargs, n_hidden)
    hx = a["hx"]
    if mode == "lstm":
        hx = tuple(hx)
    return _run(mode, a["data"] if packed else a["input"],
                a["batch_sizes"] if packed else None, hx, a["params"], a["has_biases"],
                a["num_layers"], a["dropout"], a["train"], a["bidirectional"],
                False if packed else a["batch_first"])


def rnn_tanh(*args, **kwargs):
    return _sequence("rnn_tanh", "rnn_tanh", args, kwargs)


def rnn_relu(*args, **kwargs):
    return _sequence("rnn_relu", "rnn_relu", args, kwargs)


def lstm(*args, **kwargs):
    return _sequence("lstm", "lstm", args, kwargs)


def gru(*args, **kwargs):
    return _sequence("gru", "gru", args, kwargs)


# ---------------------------------------------------------------- packing

_UNSORTED = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
             "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
             "to sidestep this requirement if you do not need ONNX exportability.")


class PackPaddedSequenceBackward0(Node):     # derivatives.yaml: _pack_padded_sequence
    # _rows: for each row of the packed data, its row in the input seen as (T * B, *)
    # (batch_first: as (B * T, *))
    __slots__ = ("_saved_batch_first", "_saved_input_sym_sizes", "_saved_result1", "_rows")

    def apply(self, grad):
        shape = self._saved_input_sym_sizes
        n = shape[0] * shape[1]
        full = wrap(np.zeros((n,) + tuple(shape[2:]), grad._data.dtype))
        return full.index_copy(0, wrap(self._rows), grad).reshape(shape),

    def np_apply(self, grad):
        shape = self._saved_input_sym_sizes
        full = np.zeros((shape[0] * shape[1],) + tuple(shape[2:]), grad.dtype)
        full[self._rows] = grad
        return full.reshape(shape),


def _pack_padded_sequence(input, lengths, batch_first):
    """torch._pack_padded_sequence: the (T, B, *) input's steps, each over the sequences still
    running (lengths sorted in decreasing order), stacked: (data, batch_sizes)."""
    x, lens = input._data, lengths._data
    if lens.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lens.ndim}D cpu Long tensor")
    if x.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"1)")
    T, B = (x.shape[1], x.shape[0]) if batch_first else x.shape[:2]
    if x.size == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lens.shape[0] != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.shape[0]} (batch_size={B})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if B > 1 and (np.diff(lens) > 0).any():
        raise RuntimeError(_UNSORTED)
    if lens[0] > T:
        raise RuntimeError(f"ember: a length ({int(lens[0])}) exceeds the padded sequence "
                           f"length ({T})")
    running = np.arange(lens[0])[:, None] < lens[None, :]       # (steps, B): step t of b
    t_idx, b_idx = np.nonzero(running)
    rows = b_idx * T + t_idx if batch_first else t_idx * B + b_idx
    data = x.reshape((T * B,) + x.shape[2:])[rows]
    batch_sizes = wrap(running.sum(1).astype(np.int64))
    res = wrap(data)
    if requires(input):
        node = PackPaddedSequenceBackward0()
        node._saved_batch_first = batch_first
        node._saved_input_sym_sizes = x.shape
        node._saved_result1 = batch_sizes
        node._rows = rows
        link(res, node, input)
    return res, batch_sizes
