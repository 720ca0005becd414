"""torch.nn (functional only for now)."""
from . import functional  # noqa: F401
from . import utils  # noqa: F401
