"""ember.testing: assert_close (torch's default tolerances per dtype and its failure messages)
and make_tensor."""
from ._comparison import assert_close, assert_allclose
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
