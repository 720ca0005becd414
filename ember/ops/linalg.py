"""linalg ops."""
__all__ = []
