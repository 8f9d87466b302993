"""Cards of both games in the records.md notation, and the column order rule they share.

A card is its written form (``r7``, ``gx``, ``P7``, ``W5``); two copies of one card are the same
string. Parsing is a dictionary look-up so that replays stay fast.
"""

from __future__ import annotations

from typing import NamedTuple

COLOURS = "gyrpb"
COLOUR_NAMES = {"g": "green", "y": "yellow", "r": "red", "p": "pink", "b": "blue"}
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}

NUMBER, CLOSING, POINT, WISH = "number", "closing", "point", "wish"


class CardInfo(NamedTuple):
    """What a written card means: its kind, colour (None for grey cards) and value."""

    kind: str
    colour: str | None
    value: int | None
    sort_key: int


def _catalogue() -> dict[str, CardInfo]:
    cards: dict[str, CardInfo] = {}
    for ci, colour in enumerate(COLOURS):
        for value in range(11):
            cards[f"{colour}{value}"] = CardInfo(NUMBER, colour, value, ci * 100 + value)
        cards[f"{colour}x"] = CardInfo(CLOSING, colour, None, ci * 100 + 50)
    for value in range(11):
        cards[f"P{value}"] = CardInfo(POINT, None, value, 500 + value)
    for value in range(1, 10):
        cards[f"W{value}"] = CardInfo(WISH, None, value, 600 + value)
    return cards


CARDS: dict[str, CardInfo] = _catalogue()


def card_sort_key(card: str) -> int:
    """Order of cards in a hand or a listing: g, y, r, p, b, then P and W; by value within."""
    return CARDS[card].sort_key


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=card_sort_key)


def number_cards(copies_of: dict[int, int]) -> list[str]:
    """Every number card of every colour, ``copies_of[value]`` times each, in a fixed order."""
    return [
        f"{colour}{value}"
        for colour in COLOURS
        for value in sorted(copies_of)
        for _ in range(copies_of[value])
    ]


# The column/row order rule of both games: the first card of a value different from the first
# fixes the direction; equal values are always allowed.
UNDECIDED, ASCENDING, DESCENDING = 0, 1, -1
DIRECTION_NAMES = {UNDECIDED: None, ASCENDING: "ascending", DESCENDING: "descending"}


def order_error(direction: int, last: int, value: int) -> str | None:
    """The message id that forbids laying ``value`` after ``last``, or None when it is allowed."""
    if direction == ASCENDING and value < last:
        return "column_ascending"
    if direction == DESCENDING and value > last:
        return "column_descending"
    return None


def direction_after(direction: int, last: int, value: int) -> int:
    """The column's direction once ``value`` has been laid after ``last`` (which it must allow)."""
    if direction != UNDECIDED or value == last:
        return direction
    return ASCENDING if value > last else DESCENDING
