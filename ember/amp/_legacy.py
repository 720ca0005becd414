"""torch.cuda.amp and torch.cpu.amp: torch's deprecated spellings of torch.amp, each warning
with torch's FutureWarning (ember/cuda.py and ember/cpu.py expose them as their .amp)."""
import types
import warnings

from . import autocast_mode as _am, grad_scaler as _gs
from ..dtypes import float16

_MSG = "`torch.{mod}.amp.{name}(args...)` is deprecated. Please use `torch.amp.{new}` instead."


def _warn(mod, name, new):
    warnings.warn(_MSG.format(mod=mod, name=name, new=new), FutureWarning, stacklevel=3)


class _CudaAutocast(_am.autocast):
    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        _warn("cuda", "autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class _CpuAutocast(_am.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _warn("cpu", "autocast", "autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class _CudaGradScaler(_gs.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _warn("cuda", "GradScaler", "GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


class _CpuGradScaler(_gs.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _warn("cpu", "GradScaler", "GradScaler('cpu', args...)")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def _cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    _warn("cuda", "custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return _am.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def _cuda_custom_bwd(bwd):
    _warn("cuda", "custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return _am.custom_bwd(bwd, device_type="cuda")


def amp_definitely_not_available():
    return True             # no CUDA in ember


def _module(name, doc, **attrs):
    m = types.ModuleType(name, doc)
    for k, v in attrs.items():
        if getattr(v, "__module__", None) == __name__:     # ours: named as torch names them
            v.__name__ = v.__qualname__ = k
            v.__module__ = name
        setattr(m, k, v)
    return m


cuda_amp = _module("ember.cuda.amp", "torch.cuda.amp (deprecated: torch.amp)",
                   autocast=_CudaAutocast, GradScaler=_CudaGradScaler,
                   custom_fwd=_cuda_custom_fwd, custom_bwd=_cuda_custom_bwd,
                   amp_definitely_not_available=amp_definitely_not_available,
                   autocast_mode=_am, grad_scaler=_gs)
cuda_amp.common = _module("ember.cuda.amp.common", None,
                          amp_definitely_not_available=amp_definitely_not_available)
cpu_amp = _module("ember.cpu.amp", "torch.cpu.amp (deprecated: torch.amp)",
                  autocast=_CpuAutocast, GradScaler=_CpuGradScaler,
                  autocast_mode=_am, grad_scaler=_gs)
