"""A whole turn by taps on the table, in a real Chromium at 360x740: tap a card, tap where it
goes (its stone on the board or the figure that starts its path, your own row, the discard
pile), tap the deck or a pile to draw. Three taps, each on a lit place of 44 px or more, and
each the same POST as the list's button (play.js presses it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from games.engine.cards import CARDS
from games.models import Event, Game
from games.state import engine_state
from tests.browser import test_phone_play
from tests.browser.test_phone_play import two_people

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 360, "height": 740}


def logged_in(browser: Any, base: str, user: Any, viewport: dict[str, int] = PHONE) -> Any:
    """test_phone_play's signed-in page, at this file's phone size (360x740)."""
    return test_phone_play.logged_in(browser, base, user, viewport)


#: set SCREENSHOT_DIR to keep the pages as PNGs
SCREENSHOT_DIR = os.environ.get("SCREENSHOT_DIR")


def shot(page: Any, name: str) -> None:
    if SCREENSHOT_DIR:
        Path(SCREENSHOT_DIR).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / f"{name}.png"))
        for part in (".board-frame", ".player-me", ".piles"):
            element = page.locator(part).locator("visible=true").first
            if element.count():
                element.screenshot(path=str(Path(SCREENSHOT_DIR) / f"{name}{part}.png"))


#: the lit places of the page that are shown: each one's kind, moves and size in CSS px
LIT = """() => Array.from(document.querySelectorAll('.place-target, .stone-target'))
  .filter(e => e.getClientRects().length)
  .map(e => { const r = (e.querySelector('.stone-hit') || e).getBoundingClientRect();
              return {cls: e.getAttribute('class'), stone: e.getAttribute('data-stone'),
                      moves: (e.__moves || [])
                        .map(b => b.form.querySelector('input[name=action]').value),
                      w: r.width, h: r.height}; })"""


def lit(page: Any) -> list[dict[str, Any]]:
    places = page.evaluate(LIT)
    small = [p for p in places if p["w"] < 44 or p["h"] < 44]
    assert not small, small
    return places


def tap_lit(page: Any, index: int) -> None:
    """Tap the index-th shown lit place (its cell, on a board), as a finger does."""
    spot = page.locator(".place-target, .stone-target").locator("visible=true").nth(index)
    hit = spot.locator(".stone-hit")
    with page.expect_navigation():
        (hit if hit.count() else spot).tap()


def stored(game: Game, seat: int) -> list[str]:
    return list(
        Event.objects.filter(game=game, seat=seat).order_by("seq").values_list("action", flat=True)
    )


#: the index of the first card of the hand with two moves or more, one of them a lay when
#: asked (a card with one move plays at the first tap)
CHOICE = """(lay) => Array.from(document.querySelectorAll('.hand-pick')).findIndex(b => {
  const moves = Array.from(document.querySelectorAll(
      `.action-group[data-card="${b.dataset.card}"] input[name=action]`), i => i.value);
  return moves.length > 1 && (!lay || moves.some(m => m.startsWith('play')));
})"""


def a_turn_by_taps(page: Any, url: str, seat: int, lay: bool, name: str) -> int:
    """Tap a card, tap one of its lit places (a lay when ``lay``, else its discard pile), tap
    a lit place to draw from, unless the deck is the only one (the site draws for the player):
    the turn has passed. Returns the taps it took (clover steps aside)."""
    game = Game.objects.get(pk=int(url.rstrip("/").rsplit("/", 1)[1]))
    page.goto(url)
    assert page.locator(".place-target, .stone-target").locator("visible=true").count() == 0
    index = page.evaluate(CHOICE, lay)
    assert index >= 0
    page.locator(".hand-pick").nth(index).tap()  # tap 1
    shot(page, f"{name}-card-chosen")
    places = lit(page)
    card = page.locator(".hand-pick[aria-pressed=true]").get_attribute("data-card")
    assert places and all(m.split()[1] == card for p in places for m in p["moves"])
    shown = [
        i
        for i, p in enumerate(places)
        if len(p["moves"]) == 1 and (p["moves"][0].startswith("play") == lay)
    ]
    assert shown, places
    chosen = places[shown[0]]["moves"][0]
    tap_lit(page, shown[0])  # tap 2
    assert chosen in stored(game, seat), stored(game, seat)
    places = lit(page)
    while places and places[0]["moves"][0].startswith("clover"):
        # a figure reached a clover: one more step of the rules, by a tap on a lit stone
        tap_lit(page, 0)
        places = lit(page)
    game.refresh_from_db()
    if game.to_move != seat:  # the deck was the only place to draw from
        assert stored(game, seat)[-1] == "draw deck"
        return 2
    assert places and all(p["moves"][0].startswith("draw") for p in places), places
    assert len(places) > 1  # a choice: else the site had drawn
    shot(page, f"{name}-draw")
    drawn = places[-1]["moves"][0]  # the deck: the pile stays for the next player
    assert drawn == "draw deck"
    tap_lit(page, len(places) - 1)  # tap 3
    game.refresh_from_db()
    assert game.to_move != seat
    assert stored(game, seat)[-1] == drawn
    return 3


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_whole_turn_by_three_taps_on_the_table(
    live_server: Any, browser: Any, make_user: Any, kind: str
) -> None:
    game, anna, bela = two_people(make_user, kind)
    users = [anna, bela]
    # the first player lays a card (on the board: a figure starts a path), the second
    # discards one, the first lays again (on the board: the figure moves a stone)
    taps = []
    for turn, lay in enumerate((True, False, True)):
        seat = game.to_move
        page = logged_in(browser, live_server.url, users[seat])
        url = f"{live_server.url}/games/{game.pk}/"
        taps.append(a_turn_by_taps(page, url, seat, lay, f"{kind}-turn{turn + 1}"))
        page.context.close()
        game.refresh_from_db()
    # the first turn's only place to draw from is the deck; the third has a discarded card
    assert taps[0] == 2 and taps[2] == 3, taps


def test_a_path_starts_with_the_figure_tapped(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    """The board game's first card of a colour: two lit figures beside the path's first
    stone, the big one and a small one; a tap on one starts the path with it."""
    game, anna, bela = two_people(make_user, "keltis")
    seat = game.to_move
    page = logged_in(browser, live_server.url, [anna, bela][seat])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator(".hand-pick").first.tap()
    places = lit(page)
    figures = [p for p in places if "figure-choice" in p["cls"]]
    assert sorted(p["moves"][0].split()[2] for p in figures) == ["big", "small"], places
    shot(page, "keltis-figure-choice")
    big = next(i for i, p in enumerate(places) if p in figures and p["moves"][0].endswith("big"))
    move = places[big]["moves"][0]
    tap_lit(page, big)
    assert stored(game, seat) == [move]
    page.context.close()


def test_a_second_tap_on_the_chosen_card_puts_it_back(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    game, anna, bela = two_people(make_user, "keltis-cards")
    page = logged_in(browser, live_server.url, [anna, bela][game.to_move])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    card = page.locator(".hand-pick").nth(page.evaluate(CHOICE, False))
    card.tap()
    assert card.get_attribute("aria-pressed") == "true" and lit(page)
    assert page.locator(".group-chosen button.act").first.is_visible()
    card.tap()
    assert card.get_attribute("aria-pressed") == "false"
    assert page.locator(".place-target").count() == 0
    assert page.locator(".action-group[data-card] button.act").locator("visible=true").count() == 0
    assert stored(game, game.to_move) == []
    page.context.close()


#: the claims of a wishing stone the move list shows
SHOWN_CLAIMS = """() => Array.from(document.querySelectorAll('.actions button.act'))
  .filter(b => b.getClientRects().length)
  .map(b => b.form.querySelector('input[name=action]').value)
  .filter(a => a.startsWith('wish'))"""


def a_table_with_a_claim(make_user: Any) -> tuple[Game, Any, str]:
    """A card game whose player to move may claim a wishing stone with one of their cards and
    only one partner for that stone (a deal's luck: tables are dealt until one has it); the
    player and that claim."""
    for _ in range(30):
        game, anna, bela = two_people(make_user, "keltis-cards", names=(None, None))
        claims = [a for a in engine_state(game).legal() if a.startswith("wish")]
        for claim in claims:
            card = claim.split()[1]
            value = CARDS[card].value
            if sum(card in c.split() and CARDS[c.split()[1]].value == value for c in claims) == 1:
                return game, [anna, bela][game.to_move], claim
    pytest.fail("no deal with a wishing stone to claim")


def test_a_wishing_stone_is_claimed_by_two_taps(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    """Tap a card that pairs with another of the same value: the wishing stone of that value
    lights in the table's row, and a tap on it claims it with the two cards."""
    game, player, claim = a_table_with_a_claim(make_user)
    seat, card = game.to_move, claim.split()[1]
    stone = f"W{CARDS[card].value}"
    page = logged_in(browser, live_server.url, player)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    claims = page.locator(".wish-group button.act")
    assert claims.count() and not page.evaluate(SHOWN_CLAIMS)  # until a card is chosen
    page.locator(f'.hand-pick[data-card="{card}"]').first.tap()
    places = lit(page)
    spot = next(i for i, p in enumerate(places) if p["moves"] == [claim])
    wish = page.locator(f'.stone-row [data-wish="{stone}"]')
    assert "place-target" in (wish.get_attribute("class") or "")
    # the list shows the chosen card's claims, and no other
    shown = page.evaluate(SHOWN_CLAIMS)
    assert claim in shown and all(card in c.split() for c in shown), shown
    shot(page, "keltis-cards-wish")
    tap_lit(page, spot)
    assert stored(game, seat)[0] == claim, stored(game, seat)
    page.context.close()


def test_the_own_rows_are_on_the_first_screen_after_a_card_is_tapped(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    """On a phone the card game's own rows come right under the hand and the moves: the card
    tapped and the row it lights are both on the screen (the page scrolls the least it must)."""
    game, anna, bela = two_people(make_user, "keltis-cards")
    page = logged_in(browser, live_server.url, [anna, bela][game.to_move])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    card = page.locator(".hand-pick").nth(page.evaluate(CHOICE, True))
    card.tap()
    for element in (card, page.locator(".player-me .place-target")):
        assert element.count() == 1
        box = element.bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    shot(page, "keltis-cards-own-row")
    page.context.close()
