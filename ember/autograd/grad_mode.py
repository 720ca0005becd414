"""Grad mode: a thread-local flag and the context managers / decorators that set it."""
import functools
import inspect
import threading


class _State(threading.local):
    def __init__(self):
        self.enabled = True


# Ops read `STATE.enabled` once each to decide whether to link a node.
STATE = _State()


def is_grad_enabled():
    return STATE.enabled


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
        self.prev.append(STATE.enabled)
        STATE.enabled = self.mode

    def __exit__(self, *exc):
        STATE.enabled = self.prev.pop()
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


class inference_mode(_Mode):
    """Grad disabled inside (ember keeps no separate inference tensors)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.prev = []
        self.mode = not mode

    def clone(self):
        return type(self)(not self.mode)


class set_grad_enabled(_Mode):
    """Sets the mode at construction, so it also works as a plain function call."""

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = [STATE.enabled]
        self.mode = mode
        STATE.enabled = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.enabled = self.prev[0]
        return False

    def clone(self):
        return _SetMode(self.mode)


class _SetMode(_Mode):
    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.prev = []
        self.mode = mode
