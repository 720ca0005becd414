"""torch.backends.cuda: CUDA's matmul flags, kept (and read back) though no CUDA is built."""


class cuBLASModule:
    """torch.backends.cuda.matmul: a fixed set of settable flags."""
    __slots__ = ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction", "allow_fp16_accumulation")

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.allow_fp16_accumulation = False

    def __getattr__(self, name):
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in cuBLASModule.__slots__:
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = cuBLASModule()


def is_built():
    return False
