"""The cards in words and as chips: a card's name, its coloured chip, the piles, the colours.

The lowest module of the package: every other one names cards and colours through it.
Every word a player reads goes through gettext.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine.cards import CARDS, CLOSING, NUMBER, POINT

BOARD, CARD_GAME = "keltis", "keltis-cards"


COLOUR_LABELS = {
    "g": gettext_lazy("green"),
    "y": gettext_lazy("yellow"),
    "r": gettext_lazy("red"),
    "p": gettext_lazy("pink"),
    "b": gettext_lazy("blue"),
}


@dataclass(frozen=True)
class CardChip:
    """One card as drawn: a coloured chip with a short text, and its full name for readers."""

    card: str
    css: str
    text: str
    name: str


#: the words and chips of the cards already worded, by language: a page names dozens of cards
#: and each took a few gettext calls (issue 21); the catalogues do not change while a process
#: runs, and there are 110 cards (the buttons' and the figures' words are kept here too)
WORDED: dict[tuple[str | None, str, str], Any] = {}


def worded(what: str, card: str, word: Callable[[str], Any]) -> Any:
    """``word(card)`` in the active language, worked out once per language and ``what``
    (a kind of wording: "name", "chip", "text", ...)."""
    key = (get_language(), what, card)
    found = WORDED.get(key)
    if found is None:
        found = WORDED[key] = word(card)
    return found


def card_name(card: str) -> str:
    """``r7`` → "red 7", ``rx`` → "red closing card", ``P7`` → "point card 7", ``W5`` → ..."""
    info = CARDS.get(card)
    if info is None:
        return card
    return worded("name", card, _card_name)


def _card_name(card: str) -> str:
    info = CARDS[card]
    if info.kind == NUMBER:
        return _("%(colour)s %(value)s") % {
            "colour": COLOUR_LABELS[info.colour], "value": info.value
        }
    if info.kind == CLOSING:
        return _("%(colour)s closing card") % {"colour": COLOUR_LABELS[info.colour]}
    if info.kind == POINT:
        return _("point card %(value)s") % {"value": info.value}
    return _("wishing stone %(value)s") % {"value": info.value}


def chip(card: str) -> CardChip:
    if card not in CARDS:
        return CardChip(card=card, css="kcard-unknown", text=card, name=card)
    return worded("chip", card, _chip)


def _chip(card: str) -> CardChip:
    info = CARDS[card]
    if info.kind == NUMBER:
        css, text = f"kcard-{info.colour}", str(info.value)
    elif info.kind == CLOSING:
        css, text = f"kcard-{info.colour} kcard-closing", "\N{MULTIPLICATION SIGN}"
    elif info.kind == POINT:
        css, text = "kcard-P", str(info.value)
    else:
        css, text = "kcard-W", str(info.value)
    return CardChip(card=card, css=css, text=text, name=card_name(card))


def chips(cards: list[str] | None) -> list[CardChip]:
    return [chip(card) for card in cards or []]


def pile_label(key: str) -> str:
    if key == "P":
        return _("the point pile")
    return _("the %(colour)s pile") % {"colour": colour_label(key)}


def colour_label(key: str) -> str:
    """A colour key in the reader's words (r: red); other keys as they are."""
    if key not in COLOUR_LABELS:
        return key
    return worded("colour", key, lambda key: str(COLOUR_LABELS[key]))
