"""Copies and dtype conversions: clone, to, type, float()/double()/..., contiguous."""
__all__ = ["clone"]


import warnings

from .. import dtypes as D
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..tensor import Tensor, device, wrap


class CloneBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return grad,


def clone(input, *, memory_format=None):
    res = wrap(input._data.copy())
    if STATE.enabled and input._requires_grad:
        link(res, CloneBackward0(), input)
    return res


def contiguous(input, memory_format=None):
    if input._data.flags.c_contiguous:
        return input
    return clone(input)


class ToCopyBackward0(Node):                 # derivatives.yaml: _to_copy
    __slots__ = ("_self_dtype",)

    def apply(self, grad):
        return grad.to(self._self_dtype),


def _to_dtype(input, dtype, copy=False):
    x = input._data
    if dtype.np == x.dtype and not copy:
        return input
    if x.dtype.kind == "c" and dtype.category < D.COMPLEX:
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        x = x.real
    res = wrap(x.astype(dtype.np))
    if STATE.enabled and input._requires_grad and dtype.category >= D.FLOAT:
        node = ToCopyBackward0()
        node._self_dtype = input.dtype
        link(res, node, input)
    return res


def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False,
       memory_format=None):
    """Tensor.to(dtype) / to(device) / to(device, dtype) / to(other)."""
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _device_type())) or a is None:
            _check_device(a)
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if device is not None:
        _check_device(device)
    if dtype is None:
        return clone(input) if copy else input
    return _to_dtype(input, dtype, copy)


def _device_type():
    return device


def _check_device(d):
    if d is not None:
        device(d)


def type_(input, dtype=None, non_blocking=False, **kwargs):
    if dtype is None:
        return "torch." + _TYPE_NAMES[input._data.dtype.name]
    if isinstance(dtype, str):
        name = dtype.split(".")[-1]
        inv = {v: k for k, v in _TYPE_NAMES.items()}
        if name not in inv:
            raise RuntimeError(f"invalid type: '{dtype}'")
        dtype = getattr(D, inv[name] if inv[name] != "bool" else "bool_")
    return _to_dtype(input, dtype)


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
               "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}


def _caster(dt):
    def cast(self, memory_format=None):
        return _to_dtype(self, dt)
    cast.__name__ = dt.name
    return cast


def type_as(self, other):
    return _to_dtype(self, other.dtype)


float_ = _caster(D.float32)
double = _caster(D.float64)
half = _caster(D.float16)
long = _caster(D.int64)
int_ = _caster(D.int32)
short = _caster(D.int16)
char = _caster(D.int8)
byte = _caster(D.uint8)
bool_ = _caster(D.bool_)
cfloat = _caster(D.complex64)
cdouble = _caster(D.complex128)
