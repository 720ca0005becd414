"""Tensor: a NumPy array plus autograd state. This file holds the class, its properties and
conversions; every op method and operator (x.sum(), x + y, ...) is bound to it in one table,
ember/tensor_methods.py, after the ops are defined (ember/ops/)."""
import gc
import re
import sys
import threading
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


# torch's device types, in the order its error message lists them
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


class device:
    """torch.device: any of torch's device types can be named; only the CPU holds tensors
    (check_device says what a CPU-only torch says for the others)."""
    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if builtins_type(type) is device:
            if index is not None:
                raise TypeError("device(): argument 'type' (position 1) must be str, not "
                                "torch.device")
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(NO_ACCELERATOR)     # a bare index names the accelerator
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({builtins_type(type).__name__}), but expected one of:\n"
                            f" * (torch.device device)\n * (str type, int index = -1)\n")
        else:
            if not type:
                raise RuntimeError("Device string must not be empty")
            m = _DEVICE_STRING.match(type)
            if m is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            name, idx = m.groups()
            if name not in DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at "
                                   f"start of device string: {name}")
            if idx is not None:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because "
                                       f"index was passed explicitly: {type}")
                index = int(idx)
            type = name
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                                f"{builtins_type(index).__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?\Z")
builtins_type = type
_DEVICE = device            # (for methods whose parameter is named device)


def check_device(d, factory=False):
    """The device argument of a factory (factory=True) or of a copy to a device (tensor(),
    .to(), .cuda()): None or a CPU device passes; any other device gets the error a CPU-only
    torch gives for it."""
    if d is None or d is CPU or (builtins_type(d) is str and d == "cpu"):
        return
    kind = device(d).type
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind == "mtia":
        raise AssertionError("Torch not compiled with MTIA enabled. Ensure you have `import "
                             "mtia.host_runtime.torch_mtia.dynamic_library` in your python src "
                             "file and include `//mtia/host_runtime/torch_mtia:torch_mtia` as "
                             "your target dependency!")
    if kind == "meta":
        raise NotImplementedError("ember has no meta tensors (they hold no data); use a CPU "
                                  "tensor")
    if factory:
        raise NotImplementedError(f"Could not run 'aten::empty.memory_format' with arguments "
                                  f"from the '{_BACKENDS.get(kind, kind.upper())}' backend.")
    raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


_BACKENDS = {"mps": "MPS", "ipu": "IPU", "hip": "HIP", "xla": "XLA", "vulkan": "Vulkan",
             "lazy": "Lazy", "maia": "MAIA", "fpga": "FPGA", "ve": "VE", "hpu": "HPU",
             "mtia": "MTIA", "privateuseone": "PrivateUse1"}


CPU = device("cpu")


def _enum_new(cls, *args):
    raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")


def _enum_repr(self):
    return "torch." + self._name


def _enum_reduce(self):
    return self._name


# torch.layout and torch.memory_format: two classes of named constants, each a direct subclass
# of object as in torch, sharing their methods by assignment.

class layout:
    """torch.layout: how a tensor's elements are stored (ember's are all strided)."""
    __slots__ = ("_name",)
    __new__ = _enum_new
    __repr__ = __str__ = _enum_repr
    __reduce__ = _enum_reduce


class memory_format:
    """torch.memory_format: the dimension order a tensor's strides follow."""
    __slots__ = ("_name",)
    __new__ = _enum_new
    __repr__ = __str__ = _enum_repr
    __reduce__ = _enum_reduce


def _named(cls, name):
    obj = object.__new__(cls)
    obj._name = name
    return obj


strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged = (
    _named(layout, n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                "sparse_bsr", "sparse_bsc", "jagged"))
contiguous_format, channels_last, channels_last_3d, preserve_format = (
    _named(memory_format, n) for n in ("contiguous_format", "channels_last",
                                       "channels_last_3d", "preserve_format"))
_memory_format_type = memory_format     # (for methods whose parameter is named memory_format)


class _Inference(threading.local):
    on = False      # this thread is in inference mode (set by autograd/grad_mode.py)


INFERENCE = _Inference()
# autograd/grad_mode.py's thread-local grad mode (it imports this module, so it sets this)
GRAD = None
_SCALAR_WARNED = [False]        # torch warns once per process (Tensor.__float__)
# Set by autograd/grad_mode.py while some thread is in inference mode: marks the tensors made
# there (Note [Inference tensors]). Every tensor an op makes without recording comes from wrap.
_inference_mark = None


def _scalar_warning():
    """float() / complex() of a tensor that requires grad, in grad mode: torch's warning,
    once per process (int(), bool() and item() say nothing)."""
    _SCALAR_WARNED[0] = True
    warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                  "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                  stacklevel=3)


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


def _wrap_marking(arr):
    """wrap while some thread is in inference mode: also marks the tensor (Note [Inference
    tensors] in autograd/grad_mode.py). wrap's body is repeated here, not called: wrap is
    the hot path's constructor, and a call inside it would cost every op."""
    if type(arr) is not ndarray:
        arr = np.asarray(arr)
    t = _new(Tensor)
    t._data = arr
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._acc = None
    t._x = None
    _inference_mark(t)
    return t


_WRAP_CODE = wrap.__code__


def set_inference_mark(fn):
    """Turn marking on (fn) or off (None). Every module holds `wrap` itself (imported by name),
    so wrap's code is swapped rather than tested per call: wrap costs nothing extra while no
    thread is in inference mode."""
    global _inference_mark
    _inference_mark = fn
    wrap.__code__ = _wrap_marking.__code__ if fn is not None else _WRAP_CODE


def is_inference(t):
    """Tensor.is_inference: made in inference mode (or a view of such a tensor)."""
    try:
        x = t._x
    except AttributeError:
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}") from None
    return x is not None and "inference" in x



def array_strides(d):
    """Tensor.stride() of array d, in elements. NumPy gives a fresh empty array zero strides;
    torch's are the contiguous ones (each dim's stride: the product of the later sizes, a 0
    counted as 1)."""
    st = tuple(s // d.itemsize for s in d.strides)
    if d.size or any(st):
        return st
    acc, out = 1, []
    for n in reversed(d.shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))

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
        value = bool(value)
        if value:       # (torch's setter has messages of its own for these two)
            if self._grad_fn is not None:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            if self._data.dtype.kind not in "fc":
                raise RuntimeError("only Tensors of floating point and complex dtype can "
                                   "require gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        if self._grad_fn is not None:
            if requires_grad and self._data.dtype.kind not in "fc":
                # (an integral tensor given a history by an in-place op with an operand that
                # requires grad: torch checks the dtype first)
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want "
                    "to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._x is not None and "inference" in self._x and \
                not INFERENCE.on:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        x = self._x
        if x is not None and ("views" in x or "base" in x or "ngv" in x or "vroot" in x):
            _views_follow(self, requires_grad)
        else:
            self._requires_grad = requires_grad
        return self

    @property
    def output_nr(self):
        return self._output_nr if self._grad_fn is not None else 0

    @property
    def is_leaf(self):
        fn = self._grad_fn
        if fn is not None and fn._refused:     # (Note [Refused views] in ops/_views.py)
            raise RuntimeError(fn._refused)
        return fn is None

    @property
    def grad_fn(self):
        fn = self._grad_fn
        if fn is not None and fn._refused:
            raise RuntimeError(fn._refused)
        return fn

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
            want = self._data.dtype
            x = self._x
            if x and "grad_dtype" in x:
                want = x["grad_dtype"] and x["grad_dtype"].np
            if want is not None and value._data.dtype != want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{D.C_NAMES[value._data.dtype.name]}' to a tensor with grad_dtype "
                    f"'{D.type_name(want)}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
                    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                    "may break downstream systems that assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value._data.shape)}' to a tensor of size "
                                   f"'{list(self._data.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype a leaf's gradient is cast to (None: left as computed); the tensor's own
        dtype unless set."""
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        x = self._x
        return x["grad_dtype"] if x and "grad_dtype" in x else self.dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, D.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got "
                               f"{type(value).__name__}")
        g = self._grad
        if g is not None and value is not None and g._data.dtype != value.np:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{D.type_name(value.np)}' because there is already "
                f"a gradient with dtype '{D.C_NAMES[g._data.dtype.name]}'. Please clear the "
                "gradient (.grad = None) before changing grad_dtype, or ensure the new "
                "grad_dtype matches the existing gradient's dtype.")
        self._extra()["grad_dtype"] = value
        acc = self._acc() if self._acc is not None else None
        if acc is not None:         # (its cast of incoming gradients: the engine's _meta)
            acc._meta = (self._data.shape, self._data.dtype if value is None else value.np)

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
        return strided

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
        st = array_strides(self._data)
        return st if dim is None else st[self._wrap_dim(dim)]

    def is_contiguous(self, *, memory_format=None):
        if memory_format is not None and not isinstance(memory_format, _memory_format_type):
            raise TypeError(f"is_contiguous(): argument 'memory_format' must be "
                            f"torch.memory_format, not {type(memory_format).__name__}")
        if memory_format is channels_last or memory_format is channels_last_3d:
            d = self._data
            n = 4 if memory_format is channels_last else 5
            if d.ndim != n:
                return False
            # channels last: dims ordered N, spatial..., C in memory (C fastest)
            order = (0,) + tuple(range(2, n)) + (1,)
            expect, acc = [0] * n, 1
            for dim in reversed(order):
                expect[dim] = acc
                acc *= d.shape[dim]
            st = [x // d.itemsize for x in d.strides]
            return all(st[i] == expect[i] or d.shape[i] == 1 for i in range(n))
        return self._data.flags.c_contiguous

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_signed(self):
        return self.dtype.is_signed

    # ---- device and layout predicates: a dense CPU tensor, as torch reports one
    is_cpu = property(lambda self: True)
    is_meta = is_mps = is_xpu = is_ipu = is_xla = is_mtia = is_maia = is_vulkan = \
        is_sparse = is_sparse_csr = is_quantized = is_mkldnn = is_nested = \
        property(lambda self: False)

    def get_device(self):
        return -1           # torch's answer for a CPU tensor

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def is_conj(self):
        return False        # ember conjugates eagerly: no tensor carries a lazy conj bit

    def is_neg(self):
        return False        # nor a lazy negation bit

    def is_pinned(self, device=None):
        if isinstance(device, str):
            _DEVICE(device)             # torch parses the (deprecated) device: its errors
        elif device is not None and not isinstance(device, _DEVICE):
            raise TypeError(f"is_pinned(): argument 'device' (position 1) must be torch.device, "
                            f"not {type(device).__name__}")
        return False

    def pin_memory(self, device=None):
        raise RuntimeError(NO_ACCELERATOR)

    def is_distributed(self):
        return False

    def dim_order(self, *, ambiguity_check=False):
        st = self._data.strides
        return tuple(sorted(range(self._data.ndim), key=lambda d: -st[d]))

    def dense_dim(self):
        return self._data.ndim

    def sparse_dim(self):
        return 0

    def const_data_ptr(self):
        return self.data_ptr()

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self if dtype is None else self.to(D.as_dtype(dtype, "to_dense"))

    @property
    def volatile(self):
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    @property
    def name(self):
        return None

    def is_nonzero(self):
        n = self._data.size
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def is_same_size(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return self._data.shape == other._data.shape

    def __dlpack__(self, *args, **kwargs):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def reinforce(self, reward):
        raise RuntimeError("reinforce() was removed.\nUse torch.distributions instead.\nSee "
                           "https://pytorch.org/docs/main/distributions.html\n\nInstead of:"
                           "\n\nprobs = policy_network(state)\naction = probs.multinomial()\n"
                           "next_state, reward = env.step(action)\naction.reinforce(reward)\n"
                           "action.backward()\n\nUse:\n\nprobs = policy_network(state)\n# NOTE: "
                           "categorical is equivalent to what used to be called multinomial\n"
                           "m = torch.distributions.Categorical(probs)\naction = m.sample()\n"
                           "next_state, reward = env.step(action)\nloss = -m.log_prob(action) "
                           "* reward\nloss.backward()")

    def record_stream(self, stream):
        raise RuntimeError("unknown parameter type")    # only CUDA streams are accepted

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        raise RuntimeError("PyTorch is not linked with support for ipu devices")

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        raise AssertionError("Torch not compiled with XPU enabled")

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        check_device("mtia")

    def _wrap_dim(self, dim, ndim=None):
        n = self._data.ndim if ndim is None else ndim
        lo, hi = (-1, 0) if n == 0 else (-n, n - 1)
        try:
            inside = lo <= dim <= hi
        except TypeError:               # (the method's name: size, stride...)
            raise TypeError(f"{sys._getframe(1).f_code.co_name}(): argument 'dim' (position 1) "
                            f"must be int, not {type(dim).__name__}") from None
        if not inside:
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
        if self._requires_grad and not _SCALAR_WARNED[0] and GRAD.enabled:
            _scalar_warning()
        return float(self._real_scalar("double"))

    def __int__(self):
        return int(self._real_scalar("int64_t"))

    def __complex__(self):
        if self._requires_grad and not _SCALAR_WARNED[0] and GRAD.enabled:
            _scalar_warning()
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

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        if isinstance(device, int) and not isinstance(device, bool):
            raise RuntimeError(NO_ACCELERATOR)
        if device is not None and _DEVICE(device).type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        raise AssertionError("Torch not compiled with CUDA enabled")


def _views_follow(t, flag):
    """requires_grad_(flag) on a leaf that is a view or has views (Note [Views] in
    ops/_views.py): a view of a base requiring grad requires grad too, without a history of
    its own while its family is not written, as a leaf whose gradient goes nowhere (a "sink",
    as a view made in no_grad mode is), unless it was made to require grad itself. So the
    views that have no history follow their base's flag, here, when it changes: the hot path
    reads _requires_grad alone."""
    x = t._x
    base = x.get("base")
    if base is not None:        # t is a view: its own flag, or its base's
        if not flag and base._requires_grad:
            t._requires_grad = True
            x["sink"] = True
        else:
            t._requires_grad = flag
            x.pop("sink", None)
        return
    t._requires_grad = flag
    if flag and "ngv" in x:
        adopt_nograd_views(t)
    owner = x.get("vroot", t)   # (a detached alias's views are kept by its family's root)
    ox = owner._x
    for r in ox.get("views", ()) if ox else ():
        v = r()
        if v is None or v._grad_fn is not None or v._x["base"] is not t:
            continue
        vx = v._x
        if flag:
            if "stale" in vx:
                # written since it was made: torch regenerates its grad_fn as its version
                # changed (AsStridedBackward0 of t, or refused: ops/_views.py's _reread)
                del vx["stale"]
                vx.pop("sink", None)
                v._reread()
            elif not v._requires_grad:
                v._requires_grad = True
                vx["sink"] = True
        elif "sink" in vx:
            v._requires_grad = False
            del vx["sink"]


def memory_owner(arr):
    """The array owning arr's buffer (through as_strided's DummyArray too, which holds the
    array it was made from as its base)."""
    while True:
        base = arr.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                return arr
        arr = base


def keep_view(base, view):
    """Keep a weak reference to a live view of base (Note [Views] in ops/_views.py)."""
    bx = base._x
    if bx is None:
        bx = base._x = {}
    refs = bx.get("views")
    if refs is None:
        refs = bx["views"] = []
        bx["views_cap"] = 64
    refs.append(weakref.ref(view))
    if len(refs) >= bx["views_cap"]:
        prune_views(bx, refs)


def prune_views(bx, refs):
    """Drop the dead views from a base's list (amortised O(1) per view)."""
    refs[:] = [r for r in refs if r() is not None]
    bx["views_cap"] = 2 * len(refs) + 64


def adopt_nograd_views(t):
    """Keep, in the list of live views of t (or of its family's root), its views made in no_grad mode while it required no
    grad (make_view marks t "ngv" instead of keeping those: inference makes many): called
    when t comes to require grad, which concerns them (they then require grad too, and a
    write refuses them), a rare change. Each view holds t in its _x: the garbage collector's
    referrers of t find them."""
    x = t._x
    del x["ngv"]
    found = {id(d): d for d in gc.get_referrers(t)
             if isinstance(d, dict) and d.get("base") is t and "nograd" in d}
    if not found:
        return
    root = x.get("vroot", t)
    vc = root._x.get("vc") if root._x else None
    now = vc.version if vc is not None else 0
    for v in gc.get_referrers(*found.values()):
        if isinstance(v, Tensor) and id(v._x) in found and v._x is found[id(v._x)]:
            keep_view(root, v)     # (where make_view keeps views of t)
            if v._x.get("v0", 0) != now:
                v._x["stale"] = True    # written since (make_view's "v0"; _views_follow)


def _rebuild(data, requires_grad):
    t = wrap(data)
    t._requires_grad = requires_grad
    return t
