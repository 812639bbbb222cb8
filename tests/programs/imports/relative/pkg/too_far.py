from ... import x
