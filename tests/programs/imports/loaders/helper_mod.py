"""A module for main.apy to import: its loader reads this very text."""
VALUE = 1
