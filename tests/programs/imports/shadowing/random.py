print("the program's own random.py")
ROLL = 4
