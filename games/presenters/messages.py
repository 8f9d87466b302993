"""The words around a move: the message after it, the line saying what the player does now,
why the game ended, and the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine.cards import CARDS, COLOURS

from ..selectors import SeatInfo
from .board import SeatStyle, seat_style, stone_words
from .cards import BOARD, colour_label
from .history import event_text


def result_message(
    kind: str,
    action: str,
    view: dict[str, Any],
    seat: int,
    names: list[str],
    before: dict[str, Any] | None = None,
    automatic: Sequence[str] = (),
) -> str:
    """The confirmation after an action: what it did, where the figure stands, what it won,
    what comes next.

    ``view`` is the acting seat's view right after the action, ``before`` the one right before
    it (what the figure won is the difference: a wishing stone leaves the board when taken).
    ``automatic``: the steps the site then took for the player, each the only one left
    (``services.only_step``); ``view`` is then the one after them.
    """
    parts = [event_text(kind, action) + "."]
    me = view["players"][seat]
    if kind == BOARD:
        moved = _moved_colour(action)
        figure = me.get("figures", {}).get(moved) if moved else None
        if figure:
            parts.append(
                _("Your %(colour)s figure is now on %(stone)s.")
                % {
                    "colour": colour_label(moved),
                    "stone": stone_words(None, moved, figure["stone"]),
                }
            )
        if before is not None:
            parts += tiles_won(before["players"][seat], me)
    for step in automatic:
        parts.append(
            _("%(step)s: the only step left, taken for you.") % {"step": event_text(kind, step)}
        )
    to_move, phase = view.get("to_move"), view.get("phase")
    if to_move is None:
        parts.append(_("The game is over."))
    elif to_move == seat:
        if phase == "clover":
            parts.append(_("You reached a clover: move a figure one more stone, or decline."))
        elif phase == "draw":
            count = view.get("draws_left") or 1
            parts.append(
                ngettext("Now draw a card.", "Now draw %(count)s cards.", count)
                % {"count": count}
            )
        elif phase == "end":
            parts.append(_("You may lay another card, or say done."))
    else:
        name = names[to_move] if 0 <= to_move < len(names) else str(to_move)
        parts.append(_("It is now %(name)s's turn.") % {"name": name})
    return " ".join(parts)


def tiles_won(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What one board-game action won, from the player's part of the view before and after
    it: a wishing stone taken, the points of a point tile (one move reaches one tile)."""
    won = []
    stones = after.get("wishing_stones", 0)
    if stones > before.get("wishing_stones", 0):
        won.append(
            ngettext(
                "You took the wishing stone there: you now hold %(n)s wishing stone.",
                "You took the wishing stone there: you now hold %(n)s wishing stones.",
                stones,
            )
            % {"n": stones}
        )
    points = after.get("tile_points", 0) - before.get("tile_points", 0)
    if points > 0:
        won.append(
            ngettext(
                "The point tile %(value)s there scored you %(value)s point.",
                "The point tile %(value)s there scored you %(value)s points.",
                points,
            )
            % {"value": points}
        )
    return won


def _moved_colour(action: str) -> str | None:
    tokens = action.split()
    if tokens[:1] == ["clover"] and len(tokens) == 2 and tokens[1] in COLOURS:
        return tokens[1]
    if tokens[:1] != ["play"] or len(tokens) < 2 or tokens[1] not in CARDS:
        return None
    if len(tokens) == 2 or tokens[2] in ("big", "small"):
        return tokens[1][0]
    if tokens[2].startswith(">") and tokens[2][1:] in COLOURS:
        return tokens[2][1:]
    return None


def phase_text(kind: str, phase: str | None, view: dict[str, Any] | None = None) -> str:
    if phase == "play":
        if kind == BOARD:
            return _("play a card: lay it or discard it")
        return _("play a card: lay it, discard it, or claim a wishing stone")
    if phase == "clover":
        return _("use the clover or decline it")
    if phase == "draw":
        count = (view or {}).get("draws_left") or 1
        return ngettext("draw a card", "draw %(count)s cards", count) % {"count": count}
    if phase == "end":
        return _("the last lays: lay up to two more cards, or say done")
    if phase == "finished":
        return _("the game is over")
    return ""


def end_reason_text(kind: str, view: dict[str, Any] | None) -> str:
    reason = (view or {}).get("end_reason")
    if reason == "goal":
        return _("The fifth figure entered the goal area.")
    if reason == "deck":
        return _("The last card of the deck was drawn.")
    if reason == "closing":
        return _("A fifth row was closed.")
    return ""


@dataclass(frozen=True)
class ResultRow:
    place: int
    name: str
    score: int
    winner: bool
    style: SeatStyle


def results(seats: list[SeatInfo], scores: list[int], winners: list[int]) -> list[ResultRow]:
    rows = []
    for seat in seats:
        score = seat.score if seat.score is not None else scores[seat.index]
        place = seat.place or 1 + sum(1 for s in scores if s > score)
        rows.append(
            ResultRow(place, seat.name, score, seat.index in winners, seat_style(seat.index))
        )
    return sorted(rows, key=lambda r: (r.place, r.name))


def joined_message(game: Any) -> str:
    """What a player who took a seat is told (the lobby's button, a private table's link)."""
    if game.status == "running":
        return _("You joined %(game)s: the game has started.") % {"game": game}
    return _("You joined %(game)s.") % {"game": game}
