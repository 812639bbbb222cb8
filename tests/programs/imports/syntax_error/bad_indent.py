def g():
return 1
