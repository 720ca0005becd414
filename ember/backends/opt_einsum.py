"""torch.backends.opt_einsum: ember's einsum contracts left to right without the opt_einsum
package, as torch does when the package is missing."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
