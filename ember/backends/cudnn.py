"""torch.backends.cudnn: settable flags (deterministic, benchmark, enabled, allow_tf32) that a
CPU-only build keeps but never uses; cuDNN itself is unavailable."""
import contextlib
import sys

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Set the flags for the body of a with block, then put the old values back."""
    mod = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    old = {n: getattr(mod, n) for n in names}
    new = dict(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    for n, v in new.items():
        setattr(mod, n, v)
    try:
        yield
    finally:
        for n, v in old.items():
            setattr(mod, n, v)
