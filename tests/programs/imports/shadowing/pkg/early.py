import pkg.early

pkg.early.late()


def late():
    pass
