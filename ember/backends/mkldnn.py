"""torch.backends.mkldnn: oneDNN is not part of ember (NumPy computes everything)."""
import contextlib
import sys

enabled = True
deterministic = False
allow_tf32 = True


def is_available():
    return False


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Set the flags for the body of a with block, then put the old values back."""
    mod = sys.modules[__name__]
    names = ("enabled", "deterministic", "allow_tf32")
    old = {n: getattr(mod, n) for n in names}
    for n, v in zip(names, (enabled, deterministic, allow_tf32)):
        setattr(mod, n, v)
    try:
        yield
    finally:
        for n, v in old.items():
            setattr(mod, n, v)
