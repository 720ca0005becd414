"""RNN, LSTM, GRU and their cells: parameters named, shaped and initialised as torch's, argument
checks with torch's messages; the math is the ops in ember/ops/rnn.py (torch.rnn_tanh,
torch.lstm, torch.gru_cell, ...)."""
import math
import numbers
import warnings

from ...creation import empty, zeros
from ...ops import rnn as _VF
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_FUNCTIONS = {"LSTM": _VF.lstm, "GRU": _VF.gru, "RNN_TANH": _VF.rnn_tanh,
              "RNN_RELU": _VF.rnn_relu}


class RNNBase(Module):
    """The parameters and checks that RNN, LSTM and GRU share: per layer and direction,
    weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (and LSTM's weight_hr_l{k}),
    with the suffix _reverse for the backward direction."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError("hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0 and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else \
                    real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr_l{}{}", (proj_size, hidden_size)))
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in torch's flat order, looked up by name (so a reassigned weight
        is seen)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    def flatten_parameters(self):
        """Packs the weights into one buffer for cuDNN in torch; nothing to do on the CPU."""
        return None

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: "
                             f"input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        expected = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _prepare(self, input, hx, n_states, name, tensor_word):
        """Unpack a PackedSequence or add the batch dim of an unbatched input; check hx's
        dims. Returns (input, hx list or None, batch_sizes, sorted_indices,
        unsorted_indices, is_batched, batch_dim)."""
        batch_dim = 0 if self.batch_first else 1
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            return input, hx, batch_sizes, sorted_indices, unsorted_indices, True, batch_dim
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tensor_word} instead")
        is_batched = input.dim() == 3
        if hx is not None:
            states = hx if n_states == 2 else [hx]
            if n_states == 2:
                dims = [states[0].dim(), states[1].dim()]
            else:
                dims = [states[0].dim()]
            want = 3 if is_batched else 2
            if any(d != want for d in dims):
                kind = "batched 3-D" if is_batched else "unbatched 2-D"
                if n_states == 2:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{dims[0]}-D tensor")
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if n_states == 2 else hx.unsqueeze(1)
        return input, hx, None, None, None, is_batched, batch_dim

    def _zeros(self, input, batch_sizes, size):
        num_directions = 2 if self.bidirectional else 1
        if batch_sizes is not None:
            max_batch_size = int(batch_sizes[0])
        else:
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
        return zeros(self.num_layers * num_directions, max_batch_size, size, dtype=input.dtype,
                     device=input.device)

    def _call(self, input, batch_sizes, hx):
        """The torch function for this mode, in its padded or packed form."""
        fn = _FUNCTIONS[self.mode]
        if batch_sizes is None:
            return fn(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                      self.training, self.bidirectional, self.batch_first)
        return fn(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                  self.dropout, self.training, self.bidirectional)

    def _forward_single(self, input, hx, name, tensor_word):
        """RNN and GRU: one hidden state."""
        orig = input
        input, hx, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = \
            self._prepare(input, hx, 1, name, tensor_word)
        if hx is None:
            hx = self._zeros(input, batch_sizes, self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._call(input, batch_sizes, hx)
        if isinstance(orig, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx, "RNN", " tensor")


class LSTM(RNNBase):
    """LSTM with gates i, f, g, o (weights stacked in that order), optional projections."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        orig = input
        input, hx, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = \
            self._prepare(input, hx, 2, "LSTM", "")
        if hx is None:
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, batch_sizes, real_hidden_size),
                  self._zeros(input, batch_sizes, self.hidden_size))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, h, c = self._call(input, batch_sizes, hx)
        if isinstance(orig, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden((h, c), unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            h, c = h.squeeze(1), c.squeeze(1)
        return output, (h, c)


class GRU(RNNBase):
    """GRU with gates r, z, n (weights stacked in that order)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx, "GRU", "")


# ---------------------------------------------------------------- cells

class RNNCellBase(Module):
    """weight_ih (chunks * hidden, input), weight_hh (chunks * hidden, hidden) and biases."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device,
                                         dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device,
                                         dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hidden, name, hidden_names):
        """Add the batch dim to an unbatched input and its hidden states; torch's checks."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        for h, what in zip(hidden, hidden_names):
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        return input, is_batched

    def _zeros(self, input):
        return zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One Elman RNN step."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, is_batched = self._batched(input, [hx], "RNNCell", ["hidden"])
        if hx is None:
            hx = self._zeros(input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity == "tanh":
            ret = _VF.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                    self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = _VF.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                    self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from the input and (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None and not isinstance(hx, (tuple, list)):
            raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                            f"not {type(hx).__name__}")
        states = [None, None] if hx is None else list(hx)
        input, is_batched = self._batched(input, states, "LSTMCell", ["hx[0]", "hx[1]"])
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _VF.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                             self.bias_hh)
        if not is_batched:
            h, c = h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, is_batched = self._batched(input, [hx], "GRUCell", ["hidden"])
        if hx is None:
            hx = self._zeros(input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        ret = _VF.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                           self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
