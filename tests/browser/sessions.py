"""Signing a browser in as a player without the login form: the session Django's test client
makes for the user, set as the browser context's cookie (the tests that care about the form
use it: test_play_flow, test_smoke)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.test import Client


def sign_in(context: Any, base: str, user: Any) -> None:
    """Give the Playwright browser ``context`` a session of ``user`` on the site at ``base``."""
    client = Client()
    client.force_login(user)
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base,
    }])  # fmt: skip
