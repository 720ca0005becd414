"""ember.cuda as a CPU-only torch has it: no devices; seeding, cache and memory queries are
harmless no-ops; anything that needs a device raises torch's "not compiled with CUDA" error."""
import sys
import warnings
from collections import OrderedDict

from .legacy import CUDA_TYPES
from .tensor import Tensor, device as _device

NOT_COMPILED = "Torch not compiled with CUDA enabled"

FloatTensor = CUDA_TYPES["FloatTensor"]
DoubleTensor = CUDA_TYPES["DoubleTensor"]
HalfTensor = CUDA_TYPES["HalfTensor"]
LongTensor = CUDA_TYPES["LongTensor"]
IntTensor = CUDA_TYPES["IntTensor"]
ShortTensor = CUDA_TYPES["ShortTensor"]
CharTensor = CUDA_TYPES["CharTensor"]
ByteTensor = CUDA_TYPES["ByteTensor"]
BoolTensor = CUDA_TYPES["BoolTensor"]

has_half = True
has_magma = False


class OutOfMemoryError(RuntimeError):
    pass


def _no_cuda(*args, **kwargs):
    raise AssertionError(NOT_COMPILED)


# ---------------------------------------------------------------- availability

def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


init = current_device = synchronize = get_device_name = get_device_capability = _no_cuda
get_device_properties = mem_get_info = ipc_collect = current_stream = default_stream = _no_cuda
set_per_process_memory_fraction = can_device_access_peer = get_sync_debug_mode = _no_cuda
set_device = reset_peak_memory_stats = reset_max_memory_allocated = initial_seed = _no_cuda
get_rng_state = cudart = current_blas_handle = _no_cuda


# ---------------------------------------------------------------- seeding (no-ops without devices)

def manual_seed(seed):
    int(seed)           # torch converts the seed before finding there is no device


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def set_rng_state(new_state, device="cuda"):
    pass


def get_rng_state_all():
    return []


def set_rng_state_all(new_states):
    pass


# ---------------------------------------------------------------- memory (nothing allocated)

def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return 0


def max_memory_cached(device=None):
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def memory_stats(device=None):
    return OrderedDict()


# ---------------------------------------------------------------- device and stream contexts

def _index(d):
    """The CUDA device index a device argument names (-1: none)."""
    if d is None:
        return -1
    if isinstance(d, int):
        return d
    d = _device(d)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return -1 if d.index is None else d.index


class device:
    """Context manager selecting a CUDA device: entering it fails without CUDA (a no-op for
    index -1, as in torch)."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx != -1:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """The device context of a tensor's device: CPU tensors select nothing."""

    def __init__(self, obj):
        super().__init__(None if isinstance(obj, Tensor) else obj)


class StreamContext:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _no_cuda()

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


def set_stream(stream):
    pass


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


# torch.cuda.amp (a subpackage in torch): registered so that `from torch.cuda.amp import
# autocast, GradScaler` works too
from .amp._legacy import cuda_amp as amp  # noqa: E402

sys.modules[__name__ + ".amp"] = amp
