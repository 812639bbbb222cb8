from broken_a import A
B = 2
