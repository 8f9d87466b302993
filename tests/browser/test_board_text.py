"""Every word of a game page at 11 CSS px or more, the board's too, in a real Chromium at
360x740 and up: a phone gets the board drawn for a narrow screen (games.presenters.board.
narrow_board), a wide screen the wide one, and the first move control is on the first screen."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.bots import RandomBot
from games.services import action_submit
from games.state import engine_state
from tests.browser.page_checkers import SQLITE_RUN_ONLY

from .test_board_taps import CHOICE, PHONE, logged_in, shot, two_people

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

#: every shown text node of <main>: its words and its size in CSS px (an SVG text's font size
#: times the scale its drawing is shown at)
TEXT_SIZES = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const words = node.textContent.trim();
    const element = node.parentElement;
    if (!words || !element || element.closest("title, script, style, .vh")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    let size = parseFloat(getComputedStyle(element).fontSize);
    if (element instanceof SVGElement) {
      const m = element.getScreenCTM();
      size *= Math.hypot(m.a, m.b);
    }
    found.push([words.slice(0, 40), Math.round(size * 100) / 100,
                element.getAttribute("class") || element.tagName]);
  }
  return found;
}"""


def played(game: Any, users: list[Any], moves: int) -> None:
    """A few moves by a bot for both seats: figures on paths, cards on the piles."""
    bot = RandomBot(7)
    for _ in range(moves):
        game.refresh_from_db()
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
    game.refresh_from_db()


@pytest.mark.parametrize(
    "viewport",
    [PHONE, {"width": 414, "height": 896}, {"width": 800, "height": 900},
     {"width": 1280, "height": 800}],
    ids=["360", "414", "800", "1280"],
)
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_no_word_on_a_game_page_is_under_11_px(
    live_server: Any, browser: Any, make_user: Any, kind: str, viewport: dict[str, int]
) -> None:
    game, anna, bela = two_people(make_user, kind)
    played(game, [anna, bela], 12)
    user = [anna, bela][game.to_move]
    page = logged_in(browser, live_server.url, user, viewport)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    texts = page.evaluate(TEXT_SIZES)
    board = [t for t in texts if t[2] in ("stone-value", "path-head", "start-label",
                                           "start-label start-label--narrow",
                                           "goal-label goal-label--narrow", "goal-label")]
    if kind == "keltis":
        assert len(board) >= 45 + 5 + 2, board  # the board's words are measured too
    small = [t for t in texts if t[1] < 11]
    assert texts and not small, small
    # the board shown is the one drawn for the screen's width, and only one
    shown = page.evaluate(
        "Array.from(document.querySelectorAll('.board-svg'))"
        ".filter(s => s.getClientRects().length).map(s => s.getAttribute('class'))"
    )
    if kind == "keltis":
        narrow = viewport["width"] < 760
        assert shown == (["board-svg board-svg--narrow"] if narrow else ["board-svg"]), shown
    page.context.close()


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_first_move_control_is_on_the_first_screen(
    live_server: Any, browser: Any, make_user: Any, kind: str
) -> None:
    """At 360x740: a card to tap (the play) and, after it, the deck to draw from."""
    game, anna, bela = two_people(make_user, kind)
    seat = game.to_move
    page = logged_in(browser, live_server.url, [anna, bela][seat])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    first = page.locator(".hand-pick").first.bounding_box()
    assert first is not None and first["y"] + first["height"] <= PHONE["height"]
    assert page.evaluate("document.querySelector('main').scrollWidth") <= PHONE["width"]
    shot(page, f"first-screen-{kind}")
    # after a discard: the piles to draw from are lit, and a move to draw is on the first
    # screen (the list's button, or the lit pile itself)
    page.locator(".hand-pick").nth(page.evaluate(CHOICE, False)).click()
    with page.expect_navigation():
        page.locator(".group-chosen button.act").last.click()  # the discard
    game.refresh_from_db()
    if game.to_move == seat:  # not drawn by the site: there was a choice
        assert page.locator(".place-target").locator("visible=true").count() >= 2
        controls = page.locator(".actions button.act, .place-target").locator("visible=true")
        first = controls.first.bounding_box()
        assert first is not None and first["y"] + first["height"] <= PHONE["height"]
        shot(page, f"draw-screen-{kind}")
    page.context.close()
