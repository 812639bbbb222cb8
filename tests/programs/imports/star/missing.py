__all__ = ["there", "absent"]
there = 1
