from . import PARENT_NAME
from .sibling import VALUE as SIBLING
from .. import NAME as TOP

NAME = __name__
