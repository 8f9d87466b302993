"""The small scripts of two forms, in a real browser: the create form's "rated" line follows
the seats, and the settings page's time zone select can be searched. Both are files of the
site (the CSP allows no inline script) and the forms work without them."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db(transaction=True)

#: collects the browser's securitypolicyviolation events from the first script of each page
LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def logged_in(page: Any, base: str) -> User:
    user = User.objects.create_user(
        username="anna", email="anna@example.test", password="x" * 20, display_name="Anna K"
    )
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}]
    )
    page.add_init_script(LISTENER)
    return user


def test_the_rated_line_follows_the_seats(live_server: Any, page: Any) -> None:
    base = live_server.url
    logged_in(page, base)
    page.goto(base + "/games/new/")
    note = page.locator("#rated-note")
    assert note.inner_text() == "Rated: a game of 2 people, rated against each other."

    page.select_option("select[name=seat_1]", "normal")
    assert note.inner_text() == "Unrated: only one person at the table (bots are not rated)."
    page.check("input[name=player_count][value='3']")
    assert note.inner_text() == (
        "Rated: the 2 people at the table are rated against each other; bots are not rated."
    )
    page.select_option("select[name=seat_2]", "easy")
    assert note.inner_text().startswith("Unrated: only one person")
    page.check("input[name=player_count][value='4']")
    assert note.inner_text().startswith("Rated: the 2 people")
    assert page.evaluate("window.__cspViolations") == []


def test_the_time_zones_can_be_searched_and_the_choice_saves(
    live_server: Any, page: Any
) -> None:
    base = live_server.url
    user = logged_in(page, base)
    page.goto(base + "/accounts/settings/")
    search = page.locator("#time-zone-search-input")
    assert search.is_visible()
    select = page.locator("select[name=time_zone]")
    assert select.locator("optgroup").count() > 10

    none = page.locator("#time-zone-search [data-none]")
    search.fill("buenos")
    assert not none.is_visible()
    options = select.locator("option")
    values = options.evaluate_all("os => os.map(o => o.value)")
    assert values == ["America/Argentina/Buenos_Aires", "America/Buenos_Aires"]  # and its alias
    assert select.input_value() == "America/Argentina/Buenos_Aires"
    assert select.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)") == ["America"]

    search.fill("new york")
    assert select.input_value() == "America/New_York"
    search.fill("no such place")
    assert none.is_visible()
    assert select.input_value() == "America/New_York"  # the whole list, the choice kept
    assert options.count() > 500
    search.fill("auckland")
    assert select.input_value() == "Pacific/Auckland" and not none.is_visible()

    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    user.refresh_from_db()
    assert user.time_zone == "Pacific/Auckland"
    assert page.evaluate("window.__cspViolations") == []
