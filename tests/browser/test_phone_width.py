"""At a phone's width (360 CSS px, the narrowest of issue 15) the rules pages, in every language,
and a profile with a rating chart fit the screen: nothing sticks out sideways, so the page never
scrolls sideways, and the chart's labels stay at a readable size."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db(transaction=True)

LANGUAGES = [code for code, _name in settings.LANGUAGES]

#: the widest right edge of any element in the page, in CSS px
WIDEST = """() => Math.max(document.documentElement.scrollWidth,
  ...Array.from(document.querySelectorAll("main *"), (e) => e.getBoundingClientRect().right))"""


@pytest.fixture
def phone(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 360, "height": 800}, is_mobile=True)
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_fit_a_phone(live_server: Any, phone: Any, language: str) -> None:
    phone.set_extra_http_headers({"Accept-Language": language})
    page = phone.new_page()
    for kind in ("keltis", "keltis-cards"):
        page.goto(f"{live_server.url}/rules/{kind}/")
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator(".rules table").count() >= 1
        assert page.evaluate(WIDEST) <= 360, kind
