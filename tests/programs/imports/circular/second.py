import first
SEEN_FROM_FIRST = first.VALUE
VALUE = "second"
