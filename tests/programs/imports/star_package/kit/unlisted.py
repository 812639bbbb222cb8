print("unlisted imported")
