"""torch.utils: data loading (ember.utils.data)."""
from . import data  # noqa: F401
