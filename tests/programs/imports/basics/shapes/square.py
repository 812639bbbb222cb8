from . import circle
from .circle import PI

SIDES = 4
print("square sees", circle.__name__, PI)
