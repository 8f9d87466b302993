"""The history of a long game on a small phone (360x740) in a real Chromium (issue 32): the
server draws one position and one page of the move list; stepping in the page draws each
position as the server draws it at ?step=N, turns the list's pages from the record, says the
position aloud, and nothing on the page shifts, at its load or while it steps."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from games.engine import game_class
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.presenters.history import MOVES_PAGE
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db(transaction=True)

SMALL_PHONE = {"width": 360, "height": 740}
#: set SCREENSHOT_DIR to keep the page as a PNG (the lead looks at it)
SHOTS = Path(os.environ["SCREENSHOT_DIR"]) if os.environ.get("SCREENSHOT_DIR") else None

#: every layout shift from the page's start (buffered: its load's count too), those just after
#: a key or a tap included: [value, after input, the moved nodes]
WATCH_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const moved = (entry.sources || []).map((s) => s.node ? s.node.nodeName : "?");
    window.__shifts.push([entry.value, entry.hadRecentInput, moved]);
  }
}).observe({type: "layout-shift", buffered: true});
"""

#: the key parts of a position: each player's score, rows and facts, the piles, the deck, the
#: board's figures on each drawing of it, the wide and the narrow, and which one is shown (where,
#: to a tenth of a unit, and who), whose turn, as drawn (whitespace folded)
POSITION = """() => {
  const text = (el) => el ? el.textContent.replace(/\\s+/g, " ").trim() : "";
  return {
    players: Array.from(document.querySelectorAll(".replay .player"), (p) => [
      text(p.querySelector(".score")), text(p.querySelector(".player-facts")),
      Array.from(p.querySelectorAll("[class*='column-'] .column-cards"), text),
    ]),
    piles: Array.from(document.querySelectorAll(".replay .piles li"), text),
    deck: text(document.querySelector(".replay .deck")),
    boards: Array.from(document.querySelectorAll(".board-svg"), (svg) => [
      svg.getAttribute("class"), svg.getClientRects().length > 0,
      Array.from(svg.querySelectorAll(".figures .figure"),
        (g) => g.getAttribute("transform").match(/[-\\d.]+/g)
          .map((n) => Math.round(Number(n) * 10) / 10).join(" ") + " "
          + text(g.querySelector("title"))),
    ]),
    next: text(document.querySelector(".replay-next")),
    title: text(document.querySelector("#replay-title")),
  };
}"""


def long_game(make_user: Any, events: int) -> tuple[Game, Any]:
    """A three-player board game of random moves through the services."""
    users = [make_user(name) for name in ("anna", "bela", "csaba")]
    game = game_create(creator=users[0], kind="keltis", player_count=3)
    Game.objects.filter(pk=game.pk).update(setup=game_class("keltis").deal(3, 30))
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    game.refresh_from_db()
    bot = RandomBot(30)
    while game.status == GameStatus.RUNNING and game.seq < events:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
        game.refresh_from_db()
    return game, users[0]


def phone_page(browser: Any, base: str, user: Any, *, javascript: bool = True) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        viewport=SMALL_PHONE, has_touch=True, java_script_enabled=javascript
    )
    context.set_default_timeout(15_000)
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base,
    }])
    page = context.new_page()
    if javascript:
        page.add_init_script(WATCH_SHIFTS)
    return page


def test_stepping_draws_the_servers_positions_without_a_layout_shift(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    game, anna = long_game(make_user, 2 * MOVES_PAGE + 10)
    total = game.seq
    url = f"{live_server.url}/games/{game.pk}/history/"
    start = MOVES_PAGE - 2  # two steps before the end of the list's first page
    steps = [start + 1, start + 2, start + 3, start + 4, start + 3, start + 2, start + 1]

    served_page = phone_page(browser, live_server.url, anna, javascript=False)
    served = {}
    for step in {start, *steps, total}:
        served_page.goto(f"{url}?step={step}")
        served[step] = served_page.evaluate(POSITION)
    served_page.context.close()
    assert len({str(served[s]) for s in served}) > 3  # the steps draw different positions

    page = phone_page(browser, live_server.url, anna)
    page.goto(f"{url}?step={start}")
    page.evaluate("window.__sameDocument = true")
    assert page.evaluate(POSITION) == served[start]
    # a small phone is shown the narrow drawing; the wide one, hidden, is stepped too
    assert [(name, shown) for name, shown, _ in served[start]["boards"]] == [
        ("board-svg", False), ("board-svg board-svg--narrow", True)
    ]
    said = page.locator("#replay-said")
    for i, step in enumerate(steps):
        # forward by the link, back by the key; past the list's page and back again
        if i < 4:
            if i % 2:
                page.keyboard.press("ArrowRight")
            else:
                page.click(".stepper .step-next")
        else:
            page.keyboard.press("ArrowLeft")
        assert page.evaluate(POSITION) == served[step], step
        assert f"step={step}" in page.url
        assert said.inner_text().startswith(f"After move {step} of {total}")
        assert page.locator(f"#move-{step}.current").count() == 1  # the list follows
    # the list's page after the first was drawn from the record, as the server draws it
    page.keyboard.press("End")
    assert page.evaluate(POSITION) == served[total]
    assert page.locator(".stepper .step-next").is_disabled()
    assert page.locator(f"#move-{total}.current").count() == 1
    assert page.evaluate("window.__sameDocument") is True  # no page was loaded
    if SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "history-360x740.png"))

    shifts = page.evaluate("window.__shifts")
    assert sum(value for value, _recent, *_ in shifts) == 0, shifts
    page.context.close()


def test_the_move_lists_pages_turn_in_the_page(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    game, anna = long_game(make_user, 2 * MOVES_PAGE + 10)
    page = phone_page(browser, live_server.url, anna)
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step=3")
    rows = "Array.from(document.querySelectorAll('.history-table tr[id^=move-]'), (r) => r.id)"
    assert page.evaluate(rows) == [f"move-{n}" for n in range(1, MOVES_PAGE + 1)]
    server_row = page.locator("#move-5").inner_text()
    page.click(".moves-pager .moves-later")
    assert page.evaluate(rows) == [f"move-{n}" for n in range(MOVES_PAGE + 1, 2 * MOVES_PAGE + 1)]
    assert "step=3" in page.url  # the position stays
    page.click(".moves-pager .moves-earlier")
    assert page.locator("#move-5").inner_text() == server_row
    assert page.locator(".moves-pager .moves-earlier").is_disabled()
    # a move of another page: the position steps there, the list turns to its page
    page.keyboard.press("End")
    assert page.locator(f"#move-{game.seq}.current").count() == 1
    page.locator(f"#move-{game.seq - 1} a").click()
    assert page.locator("#replay-title").inner_text() == f"After move {game.seq - 1} of {game.seq}"
    page.context.close()
