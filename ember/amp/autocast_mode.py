"""torch.amp.autocast and the autocast state functions (torch.is_autocast_enabled, ...), as a
CPU-only torch 2.13 has them. The casts themselves: Note [Autocast hook] in ember/_amp_state.py.

CPU autocast's default dtype is bfloat16, which ember does not have: `autocast("cpu")` without
a dtype takes torch's own path for a dtype CPU autocast does not support (a UserWarning, then
the region runs with autocast off) with a message naming bfloat16; get_autocast_dtype("cpu")
raises a RuntimeError saying the same. `autocast("cpu", dtype=torch.float16)` is float16
autocast as torch runs it."""
import functools
import warnings

from .._amp_state import AUTOCAST, FLAG_TYPES, NO_BFLOAT16
from ..dtypes import dtype as _dtype_cls, float16
from ..tensor import Tensor, device as _device

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_UNKNOWN = "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
_CPU_UNSUPPORTED = ("In CPU autocast, but the target dtype is not supported. Disabling "
                    "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                    "torch.float16 currently.")


def _device_type(fn, device_type, position=1):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position {position}) must be str, "
                        f"not {type(device_type).__name__}")
    return _device(device_type).type


def _flag_type(fn, device_type):
    t = _device_type(fn, device_type)
    if t not in FLAG_TYPES:
        raise RuntimeError(_UNKNOWN)
    return t


def _state_dtype(t):
    dt = AUTOCAST.dtype.get(t)
    if dt is None:
        raise RuntimeError("unsupported scalarType")
    return dt


def is_autocast_available(device_type):
    t = _device_type("_is_autocast_available", device_type)
    return t in FLAG_TYPES


def is_autocast_enabled(*args, **kwargs):
    if not args and not kwargs:
        return AUTOCAST.enabled["cuda"]             # torch's no-argument form: CUDA's flag
    if len(args) + len(kwargs) != 1 or kwargs and "device_type" not in kwargs:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"is_autocast_enabled() received an invalid combination of arguments "
                        f"- got ({got}), but expected one of:\n * (str device_type)\n * ()\n")
    device_type = args[0] if args else kwargs["device_type"]
    return AUTOCAST.enabled[_flag_type("is_autocast_enabled", device_type)]


def _check_bool(fn, enabled, position):
    if not isinstance(enabled, bool):
        raise TypeError(f"{fn}(): argument 'enabled' (position {position}) must be bool, not "
                        f"{type(enabled).__name__}")


def _set_enabled(t, enabled):
    AUTOCAST.enabled[t] = enabled
    if t == "cpu":
        AUTOCAST.cpu = enabled


def set_autocast_enabled(*args):
    if len(args) == 1:
        _check_bool("set_autocast_enabled", args[0], 1)
        _set_enabled("cuda", args[0])
        return
    if len(args) != 2:
        raise TypeError(f"set_autocast_enabled() takes 1 or 2 positional arguments but "
                        f"{len(args)} were given")
    device_type, enabled = args
    _device_type("set_autocast_enabled", device_type)
    _check_bool("set_autocast_enabled", enabled, 2)
    _set_enabled(_flag_type("set_autocast_enabled", device_type), enabled)


def get_autocast_dtype(device_type):
    t = _device_type("get_autocast_dtype", device_type)
    dt = _state_dtype(t)
    if isinstance(dt, str):
        raise RuntimeError(NO_BFLOAT16 if t == "cpu" else
                           f"{device_type} autocast's default dtype is torch.bfloat16, which "
                           f"ember does not have")
    return dt


def set_autocast_dtype(device_type, dtype):
    if not isinstance(device_type, str):
        _device_type("set_autocast_dtype", device_type)
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"torch.dtype, not {type(dtype).__name__}")
    t = _device_type("set_autocast_dtype", device_type)
    if t in AUTOCAST.dtype:
        AUTOCAST.dtype[t] = dtype


def is_autocast_cache_enabled():
    return AUTOCAST.cache_enabled


def set_autocast_cache_enabled(enabled):
    _check_bool("set_autocast_cache_enabled", enabled, 1)
    AUTOCAST.cache_enabled = enabled


def autocast_increment_nesting():
    AUTOCAST.nesting += 1
    return AUTOCAST.nesting


def autocast_decrement_nesting():
    AUTOCAST.nesting -= 1
    return AUTOCAST.nesting


def clear_autocast_cache():
    AUTOCAST.cache.clear()


# ---------------------------------------------------------------- torch's deprecated spellings

def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return AUTOCAST.enabled["cpu"]


def is_autocast_ipu_enabled():
    _deprecated("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')")
    return AUTOCAST.enabled["ipu"]


def is_autocast_xla_enabled():
    _deprecated("is_autocast_xla_enabled()", "is_autocast_enabled('xla')")
    return AUTOCAST.enabled["xla"]


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _check_bool("set_autocast_cpu_enabled", enabled, 1)
    _set_enabled("cpu", enabled)


def set_autocast_ipu_enabled(enabled):
    _deprecated("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)")
    _check_bool("set_autocast_ipu_enabled", enabled, 1)
    _set_enabled("ipu", enabled)


def set_autocast_xla_enabled(enabled):
    _deprecated("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)")
    _check_bool("set_autocast_xla_enabled", enabled, 1)
    _set_enabled("xla", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def get_autocast_ipu_dtype():
    _deprecated("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')")
    return get_autocast_dtype("ipu")


def get_autocast_xla_dtype():
    _deprecated("get_autocast_xla_dtype()", "get_autocast_dtype('xla')")
    return get_autocast_dtype("xla")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def set_autocast_ipu_dtype(dtype):
    _deprecated("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)")
    set_autocast_dtype("ipu", dtype)


def set_autocast_xla_dtype(dtype):
    _deprecated("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)")
    set_autocast_dtype("xla", dtype)


# ---------------------------------------------------------------- the context manager

class autocast:
    """Context manager and decorator: ops torch's autocast lists run in `dtype` (lower
    precision) or float32 inside it; on CPU-only torch, "cuda" warns and does nothing."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        self.device = device_type
        t = _device_type("autocast", device_type)
        if t == "privateuseone":
            raise AssertionError(
                "Tried to use AMP with the `privateuseone` backend, but the backend has not "
                "registered a module or  the module miss some necessary funcs. The backend "
                "should register a module by `torch._register_device_module`, and the module "
                "must have these funcs: \n`get_amp_supported_dtype() -> List[torch.dtype]`. \n")
        self.fast_dtype = _state_dtype(t) if dtype is None else dtype
        if t == "hip":
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self._device_type = t
        self._cache_enabled = (AUTOCAST.cache_enabled if cache_enabled is None
                               else cache_enabled)
        self._enabled = enabled
        if t == "cuda":
            if enabled:
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        elif t == "cpu" and enabled:
            if isinstance(self.fast_dtype, str):        # bfloat16: not an ember dtype
                warnings.warn("In CPU autocast, but the target dtype is not supported. "
                              "Disabling autocast.\n" + NO_BFLOAT16 + ".",
                              UserWarning, stacklevel=2)
                self._enabled = False
            elif self.fast_dtype is not float16 and isinstance(self.fast_dtype, _dtype_cls):
                warnings.warn(_CPU_UNSUPPORTED, UserWarning, stacklevel=2)
                self._enabled = False

    def __enter__(self):
        t = self._device_type
        self.prev_cache_enabled = AUTOCAST.cache_enabled
        self.prev = AUTOCAST.enabled[t]
        self.prev_fastdtype = AUTOCAST.dtype[t]
        _set_enabled(t, self._enabled)
        if isinstance(self.fast_dtype, (_dtype_cls, str)):
            AUTOCAST.dtype[t] = self.fast_dtype
        autocast_increment_nesting()
        AUTOCAST.cache_enabled = bool(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        t = self._device_type
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        _set_enabled(t, self.prev)
        AUTOCAST.dtype[t] = self.prev_fastdtype
        AUTOCAST.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# ---------------------------------------------------------------- autograd.Function helpers

def _cast(value, device_type, dtype):
    if isinstance(value, Tensor):
        x = value._data
        if x.dtype.kind == "f" and x.dtype.itemsize != 8:
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates an autograd.Function's forward: records the autocast state for custom_bwd;
    with cast_inputs, runs forward with autocast off on inputs cast to that dtype."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    t = _device_type("custom_fwd", device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = AUTOCAST.dtype.get(t)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = AUTOCAST.enabled.get(t, False)
            return fwd(*args, **kwargs)
        autocast_context = AUTOCAST.enabled.get(t, False)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates an autograd.Function's backward: runs it with the autocast state its
    forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
