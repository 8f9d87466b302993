"""A turn by keyboard alone on the table, in a real Chromium at 360x740: Tab to a card of the
hand, Enter chooses it; the places it may go light up, each a button while lit (in the Tab
order, named by its move's words, with the site's focus ring); Enter or Space on one plays
it, as a tap does."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_board_taps import CHOICE, logged_in, stored
from tests.browser.test_phone_play import two_people

pytestmark = pytest.mark.django_db(transaction=True)

#: the focused element: its classes, button attributes, outline and the move of its button
#: (a lit place of the table: the button put in it, the place's classes, ring and moves)
FOCUSED = """() => { const e = document.activeElement;
  const spot = e.closest('.place-target, .stone-target') || e; const s = getComputedStyle(spot);
  return {cls: spot.getAttribute('class') || '', card: e.dataset.card || null,
          tabindex: e.getAttribute('tabindex'), role: e.getAttribute('role'),
          label: e.getAttribute('aria-label'), outline: s.outlineStyle + ' ' + s.outlineColor,
          moves: (spot.__moves || []).map(b => b.form.querySelector('input[name=action]').value),
          names: (spot.__moves || []).map(b => b.title || b.textContent.trim())}; }"""
#: the site's focus ring (site.css --focus)
RING = "solid rgb(163, 90, 0)"


def tab_to(page: Any, wanted: Any, most: int = 80) -> dict[str, Any]:
    """Press Tab until the focused element is ``wanted`` (a test of FOCUSED's answer)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if wanted(focused):
            return focused
    pytest.fail("Tab never reached the element")


@pytest.mark.parametrize(("kind", "key"), [("keltis", "Enter"), ("keltis-cards", " ")])
def test_a_card_is_laid_by_keyboard_alone(
    live_server: Any, browser: Any, make_user: Any, kind: str, key: str
) -> None:
    """Tab to a card, Enter; Tab to a lit place, Enter or Space: the lay is played."""
    game, anna, bela = two_people(make_user, kind)
    seat = game.to_move
    page = logged_in(browser, live_server.url, [anna, bela][seat])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    # unlit, a place of the table is not in the Tab order
    assert page.locator("main [tabindex='0']:not(a, button, input, textarea, select)").count() == 0
    card = page.locator(".hand-pick").nth(page.evaluate(CHOICE, True)).get_attribute("data-card")
    tab_to(page, lambda f: f["card"] == card and "hand-pick" in f["cls"])
    page.keyboard.press("Enter")
    # a lit place with one lay of the card: a button named by the lay's words
    place = tab_to(
        page,
        lambda f: (
            ("place-target" in f["cls"] or "stone-target" in f["cls"])
            and len(f["moves"]) == 1
            and f["moves"][0].startswith("play")
        ),
    )
    assert place["tabindex"] == "0" and place["role"] == "button", place
    assert place["label"] == place["names"][0], place
    if not ("stone-target" in place["cls"] or "figure-choice" in place["cls"]):
        assert place["outline"] == RING, place
    else:  # a board's lit stone or figure: its cell's or figure's frame is the ring
        stroke = page.evaluate(
            "getComputedStyle(document.activeElement.querySelector('.stone-hit, rect')).stroke"
        )
        assert stroke == RING.split(" ", 1)[1], stroke
    with page.expect_navigation():
        page.keyboard.press(key)
    assert stored(game, seat)[0] == place["moves"][0], stored(game, seat)
    page.context.close()


def test_a_card_put_back_by_keyboard_leaves_no_button_on_the_table(
    live_server: Any, browser: Any, make_user: Any
) -> None:
    """Enter on the chosen card puts it back: its places are unlit and leave the Tab order."""
    game, anna, bela = two_people(make_user, "keltis-cards")
    page = logged_in(browser, live_server.url, [anna, bela][game.to_move])
    page.goto(f"{live_server.url}/games/{game.pk}/")
    card = page.locator(".hand-pick").nth(page.evaluate(CHOICE, True))
    card.focus()
    page.keyboard.press("Enter")
    lit = page.locator(".place-target")
    keys = page.locator(".place-target .lit-key[role=button][tabindex='0'][aria-label]")
    assert lit.count() and keys.count() == lit.count()
    assert page.locator(".player-me .column .lit-key").count() == 1
    card.focus()
    page.keyboard.press("Enter")
    assert page.locator(".place-target").count() == 0
    assert page.locator(".lit-key, [role=button][tabindex='0']:not(button)").count() == 0
    page.context.close()
