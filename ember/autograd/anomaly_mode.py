"""torch.autograd's anomaly mode: detect_anomaly and set_detect_anomaly (the flags live in
grad_mode.ANOMALY; what they change is in graph.on_link and engine._hooked, Note [Anomaly])."""
import warnings

from . import graph
from .grad_mode import ANOMALY, is_anomaly_enabled, is_anomaly_check_nan_enabled

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def _set(mode, check_nan):
    """Set the anomaly flags; returns the previous (mode, check_nan)."""
    prev = (ANOMALY.enabled, ANOMALY.check_nan)
    if mode != prev[0]:
        graph.watch(1 if mode else -1)      # nodes keep their forward traceback (on_link)
    ANOMALY.enabled, ANOMALY.check_nan = mode, check_nan
    return prev


class detect_anomaly:
    """Context manager: anomaly detection inside its block (NaN gradients raise, failing nodes
    warn with the traceback of the forward call that made them)."""

    def __init__(self, check_nan=True):
        self.prev = None
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self.prev)
        return False


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): sets anomaly detection at once; as a context
    manager it restores the previous setting at the end of its block."""

    def __init__(self, mode, check_nan=True):
        if not isinstance(mode, bool):
            raise TypeError(f"set_detect_anomaly(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set(*self.prev)
        return False


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: set the anomaly flags (no warning, no context)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(enabled).__name__}")
    _set(enabled, check_nan)
