from broken_b import B
A = 1
