"""At a phone's width (360 CSS px, the narrowest of issue 15) the rules pages, in every language,
and a profile with a rating chart fit the screen: nothing sticks out sideways, so the page never
scrolls sideways, and the chart's labels stay at a readable size."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from tests.browser.page_checkers import SQLITE_RUN_ONLY

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

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


#: each word of the rating chart: its size on the screen in CSS px (its font in the SVG's units
#: times the SVG's scale), and whether it lies inside the chart (not cut off at an edge)
CHART_LABELS = """() => Array.from(document.querySelectorAll(".rating-chart__svg text"), (t) => {
  const svg = t.ownerSVGElement.getBoundingClientRect(), box = t.getBoundingClientRect();
  return {text: t.textContent,
          px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
          inside: box.left >= svg.left && box.right <= svg.right
                  && box.top >= svg.top && box.bottom <= svg.bottom};
})"""


@pytest.mark.parametrize("width", [360, 1280])
def test_the_rating_chart_stays_readable(
    live_server: Any, browser: Any, make_user: Any, width: int
) -> None:
    from tests.tournaments.test_rating_pages import play_rated

    anna, bela = make_user("anna"), make_user("bela")
    for places in ([1, 2], [2, 1], [1, 2], [1, 2], [2, 1]):
        play_rated([anna, bela], places)
    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=width < 400)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/players/anna/")
        labels = page.evaluate(CHART_LABELS)
        assert len(labels) == 5  # the highest, the lowest, "0", "5 games", the last rating
        small = [label for label in labels if label["px"] < 12]
        assert not small, small
        cut = [label for label in labels if not label["inside"]]
        assert not cut, cut
        assert page.evaluate(WIDEST) <= width
    finally:
        context.close()
