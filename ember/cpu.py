"""torch.cpu: the CPU as a device module (get_device_module("cpu")), with the stream and event
API the accelerator modules have; the CPU runs work in order, so all of it is immediate."""

import sys

__all__ = ["is_available", "is_initialized", "current_device", "device_count", "synchronize",
           "set_device", "current_stream", "stream", "StreamContext", "Stream", "Event"]


def is_available():
    return True


def is_initialized():
    return True


def current_device():
    return "cpu"


def device_count():
    return 1


def synchronize(device=None):
    return None


def set_device(device):
    return None


class Stream:
    """The CPU's (only) stream."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        return None

    def record_event(self):
        return None

    def wait_event(self, event):
        return None


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        return None

    def synchronize(self):
        return None

    def wait(self, stream=None):
        return None


_current = Stream()


def current_stream(device=None):
    return _current


class StreamContext:
    """Selects a stream for a with block (on the CPU there is one: nothing changes)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _current

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def stream(stream):
    return StreamContext(stream)


# torch.cpu.amp (a subpackage in torch): registered so that `from torch.cpu.amp import
# autocast` works too
from .amp._legacy import cpu_amp as amp  # noqa: E402

sys.modules[__name__ + ".amp"] = amp
