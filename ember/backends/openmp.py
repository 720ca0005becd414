"""torch.backends.openmp: ember runs no OpenMP parallel regions of its own."""


def is_available():
    return False
