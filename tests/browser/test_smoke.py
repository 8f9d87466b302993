"""The home page loads in a real browser from the live server."""

from typing import Any


def test_home_page_in_chromium(live_server: Any, page: Any) -> None:
    page.goto(live_server.url + "/")
    assert page.title() == "Keltis by mail"
