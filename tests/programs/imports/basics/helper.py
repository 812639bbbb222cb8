"""A helper module: runs once, however often it is imported."""
loaded_times = 1
MAIN_RAN = False


def area(w, h):
    return w * h


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


if __name__ == "__main__":
    MAIN_RAN = True
