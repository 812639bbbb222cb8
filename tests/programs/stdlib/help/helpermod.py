"""A helper module.

It has things in it.
"""
__version__ = "1.2"
LIMIT = 10
NAMES = ["a", "b"]

class Base:
    """The base."""
    def run(self):
        """Run it."""

class Child(Base):
    pass

def util(a, b=3):
    """Do a util."""
    return a

async def fetch(url, *, timeout=1.0):
    """Fetch a thing."""
