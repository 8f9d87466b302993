"""Every word of a board game's history page at 11 CSS px or more, the board's too, in a real
Chromium (issue 32): as the game page, the history draws the board twice, wide and narrow, and
shows the one that fits the screen; replay.js steps both, so a step keeps every word as big."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.page_checkers import SQLITE_RUN_ONLY

from .test_board_taps import PHONE, logged_in, shot, two_people
from .test_board_text import TEXT_SIZES, played

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]

#: the board's own words, by their class
BOARD_WORDS = ("stone-value", "path-head", "start-label", "start-label start-label--narrow",
               "goal-label goal-label--narrow", "goal-label")

#: the drawings of the board shown (their class) and, for each, its figures' places
SHOWN_BOARDS = """() => Array.from(document.querySelectorAll('.board-svg'))
  .filter((s) => s.getClientRects().length)
  .map((s) => [s.getAttribute('class'), s.querySelectorAll('.figures .figure').length])"""

#: each shown figure's box lies inside its drawing's box: placed on the drawing shown
FIGURES_OUTSIDE = """() => {
  const out = [];
  for (const svg of document.querySelectorAll('.board-svg')) {
    if (!svg.getClientRects().length) continue;
    const frame = svg.getBoundingClientRect();
    for (const g of svg.querySelectorAll('.figures .figure')) {
      const b = g.getBoundingClientRect();
      if (b.left < frame.left || b.right > frame.right || b.top < frame.top
          || b.bottom > frame.bottom) out.push(g.getAttribute('transform'));
    }
  }
  return out;
}"""


def measured(page: Any) -> list[list[Any]]:
    """The page's shown words and their sizes; none under 11 px, the board's among them."""
    texts = page.evaluate(TEXT_SIZES)
    board = [t for t in texts if t[2] in BOARD_WORDS]
    assert len(board) >= 45 + 5 + 2, board  # the board's words are measured too
    small = [t for t in texts if t[1] < 11]
    assert texts and not small, small
    assert page.evaluate(FIGURES_OUTSIDE) == []
    return texts


@pytest.mark.parametrize(
    "viewport",
    [PHONE, {"width": 414, "height": 896}, {"width": 800, "height": 900},
     {"width": 1280, "height": 800}],
    ids=["360", "414", "800", "1280"],
)
def test_no_word_on_a_history_page_is_under_11_px_while_it_steps(
    live_server: Any, browser: Any, make_user: Any, viewport: dict[str, int]
) -> None:
    game, anna, bela = two_people(make_user, "keltis")
    played(game, [anna, bela], 12)
    page = logged_in(browser, live_server.url, anna, viewport)
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step=6")
    page.evaluate("window.__sameDocument = true")
    narrow = viewport["width"] < 760
    shown = "board-svg board-svg--narrow" if narrow else "board-svg"
    figures = 2 * 5  # two seats of one big and four small figures, wherever they stand
    assert page.evaluate(SHOWN_BOARDS) == [[shown, figures]]
    measured(page)
    shot(page, f"history-text-{viewport['width']}")
    for key in ("ArrowRight", "ArrowRight", "End", "Home", "ArrowRight"):
        page.keyboard.press(key)
        assert page.evaluate(SHOWN_BOARDS) == [[shown, figures]], key
        measured(page)
    page.click(".stepper .step-next")
    assert "step=2" in page.url
    measured(page)
    assert page.evaluate("window.__sameDocument") is True  # stepped in the page
    page.context.close()
