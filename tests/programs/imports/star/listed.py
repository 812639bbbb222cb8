__all__ = ["shown", "_hidden_but_listed"]

shown = "shown"
_hidden_but_listed = "listed"
not_listed = "not listed"
