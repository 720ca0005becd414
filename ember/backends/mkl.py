"""torch.backends.mkl: whether the BLAS that NumPy loaded is Intel's MKL."""
import numpy as np


def is_available():
    cfg = getattr(np, "__config__", None)
    blas = getattr(cfg, "CONFIG", {}).get("Build Dependencies", {}).get("blas", {})
    return "mkl" in str(blas.get("name", "")).lower()
