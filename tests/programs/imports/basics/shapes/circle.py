import helper

PI = 3.14


def describe(r):
    return f"circle r={r} area={helper.area(PI, r * r):.2f}"
