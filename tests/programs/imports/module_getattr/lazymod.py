"""A module that makes some names on first use (PEP 562), as libraries do for lazy
imports."""

made = []


def __getattr__(name):
    if name.startswith("lazy_"):
        made.append(name)
        value = name.removeprefix("lazy_").upper()
        globals()[name] = value  # the next lookup finds it without the hook
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
