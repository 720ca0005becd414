"""Tensor: a NumPy array plus autograd state. This file holds the class, its properties and
conversions; every op method and operator (x.sum(), x + y, ...) is bound to it in one table,
ember/tensor_methods.py, after the ops are defined (ember/ops/)."""
import warnings
import weakref

import numpy as np

from . import dtypes as D
from .printing import tensor_repr

ndarray = np.ndarray
_new = object.__new__

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


class Size(tuple):
    """torch.Size: a tuple that prints as torch.Size([2, 3])."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        out = tuple.__getitem__(self, i)
        return Size(out) if isinstance(i, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


class device:
    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        type = str(type)
        if ":" in type:
            type, idx = type.split(":", 1)
            index = int(idx)
        if type != "cpu":
            raise RuntimeError(f"ember runs on the CPU only; device '{type}' is not available")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


def wrap(arr):
    """Internal constructor: a Tensor over `arr` with no autograd state (no validation)."""
    if type(arr) is not ndarray:
        arr = np.asarray(arr)
    t = _new(Tensor)
    t._data = arr
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._acc = None
    t._x = None
    return t


class Tensor:
    # _x: None or a dict of rarely used state (hooks, retain_grad, view base, name)
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_grad", "_acc", "_x",
                 "__weakref__")
    __array_priority__ = 1000
    __hash__ = object.__hash__

    # ---- autograd state ----
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(bool(value))

    def requires_grad_(self, requires_grad=True):
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want "
                    "to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = requires_grad
        return self

    @property
    def output_nr(self):
        return self._output_nr if self._grad_fn is not None else 0

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return bool(self._x and self._x.get("retains_grad"))

    def retain_grad(self):
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self.retains_grad:
            return
        self._extra()["retains_grad"] = True
        hooks = self._grad_fn._extra()
        hooks.setdefault("retain", {})[self._output_nr] = weakref.ref(self)

    def _tensor_hooks(self):
        return self._x.get("hooks", ()) if self._x else ()

    def _extra(self):
        if self._x is None:
            self._x = {}
        return self._x

    def detach_(self):
        if self._x and "base" in self._x:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        return wrap(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._grad_fn is not None:
            self._extra()["data_set"] = True    # its node's (shape, dtype) may no longer fit
        self._data = value._data

    # ---- metadata ----
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    @property
    def dtype(self):
        return D.FROM_NP[self._data.dtype]

    @property
    def device(self):
        return CPU

    @property
    def is_cuda(self):
        return False

    @property
    def layout(self):
        return "torch.strided"

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[self._wrap_dim(dim)]

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_signed(self):
        return self.dtype.is_signed

    def _wrap_dim(self, dim, ndim=None):
        n = self._data.ndim if ndim is None else ndim
        lo, hi = (-1, 0) if n == 0 else (-n, n - 1)
        if not lo <= dim <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}],"
                             f" but got {dim})")
        return dim + n if dim < 0 else dim

    # ---- conversions ----
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if dtype is None:
            return self._data
        return self._data.astype(dtype, copy=False)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def _real_scalar(self, cname):
        v = self._scalar()
        if self._data.dtype.kind == "c":
            if v.imag:
                raise RuntimeError(f"value cannot be converted to type {cname} without overflow")
            v = v.real
        return v

    def __float__(self):
        return float(self._real_scalar("double"))

    def __int__(self):
        return int(self._real_scalar("int64_t"))

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __repr__(self, *, tensor_contents=None):
        fn = self._grad_fn
        fw = self._x.get("fw") if self._x else None
        tangent = None
        if fw:      # a dual tensor shows its innermost tangent (Note [Forward AD])
            t = fw[max(fw)]
            tangent = repr(t.item()) if t._data.ndim == 0 else repr(t)
        return tensor_repr(self._data, self.dtype, None if fn is None else fn.name(),
                           self._requires_grad, tangent)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        return (_rebuild, (self._data.copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        out = type(self).__new__(type(self))
        out._data = self._data.copy()
        out._requires_grad = self._requires_grad
        out._grad_fn = None
        out._grad = None if self._grad is None else self._grad.__deepcopy__(memo)
        out._acc = None
        out._x = None
        memo[id(self)] = out
        return out

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        raise RuntimeError("ember runs on the CPU only")


def _rebuild(data, requires_grad):
    t = wrap(data)
    t._requires_grad = requires_grad
    return t
