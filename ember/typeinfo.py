"""torch.finfo and torch.iinfo: the limits of the floating and integer dtypes."""
import numpy as np

from . import dtypes as D


def _g(v):
    return f"{v:g}"


class finfo:
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        if type is None:
            type = D.get_default_dtype()
        if not isinstance(type, D.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins_type(type).__name__}")
        if type.category < D.FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(type.to_real().np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)   # torch: an exact power of ten
        self.dtype = type.to_real().name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, "
                f"max={_g(self.max)}, eps={_g(self.eps)}, smallest_normal="
                f"{_g(self.smallest_normal)}, tiny={_g(self.tiny)}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        if not isinstance(type, D.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not "
                            f"{builtins_type(type).__name__}")
        if type is D.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.category != D.INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"

    __str__ = __repr__


builtins_type = type
