def show(e):
    print(type(e).__name__, e.lineno, e.offset, e.end_lineno, e.end_offset)
