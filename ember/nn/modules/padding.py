"""Padding layers: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and CircularPad in
1-3 dims; each holds its padding (a tuple, last dim first) and calls F.pad."""
from .. import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


def _padding(padding, n):
    """An int is the same padding on both sides of each of the n dims."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * n)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _n = 1

    def __init__(self, padding, value):
        super().__init__()
        self.value = value
        self.padding = _padding(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


def _zero_pad_init(self, padding):
    _ConstantPadNd.__init__(self, padding, 0.0)


def _zero_pad_repr(self):
    return f"{self.padding}"


class ZeroPad1d(ConstantPad1d):      # (torch's ZeroPadNd derive from ConstantPadNd)
    __init__ = _zero_pad_init
    extra_repr = _zero_pad_repr


class ZeroPad2d(ConstantPad2d):
    __init__ = _zero_pad_init
    extra_repr = _zero_pad_repr


class ZeroPad3d(ConstantPad3d):
    __init__ = _zero_pad_init
    extra_repr = _zero_pad_repr


class _PadNd(Module):
    __constants__ = ["padding"]
    _n = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    _n = 1


class ReflectionPad2d(_PadNd):
    _n = 2


class ReflectionPad3d(_PadNd):
    _n = 3


class ReplicationPad1d(_PadNd):
    _n = 1
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    _n = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    _n = 3
    _mode = "replicate"


class CircularPad1d(_PadNd):
    _n = 1
    _mode = "circular"


class CircularPad2d(_PadNd):
    _n = 2
    _mode = "circular"


class CircularPad3d(_PadNd):
    _n = 3
    _mode = "circular"
