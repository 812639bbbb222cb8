__all__ = ["tools", "extras", "VERSION"]
VERSION = "1.0"
