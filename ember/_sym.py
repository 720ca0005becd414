"""torch.sym_* on plain values, and torch's small top-level utilities (classproperty,
get_file_path, ...). Under torch.compile the sym_* functions build symbolic expressions; run
eagerly (always, in ember) they compute on Python numbers as below, with torch's checks and
messages (found by running torch 2.13). Loaded on first use (Note [Lazy subpackages])."""
import math
import os

import numpy as np

from .creation import tensor
from .ops._args import check_args

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sqrt",
           "sym_sum", "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size",
           "classproperty", "get_file_path", "compiled_with_cxx11_abi",
           "prepare_multiprocessing_environment", "thread_safe_generator",
           "DisableTorchFunction", "DisableTorchFunctionSubclass"]

_NUMBERS = (np.integer, np.floating, int, float)
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def sym_int(a):
    """int(a): a float is truncated toward zero."""
    return int(a)


def sym_float(a):
    return float(a)


def _check_number(v):
    if not isinstance(v, _NUMBERS):
        raise AssertionError(f"expected {_NUMBERS}, got {type(v)}")


def sym_max(a, b):
    """max(a, b), a float when either is one (sym_max(2, 2.0) is 2.0)."""
    _check_number(a)
    _check_number(b)
    r = b if b > a else a
    return float(r) if isinstance(a, (float, np.floating)) or \
        isinstance(b, (float, np.floating)) else r


def sym_min(a, b):
    _check_number(a)
    _check_number(b)
    r = b if b < a else a
    return float(r) if isinstance(a, (float, np.floating)) or \
        isinstance(b, (float, np.floating)) else r


def sym_not(a):
    return not a


def sym_ite(b, t, f):
    """t if b else f; b must be a bool and t, f of one type."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(*args):
    """The sum of the numbers (given as one list or tuple, or as arguments), from 0."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    total = 0
    for a in args:
        total = total + a
    return total


def _check_range(size, lo, hi):
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def _check_bounds(op, size, min, max):
    check_args(op, ("size", 1, "Number", size), ("min", None, "int", min, True),
               ("max", None, "int", max, True))


def sym_constrain_range(size, *, min=None, max=None):
    """Eagerly: check that size lies in [min, max] (int64's range where not given)."""
    _check_bounds("sym_constrain_range", size, min, max)
    _check_range(int(size), _INT64_MIN if min is None else min,
                 _INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size, *, min=None, max=None):
    """sym_constrain_range for a size: min defaults to 0, and a max must exceed 2."""
    _check_bounds("sym_constrain_range_for_size", size, min, max)
    if max is not None and max <= 2:
        raise RuntimeError(f"Max value to constrain_range_for_size must be greater than 2. "
                           f"got: {max}")
    _check_range(int(size), 0 if min is None else min, _INT64_MAX if max is None else max)


def sym_fresh_size(expr):
    """Eagerly: the value of expr, as tensor(expr).item() gives it."""
    return tensor(expr).item()


class _ClassPropertyDescriptor:
    """A read-only property read from the class (A.x) as from an instance (A().x)."""
    __slots__ = ("fget",)

    def __init__(self, fget):
        self.fget = fget

    def __get__(self, instance, owner=None):
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func):
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)


def get_file_path(*path_components):
    """A path below the directory that holds the package (site-packages for an installed
    ember), as torch's gives one below torch's."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(root, *path_components)


def compiled_with_cxx11_abi():
    """torch's wheels are built with _GLIBCXX_USE_CXX11_ABI=1 and report True; ember has no
    compiled code of its own and gives torch's answer, so extension build scripts that ask
    pick the same flags."""
    return True


def prepare_multiprocessing_environment(path):
    """A hook for torch's internal builds; the public build does nothing, nor does ember."""
    return None


def thread_safe_generator():
    """The DataLoader thread worker's generator inside one; None elsewhere. DataLoader workers
    are processes (in torch's public DataLoader as in ember's), so this is None: functions given
    generator=None use the global generator, as torch's do."""
    return None


class DisableTorchFunction:
    """Within the block torch skips __torch_function__ overrides. ember's ops dispatch to no
    overrides at all, so the block runs as it would anyway: entering returns None, as torch's."""
    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


class DisableTorchFunctionSubclass:
    """As DisableTorchFunction, for Tensor subclasses' overrides only (a class of its own, as
    in torch)."""
    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None
