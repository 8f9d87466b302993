"""Signing up in a real Chromium whose clock is in Warsaw makes an account in Europe/Warsaw
(accounts/static/accounts/browser_time_zone.js fills the form's hidden field); with
JavaScript off the account starts in UTC."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User

pytestmark = pytest.mark.django_db(transaction=True)


def sign_up_in(browser: Any, base: str, *, javascript: bool) -> User:
    context = browser.new_context(timezone_id="Europe/Warsaw", java_script_enabled=javascript)
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        page.goto(base + "/accounts/signup/")
        page.fill("#id_email", "anna@example.test")
        page.fill("#id_display_name", "Anna K")
        page.fill("#id_password1", "a long pass phrase 42")
        page.fill("#id_password2", "a long pass phrase 42")
        with page.expect_navigation():
            page.click("main form button[type=submit]")
        assert "/accounts/confirm-email/" in page.url
    finally:
        context.close()
    return User.objects.get(email="anna@example.test")


def test_the_new_account_takes_the_browsers_time_zone(live_server: Any, browser: Any) -> None:
    assert sign_up_in(browser, live_server.url, javascript=True).time_zone == "Europe/Warsaw"


def test_without_javascript_the_new_account_is_in_utc(live_server: Any, browser: Any) -> None:
    assert sign_up_in(browser, live_server.url, javascript=False).time_zone == "UTC"
