"""A real headless Chromium (Debian's, /usr/bin/chromium) driven by Playwright, for the
console's tests and its screenshots. Playwright's own browser download is never used:
`make test` installs Debian's chromium when it is missing and it can (docs/console.md)."""

import os
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# Headless as root on a machine whose only network is loopback: no sandbox (root), and
# none of Chromium's own calls home, whose refused connections would slow every start.
# Playwright gives each launch a new, empty profile (--user-data-dir) of its own.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# How long an `expect` waits for what it expects before it fails: Playwright's 5 s is
# a loaded machine's single slow answer (CI shares two cores with a whole suite), and
# every expect returns as soon as what it waits for is there, so only a failure waits.
expect.set_options(timeout=30_000)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}


def chromium_path() -> str:
    if not CHROMIUM.exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: `make test` installs Debian's chromium as root; "
            "otherwise `apt-get install -y chromium`, or set CHROMIUM to a Chromium binary"
        )
    return str(CHROMIUM)


@contextmanager
def chromium():
    """A headless Chromium, closed however the block ends."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=FLAGS, headless=True, chromium_sandbox=False
        )
        try:
            yield browser
        finally:
            browser.close()
