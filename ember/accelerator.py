"""ember.accelerator: torch's device-agnostic accelerator API. ember has none (it computes on
the CPU), so queries answer "no accelerator" and device operations raise torch's error."""
from .tensor import NO_ACCELERATOR


def is_available():
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    return None


def _none(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


current_device_index = current_device_idx = set_device_index = set_device_idx = _none
synchronize = current_stream = set_stream = _none


def empty_cache():
    pass
