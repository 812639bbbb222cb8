NAME = "extras"
