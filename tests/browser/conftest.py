"""A real headless Chromium (Debian's package) driven by Playwright against the live server.

Playwright's sync API runs an event loop in the test thread, so Django's guard against ORM use
inside an event loop is lifted for these tests only (the ORM calls are ordinary sync calls).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not path:
        raise RuntimeError(
            "The browser tests need Debian's chromium (scripts/ensure-chromium installs it)."
        )
    return path


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    old = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
            )
            yield browser
            browser.close()
    finally:  # never leak the switch into later tests' subprocesses
        if old is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = old


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()
