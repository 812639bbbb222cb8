__all__ = ["real", "ghost"]
