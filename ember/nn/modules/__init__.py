"""torch.nn.modules: every layer class, re-exported by family."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear
from .flatten import Flatten, Unflatten
from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Flatten", "Unflatten"]
__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
