"""What happened, in the past tense: one line per event for the move lists and the emails.

Separate strings for "someone did" and "you did", so that translations can conjugate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.cards import CARDS, CLOSING, POINT

from ..models import EventSource
from ..selectors import EventInfo
from .board import Figure, make_figure
from .cards import BOARD, card_name, colour_label, pile_label

#: past tense, (someone, you): separate strings so that translations can conjugate
_PAST: dict[str, tuple[Any, Any]] = {
    "start_big": (
        gettext_lazy("%(who)s laid %(card)s and started the %(colour)s path with the big figure"),
        gettext_lazy("You laid %(card)s and started the %(colour)s path with your big figure"),
    ),
    "start_small": (
        gettext_lazy("%(who)s laid %(card)s and started the %(colour)s path with a small figure"),
        gettext_lazy("You laid %(card)s and started the %(colour)s path with a small figure"),
    ),
    "play_move": (
        gettext_lazy("%(who)s laid %(card)s and moved the %(colour)s figure"),
        gettext_lazy("You laid %(card)s and moved your %(colour)s figure"),
    ),
    "play_other": (
        gettext_lazy("%(who)s laid %(card)s and moved the %(other)s figure"),
        gettext_lazy("You laid %(card)s and moved your %(other)s figure"),
    ),
    "play_none": (
        gettext_lazy("%(who)s laid %(card)s and moved no figure"),
        gettext_lazy("You laid %(card)s and moved no figure"),
    ),
    "clover_move": (
        gettext_lazy("%(who)s used a clover to move the %(colour)s figure"),
        gettext_lazy("You used a clover to move your %(colour)s figure"),
    ),
    "clover_pass": (
        gettext_lazy("%(who)s declined a clover"),
        gettext_lazy("You declined the clover"),
    ),
    "discard": (
        gettext_lazy("%(who)s discarded %(card)s"),
        gettext_lazy("You discarded %(card)s"),
    ),
    "draw_deck": (
        gettext_lazy("%(who)s drew from the deck"),
        gettext_lazy("You drew from the deck"),
    ),
    "draw_pile": (
        gettext_lazy("%(who)s took %(card)s from %(pile)s"),
        gettext_lazy("You took %(card)s from %(pile)s"),
    ),
    "draw_pile_top": (
        gettext_lazy("%(who)s took the top card of %(pile)s"),
        gettext_lazy("You took the top card of %(pile)s"),
    ),
    "lay_row": (
        gettext_lazy("%(who)s laid %(card)s in the %(colour)s row"),
        gettext_lazy("You laid %(card)s in your %(colour)s row"),
    ),
    "lay_closing": (
        gettext_lazy("%(who)s laid %(card)s at the end of the %(colour)s row"),
        gettext_lazy("You laid %(card)s at the end of your %(colour)s row"),
    ),
    "lay_point_row": (
        gettext_lazy("%(who)s laid %(card)s in the point row"),
        gettext_lazy("You laid %(card)s in your point row"),
    ),
    "lay_point_on": (
        gettext_lazy("%(who)s laid %(card)s at the end of the %(colour)s row"),
        gettext_lazy("You laid %(card)s at the end of your %(colour)s row"),
    ),
    "wish": (
        gettext_lazy("%(who)s claimed wishing stone %(value)s with %(card)s + %(card2)s"),
        gettext_lazy("You claimed wishing stone %(value)s with %(card)s + %(card2)s"),
    ),
    "done": (
        gettext_lazy("%(who)s laid no more cards"),
        gettext_lazy("You laid no more cards"),
    ),
}


def _past_key(kind: str, action: str) -> tuple[str, dict[str, Any]] | None:
    tokens = action.split()
    if not tokens:
        return None
    verb, rest = tokens[0], tokens[1:]
    if verb == "done" and not rest:
        return "done", {}
    if verb == "draw" and len(rest) == 1:
        return ("draw_deck", {}) if rest[0] == "deck" else ("draw_pile", {"pile": rest[0]})
    if verb == "discard" and len(rest) == 1 and rest[0] in CARDS:
        return "discard", {"card": card_name(rest[0])}
    if verb == "clover" and len(rest) == 1:
        if rest[0] == "pass":
            return "clover_pass", {}
        return "clover_move", {"colour": colour_label(rest[0])}
    if verb == "wish" and len(rest) == 2 and all(c in CARDS for c in rest):
        return "wish", {
            "card": card_name(rest[0]), "card2": card_name(rest[1]),
            "value": CARDS[rest[0]].value,
        }
    if verb != "play" or not rest or rest[0] not in CARDS:
        return None
    card = rest[0]
    info = CARDS[card]
    params: dict[str, Any] = {"card": card_name(card)}
    if info.colour:
        params["colour"] = colour_label(info.colour)
    if kind == BOARD:
        if len(rest) == 1:
            return "play_move", params
        extra = rest[1]
        if extra in ("big", "small"):
            return f"start_{extra}", params
        if extra == ">-":
            return "play_none", params
        return "play_other", {**params, "other": colour_label(extra[1:])}
    if info.kind == POINT:
        if len(rest) == 2:
            return "lay_point_on", {**params, "colour": colour_label(rest[1])}
        return "lay_point_row", params
    if info.kind == CLOSING:
        return "lay_closing", params
    return "lay_row", params


def event_text(kind: str, action: str, who: str | None = None, drawn: str | None = None) -> str:
    """What an action did, in the past tense: "bela drew from the deck"; ``who=None``: "You…"."""
    found = _past_key(kind, action)
    if found is None:
        return f"{who}: {action}" if who else action
    key, params = found
    if key == "draw_pile":
        params = {"pile": pile_label(params["pile"])}
        if drawn:
            params["card"] = card_name(drawn)
        else:
            key = "draw_pile_top"
    someone, you = _PAST[key]
    if who is None:
        return str(you) % params
    return str(someone) % {**params, "who": who}


@dataclass(frozen=True)
class EventLine:
    seq: int
    seat: int
    who: str
    text: str
    when: Any
    icon: Figure
    #: who chose the action (``EventSource``) and, unless the player did, a note saying so
    source: str = EventSource.PLAYER
    source_note: str = ""


def source_note(source: str) -> str:
    """How an action not chosen by its player is marked in the move lists."""
    if source == EventSource.TIMEOUT:
        return _("(timed out: played by the bot)")
    if source == EventSource.RETIRED:
        return _("(retired seat)")
    if source == EventSource.BOT:
        return _("(bot)")
    return ""


def event_lines(kind: str, events: list[EventInfo]) -> list[EventLine]:
    return [
        EventLine(
            seq=e.seq, seat=e.seat, who=e.seat_name,
            text=event_text(kind, e.action, e.seat_name, e.drawn), when=e.created_at,
            icon=make_figure(e.seat, e.seat_name, None, 0, False, 0, 0),
            source=e.source, source_note=source_note(e.source),
        )
        for e in events
    ]


#: moves in a page of the history's move list: a page of a 600-move game is as long as one of
#: a 20-move game (the whole record is data, for replay.js to page through)
MOVES_PAGE = 20


@dataclass(frozen=True)
class MoveWindow:
    """The moves the history's list shows: ``first``..``last`` of ``total`` (1-based)."""

    first: int
    last: int
    total: int

    @property
    def earlier(self) -> int | None:
        """The step whose page is the one before (its last move), if any."""
        return self.first - 1 if self.first > 1 else None

    @property
    def later(self) -> int | None:
        """The step whose page is the one after (its first move), if any."""
        return self.last + 1 if self.last < self.total else None


def move_window(step: int, total: int, size: int = MOVES_PAGE) -> MoveWindow:
    """The page of the move list that holds move ``step`` (the start: the first page)."""
    first = (max(step, 1) - 1) // size * size + 1
    return MoveWindow(first=first, last=min(total, first + size - 1), total=total)


def move_record(kind: str, events: list[EventInfo]) -> list[list[Any]]:
    """Every move as replay.js lists it: [seat, what, source, source's note, when for
    ``<time datetime>``, when as the list writes it], in the page's language and time zone."""
    record = []
    zone = timezone.get_current_timezone()
    notes = {source: source_note(source) for source in {e.source for e in events}}
    texts: dict[tuple[str, str, str | None], str] = {}  # "anna drew from the deck", once
    for e in events:
        when = e.created_at.astimezone(zone) if timezone.is_aware(e.created_at) else e.created_at
        key = (e.action, e.seat_name, e.drawn)
        text = texts.get(key)
        if text is None:
            text = texts[key] = event_text(kind, e.action, e.seat_name, e.drawn)
        record.append([
            e.seat, text, e.source, notes[e.source],
            when.replace(microsecond=0).isoformat(), when.strftime("%Y-%m-%d %H:%M"),
        ])
    return record
