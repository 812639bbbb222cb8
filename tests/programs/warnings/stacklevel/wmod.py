import warnings
def f(level):
    warnings.warn("deprecated thing", DeprecationWarning, stacklevel=level)
def g(level):
    warnings.warn("user thing", stacklevel=level)
