"""A package whose __getattr__ knows none of its submodules."""


def __getattr__(name):
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
