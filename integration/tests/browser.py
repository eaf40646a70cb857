"""What the tests in a real browser share: Debian's Chromium (/usr/bin/chromium, no browser is
downloaded), headless and reaching nothing outside this machine, driven by Playwright; where their
screenshots go; and the checks of what the server ran."""

import os
import tempfile

from playwright.sync_api import Error as PlaywrightError

from tools import Failure, check

CHROMIUM = "/usr/bin/chromium"
# Headless, and nothing that reaches outside this machine (its connections would be refused).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = os.environ.get("LLAMA_SCATTER_TEST_ARTIFACTS") or tempfile.mkdtemp()


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)


def in_page(fn, page):
    """fn(page), a browser error (an element not found in time) being a test failure."""
    try:
        fn(page)
    except PlaywrightError as e:
        raise Failure(str(e).splitlines()[0]) from e


def scatter_fields(body):
    return {key: value for key, value in body.items() if key.startswith("scatter_")}


def check_settings(what, settings, expected):
    """The slot's settings hold the expected scatter values."""
    for name, value in expected.items():
        check(abs(settings[name] - value) < 1e-6, f"{what}: the server ran {name} = {settings[name]}, expected {value}")
