print("tools main:", __name__, __package__)
