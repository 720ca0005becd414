"""ember.backends: torch's backend switches as a CPU-only build has them. ember computes with
NumPy alone, so no GPU backend is available; the flags are kept and read back as torch keeps
them (they change nothing ember computes)."""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
