__all__ = ["fine", 3]
