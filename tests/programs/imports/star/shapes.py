"""A module with public, private and listed names."""
import math as _math

PUBLIC = 1
_private = 2


def helper():
    return "helper"


class Thing:
    pass
