"""torch.Stream, torch.Event and torch.get_device_module for the one device ember has: the CPU,
where work runs in order as it is issued, so a stream is always done and synchronizing waits
for nothing. Other device types get a CPU-only torch's errors. Loaded on first use (Note [Lazy
subpackages])."""
import importlib

from .tensor import device as _dev

__all__ = ["Stream", "Event", "get_device_module"]

_NO_EVENTS = "cpu backend doesn't support events."
_TYPE_NUMBERS = {"cpu": 0, "meta": 14}      # torch's DeviceType enum values


def _parse(cls, args, kwargs, allowed):
    """The device argument (positional or keyword) after torch's checks of the call."""
    if len(args) > 1:
        raise TypeError(f"{cls}() takes from 0 to 1 positional arguments but {len(args)} were "
                        f"given")
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"{cls}() got an unexpected keyword argument '{k}'")
    return args[0] if args else kwargs.get("device")


def _device(device):
    d = _dev("cpu") if device is None else device if isinstance(device, _dev) else None
    if d is None:
        if isinstance(device, str):
            d = _dev(device)
        elif isinstance(device, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        else:
            raise TypeError(f"Stream(): argument 'device' must be torch.device, not "
                            f"{type(device).__name__}")
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")
    return d


class Stream:
    """Stream(device=None, *, priority=0): an in-order queue of work on a device."""
    __slots__ = ("_type", "device_index", "stream_id")

    def __init__(self, *args, **kwargs):         # (device=None, *, priority=0)
        self._type = _device(_parse("Stream", args, kwargs, ("device", "priority"))).type
        self.device_index = -1
        self.stream_id = 0

    @property
    def device_type(self):
        return _TYPE_NUMBERS[self._type]

    @property
    def device(self):
        return _dev(self._type)

    def query(self):
        return True

    def synchronize(self):
        return None

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        raise RuntimeError(_NO_EVENTS)

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def is_capturing(self):
        return False

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device_type, self.device_index,
                                              self.stream_id) == (other.device_type,
                                                                  other.device_index,
                                                                  other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self._type}, device_index="
                f"{self.device_index}, stream_id={self.stream_id}")


class Event:
    """Event(device=None, *, enable_timing=False, blocking=False, interprocess=False): a
    marker in a stream. On the CPU every event has already happened; recording one is
    refused, as in torch."""
    __slots__ = ("_device_type", "_flag", "event_id")

    def __init__(self, *args, **kwargs):
        # (device=None, *, enable_timing=False, blocking=False, interprocess=False)
        self._device_type = _device(_parse("Event", args, kwargs, (
            "device", "enable_timing", "blocking", "interprocess"))).type
        self._flag = 1 if kwargs.get("enable_timing") else 0
        self.event_id = 0

    @property
    def device(self):
        return _dev(self._device_type)

    def query(self):
        return True

    def record(self, stream=None):
        raise RuntimeError(_NO_EVENTS)

    def synchronize(self):
        return None

    def wait(self, stream=None):
        return None

    def elapsed_time(self, end_event):
        if not (self._flag and getattr(end_event, "_flag", 0)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise RuntimeError(_NO_EVENTS)

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    def __repr__(self):
        return (f"torch.Event device_type={self._device_type}, device_index=-1, event_flag="
                f"{self._flag}, event_id={self.event_id}")


def get_device_module(device=None):
    """The module for a device type: ember.cpu (also with no device: there is no
    accelerator) or ember.cuda; other types have no module in ember."""
    if device is None:
        name = "cpu"
    elif isinstance(device, _dev):
        name = device.type
    elif isinstance(device, str):
        name = _dev(device).type
    else:
        hash(device)            # (torch looks the value up first: a list is unhashable)
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           f"None")
    if name not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.")
    return importlib.import_module("ember." + name)
