"""torch.nn.functional."""
