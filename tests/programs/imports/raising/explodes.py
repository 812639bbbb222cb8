def divide(a, b):
    return a / b


print("explodes starts")
RESULT = divide(1, 0)
