"""torch.amp: autocast, GradScaler and the autograd.Function helpers (Note [Autocast hook] in
ember/_amp_state.py). torch.cuda.amp and torch.cpu.amp (deprecated spellings) are in
_legacy.py."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler
from . import autocast_mode, grad_scaler  # noqa: F401  (torch.amp.autocast_mode, .grad_scaler)

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
