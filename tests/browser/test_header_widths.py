"""The site header is one row at every width from a small phone to a wide screen (issue 32), in
all seven languages, for a visitor and for a player with a name of the longest length: up to
80rem the row holds the site's name, the quick link and "Menu"; from 80rem on the whole
navigation and the account's links. tests/browser/test_phone_header.py checks the phone's menu
itself."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from accounts.models import User
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tests.browser.page_checkers import SQLITE_RUN_ONLY, axe_violations
from tests.browser.sessions import sign_in

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

LANGUAGES = [code for code, _name in settings.LANGUAGES]
#: the edges of each header layout (640/641, 1279/1280) and widths between them
WIDTHS = [320, 640, 641, 800, 1024, 1279, 1280, 1440]
#: the first width with the whole navigation in the row (80rem)
FULL = 1280
#: one row: the compact row is about 57 CSS px, the full one about 60
MAX_HEADER = 80
#: a display name of the longest length allowed (40), of wide letters
LONG_NAME = "Wolfgang-Maximilian Großmann-Wüstenhöfer"

#: the header's parts a sighted visitor sees, each as its box: the name, the links, the buttons
#: and the menu's control (the closed menu's panel is not drawn)
VISIBLE_PARTS = """() => Array.from(document.querySelectorAll(
    "header.site-header :is(.brand, a, button, summary)"))
  .filter((el) => el.checkVisibility() && el.getBoundingClientRect().width > 0)
  .map((el) => {
    const r = el.getBoundingClientRect();
    return {text: el.textContent.trim().slice(0, 30), top: r.top, bottom: r.bottom,
            left: r.left, right: r.right};
  })"""


def one_row_problems(page: Any, width: int) -> list[str]:
    """What breaks the one-row header at this width: its height, a part below another (a
    second row), a part outside the screen, or the page wider than the screen."""
    page.set_viewport_size({"width": width, "height": 800})
    problems = []
    header = page.locator("header.site-header").bounding_box()
    assert header is not None
    if header["height"] > MAX_HEADER:
        problems.append(f"{width}px: the header is {header['height']:.0f}px high")
    parts = page.evaluate(VISIBLE_PARTS)
    lowest_top = max(part["top"] for part in parts)
    highest_bottom = min(part["bottom"] for part in parts)
    if lowest_top >= highest_bottom:  # no horizontal line crosses them all: two rows
        problems.append(f"{width}px: not one row: {parts}")
    outside = [part["text"] for part in parts if part["left"] < 0 or part["right"] > width]
    if outside:
        problems.append(f"{width}px: outside the screen: {outside}")
    if page.evaluate("document.documentElement.scrollWidth") > width:
        problems.append(f"{width}px: the page scrolls sideways")
    full = page.locator(".site-nav a[href='/rules/']").is_visible()
    if full != (width >= FULL):
        problems.append(f"{width}px: the whole navigation is {'shown' if full else 'hidden'}")
    return problems


@pytest.fixture
def player() -> User:
    """A player with the longest name, and a game waiting for their move (the header's badge)."""
    wolfgang = User.objects.create_user(
        username="wolfgang", email="wolfgang@example.test", password="x" * 20,
        display_name=LONG_NAME,
    )
    other = User.objects.create_user(
        username="other", email="other@example.test", password="x" * 20
    )
    game = game_create(creator=wolfgang, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=other)
    game.refresh_from_db()
    if game.to_move != 0:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=engine_state(game).legal()[0],
            expected_seq=game.seq,
        )
    return wolfgang


def open_page(browser: Any, live_server: Any, language: str, who: User | None) -> Any:
    context = browser.new_context(
        viewport={"width": 1440, "height": 800},
        extra_http_headers={"Accept-Language": language},
        bypass_csp=True,  # axe-core is injected as an inline script (test_csp checks the CSP)
    )
    context.set_default_timeout(15_000)
    if who is not None:
        User.objects.filter(pk=who.pk).update(language=language)
        sign_in(context, live_server.url, who)
    return context.new_page()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_is_one_row_at_every_width(
    browser: Any, live_server: Any, player: User, language: str
) -> None:
    problems = []
    for who in (None, player):
        page = open_page(browser, live_server, language, who)
        # the lobby (a page of the usual width) and the rules (the longest link's page)
        for path in ["/games/", "/rules/"]:
            page.goto(live_server.url + path)
            assert page.locator("html").get_attribute("lang") == language
            if who is not None:  # the game waiting for the player: its number in the header
                assert page.locator(".site-quick .badge--turn").count() == 1
            for width in WIDTHS:
                problems += [
                    f"{path} {'player' if who else 'visitor'}: {problem}"
                    for problem in one_row_problems(page, width)
                ]
        page.context.close()
    assert not problems, "\n" + "\n".join(problems)


@pytest.mark.parametrize("width", [800, 1024])
def test_the_menu_opens_under_its_control_at_mid_widths(
    browser: Any, live_server: Any, player: User, width: int
) -> None:
    page = open_page(browser, live_server, "de", player)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(live_server.url + "/games/")
    summary = page.locator(".site-menu > summary")
    assert summary.is_visible()
    assert page.locator(".site-quick a[href='/games/mine/']").is_visible()
    summary.click()
    panel = page.locator(".site-menu__panel").bounding_box()
    control = summary.bounding_box()
    assert panel is not None and control is not None
    # under the header, at the row's right end, within the screen
    header = page.locator("header.site-header").bounding_box()
    assert header is not None
    assert panel["y"] >= header["y"] + header["height"] - 1
    assert panel["x"] + panel["width"] <= width
    assert panel["x"] + panel["width"] >= control["x"] + control["width"] - 1
    assert page.locator(".site-menu a[href='/rules/']").is_visible()
    assert page.locator(".site-menu a[href='/accounts/settings/']").is_visible()
    assert axe_violations(page) == []
    page.context.close()
