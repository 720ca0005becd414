"""torch.nn.modules: every layer class, re-exported by family."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .flatten import Flatten, Unflatten
from .sparse import Embedding, EmbeddingBag
# ---- normloss
from .activation import *    # noqa: F401,F403
from .batchnorm import *     # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *       # noqa: F401,F403
from .distance import *      # noqa: F401,F403
from .loss import *          # noqa: F401,F403
from . import activation, batchnorm, instancenorm, normalization, dropout, distance, loss
# ---- rnn: recurrent layers, attention, transformer
from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder,
                          TransformerEncoderLayer, TransformerDecoderLayer)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
           "Embedding", "EmbeddingBag"]
# ---- normloss
__all__ += (activation.__all__ + batchnorm.__all__ + instancenorm.__all__ +
            normalization.__all__ + dropout.__all__ + distance.__all__ + loss.__all__)
# ---- rnn
__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "RNNBase", "RNN", "LSTM",
            "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "Transformer",
            "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
