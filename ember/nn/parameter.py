"""nn.Parameter (a Tensor subclass that Modules register as a parameter) and nn.Buffer (a
marker: it returns a plain Tensor flagged as a buffer, as torch's does)."""
import sys

import numpy as np

from .. import dtypes as D
from ..creation import empty
from ..tensor import Tensor, wrap


def _tensor_data(data):
    """The array behind `data` (None: an empty float tensor), torch's error for a non-tensor."""
    if data is None:
        return np.empty((0,), np.float32)
    if not isinstance(data, Tensor):
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
    return data._data


def _leaf(cls, arr, requires_grad):
    """A new leaf of class cls (a Tensor subclass) holding arr, with no history and no grad."""
    self = Tensor.__new__(cls)
    _SLOT.__set__(self, arr)
    self._requires_grad = bool(requires_grad)
    self._grad_fn = self._grad = self._acc = self._x = None
    return self


class Parameter(Tensor):
    """A leaf Tensor sharing `data`'s memory, requiring grad unless told otherwise."""

    def __new__(cls, data=None, requires_grad=True):
        arr = _tensor_data(data)
        if requires_grad and arr.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return _leaf(cls, arr, requires_grad)

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


# ---- lazy modules' placeholders: UninitializedParameter / UninitializedBuffer

_SLOT = Tensor._data        # the slot behind Tensor._data (the mixin's property shadows it)

_UNINIT_USE = ("Attempted to use an uninitialized parameter in {}. This error happens when you "
               "are using a `LazyModule` or explicitly manipulating "
               "`torch.nn.parameter.{}` objects. When using LazyModules "
               "Call `forward` with a dummy batch to initialize the parameters before calling "
               "torch functions")
_UNINIT_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                 "usually happens in `load_state_dict` when trying to load an uninitialized "
                 "parameter into an initialized one. Call `forward` to initialize the "
                 "parameters before accessing their attributes.")
# the methods an uninitialized tensor answers (the rest raise _UNINIT_USE, as torch's
# __torch_function__ filter does): conversions give an empty tensor (a module's conversion
# keeps its uninitialized parameters, with the new dtype: Module._apply)
_ALLOWED = frozenset(("materialize", "size", "to", "cpu", "cuda", "float", "double", "half",
                      "share_memory_", "cls_to_become", "is_floating_point"))


def _use_error(self, where):
    return ValueError(_UNINIT_USE.format(where, type(self).__name__))


def _method_error(self, name):
    return _use_error(self, f"<method '{name}' of 'torch._C.TensorBase' objects>")


def _raiser(self, name):
    def method(*args, **kwargs):
        raise _method_error(self, name)
    return method


def _operator(name, where=None):
    def op(self, *args):
        raise _use_error(self, where) if where else _method_error(self, name)
    return op


class UninitializedTensorMixin:
    """A tensor with a dtype but no shape yet: every use raises torch's ValueError until
    materialize(shape) gives it memory and turns it into cls_to_become."""

    __slots__ = ()
    cls_to_become = None

    @property
    def _data(self):
        # named after the outermost ember function on the stack: the one the user called
        frame, name, module = sys._getframe(2), None, None
        while frame is not None and frame.f_globals.get("__name__", "").startswith("ember."):
            name, module = frame.f_code.co_name, frame.f_globals["__name__"]
            frame = frame.f_back
        if module == "ember.nn.functional":
            raise _use_error(self, f"<built-in function {name}>")
        raise _use_error(self, f"<built-in method {name} of type object at {hex(id(Tensor))}>")

    @_data.setter
    def _data(self, value):
        _SLOT.__set__(self, value)

    def __getattribute__(self, name):
        if name[0] != "_" and name not in _ALLOWED and \
                callable(getattr(Tensor, name, None)):
            return _raiser(self, name)
        return object.__getattribute__(self, name)

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor memory of `shape` (an int or a tuple) and make it cls_to_become."""
        if isinstance(shape, int):
            shape = (shape,)
        if dtype is None:
            dtype = self.dtype
        if self._requires_grad and not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        _SLOT.__set__(self, empty(tuple(shape), dtype=dtype, device=device)._data)
        self._acc = None
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINIT_SHAPE)

    def size(self, dim=None):
        if dim is None:
            return Tensor.size(wrap(_SLOT.__get__(self)))
        raise _method_error(self, "size")

    @property
    def dtype(self):
        return wrap(_SLOT.__get__(self)).dtype

    @property
    def ndim(self):
        return 1

    @property
    def data(self):
        return wrap(_SLOT.__get__(self))

    @property
    def is_leaf(self):
        return True

    @property
    def grad_fn(self):
        return None

    def _converted(self, *args, **kwargs):
        t = wrap(_SLOT.__get__(self))
        t._requires_grad = self._requires_grad
        return t.to(*args, **kwargs)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def to(self, *args, **kwargs):
        return self._converted(*args, **kwargs)

    def float(self):
        return self._converted(D.float32)

    def double(self):
        return self._converted(D.float64)

    def half(self):
        return self._converted(D.float16)

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        return Tensor.cuda(self, *args, **kwargs)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, dtype=self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, proto):
        return (type(self), (self._requires_grad, None, self.dtype))

    __len__ = _operator("__len__", "<function Tensor.__len__>")
    __getitem__ = _operator("__getitem__", "<slot wrapper '__getitem__' of "
                                           "'torch._C.TensorBase' objects>")
    __setitem__ = _operator("__setitem__", "<slot wrapper '__setitem__' of "
                                           "'torch._C.TensorBase' objects>")
    __iter__ = _operator("__iter__", "<method 'dim' of 'torch._C.TensorBase' objects>")


for _dunder, _name in (("add", "add"), ("radd", "add"), ("iadd", "add_"), ("sub", "sub"),
                       ("rsub", "rsub"), ("isub", "sub_"), ("mul", "mul"), ("rmul", "mul"),
                       ("imul", "mul_"), ("truediv", "div"), ("rtruediv", "reciprocal"),
                       ("itruediv", "div_"), ("matmul", "matmul"), ("rmatmul", "matmul"),
                       ("pow", "pow"), ("rpow", "pow"), ("neg", "neg"), ("abs", "abs"),
                       ("eq", "__eq__"), ("ne", "__ne__"), ("lt", "__lt__"), ("le", "__le__"),
                       ("gt", "__gt__"), ("ge", "__ge__"), ("floordiv", "floor_divide"), ("mod", "remainder"),
                       ("bool", "__bool__"), ("float", "__float__"), ("int", "__int__"),
                       ("index", "__index__")):
    setattr(UninitializedTensorMixin, f"__{_dunder}__", _operator(_name))
UninitializedTensorMixin.__hash__ = object.__hash__


def _uninit_array(device, dtype):
    return empty(0, device=device, dtype=dtype)._data


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape the lazy module's first call decides; becomes a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        self = Parameter.__new__(cls, None, False)
        _SLOT.__set__(self, _uninit_array(device, dtype))
        self._requires_grad = bool(requires_grad)
        return self

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape the lazy module's first call decides; becomes a Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _leaf(cls, _uninit_array(device, dtype), requires_grad)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass

    def _converted(self, *args, **kwargs):
        # (a buffer's conversion stays uninitialized; a parameter's gives an empty tensor)
        dtype = wrap(_SLOT.__get__(self)).to(*args, **kwargs).dtype
        return type(self)(self._requires_grad, dtype=dtype)


def is_lazy(param):
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
