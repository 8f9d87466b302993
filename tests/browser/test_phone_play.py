"""A turn on a phone, in a real Chromium at 390x844 (and 360x800): the hand and the first move
on the first screen, a legible board, buttons a finger can hit, a whole turn by taps in both
games, and the history's replay stepped in the page by its buttons and keys, each position drawn
as the server draws it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from games.engine.bots import RandomBot
from games.models import Event, Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tests.browser.sessions import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 800}
#: set SCREENSHOT_DIR to keep the pages as PNGs (the lead looks at them)
SCREENSHOT_DIR = os.environ.get("SCREENSHOT_DIR")


def shot(page: Any, name: str) -> None:
    if SCREENSHOT_DIR:
        Path(SCREENSHOT_DIR).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / f"{name}.png"))


def logged_in(browser: Any, base: str, user: Any, viewport: dict[str, int] = PHONE) -> Any:
    context = browser.new_context(viewport=viewport, has_touch=True)
    context.set_default_timeout(15_000)
    sign_in(context, base, user)
    return context.new_page()


def two_people(
    make_user: Any, kind: str, names: tuple[str | None, str | None] = ("anna", "bela")
) -> tuple[Game, Any, Any]:
    """Two people at a new 2-player table of ``kind`` (a name None: a name of their own, for
    a test that deals several tables)."""
    anna, bela = (make_user(name) if name else make_user() for name in names)
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def bottom(page: Any, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["y"] + box["height"]


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE], ids=["390x844", "360x800"])
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_on_your_turn_the_hand_and_the_first_move_are_on_the_first_screen(
    live_server: Any, browser: Any, make_user: Any, kind: str, viewport: dict[str, int]
) -> None:
    game, anna, _ = two_people(make_user, kind)
    page = logged_in(browser, live_server.url, anna, viewport)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    name = f"game-{kind}-{viewport['width']}x{viewport['height']}"
    shot(page, name)
    assert bottom(page, ".my-hand .hand") <= viewport["height"]
    assert bottom(page, ".hand-pick") <= viewport["height"]
    # a card's moves show once it is tapped (play.js): the first move control is a card, or a
    # move of no card
    first = ":is(.hand-pick, .actions button.act) >> visible=true"
    assert bottom(page, first) <= viewport["height"]
    # the game fits the width: nothing of it scrolls sideways (the site's header and footer
    # are base.html's)
    assert page.evaluate("document.querySelector('main').scrollWidth") <= viewport["width"]
    page.context.close()


def stone_number_px(page: Any) -> float:
    """The stone numbers' size in CSS pixels: the SVG's font size times its scale."""
    return page.evaluate(
        """(() => {
          const svg = Array.from(document.querySelectorAll('.board-svg'))
            .find((s) => s.getClientRects().length);  // the board drawn for the width
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          const text = svg.querySelector('.stone-value');
          return parseFloat(getComputedStyle(text).fontSize) * scale;
        })()"""
    )


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE, {"width": 1280, "height": 800}])
def test_the_board_is_legible_and_can_be_enlarged(
    live_server: Any, browser: Any, make_user: Any, viewport: dict[str, int]
) -> None:
    game, anna, _ = two_people(make_user, "keltis")
    page = logged_in(browser, live_server.url, anna, viewport)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert stone_number_px(page) >= 12
    assert page.evaluate("document.querySelector('main').scrollWidth") <= viewport["width"]
    page.locator(".board-svg >> visible=true").scroll_into_view_if_needed()
    shot(page, f"board-{viewport['width']}")
    page.click(".board-zoom")
    assert page.locator(".board-zoom").get_attribute("aria-pressed") == "true"
    frame = page.locator(".board-frame").bounding_box()
    svg = page.locator(".board-svg >> visible=true").bounding_box()
    assert svg["width"] > frame["width"] or viewport["width"] > 1000  # wider: it scrolls
    assert stone_number_px(page) >= 14
    page.context.close()


def visible_buttons_are_big_enough(page: Any) -> None:
    boxes = page.evaluate(
        """Array.from(document.querySelectorAll('main button, main .hand-pick'))
          .filter(b => b.offsetParent !== null)
          .map(b => { const r = b.getBoundingClientRect();
                      return [b.className, b.textContent.trim(), r.width, r.height]; })"""
    )
    small = [b for b in boxes if b[2] < 44 or b[3] < 44]
    assert boxes and not small, small


def take_the_turn_by_taps(page: Any, url: str, game: Game, seat: int) -> list[str]:
    """Tap a card, check its moves and lit stones, tap a move; then the rest of the turn
    (clover, draw, done) by tapping its buttons, until the turn has passed."""
    page.goto(url)
    visible_buttons_are_big_enough(page)
    page.locator(".hand-pick").first.click()
    chosen = page.locator(".action-group.group-chosen[data-card]")  # (and its claims, if any)
    assert chosen.count() == 1
    card = chosen.get_attribute("data-card")
    assert page.locator(".hand-pick[aria-pressed=true]").get_attribute("data-card") == card
    others = page.locator(".action-group[data-card]:not(.group-chosen)")
    assert all(not others.nth(i).is_visible() for i in range(others.count()))
    targets = chosen.locator("button[data-target]")
    lit = page.locator(".board-svg .stone-target, .board-svg .figure-choice")
    if targets.count():
        assert lit.count() >= 1
    move = chosen.locator("button").first
    taken = [move.locator("xpath=..").locator("input[name=action]").get_attribute("value")]
    move.click()
    page.wait_for_load_state()
    for _ in range(6):
        game.refresh_from_db()
        if game.to_move != seat:
            break
        visible_buttons_are_big_enough(page)
        button = page.locator(".action-group:not([data-card]) button").first
        taken.append(button.locator("xpath=..").locator("input[name=action]").get_attribute("value"))
        button.click()
        page.wait_for_load_state()
    game.refresh_from_db()
    assert game.to_move != seat
    return taken


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_whole_turn_by_taps(live_server: Any, browser: Any, make_user: Any, kind: str) -> None:
    game, anna, bela = two_people(make_user, kind)
    url = f"{live_server.url}/games/{game.pk}/"
    for seat, user in ((0, anna), (1, bela)):
        page = logged_in(browser, live_server.url, user)
        taken = take_the_turn_by_taps(page, url, game, seat)
        mine = Event.objects.filter(game=game, seat=seat).order_by("seq")
        stored = list(mine.values_list("action", flat=True))
        assert stored[: len(taken)] == taken
        # the first turn's draw is from the deck only (the piles start empty) or the player's
        # choice: either way the turn ended with a draw
        assert stored[-1].startswith("draw")
        page.context.close()


def test_a_chosen_card_lights_where_it_goes_and_a_tap_there_plays_it(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    """The card game: a tapped card lights your own row it is laid in, the pile it would be
    discarded on and the wishing stones it claims (nothing else); a tap on the lit row lays it."""
    game, anna, bela = two_people(make_user, "keltis-cards")
    seat = game.to_move
    page = logged_in(browser, live_server.url, [anna, bela][seat])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    picks = page.locator(".hand-pick")
    for index in range(picks.count()):
        card = picks.nth(index).get_attribute("data-card")
        group = page.locator(f'.action-group[data-card="{card}"]')
        lays = group.locator('button[data-place^="row:"]')
        if lays.count() == 1:
            break
    else:
        raise AssertionError("no card of the hand has one lay")
    assert page.locator(".place-target").count() == 0
    picks.nth(index).click()
    row = lays.get_attribute("data-place").split(":")[1]
    piles = [
        group.locator('button[data-place^="pile:"]').nth(i).get_attribute("data-place")
        for i in range(group.locator('button[data-place^="pile:"]').count())
    ]
    lit = page.evaluate(
        "Array.from(document.querySelectorAll('.place-target'), (e) => e.className)"
    )
    # and the wishing stones the card claims with another (the card game's claims)
    stones = page.evaluate(
        """(card) => new Set(Array.from(document.querySelectorAll('button[data-place^="wish:"]'))
          .filter((b) => b.form.querySelector('input[name=action]').value.split(' ')
                           .includes(card))
          .map((b) => b.dataset.place)).size""",
        card,
    )
    assert len(lit) == 1 + len(piles) + stones, lit
    assert page.locator(f".player-me .column-{row}.place-target").count() == 1
    for pile in piles:
        assert page.locator(f".piles .pile-{pile.split(':')[1]}.place-target").count() == 1
    lay = lays.locator("xpath=..").locator("input[name=action]").get_attribute("value")
    page.click(f".player-me .column-{row} th")
    page.wait_for_load_state()
    first = Event.objects.filter(game=game, seat=seat).order_by("seq").first()
    assert first is not None and first.action == lay
    shot(page, "cards-after-a-tap-on-the-row")
    page.context.close()


def finished_game(make_user: Any) -> Game:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    bot = RandomBot(3)
    from games.bot_play import bots_play

    for _ in range(5000):
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        if game.to_move == 0:
            action = bot.choose(engine_state(game))
            action_submit(game_id=game.pk, seat=0, action=action, expected_seq=game.seq)
        else:
            bots_play(game_id=game.pk)
    assert game.status == GameStatus.FINISHED
    return game


def test_the_replay_steps_in_the_page_by_buttons_and_keys(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    game = finished_game(make_user)
    total = game.seq
    page = logged_in(browser, live_server.url, game.seats.get(index=0).user)
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step=0")
    page.evaluate("window.__sameDocument = true")
    title = page.locator("#replay-title")
    # the figures of the drawing of the board shown (the narrow one on a phone)
    figures = (
        "Array.from(document.querySelectorAll('.board-svg'))"
        ".find((s) => s.getClientRects().length).querySelector('.figures').innerHTML"
    )
    start = page.evaluate(figures)
    visible_buttons_are_big_enough(page)
    shot(page, "history-390x844")

    page.click(".step-button.step-next")
    assert title.inner_text() == f"After move 1 of {total}"
    assert page.locator(".current-event").is_visible()
    assert page.locator("#move-1.current").count() == 1
    page.keyboard.press("ArrowRight")
    assert title.inner_text() == f"After move 2 of {total}"
    assert "step=2" in page.url
    page.keyboard.press("End")
    assert title.inner_text() == f"After move {total} of {total}"
    assert page.locator(".step-button.step-next").is_disabled()
    assert page.evaluate(figures) != start
    # the last position is the server's own drawing of it, score for score
    scores = [p.inner_text() for p in page.locator(".player .score").all()]
    page.keyboard.press("Home")
    assert title.inner_text() == "The start of the game"
    assert page.evaluate(figures) == start
    page.keyboard.press("ArrowLeft")  # nothing before the start
    assert title.inner_text() == "The start of the game"
    assert page.evaluate("window.__sameDocument") is True  # no page was loaded
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step={total}")
    assert [p.inner_text() for p in page.locator(".player .score").all()] == scores
    page.context.close()


#: what a position shows, element by element, in the players' panels, the piles and the board's
#: figures: each element's tag, class, title, aria-hidden and own words (whitespace folded)
POSITION = """() => {
  const parts = [];
  const roots = ".replay .players, .replay .piles, .board-svg .figures";
  for (const root of document.querySelectorAll(roots)) {
    for (const el of root.querySelectorAll("*")) {
      const own = Array.from(el.childNodes).filter((n) => n.nodeType === 3)
        .map((n) => n.textContent).join("").replace(/\\s+/g, " ").trim();
      parts.push([el.tagName.toLowerCase(), el.getAttribute("class") || "",
                  el.getAttribute("title") || "", el.getAttribute("aria-hidden") || "",
                  own].join("|"));
    }
  }
  return parts;
}"""


def _served_positions(browser: Any, base: str, user: Any, url: str, steps: list[int]) -> dict:
    """Each step's position as the server draws it (JavaScript off: the ?step= page as is)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base,
    }])
    page = context.new_page()
    served = {}
    for step in steps:
        page.goto(f"{url}?step={step}")
        served[step] = page.evaluate(POSITION)
    context.close()
    return served


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_replay_draws_each_position_as_the_server_does(
    live_server: Any, browser: Any, make_user: Any, kind: str
) -> None:
    """Figures and their icons, the arrows' words for screen readers, "discarded this turn":
    stepped in the page, a position is the server's own drawing of it, element for element."""
    game, anna, bela = two_people(make_user, kind)
    users, bot = [anna, bela], RandomBot(5)
    while game.seq < 40 and game.status == GameStatus.RUNNING:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
        game.refresh_from_db()
    url = f"{live_server.url}/games/{game.pk}/history/"
    fresh = [e.seq for e in Event.objects.filter(game=game, action__startswith="discard")]
    steps = sorted({1, 2, 3, *fresh[:4], game.seq // 2, game.seq})
    served = _served_positions(browser, live_server.url, anna, url, steps)
    assert any("pile-note" in line for s in steps for line in served[s])  # it is tested
    figures = [line for s in steps for line in served[s] if line.startswith("td|column-figure|")]
    assert any(line.split("|")[2] for line in figures) == (kind == "keltis")
    page = logged_in(browser, live_server.url, anna)
    page.goto(f"{url}?step=0")
    page.evaluate("window.__sameDocument = true")
    for step in steps:
        while page.locator(f".history-table #move-{step}").count() == 0:
            page.click(".moves-pager .moves-later")  # the list's next page (issue 32)
        page.evaluate(f"document.querySelector('.history-table #move-{step} a').click()")
        assert page.evaluate(POSITION) == served[step], step
    assert page.evaluate("window.__sameDocument") is True
    page.context.close()
