"""torch.backends.cpu: the vector instruction set ember's kernels use: NumPy's own dispatch,
reported as torch's DEFAULT level (ember compiles no kernels of its own)."""


def get_cpu_capability():
    return "DEFAULT"
