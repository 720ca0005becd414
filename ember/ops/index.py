"""index ops."""
__all__ = []
