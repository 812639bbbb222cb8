"""A module of the program's own."""
VALUE = 1
