import sys
print("count:", __name__, __package__, __spec__.name, __spec__.parent)
TOTAL = sum(range(5))
