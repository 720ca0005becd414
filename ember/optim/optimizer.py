"""Optimizer: parameter groups, per-parameter state, hooks and state dicts in torch's layout.

Subclasses implement `step`; their updates work on the NumPy arrays of parameters and state
(`p._data`, whole arrays, in place) so no graph is recorded, and call `_bump(p)` once per
in-place write of a parameter, as torch's version counter counts them."""
import copy
import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from ..ops._views import mark_written as _bump  # (subclasses use it too)
from ..tensor import Tensor, wrap
from ..autograd.grad_mode import enable_grad, set_grad_enabled
from ..dtypes import get_default_dtype

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton marking a default that every parameter group must give itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_GLOBAL_PRE_HOOKS = OrderedDict()
_GLOBAL_POST_HOOKS = OrderedDict()


class RemovableHandle:
    """Handle returned by the register_*_hook methods; `remove()` unregisters the hook."""

    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        self.hooks_dict_ref.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register(hooks, hook, prepend=False):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """A hook run before every optimizer's step: hook(optimizer, args, kwargs)."""
    return _register(_GLOBAL_PRE_HOOKS, hook)


def register_optimizer_step_post_hook(hook):
    """A hook run after every optimizer's step: hook(optimizer, args, kwargs)."""
    return _register(_GLOBAL_POST_HOOKS, hook)


def typename(obj):
    """torch.typename: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", "", None) else \
        f"{module}.{cls.__qualname__}"


def _hooked(step):
    """Wrap a subclass's step so global and per-optimizer step hooks run around it."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for hook in itertools.chain(tuple(_GLOBAL_PRE_HOOKS.values()),
                                    tuple(self._optimizer_step_pre_hooks.values())):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = step(*args, **kwargs)
        for hook in itertools.chain(tuple(self._optimizer_step_post_hooks.values()),
                                    tuple(_GLOBAL_POST_HOOKS.values())):
            hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


def _grad_mode_step(step):
    """A built-in optimizer's step runs with grad mode off, as torch's (on with
    differentiable=True); the closure turns it back on (closure_loss). A user's subclass
    that defines its own step keeps the caller's mode, as in torch."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)
    return wrapper


class Optimizer:
    """Base class of all optimizers (torch.optim.Optimizer)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("ember.optim") and "step" in cls.__dict__:
            cls.step = _grad_mode_step(cls.step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._init_hooks()
        self._patch_step_function()
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {typename(params)}")
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    def _init_hooks(self):
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()

    def _patch_step_function(self):
        """Make the class's step run the step hooks. Like torch, this patches the class of
        the first instance made (so a subclass's step that calls super().step() runs the
        hooks twice only once the parent class has had an instance of its own)."""
        cls = self.__class__
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{cls.__name__}.zero_grad"
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    # group options an older pickle may lack, and the state entries kept as 0-d step tensors
    # (a subclass names its own; __setstate__ restores both)
    _group_defaults = {}
    _step_keys = ("step",)

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_optimizer_step_pre_hooks" not in self.__dict__:
            self._init_hooks()
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_defaults.items():
                group.setdefault(key, value)
            for p in group["params"]:
                st = self.state.get(p, {})
                if len(st) != 0:
                    for key in self._step_keys:
                        if key in st:
                            st[key] = as_step_tensor(st[key])

    def __repr__(self):
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    # ---- parameter groups ----
    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with 'params' and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        named = [isinstance(p, tuple) for p in params]
        if any(named):
            if not all(named):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        param_group["params"] = params
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(p))
            if not self.defaults.get("differentiable", None) and \
                    not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in params]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                with_ = "with" if "param_names" in param_group else "without"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {with_} names to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None, or to zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g._grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    # ---- hooks ----
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs), after step."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer), before state_dict() builds its result."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a replacement state dict."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a replacement, before loading."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer), after loading."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dicts ----
    def state_dict(self):
        """{'state': {index: per-parameter state}, 'param_groups': [options + 'params':
        indices]}: parameters are numbered in group order; state tensors are not copied."""
        for hook in tuple(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        out = {"state": state, "param_groups": groups}
        for hook in tuple(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, out)
            if result is not None:
                out = result
        return out

    def load_state_dict(self, state_dict):
        """Load a state dict made by state_dict() (this optimizer's or torch's layout)."""
        state_dict = state_dict.copy()
        for hook in tuple(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(itertools.chain.from_iterable(s["params"] for s in saved),
                          itertools.chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, new in zip(groups, saved):
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
            new_groups.append(new)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in tuple(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # ---- helpers for subclasses ----
    def _params_with_grad(self, group):
        """The group's parameters that have a gradient, after the group's option checks."""
        params = [p for p in group["params"] if p._grad is not None]
        self._check_differentiable(group, params)
        self._check_capturable(group)
        return params

    def _check_differentiable(self, group, params):
        """differentiable=True runs torch's step with grad mode on (whatever the caller's),
        where the in-place write into a leaf that requires grad fails; ember refuses it the
        same way, before any state changes."""
        if group.get("differentiable") and any(p._requires_grad for p in params):
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")

    def _check_capturable(self, group):
        if group.get("capturable"):
            raise AssertionError("If capturable=True, params and state_steps must be on "
                                 "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', "
                                 "'xla'].")


def _cast_state(param, value, key=None):
    """A loaded state value, its tensors cast to the parameter's dtype ('step' kept as is)."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        # cast to a floating (not complex: torch's is_floating_point) parameter's dtype
        if param._data.dtype.kind == "f" and value._data.dtype != param._data.dtype:
            return wrap(value._data.astype(param._data.dtype))
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, key) for v in value)
    return value


# ---- building blocks of the updates (NumPy, in place) ----

def scalar_dtype():
    """dtype of the 0-d 'step' tensors: the default float dtype, as in torch."""
    return get_default_dtype().np


def new_step():
    return wrap(np.zeros((), scalar_dtype()))


def as_step_tensor(value):
    """A 'step' loaded as a number becomes a 0-d tensor of the default dtype."""
    if isinstance(value, Tensor):
        return value
    return wrap(np.array(float(value), scalar_dtype()))


def bump_step(step_t):
    """step_t += 1 in place (a 0-d array), returning the new count as a Python float."""
    a = step_t._data
    a += 1
    return float(a)


def real(arr):
    """Complex parameters are updated as pairs of reals (torch's view_as_real)."""
    if arr.dtype.kind == "c":
        return arr.view(arr.real.dtype).reshape(arr.shape + (2,)) if arr.ndim else \
            arr.reshape(1).view(arr.real.dtype)
    return arr


def lerp_(out, end, weight):
    """out.lerp_(end, weight) for a scalar weight, with torch's two forms."""
    diff = end - out
    if abs(weight) < 0.5:
        diff *= weight
        out += diff
    else:
        diff *= 1.0 - weight
        np.subtract(end, diff, out=out)


# ---- torch's fused multiply-adds: rounded once, for updates that match torch bit for bit ----

def _split(x):
    """Veltkamp's split of float64 x into hi + lo of at most 26 significant bits each, so that
    products of the parts are exact."""
    t = x * 134217729.0                  # 2**27 + 1
    hi = t - (t - x)
    return hi, x - hi


def fma(a, b, c):
    """a * b + c with one rounding, as torch's vectorised CPU kernels compute it. float64:
    Dekker's exact product and Knuth's two-sum, the small parts added last (one rounding but
    in rare near-ties); narrower: in float64, where the product is exact, then rounded to the
    dtype (a second rounding that matters only in a tie)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    if dtype != np.float64:
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(dtype)
    ph = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl      # a*b == ph + pl exactly
    s = ph + c
    bb = s - ph
    e = (ph - (s - bb)) + (c - bb)                            # ph + c == s + e exactly
    return s + (e + pl)


def opmath(dtype):
    """The dtype torch computes a pointwise op of `dtype` in: float64, or float32 for
    float32 and float16 (torch's opmath type)."""
    return np.float64 if dtype == np.float64 else np.float32


def lerp_fused_(out, end, weight):
    """out.lerp_(end, weight) for a scalar weight, bit for bit as torch's kernel: in the
    opmath dtype, diff = end - out, then one fused multiply-add, out + weight * diff for
    |weight| < 0.5 and end - (1 - weight) * diff otherwise. (lerp_ above rounds the product
    and the sum apart: cheaper, and one rounding off torch now and then.)"""
    ct = opmath(out.dtype)
    o, e = out.astype(ct, copy=False), np.asarray(end).astype(ct, copy=False)
    w = ct(weight)
    diff = e - o
    out[...] = fma(w, diff, o) if abs(w) < 0.5 else fma(-(ct(1) - w), diff, e)


def add_scaled_(out, other, alpha):
    """out.add_(other, alpha=alpha) as torch computes it: out + alpha * other in the opmath
    dtype, alpha too, fused. (For float16 that is torch's float16 + bfloat16, Muon's case;
    float16 + float16 rounds alpha to float16 first.)"""
    ct = opmath(out.dtype)
    out[...] = fma(ct(alpha), np.asarray(other).astype(ct, copy=False),
                   out.astype(ct, copy=False))


def addcmul_sq_(out, x, value):
    """out += value * x * x (torch's addcmul_(x, x, value)); returns the temporary array,
    free for reuse."""
    t = np.multiply(x, value)
    t *= x
    out += t
    return t


def grad_of(p, maximize):
    """The array a step reads as gradient: -grad when maximizing (never written to)."""
    g = real(p._grad._data)
    return np.negative(g) if maximize else g


def with_weight_decay(grad, param, weight_decay):
    """grad + weight_decay * param (a new array)."""
    t = np.multiply(param, weight_decay)
    t += grad
    return t


def lr_value(lr):
    """A learning rate given as a 1-element Tensor is read as a Python float."""
    return float(lr.item()) if isinstance(lr, Tensor) else lr


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def closure_loss(closure):
    """Evaluate a step's closure with grad mode on."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def adam_family_params(opt, group, moments, extra=()):
    """The start of an Adam-family update (Adam, AdamW, Adamax, NAdam, RAdam), for each
    parameter of `group` that has a gradient: its state made on first use (step, the `extra`
    (key, factory(p)) pairs, exp_avg, then the `moments` keys, zeros: torch's order), the step
    counted, and the gradient (negated for maximize) with the weight decay applied: added to
    the gradient, or, with decoupled_weight_decay, taken straight off the parameter.
    Yields (p, state, step, param, grad)."""
    lr, wd = lr_value(group["lr"]), group["weight_decay"]
    decoupled = group.get("decoupled_weight_decay", False)
    for p in opt._params_with_grad(group):
        state = opt.state[p]
        if len(state) == 0:
            state["step"] = new_step()
            for key, factory in extra:
                state[key] = factory(p)
            state["exp_avg"] = zeros_state(p)
            for key in moments:
                state[key] = zeros_state(p)
        step = bump_step(state["step"])
        param = real(p._data)
        grad = grad_of(p, group["maximize"])
        if wd != 0:
            if decoupled:
                param *= 1 - lr * wd
                _bump(p)
            else:
                grad = with_weight_decay(grad, param, wd)
        yield p, state, step, param, grad


def zeros_state(p, fill=0.0):
    """A state tensor shaped and typed like parameter p, filled with `fill`."""
    return wrap(np.full(p._data.shape, fill, p._data.dtype))
