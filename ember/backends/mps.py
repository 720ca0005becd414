"""torch.backends.mps: Apple's Metal backend, never built into ember."""


def is_available():
    return False


def is_built():
    return False


def is_macos_or_newer(major, minor):
    return False


def is_macos13_or_newer(minor=0):
    return False
