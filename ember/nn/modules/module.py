"""nn.Module: registration of parameters, buffers and submodules by attribute assignment,
__call__ -> forward with hooks, traversal, state_dict / load_state_dict, train/eval, dtype
conversion and torch's repr."""
import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from ... import dtypes as D
from ...autograd.function import Function
from ...autograd.grad_mode import STATE, no_grad
from ...autograd.graph import sum_to
from ...ops._views import mark_written
from ...tensor import Tensor, device as _device, memory_format as _memory_format
from ...utils.hooks import RemovableHandle
from ..parameter import _SLOT, Buffer, Parameter, buffer_persistent, is_lazy

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it missed and the ones it did not use."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, num_spaces):
    """Indent every line of s but the first by num_spaces (nested reprs)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    pad = " " * num_spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


# ---------------------------------------------------------------- global hooks

_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None

# Note [Hooks in use]: False until the first hook of any kind is registered on any module (or
# a module carrying hooks is unpickled). Until then Module.__call__ goes straight to forward
# without looking at eight hook dicts (~0.2 us a call). Hooks go in through the register_*
# functions, which set it; a hook written into a module's hook dict by hand is not seen while
# it is False.
_hooks_in_use = False


def _hooks_registered():
    global _hooks_in_use
    _hooks_in_use = True


def _add_global_hook(hooks, hook, in_call=False):
    """hook added to the global dict `hooks`; its handle. in_call: a hook that
    Module.__call__ runs (Note [Hooks in use])."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if in_call:
        _hooks_registered()
    return handle


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) on every register_buffer; may return a new buffer."""
    return _add_global_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) on every submodule registration."""
    return _add_global_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) on every register_parameter."""
    return _add_global_hook(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """hook(module, args) before every module's forward."""
    return _add_global_hook(_global_forward_pre_hooks, hook, True)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """hook(module, args, output) after every module's forward."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_with_kwargs,
                                         _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    _hooks_registered()
    return handle


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) before the gradients of every module's inputs."""
    return _add_global_hook(_global_backward_pre_hooks, hook, True)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) once every module's input gradients are known."""
    global _global_is_full_backward_hook
    _global_is_full_backward_hook = True
    return _add_global_hook(_global_backward_hooks, hook, True)


def _registration_hooks(hooks, module, name, value):
    """value after the global registration hooks: each may return a replacement."""
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def _any_global_hooks():
    return bool(_global_forward_pre_hooks or _global_forward_hooks or
                _global_backward_pre_hooks or _global_backward_hooks)


# ---------------------------------------------------------------- to(): argument parsing

_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")

_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                 "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone")


def _arg_type_name(a):
    if isinstance(a, D.dtype):
        return "torch.dtype"
    if isinstance(a, _device):
        return "torch.device"
    if isinstance(a, Tensor):
        return "Tensor"
    return type(a).__name__


def _to_error(args, kwargs):
    got = ", ".join([_arg_type_name(a) for a in args] +
                    [f"{k}={_arg_type_name(v)}" for k, v in kwargs.items()])
    if kwargs:
        got += ", "
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n{_TO_SIGNATURES}")


def _device_error(dev):
    """A CPU-only torch's answer to a device argument: None for the cpu, else the error that
    moving a tensor there raises. A malformed device string raises at once."""
    if dev is None or isinstance(dev, _device):
        return None
    if isinstance(dev, int) and not isinstance(dev, bool):
        return RuntimeError("Cannot access accelerator device when none is available.")
    kind = dev.split(":", 1)[0]
    if kind == "cpu":
        return None
    if kind == "cuda":
        return AssertionError("Torch not compiled with CUDA enabled")
    if kind in _DEVICE_TYPES.split(", "):
        return RuntimeError(f"ember runs on the CPU only; device '{kind}' is not available")
    raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device "
                       f"string: {dev}")


def _parse_to(args, kwargs):
    """Module.to's overloads -> (the error moving a tensor to the device raises or None,
    dtype, non_blocking), with torch's TypeError for a bad combination."""
    allowed = {"device", "dtype", "non_blocking", "copy", "memory_format"}
    if set(kwargs) - allowed:
        raise _to_error(args, kwargs)
    dev, dtype = kwargs.get("device"), kwargs.get("dtype")
    non_blocking = kwargs.get("non_blocking", False)
    rest = list(args)
    if rest and isinstance(rest[0], D.dtype):
        if dtype is not None:
            raise _to_error(args, kwargs)
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype
    elif rest and (rest[0] is None or isinstance(rest[0], (str, _device, int)) and
                   not isinstance(rest[0], bool)):
        dev = rest.pop(0)
        if rest and isinstance(rest[0], D.dtype):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        rest.pop(0)         # copy
    if rest:
        raise _to_error(args, kwargs)
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise _to_error(args, kwargs)
    if dev is not None and not isinstance(dev, (str, _device, int)):
        raise _to_error(args, kwargs)
    fmt = kwargs.get("memory_format")
    if fmt is not None and not isinstance(fmt, _memory_format):
        raise _to_error(args, kwargs)
    return _device_error(dev), dtype, non_blocking


# ---------------------------------------------------------------- full backward hooks

class BackwardHookFunction(Function):
    """Identity on the module's input/output tensors: its backward node is where torch's
    full backward hooks read and replace grad_output and grad_input."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if isinstance(a, Tensor) and
                                      not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class _BackwardHook:
    """One forward call's full backward hooks: wraps the inputs and the outputs in
    BackwardHookFunction nodes; the outputs' node gathers grad_output (running the pre-hooks),
    the inputs' node gives grad_input to the hooks (or, when no input needs a gradient, the
    hooks run with grad_input all None as soon as grad_output is known)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack(self, values, index, size):
        res = [None] * size
        for i, idx in enumerate(index):
            res[idx] = values[i]
        return tuple(res)

    def _wrap(self, args, on_grads):
        """Pass the tensors in args through one BackwardHookFunction whose node calls
        on_grads(grads) before it runs; returns (new args, tensor positions)."""
        is_tuple = isinstance(args, tuple)
        items = args if is_tuple else (args,)
        index = [i for i, a in enumerate(items) if isinstance(a, Tensor)]
        tensors = [items[i] for i in index]
        if not (STATE.enabled and any(t.requires_grad for t in tensors)):
            return args, None
        outs = BackwardHookFunction.apply(*tensors)
        if not isinstance(outs, tuple):
            outs = (outs,)
        fn = next((o.grad_fn for o in outs if o.grad_fn is not None), None)
        if fn is not None:
            fn.register_prehook(on_grads)
        new = list(items)
        for i, o in zip(index, outs):
            new[i] = o
        return (tuple(new) if is_tuple else new[0]), index

    def setup_input_hook(self, args):
        def hook(grads):
            return self._input_hook(grads)
        self.n_inputs = len(args)
        new, index = self._wrap(args, hook)
        self.input_tensors_index = index
        return new

    def _input_hook(self, grads):
        grad_input = self._pack(grads, self.input_tensors_index, self.n_inputs)
        for user_hook in self.user_hooks:
            res = user_hook(self.module, grad_input, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(res)}, but expected {len(grad_input)}")
            grad_input = res
        self.grad_outputs = None
        return tuple(grad_input[i] for i in self.input_tensors_index)

    def setup_output_hook(self, args):
        def hook(grads):
            return self._output_hook(grads)
        is_tuple = isinstance(args, tuple)
        self.n_outputs = len(args) if is_tuple else 1
        new, index = self._wrap(args, hook)
        self.output_tensors_index = index
        return new

    def _output_hook(self, grads):
        grad_outputs = self._pack(grads, self.output_tensors_index, self.n_outputs)
        for user_pre_hook in self.user_pre_hooks:
            res = user_pre_hook(self.module, grad_outputs)
            if res is None:
                continue
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) != len(grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(res)}, but expected "
                                   f"{len(grad_outputs)}")
            grad_outputs = res
        self.grad_outputs = grad_outputs
        if self.input_tensors_index is None:
            # no input needs a gradient: the hooks see grad_input as all None, now
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = tuple(None for _ in range(max(self.n_inputs, 0)))
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and
                                            all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_tensors_index)


# ---------------------------------------------------------------- Module

def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              '"forward" function')


class Module:
    """Base class of every layer: holds parameters, buffers and submodules in ordered dicts
    filled by attribute assignment, and calls forward() through __call__ with hooks."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ---- registration

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = buffer_persistent(tensor)
        self._buffers[name] = _registration_hooks(_global_buffer_registration_hooks, self, name,
                                                  tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as "
                             "a function of another Tensor, compute the value in the "
                             "forward() method.")
        self._parameters[name] = _registration_hooks(_global_parameter_registration_hooks, self,
                                                     name, param)

    def _check_new_name(self, name, kind, members):
        """torch's checks of a buffer's or parameter's name (kind) before registering it."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in members:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registration_hooks(_global_module_registration_hooks, self, name,
                                                  module)

    def register_module(self, name, module):
        self.add_module(name, module)

    # ---- attribute protocol

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, self._buffers, self._modules,
                         self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                _remove_from(name, d, self._parameters, self._buffers,
                             self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    if isinstance(value, Buffer):
                        persistent = buffer_persistent(value)
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        attrs = dir(self.__class__) + list(self.__dict__.keys()) + \
            list(self._parameters.keys()) + list(self._modules.keys()) + \
            list(self._buffers.keys())
        return sorted(k for k in set(attrs) if not k[0].isdigit())

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled before these fields existed get them empty
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_backward_pre_hooks", "_backward_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None
        if any(self.__dict__[k] for k in ("_forward_pre_hooks", "_forward_hooks",
                                          "_backward_pre_hooks", "_backward_hooks")):
            _hooks_registered()         # Note [Hooks in use]

    # ---- calling

    def _call_impl(self, *args, **kwargs):
        if not _hooks_in_use:           # Note [Hooks in use]
            return self.forward(*args, **kwargs)
        d = self.__dict__
        if not (d["_forward_hooks"] or d["_forward_pre_hooks"] or d["_backward_hooks"] or
                d["_backward_pre_hooks"] or _global_forward_pre_hooks or
                _global_forward_hooks or _global_backward_pre_hooks or
                _global_backward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    __call__ = _call_impl

    def _call_with_hooks(self, args, kwargs):
        full_hooks, pre_hooks = self._get_backward_hooks()
        called_always = set()
        result = None
        try:
            # (a copy: a hook may remove itself, as a lazy module's does)
            for hook_id, hook in list(itertools.chain(_global_forward_pre_hooks.items(),
                                                      self._forward_pre_hooks.items())):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    out = hook(self, args, kwargs)
                    if out is not None:
                        if isinstance(out, tuple) and len(out) == 2:
                            args, kwargs = out
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {out}.")
                else:
                    out = hook(self, args)
                    if out is not None:
                        args = out if isinstance(out, tuple) else (out,)
            bw_hook = None
            if full_hooks or pre_hooks:
                bw_hook = _BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(),
                                                 self._forward_hooks.items()):
                if hook_id in _global_forward_hooks_always_called or \
                        hook_id in self._forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or \
                        hook_id in _global_forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            if bw_hook is not None:
                result = bw_hook.setup_output_hook(result)
            elif self._backward_hooks and self._is_full_backward_hook is False:
                _attach_node_hooks(self, args, result)
            return result
        except Exception:
            # hooks registered with always_call run even when forward (or a hook) fails
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(),
                                                 self._forward_hooks.items()):
                if (hook_id in _global_forward_hooks_always_called or
                        hook_id in self._forward_hooks_always_called) and \
                        hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs or \
                                hook_id in _global_forward_hooks_with_kwargs:
                            out = hook(self, args, kwargs, result)
                        else:
                            out = hook(self, args, result)
                        if out is not None:
                            result = out
                    except Exception as e:
                        warnings.warn("forward hook with ``always_call=True`` raised an "
                                      f"exception that was silenced as another error was "
                                      f"raised in forward: {str(e)}")
                        continue
            raise

    def _get_backward_hooks(self):
        full = []
        if _global_is_full_backward_hook is True:
            full += list(_global_backward_hooks.values())
        if self._is_full_backward_hook is True:
            full += list(self._backward_hooks.values())
        pre = list(_global_backward_pre_hooks.values()) + \
            list(self._backward_pre_hooks.values())
        return full, pre

    # ---- hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        _hooks_registered()
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        _hooks_registered()
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        _hooks_registered()
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward "
                               "hooks on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        _hooks_registered()
        return handle

    def register_backward_hook(self, hook):
        """The deprecated form: hook(module, grad_input, grad_output) on the grad_fn of the
        output, with that node's gradients (not the module's inputs')."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward "
                               "hooks on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        _hooks_registered()
        return handle

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) before state_dict() saves this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) after this module is saved."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) before this module loads."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) after load_state_dict; may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ---- traversal

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                sub = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, sub, remove_duplicate)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        if len(atoms) == 1:
            parent = self
        else:
            parent = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buf = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buf

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    # ---- state dict

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if out is not None:
                destination = out
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Check this module's own entries of state_dict and queue their writes (in _PENDING);
        load_state_dict makes them once every module is checked and nothing failed."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent.items()) if v is not None}
        assign = (local_metadata or {}).get("assign_to_params_buffers", False)
        pending = _PENDING.setdefault(id(self), (self, []))[1]
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if is_lazy(param):
                continue        # (a lazy module's hook materialized it from a real value)
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                continue
            if param.ndim == 0 and value.ndim == 1:
                value = value[0]    # torch reads old checkpoints' 1-element scalars this way
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            pending.append((name, param, value, assign))
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                pending.append(("_extra_state", None, state_dict[extra_key], False))
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def _apply_loads(self, pending):
        """Write the checked values into the parameters and buffers (copy, or assign);
        returns a function that puts the old values back."""
        copies = [(p, p._data.copy()) for name, p, v, assign in pending
                  if p is not None and not assign]
        params, buffers = dict(self._parameters), dict(self._buffers)

        def restore():
            self._parameters.update(params)
            self._buffers.update(buffers)
            with no_grad():
                for p, old in copies:
                    np.copyto(p._data, old)
                    mark_written(p)
        for name, param, value, assign in pending:
            if name == "_extra_state" and param is None:
                self.set_extra_state(value)
            elif assign:
                if isinstance(param, Parameter):
                    if not isinstance(value, Parameter):
                        value = Parameter(value, requires_grad=param.requires_grad)
                    else:
                        value.requires_grad_(param.requires_grad)
                    self._parameters[name] = value
                else:
                    self._buffers[name] = value
            else:
                with no_grad():
                    np.copyto(param._data, value._data, casting="unsafe")
                    mark_written(param)
        return restore

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        _PENDING.clear()
        try:
            def load(module, local_state_dict, prefix=""):
                local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
                if assign:
                    local_metadata = dict(local_metadata, assign_to_params_buffers=assign)
                module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                             missing_keys, unexpected_keys, error_msgs)
                for name, child in module._modules.items():
                    if child is not None:
                        child_prefix = prefix + name + "."
                        child_state = {k: v for k, v in local_state_dict.items()
                                       if k.startswith(child_prefix)}
                        load(child, child_state, child_prefix)
            load(self, state_dict)
            undo = []
            if not error_msgs:
                for module, pending in list(_PENDING.values()):
                    undo.append(module._apply_loads(pending))
        finally:
            _PENDING.clear()
        incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
        for module in self.modules():
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise RuntimeError("Hooks registered with "
                                       "``register_load_state_dict_post_hook`` are not "
                                       "expected to return new values, if incompatible_keys "
                                       "need to be modified, it should be done inplace.")
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            # torch keeps what it copied before failing; ember puts the old values back
            for restore in reversed(undo):
                restore()
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return incompatible

    # ---- modes and gradients

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                if g._grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversion

    def _apply(self, fn, recurse=True):
        """fn on every parameter, gradient and buffer, keeping the Parameter objects (their
        data is replaced, as torch's param.data = fn(param) does)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            if is_lazy(param):
                # conversions of an uninitialized parameter give one of the new dtype
                _SLOT.__set__(param, _SLOT.__get__(fn(param)))
                continue
            with no_grad():
                new = fn(param)
            _set_data(param, new)
            grad = param._grad
            if grad is not None:
                with no_grad():
                    new_grad = fn(grad)
                _set_data(grad, new_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        dev_error, dtype, _ = _parse_to(args, kwargs)
        if dtype is not None and dtype.category < D.FLOAT:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        fmt = kwargs.get("memory_format")

        def convert(t):
            if dev_error is not None:
                raise dev_error
            cast = dtype is not None and (t.dtype.is_floating_point or t.dtype.is_complex)
            if fmt is not None and t.dim() in (4, 5):       # (torch converts only these)
                return t.to(dtype if cast else None, memory_format=fmt)
            if cast:
                return t.to(dtype)
            return t
        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t)

    def cuda(self, device=None):
        err = _device_error(device if device is not None else "cuda")

        def convert(t):
            if err is not None:
                raise err
            return t
        return self._apply(convert)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.dtype.is_floating_point else t)

    # ---- repr

    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


# load_state_dict checks every module before it writes anything, and puts the old values back
# if it then raises: module id -> (module, the (name, param, value, assign) writes queued)
_PENDING = {}


def _attach_node_hooks(module, args, result):
    """register_backward_hook's hooks go on the grad_fn of the first output tensor, seeing
    that node's gradients (summed to its inputs' shapes), with torch's deprecation warning
    where that is not the module's own input gradient."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    fn = var.grad_fn
    if fn is None:
        return
    outs = result if isinstance(result, tuple) else (result,)
    ins = args if isinstance(args, tuple) else (args,)
    if not all(isinstance(o, Tensor) for o in outs):
        warnings.warn("Using non-full backward hooks on a Module that does not return a single "
                      "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                      "versions. This hook will be missing some of the grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)
    elif len({o.grad_fn for o in outs}) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different "
                      "autograd Nodes is deprecated and will be removed in future versions. "
                      "This hook will be missing some grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)
    if not all(isinstance(i, Tensor) for i in ins):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a "
                      "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                      "future versions. This hook will be missing some of the grad_input. "
                      "Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)
    elif {i.grad_fn for i in ins if i.grad_fn is not None} != \
            {n for n, _ in fn.next_functions}:
        warnings.warn("Using a non-full backward hook when the forward contains multiple "
                      "autograd Nodes is deprecated and will be removed in future versions. "
                      "This hook will be missing some grad_input. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=3)

    def node_hook(grad_inputs, grad_outputs):
        grad_inputs = tuple(
            None if g is None or nxt is None else
            sum_to(g, nxt._meta[0] if nxt._n_outputs == 1 else nxt._meta[nr][0])
            for g, (nxt, nr) in zip(grad_inputs, fn.next_functions))
        for hook in module._backward_hooks.values():
            res = hook(module, grad_inputs, grad_outputs)
            if res is not None:
                grad_inputs = tuple(res)
        return grad_inputs
    fn.register_hook(node_hook)


def _set_data(t, new):
    """t.data = new for _apply: the same tensor object over new's array; a changed dtype or
    shape drops the cached AccumulateGrad (it records the old ones)."""
    if new is t:
        return
    arr = new._data
    if t._requires_grad and arr.dtype.kind not in "fc":
        raise RuntimeError("data set to a tensor that requires gradients must be floating "
                           "point or complex dtype")
    if arr.dtype != t._data.dtype or arr.shape != t._data.shape:
        t._acc = None
    t._data = arr


def _remove_from(name, *dicts_or_sets):
    for d in dicts_or_sets:
        if name in d:
            if isinstance(d, set):
                d.discard(name)
            else:
                del d[name]


def _typename(obj):
    """torch.typename: 'torch.FloatTensor' for a tensor, the class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    if module in ("builtins", "__builtin__", None):
        return name
    return f"{module}.{name}"
