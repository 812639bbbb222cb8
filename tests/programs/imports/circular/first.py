VALUE = "first, before second"
import second
VALUE = "first"
