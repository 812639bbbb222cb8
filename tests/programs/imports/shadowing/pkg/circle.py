import pkg.circle2

value = 1
