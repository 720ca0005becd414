"""torch.linalg namespace."""
