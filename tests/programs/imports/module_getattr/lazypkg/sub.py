"""A submodule `from lazypkg import sub` imports though the package's __getattr__ says no."""

WHO = "lazypkg.sub"
