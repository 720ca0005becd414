import os
import sys

# The oracle's instruction set, pinned before torch is imported: torch's results depend on the
# CPU it runs on (its AVX-512 kernels and oneDNN's AVX-512 JIT differ from the AVX2 ones in the
# last bits, and oneDNN's AVX-512 float32 gelu gives nan at +inf where AVX2 gives inf). ember
# reproduces torch's AVX2 results, which every x86-64 machine of the last decade can run, so
# the suite compares with those everywhere (subprocesses that run torch inherit the setting).
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")

sys.path.insert(0, os.path.dirname(__file__))
