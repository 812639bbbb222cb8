def compute_area(width, height):
    return width * height


def _private_helper():
    return 0


DEFAULT_WIDTH = 3
