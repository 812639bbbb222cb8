import sys
print("script:", __name__, __file__.endswith("script.py"), sys.argv[0].endswith("script.py"))
print("given:", GIVEN)
RESULT = GIVEN * 2
