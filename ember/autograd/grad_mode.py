"""Grad mode: a thread-local flag and the context managers / decorators that set it; inference
mode; the anomaly-mode flags the engine reads (the front end is autograd/anomaly_mode.py)."""
import functools
import inspect
import threading

from .. import tensor as _tensor
from ..tensor import INFERENCE


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.grad = False


# Ops read `STATE.enabled` once each to decide whether to link a node. In inference mode it is
# False whatever the grad mode says: `STATE.grad` then holds the grad mode that
# is_grad_enabled reports (torch records nothing in inference mode, even under enable_grad).
STATE = _State()
_tensor.GRAD = STATE


def is_grad_enabled():
    return STATE.grad if INFERENCE.on else STATE.enabled


def is_inference_mode_enabled():
    return INFERENCE.on


def _set_grad(mode):
    """Set the grad mode; returns the previous one."""
    s = STATE
    if INFERENCE.on:
        prev, s.grad = s.grad, mode
    else:
        prev, s.enabled = s.enabled, mode
    return prev


class _Mode:
    """Base: a context manager that sets grad mode on enter and restores it on exit,
    usable as a decorator with or without parentheses (`@no_grad` and `@no_grad()`)."""

    mode = None

    def __new__(cls, orig_func=None):
        if orig_func is None or not callable(orig_func):
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None):
        self.prev = []

    def clone(self):
        return type(self)()

    def __enter__(self):
        self.prev.append(_set_grad(self.mode))

    def __exit__(self, *exc):
        _set_grad(self.prev.pop())
        return False

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            request = gen.throw(exc)
                    else:
                        with self.clone():
                            try:
                                request = gen.send(response)
                            except StopIteration as stop:
                                return stop.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    mode = False


class enable_grad(_Mode):
    mode = True


# Note [Inference tensors]: inference_mode(True) records nothing (STATE.enabled is False
# whatever the grad mode) and marks every tensor made in it: while some thread is in the mode,
# `wrap` (the one constructor of unrecorded tensors) calls `_mark`, which gives tensors made
# in an inference-mode thread an `_x` of type _InferenceX. Views and aliases of them carry
# the mark (ember/ops/_views.py). Outside the mode, torch refuses to save them for backward,
# to update them in place or to make them require grad; the saving check runs where nodes are
# linked (autograd/graph.py), only while some marked tensor is alive: _InferenceX counts the
# live ones and tells graph.py (through `_watcher`) when the first appears and the last dies.
_lock = threading.RLock()     # (re-entrant: a __del__ below may run while it is held)
_threads_in_mode = 0        # inference_mode(True) contexts open, over all threads
_live = 0                   # live inference tensors (their _x dicts)
_watcher = None             # graph.watch (set by autograd/graph.py: it imports this module)


def set_watcher(fn):
    global _watcher
    _watcher = fn


class _InferenceX(dict):
    """The `_x` dict of an inference tensor: counts the live ones (Note [Inference tensors])."""
    __slots__ = ()

    def __init__(self, *args):
        global _live
        dict.__init__(self, *args)
        self["inference"] = True
        with _lock:
            _live += 1
            first = _live == 1
        if first and _watcher is not None:
            _watcher(1)

    def __del__(self):
        global _live
        with _lock:
            _live -= 1
            last = _live == 0
        if last and _watcher is not None:
            _watcher(-1)


def inference_x(items=()):
    """A fresh `_x` dict marking a tensor as an inference tensor (views of one use it)."""
    return _InferenceX(items)


def _mark(t):
    if INFERENCE.on:
        t._x = _InferenceX()


def _count_mode(delta):
    global _threads_in_mode
    with _lock:
        _threads_in_mode += delta
        _tensor.set_inference_mark(_mark if _threads_in_mode else None)


class inference_mode(_Mode):
    """Inference mode: no recording and tensors marked as inference tensors (Note [Inference
    tensors]); inference_mode(False) leaves it (and enables grad) for its block."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.prev = []
        self.mode = mode

    def clone(self):
        return type(self)(self.mode)

    def __enter__(self):
        s = STATE
        on = INFERENCE.on
        self.prev.append((s.enabled, s.grad, on))
        if self.mode:
            if not on:
                _count_mode(1)
                INFERENCE.on = True
            s.enabled = s.grad = False
        else:
            if on:
                INFERENCE.on = False
                _count_mode(-1)
            s.enabled = True

    def __exit__(self, *exc):
        s = STATE
        s.enabled, s.grad, on = self.prev.pop()
        if on != INFERENCE.on:
            INFERENCE.on = on
            _count_mode(1 if on else -1)
        return False


class set_grad_enabled(_Mode):
    """Sets the mode at construction, so it also works as a plain function call."""

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.prev = [_set_grad(mode)]
        self.mode = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set_grad(self.prev[0])
        return False

    def clone(self):
        return _SetMode(self.mode)


class _SetMode(_Mode):
    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.prev = []
        self.mode = mode


# ---------------------------------------------------------------- anomaly mode (flags)

class _Anomaly:
    """Anomaly mode's state, process-wide as torch's: `enabled` makes new nodes keep their
    forward traceback and the engine check each node; `check_nan` refuses NaN gradients."""
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


ANOMALY = _Anomaly()


def is_anomaly_enabled():
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    return ANOMALY.check_nan


# ---------------------------------------------------------------- multithreading (a flag)
# torch's engine may run backward on worker threads; ember's runs on the calling thread, so
# the flag only records the setting (process-wide, as torch's), for code that reads it back.
_MULTITHREADING = [True]


def is_multithreading_enabled():
    return _MULTITHREADING[0]


def _set_multithreading(mode):
    prev = _MULTITHREADING[0]
    _MULTITHREADING[0] = mode
    return prev


class _MultithreadingMode(_Mode):
    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.prev = []
        self.mode = mode

    def clone(self):
        return _MultithreadingMode(self.mode)

    def __enter__(self):
        self.prev.append(_set_multithreading(self.mode))

    def __exit__(self, *exc):
        _set_multithreading(self.prev.pop())
        return False


class set_multithreading_enabled(_MultithreadingMode):
    """Sets the flag at construction (a plain call works too); as a context manager or
    decorator it restores the previous value on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_multithreading_enabled(): argument 'enabled' (position 1) "
                            f"must be bool, not {type(mode).__name__}")
        self.prev = [_set_multithreading(mode)]
        self.mode = mode

    def __enter__(self):
        pass
