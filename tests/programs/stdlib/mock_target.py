"""A module for tests/programs/stdlib/mock_patch.apy and mock_unittest.apy to patch."""
import os

RETRIES = 3
SETTINGS = {"mode": "production", "debug": False}


def greet(name):
    return f"Hello, {name}!"


async def fetch(url):
    return f"<real page at {url}>"


def current_folder():
    return os.path.basename(os.getcwd())


class Weather:
    unit = "C"

    def temperature(self, city):
        return 21

    async def forecast(self, city):
        return ["sun"]

    @property
    def station(self):
        return "real station"


def report(city):
    weather = Weather()
    return f"{city}: {weather.temperature(city)}{weather.unit}"
