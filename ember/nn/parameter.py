"""nn.Parameter (a Tensor subclass that Modules register as a parameter) and nn.Buffer (a
marker: it returns a plain Tensor flagged as a buffer, as torch's does)."""
import numpy as np

from ..tensor import Tensor, wrap


def _tensor_data(data):
    """The array behind `data` (None: an empty float tensor), torch's error for a non-tensor."""
    if data is None:
        return np.empty((0,), np.float32)
    if not isinstance(data, Tensor):
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
    return data._data


class Parameter(Tensor):
    """A leaf Tensor sharing `data`'s memory, requiring grad unless told otherwise."""

    def __new__(cls, data=None, requires_grad=True):
        arr = _tensor_data(data)
        if requires_grad and arr.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        self = Tensor.__new__(cls)
        self._data = arr
        self._requires_grad = bool(requires_grad)
        self._grad_fn = None
        self._grad = None
        self._acc = None
        self._x = None
        return self

    def __init__(self, data=None, requires_grad=True):
        pass        # everything is done in __new__ (Tensor.__init__ is the legacy constructor)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = type(self)(wrap(self._data.copy()), self._requires_grad)
        memo[id(self)] = out        # (torch's copy has no .grad)
        return out

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad, self.__dict__))


def _rebuild_parameter(data, requires_grad, state):
    p = Parameter(wrap(data), requires_grad)
    p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # torch's Buffer(...) returns a plain Tensor; isinstance(t, Buffer) asks for the flag
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and bool(instance._x) and \
            "buffer_persistent" in instance._x


class Buffer(metaclass=_BufferMeta):
    """nn.Buffer(data, persistent=True): a Tensor flagged for registration as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        t = wrap(_tensor_data(data))
        t._requires_grad = data is not None and data._requires_grad
        t._extra()["buffer_persistent"] = bool(persistent)
        return t


def buffer_persistent(t):
    """The persistence a Buffer-flagged tensor was made with (True for a plain tensor)."""
    return t._x.get("buffer_persistent", True) if t._x else True
