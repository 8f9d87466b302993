"""The site header on a phone (issue 32): one row of at most 80 CSS px (the site's name, the most
important link and one "Menu" control that opens the rest of the navigation), on every main page,
for visitors and players, in the languages with the longest words; the menu works by keyboard
and holds every link; on a game where it is the player's turn, "your turn", the hand and the
first move control are on the first screen of a 360x740 phone. Wide screens keep the full
navigation in the header, without the menu control."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from games.models import Game
from games.services import game_create, game_join
from tests.browser.page_checkers import SQLITE_RUN_ONLY, axe_violations
from tests.browser.sessions import sign_in

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

SMALL = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = [pytest.param(SMALL, id="360x740"), pytest.param(PHONE, id="390x844")]
#: English, and the two languages with the longest words in the header
LANGUAGES = ["en", "ru", "hu"]
MAX_HEADER = 80
#: every link of the main navigation, by its address
NAV_LINKS = ["/games/", "/games/mine/", "/games/new/", "/leagues/", "/tournaments/",
             "/ratings/", "/rules/"]


def user(name: str) -> User:
    return User.objects.create_user(
        username=name, email=f"{name}@example.test", password="x" * 20
    )


def running_game(kind: str = "keltis") -> tuple[Game, User]:
    """A game that has just started, and the player whose turn it is."""
    anna, bela = user("anna"), user("bela")
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, (anna if game.to_move == 0 else bela)


@pytest.fixture
def phone(browser: Any, live_server: Any) -> Iterator[Any]:
    """Makes a phone's browser page in a language, logged in as a user or a visitor."""
    contexts = []

    def make(viewport: dict[str, int], language: str = "en", who: User | None = None) -> Any:
        narrow = viewport["width"] < 600
        context = browser.new_context(
            viewport=viewport, is_mobile=narrow, has_touch=narrow,
            extra_http_headers={"Accept-Language": language},
            bypass_csp=True,  # axe-core is injected as an inline script (test_csp checks the CSP)
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        if who is not None:
            User.objects.filter(pk=who.pk).update(language=language)
            sign_in(context, live_server.url, who)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not drawn"
    return found


def header_height(page: Any) -> float:
    return box(page, "header.site-header")["height"]


def nav_hrefs_shown(page: Any) -> list[str]:
    """The addresses of the main navigation's links a sighted player sees now."""
    return page.evaluate("""() => Array.from(document.querySelectorAll(".site-nav a"))
        .filter((a) => a.checkVisibility() && a.getBoundingClientRect().width > 0)
        .map((a) => new URL(a.href).pathname)""")


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_is_one_short_row_on_every_main_page(
    live_server: Any, phone: Any, language: str, viewport: dict[str, int]
) -> None:
    game, anna = running_game()
    base = live_server.url
    visitor = phone(viewport, language)
    for path in ["/", "/games/", f"/games/{game.pk}/", "/accounts/login/"]:
        visitor.goto(base + path)
        assert visitor.locator("html").get_attribute("lang") == language
        assert header_height(visitor) <= MAX_HEADER, (path, header_height(visitor))
        assert nav_hrefs_shown(visitor) == [], path  # behind the menu
    player = phone(viewport, language, anna)
    for path in ["/", "/games/", "/games/mine/", f"/games/{game.pk}/", "/accounts/settings/"]:
        player.goto(base + path)
        assert header_height(player) <= MAX_HEADER, (path, header_height(player))
        # the most important link stays in the row, with the number of games waiting
        quick = player.locator(".site-quick a[href='/games/mine/']")
        assert quick.is_visible(), path
        assert "1" in quick.inner_text(), path
        # nothing of the header sticks out sideways
        assert player.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_menu_opens_by_keyboard_and_shows_every_link(
    live_server: Any, phone: Any, language: str
) -> None:
    _game, anna = running_game()
    page = phone(SMALL, language, anna)
    page.goto(f"{live_server.url}/games/mine/")
    summary = page.locator(".site-menu > summary")
    assert summary.is_visible()
    assert box(page, ".site-menu > summary")["height"] >= 44  # a finger's target
    # the skip link, the site's name, the quick link, then the menu control
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.site-menu > summary')"):
            break
    else:
        pytest.fail("the menu control is not reached by Tab")
    assert nav_hrefs_shown(page) == []
    page.keyboard.press("Enter")
    assert page.locator(".site-menu").get_attribute("open") is not None
    assert nav_hrefs_shown(page) == NAV_LINKS
    # the account's links are in the menu too, and every link is reached by Tab
    assert page.locator(".site-menu a[href='/accounts/settings/']").is_visible()
    assert page.locator(".site-menu form[action='/accounts/logout/'] button").is_visible()
    page.keyboard.press("Tab")
    assert page.evaluate("new URL(document.activeElement.href).pathname") == NAV_LINKS[0]
    # the open menu stays within the screen's width and passes axe-core
    assert page.evaluate("document.documentElement.scrollWidth") <= SMALL["width"]
    assert axe_violations(page) == []
    # and it closes again
    summary.focus()
    page.keyboard.press("Space")
    assert page.locator(".site-menu").get_attribute("open") is None
    assert nav_hrefs_shown(page) == []


def test_a_visitor_reaches_log_in_and_sign_up_on_a_phone(live_server: Any, phone: Any) -> None:
    page = phone(SMALL, "hu")
    page.goto(f"{live_server.url}/games/")
    assert page.locator(".site-quick a[href^='/accounts/login/']").is_visible()
    page.locator(".site-menu > summary").click()
    assert page.locator(".site-menu a[href='/accounts/signup/']").is_visible()
    assert nav_hrefs_shown(page) == NAV_LINKS


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_on_your_turn_the_turn_starts_on_the_first_screen(
    live_server: Any, phone: Any, language: str, viewport: dict[str, int], kind: str
) -> None:
    game, player = running_game(kind)
    page = phone(viewport, language, player)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    height = viewport["height"]
    status = box(page, ".status-my-turn")
    assert status["y"] >= 0 and status["y"] + status["height"] <= height
    hand = box(page, ".my-hand .hand")
    assert hand["y"] + hand["height"] <= height
    # the first move control shown: a card of the hand to tap (direct play, play.js), or the
    # list's first move button without a script
    first = box(page, ".game-turn :is(.hand-pick, form.act-form button) >> visible=true")
    assert first["y"] >= 0 and first["y"] + first["height"] <= height, first
    assert first["x"] >= 0 and first["x"] + first["width"] <= viewport["width"], first


def test_a_wide_screen_keeps_the_whole_navigation_in_the_header(
    live_server: Any, phone: Any
) -> None:
    game, anna = running_game()
    page = phone({"width": 1280, "height": 1000}, "en", anna)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert not page.locator(".site-menu > summary").is_visible()
    assert not page.locator(".site-quick").is_visible()
    assert nav_hrefs_shown(page) == NAV_LINKS
    assert page.locator(".site-account a[href='/accounts/settings/']").is_visible()
    # every link is reached by Tab: the skip link, the name, then the navigation
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("new URL(document.activeElement.href).pathname") == NAV_LINKS[0]
    assert axe_violations(page) == []
