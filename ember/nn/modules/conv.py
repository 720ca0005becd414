"""Conv1d/2d/3d and ConvTranspose1d/2d/3d: weight and bias initialised as torch's
reset_parameters does (kaiming_uniform_(a=sqrt(5)) on the weight, then uniform_ within
1/sqrt(fan_in) on the bias); forward calls the functional convolution (after F.pad for a
padding_mode other than 'zeros')."""
import math

from ...autograd.grad_mode import no_grad
from ...creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .linear import _set_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]

# The sets torch's messages print. A set literal of constants is compiled into a frozenset
# whose element order depends on the hash seed of the process that compiled it; built from a
# tuple in this order, the set iterates (and prints) in torch's order under any hash seed.
_PADDING_STRINGS = set(frozenset(("same", "valid")))
_PADDING_MODES = set(frozenset(("zeros", "reflect", "circular", "replicate")))


def _ntuple(v, n):
    """torch's _single/_pair/_triple: an iterable as a tuple, anything else repeated n times."""
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """The parameters and checks shared by the convolutions and their transposes."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for a padding_mode other than 'zeros': the last dim first
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = tuple(
                p for p in reversed(padding) for _ in range(2))
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        _set_bias(self, bias, out_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        # (Linear's with one difference, torch's: no bias draw at all when fan_in is 0)
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _fn = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        n = self._n
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n),
                         _ntuple(stride, n),
                         padding if isinstance(padding, str) else _ntuple(padding, n),
                         _ntuple(dilation, n), False, _ntuple(0, n), groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return self._fn(F.pad(input, self._reversed_padding_repeated_twice,
                                  mode=self.padding_mode), weight, bias, self.stride,
                            _ntuple(0, self._n), self.dilation, self.groups)
        return self._fn(input, weight, bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _n = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    _n = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    _n = 3
    _fn = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _fn = staticmethod(F.conv_transpose2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        n = self._n
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n),
                         _ntuple(stride, n), _ntuple(padding, n), _ntuple(dilation, n), True,
                         _ntuple(output_padding, n), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The output_padding that gives output_size (None: the module's own)."""
        if output_size is None:
            return self.output_padding
        n = self._n
        lead = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == n + lead:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {n + lead} elements (got {len(output_size)})")
        lo, hi = [], []
        for d in range(n):
            size = ((input.size(d + lead) - 1) * self.stride[d] - 2 * self.padding[d] +
                    self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            lo.append(size)
            hi.append(size + self.stride[d] - 1)
        for d in range(n):
            if not lo[d] <= output_size[d] <= hi[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {lo} to {hi} (for an input of "
                                 f"{input.size()[lead:]})")
        return tuple(output_size[d] - lo[d] for d in range(n))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._fn(input, self.weight, self.bias, self.stride, self.padding,
                        output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    _n = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    _n = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    _n = 3
    _fn = staticmethod(F.conv_transpose3d)


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions: in_channels is the channel dim of the first input."""

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            g = self.groups
            if self.transposed:
                shape = (self.in_channels, self.out_channels // g) + tuple(self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // g) + tuple(self.kernel_size)
            with no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = len(self.kernel_size) + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D "
                               f"(batched) input to {self.__class__.__name__}, but got input "
                               f"of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # in and out channels 0 and no bias for the base (nothing to check or draw yet)
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """Conv1d whose in_channels is read from its first input; becomes a Conv1d."""
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """Conv2d whose in_channels is read from its first input; becomes a Conv2d."""
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """Conv3d whose in_channels is read from its first input; becomes a Conv3d."""
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """ConvTranspose1d whose in_channels is read from its first input; becomes one."""
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """ConvTranspose2d whose in_channels is read from its first input; becomes one."""
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """ConvTranspose3d whose in_channels is read from its first input; becomes one."""
    cls_to_become = ConvTranspose3d
