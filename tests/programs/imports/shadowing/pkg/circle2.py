import sys

print(sys.modules["pkg.circle"].value)
