"""torch.nn.modules: every layer class, re-exported by family."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Container
from .linear import Identity, Linear, Bilinear, LazyLinear
from .lazy import LazyModuleMixin  # noqa: F401  (torch.nn.modules.lazy.LazyModuleMixin)
from . import lazy  # noqa: F401
from .flatten import Flatten, Unflatten
from .sparse import Embedding, EmbeddingBag
# ---- conv
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .conv import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                   LazyConvTranspose3d)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d,
                      AdaptiveAvgPool1d,
                      AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      MaxUnpool1d, MaxUnpool2d, AdaptiveMaxPool3d, MaxUnpool3d, LPPool1d,
                      LPPool2d, LPPool3d, FractionalMaxPool2d, FractionalMaxPool3d)
from .padding import (ZeroPad1d, ZeroPad2d, ZeroPad3d, ConstantPad1d, ConstantPad2d,
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, CircularPad1d,
                      CircularPad2d, CircularPad3d)
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .channelshuffle import ChannelShuffle
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .fold import Fold, Unfold
# ---- normloss
from .activation import *    # noqa: F401,F403
from .batchnorm import *     # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *       # noqa: F401,F403
from .distance import *      # noqa: F401,F403
from .loss import *          # noqa: F401,F403
from .adaptive import AdaptiveLogSoftmaxWithLoss
from . import activation, batchnorm, instancenorm, normalization, dropout, distance, loss
# ---- rnn: recurrent layers, attention, transformer
from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder,
                          TransformerEncoderLayer, TransformerDecoderLayer)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten",
           "Embedding", "EmbeddingBag", "LazyLinear"]
# ---- conv
__all__ += ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
            "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
            "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
            "MaxUnpool1d", "MaxUnpool2d", "AdaptiveMaxPool3d", "MaxUnpool3d", "LPPool1d",
            "LPPool2d", "LPPool3d", "Container", "FractionalMaxPool2d", "FractionalMaxPool3d",
            "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
            "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
            "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "Upsample",
            "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
            "ChannelShuffle", "Fold", "Unfold", "LazyConv1d", "LazyConv2d", "LazyConv3d",
            "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
# ---- normloss
__all__ += (activation.__all__ + batchnorm.__all__ + instancenorm.__all__ +
            normalization.__all__ + dropout.__all__ + distance.__all__ + loss.__all__)
# ---- rnn
__all__ += ["AdaptiveLogSoftmaxWithLoss"]
__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "RNNBase", "RNN", "LSTM",
            "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "Transformer",
            "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
