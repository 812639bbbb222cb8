NAME = "tools"
