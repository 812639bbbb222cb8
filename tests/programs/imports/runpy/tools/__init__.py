print("tools init", __name__)
