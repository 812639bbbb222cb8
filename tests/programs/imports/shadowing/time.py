print("never imported: time is built into CPython")
