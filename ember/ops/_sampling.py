"""The random primitives the nn ops draw from (dropout masks, rrelu noise), called as torch calls
them: `bernoulli_(t, p)` and `uniform_(t, lower, upper)` fill t in place from the default
stream. They are the Tensor methods of ember/random.py once that module binds them."""
import numpy as np

from ..tensor import Tensor


def bernoulli_(t, p):
    """t.bernoulli_(p): 1 with probability p, else 0, in t's dtype."""
    method = getattr(Tensor, "bernoulli_", None)
    if method is not None:
        return method(t, p)
    # until ember/random.py: NumPy's stream from ember's default generator (not torch's)
    from ..creation import default_generator    # (creation sits above ops: imported late)
    u = default_generator._rng.random(t._data.shape)
    np.copyto(t._data, u < p, casting="unsafe")
    return t


def uniform_(t, lower, upper):
    """t.uniform_(lower, upper)."""
    method = getattr(Tensor, "uniform_", None)
    if method is not None:
        return method(t, lower, upper)
    # until ember/random.py: NumPy's stream from ember's default generator (not torch's)
    from ..creation import default_generator    # (creation sits above ops: imported late)
    u = default_generator._rng.random(t._data.shape)
    np.copyto(t._data, lower + (upper - lower) * u, casting="unsafe")
    return t
