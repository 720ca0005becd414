"""Process-wide settings torch keeps in its context: the default device, the number of BLAS
threads, deterministic-algorithm flags, float32 matmul precision, warn-always, denormals.

ember computes on the CPU with NumPy, whose results do not depend on these flags (NumPy's
algorithms are deterministic and its float32 matmul is full precision), so most of them are
recorded and reported back as torch reports them; the thread count is applied to the BLAS
library NumPy loaded (OpenBLAS or MKL), found in the process's mapped libraries."""
import ctypes
import os
import warnings

from .tensor import device, check_device


class _Settings:
    __slots__ = ("device", "threads", "interop", "deterministic", "warn_only", "precision",
                 "warn_always")


SETTINGS = _Settings()
SETTINGS.device = None          # None: the CPU, as torch's unset default
SETTINGS.threads = None         # None: the BLAS library's own count, read when asked
SETTINGS.interop = None
SETTINGS.deterministic = False
SETTINGS.warn_only = False
SETTINGS.precision = "highest"
SETTINGS.warn_always = False


# ---------------------------------------------------------------- default device

def set_default_device(device_):
    if device_ is None:
        SETTINGS.device = None
        return
    d = device(device_)
    SETTINGS.device = None if d.type == "cpu" else d


def get_default_device():
    d = SETTINGS.device
    if d is None:
        return device("cpu")
    check_device(d)
    return d


def factory_device(device_):
    """The device a factory call makes its tensor on: its argument, else the default."""
    return SETTINGS.device if device_ is None else device_


# ---------------------------------------------------------------- threads

_BLAS_SETTERS = ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_",
                 "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
                 "MKL_Set_Num_Threads")
_BLAS_GETTERS = ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_",
                 "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
                 "MKL_Get_Max_Threads")
_BLAS = []              # [(setter, getter)] once looked up


def _blas():
    """The (set, get) thread functions of the BLAS libraries loaded in this process."""
    if _BLAS:
        return _BLAS[0]
    found = None
    for path in _loaded_libraries():
        name = os.path.basename(path).lower()
        if "blas" not in name and "mkl" not in name:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        setter = next((getattr(lib, s) for s in _BLAS_SETTERS if hasattr(lib, s)), None)
        getter = next((getattr(lib, g) for g in _BLAS_GETTERS if hasattr(lib, g)), None)
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            found = (setter, getter)
            break
    _BLAS.append(found)
    return found


def _loaded_libraries():
    """Paths of the shared libraries mapped into this process (Linux: /proc/self/maps)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            rows = [line.split(None, 5) for line in f]
        paths = {r[5].strip() for r in rows if len(r) == 6}
    except OSError:
        return []
    return sorted(p for p in paths if ".so" in p and p.startswith("/"))


def _int_arg(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(int_):
    _int_arg(int_, "set_num_threads")
    blas = _blas()
    if blas is not None:
        blas[0](int_)
    SETTINGS.threads = int_


def get_num_threads():
    blas = _blas()
    if blas is not None:
        return blas[1]()
    return SETTINGS.threads if SETTINGS.threads is not None else (os.cpu_count() or 1)


def set_num_interop_threads(int_):
    _int_arg(int_, "set_num_interop_threads")
    if SETTINGS.interop is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    SETTINGS.interop = int_


def get_num_interop_threads():
    return SETTINGS.interop if SETTINGS.interop is not None else (os.cpu_count() or 1)


def init_num_threads():
    pass            # torch initialises OpenMP's per-thread state here; NumPy has none


# ---------------------------------------------------------------- determinism

def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    SETTINGS.deterministic = mode
    SETTINGS.warn_only = warn_only if mode else False


def are_deterministic_algorithms_enabled():
    return SETTINGS.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return SETTINGS.warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not SETTINGS.deterministic:
        return 0
    return 1 if SETTINGS.warn_only else 2


# ---------------------------------------------------------------- precision, warnings

def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    SETTINGS.precision = precision     # NumPy's float32 matmul is always full precision


def get_float32_matmul_precision():
    return SETTINGS.precision


def set_warn_always(b):
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    SETTINGS.warn_always = b


def is_warn_always_enabled():
    return SETTINGS.warn_always


def set_flush_denormal(mode):
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False        # NumPy offers no way to set the FPU's flush-to-zero mode: unsupported
