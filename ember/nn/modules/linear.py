"""Identity, Linear, Bilinear: parameters initialised as torch's reset_parameters does."""
import math

from ...autograd.grad_mode import no_grad
from ...creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def _set_bias(module, bias, n, device, dtype):
    """module.bias: a Parameter of n elements (initialised by reset_parameters), or, when
    bias is False, registered as None (Linear, Bilinear, the convolutions)."""
    if bias:
        module.bias = Parameter(empty(n, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


class Linear(Module):
    """y = x W^T + b, W of shape (out_features, in_features)."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        _set_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_ with a=sqrt(5) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)); so does
        # the bias
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        # the registered parameters straight from _parameters: self.weight would go through
        # Module.__getattr__ (~0.4 us each); a weight moved out of _parameters (weight_norm,
        # parametrize) is read as an attribute
        params = self._parameters
        if "weight" in params and "bias" in params:
            return F.linear(input, params["weight"], params["bias"])
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, A of shape (out_features, in1_features, in2_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      device=device, dtype=dtype))
        _set_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of its first input; becomes a Linear."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
