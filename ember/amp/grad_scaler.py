"""torch.amp.GradScaler: dynamic loss scaling for mixed-precision training, as torch 2.13 runs
it on the CPU (GradScaler("cpu")); GradScaler("cuda") on a CPU-only torch warns and turns
into a pass-through (scale returns its input, step calls optimizer.step())."""
import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from ..autograd.grad_mode import no_grad
from ..creation import full
from ..dtypes import float32, int32
from ..tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None                  # a float32 0-d tensor once scale() ran
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None         # an int32 0-d tensor once scale() ran
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  " + fix
        assert self._growth_tracker is not None, \
            f"Attempted {funcname} but _growth_tracker is None.  " + fix
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = full((), self._init_scale, dtype=float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=int32)

    def scale(self, outputs):
        """outputs (a tensor, or lists/tuples/iterables of them) times the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale
            if isinstance(val, (list, tuple)):
                iterable = map(apply_scale, val)
                return type(val)(iterable)
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiplies every gradient by inv_scale in place; found_inf becomes 1.0 where one
        of them holds an inf or a NaN. Returns {device: found_inf} (empty: no gradients)."""
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype.name == "float16":
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(param.grad)
        if not grads:
            return {}
        with no_grad():
            for g in grads:
                x = g._data
                if not np.isfinite(x).all():
                    found_inf.fill_(1.0)
                g.mul_(inv_scale)      # in the gradient's dtype, as torch's kernel
        return {found_inf.device: found_inf}

    def unscale_(self, optimizer):
        """Divides optimizer's gradients by the scale factor (once per step)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in float64, rounded to float32 (a power of two: exact)
        inv_scale = full((), float(np.float32(1.0 / float(self._scale.item()))), dtype=float32)
        found_inf = full((), 0.0, dtype=float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer, *args, **kwargs):
        """Unscales (if unscale_ was not called) and runs optimizer.step() unless a gradient
        holds an inf or a NaN; returns what optimizer.step() returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, \
            "No inf checks were recorded for this optimizer."
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after an inf/NaN step, grows it after growth_interval clean
        steps in a row, or sets it to new_scale."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor "
                          "or torch.FloatTensor with requires_grad=False.")
                assert new_scale.device.type == "cpu", reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found_inf = sum(float(f.item()) for f in found_infs)
            scale = float(_scale.item())
            tracker = int(_growth_tracker.item())
            if found_inf:
                scale = float(np.float32(scale * self._backoff_factor))
                tracker = 0
            else:
                tracker += 1
                if tracker == self._growth_interval:
                    grown = np.float32(scale * self._growth_factor)
                    if np.isfinite(grown):
                        scale = float(grown)
                    tracker = 0
            _scale.fill_(scale)
            _growth_tracker.fill_(tracker)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale factor as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else int(self._growth_tracker.item()))
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            assert len(self._per_optimizer_states) == 0, (
                "A GradScaler instance may only be pickled at the beginning of an iteration, "
                "or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
