"""The DataLoader's parts (torch.utils.data._utils): collate, fetch, worker."""
from . import collate, fetch, worker  # noqa: F401
