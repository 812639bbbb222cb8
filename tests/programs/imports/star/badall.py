__all__ = ["ok", 3]
ok = 1
