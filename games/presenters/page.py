"""The context of the game page and of the history page (the replay), built from the other
modules; no database here: selectors hand over the page's reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _

from ..models import GameStatus
from ..private_tables import join_url
from ..selectors import GamePage, HistoryPage, SeatInfo
from .actions import action_groups
from .board import Figure, SeatStyle, make_figure, seat_style
from .cards import BOARD, chips
from .clock import clock_info
from .history import MOVES_PAGE, event_lines, move_record, move_window
from .messages import end_reason_text, phase_text, results
from .replay import replay_data, replay_json
from .table import profile_url, table_view


def game_context(page: GamePage, now: datetime | None = None) -> dict[str, Any]:
    """Everything ``games/game.html`` draws (``now``: for the time left, default the clock)."""
    game = page.game
    kind = game.kind
    names = [s.name for s in page.seats]
    context: dict[str, Any] = {
        "game": game,
        "page": page,
        "kind": kind,
        "is_board": kind == BOARD,
        "title": _("%(game)s #%(id)s") % {"game": game.get_kind_display(), "id": game.pk},
        # read only before the game starts, or when its log does not replay
        "seats": SimpleLazyObject(
            lambda: [(s, seat_style(s.index), profile_url(s.username)) for s in page.seats]
        ),
        # read only by the legend's drawing (games/drawings.py), and the email's page
        "legend": SimpleLazyObject(lambda: _legend(page.seats)),
        "frozen": page.frozen,
    }
    if game.private and game.status == GameStatus.OPEN and page.viewer_seat is not None:
        # the link its players share (games.private_tables); its creator may renew it
        context["private_link"] = join_url(game)
        context["may_renew_link"] = page.viewer_seat == 0
    if page.started and page.view is None:  # a log that does not replay: its moves only
        context["events"] = event_lines(kind, page.recent_events)
    if not page.started or page.view is None:
        return context
    view = page.view
    viewer = page.viewer_seat
    hand = None
    if viewer is not None:  # drawn from the cache mostly (games/drawings.py): chips when read
        cards = view["players"][viewer].get("hand")
        hand = SimpleLazyObject(lambda: chips(cards))
    to_move = page.to_move
    context.update(
        # read only by the drawings (games/drawings.py): a page whose drawings are all cached
        # never works the table out
        table=SimpleLazyObject(lambda: table_view(kind, view, page.seats, winners=page.winners)),
        hand=hand,
        # the moves' buttons, read only by their drawing (cached for the player to move):
        # whether there are any is has_actions
        action_groups=SimpleLazyObject(lambda: action_groups(kind, page.legal, view)),
        has_actions=bool(page.legal),
        my_turn=viewer is not None and to_move == viewer and not page.finished and not page.frozen,
        to_move_name=names[to_move] if to_move is not None and to_move < len(names) else None,
        phase_text=phase_text(kind, page.phase, view),
        end_reason=end_reason_text(kind, view) if page.finished else "",
        results=results(page.seats, page.scores, page.winners) if page.finished else [],
        events=event_lines(kind, page.recent_events),
        clock=clock_info(page, now),
    )
    return context


def history_context(page: HistoryPage) -> dict[str, Any]:
    """Everything ``games/history.html`` draws: the position at a step, one page of the move
    list, and the record and positions as data for replay.js (games.presenters.history)."""
    game = page.game
    kind = game.kind
    window = move_window(page.step, len(page.events))
    events = event_lines(kind, page.events[window.first - 1 : window.last])
    context: dict[str, Any] = {
        "game": game,
        # without the game's every view and event: a template's Context is a reference cycle
        # (Context <-> ContextDict), so what it holds outlives the response until the cycle
        # collector traverses it (some 25,000 objects a 600-event game, 20 ms of CPU a GET)
        "page": replace(page, views=[], events=[]),
        "kind": kind,
        "is_board": kind == BOARD,
        "title": _("History of %(game)s #%(id)s") % {
            "game": game.get_kind_display(), "id": game.pk
        },
        "events": events,
        "window": window,
        "moves_page": MOVES_PAGE,
        "legend": _legend(page.seats),
        "step": page.step,
        "last_step": page.last_step,
        "prev_step": page.step - 1 if page.step > 0 else None,
        "next_step": page.step + 1 if page.step < page.last_step else None,
        "current_event": (
            events[page.step - window.first] if window.first <= page.step <= window.last
            else None
        ),
        "frozen": page.frozen,
    }
    if page.view is not None:
        context["table"] = table_view(kind, page.view, page.seats, show_hands=page.shows_hands)
        replay = replay_data(kind, page.views, page.seats, show_hands=page.shows_hands)
        replay["moves"] = move_record(kind, page.events)
        replay["page"] = MOVES_PAGE
        context["replay_json"] = replay_json(replay)  # a string: the data itself dies here
        context["phase_text"] = phase_text(kind, page.view.get("phase"), page.view)
        to_move = page.view.get("to_move")
        names = [s.name for s in page.seats]
        context["to_move_name"] = (
            names[to_move] if to_move is not None and to_move < len(names) else None
        )
    return context


@dataclass(frozen=True)
class LegendEntry:
    name: str
    style: SeatStyle
    small: Figure
    big: Figure


def _legend(seats: list[SeatInfo]) -> list[LegendEntry]:
    return [
        LegendEntry(
            name=s.name,
            style=seat_style(s.index),
            small=make_figure(s.index, s.name, None, 0, False, 0, 0),
            big=make_figure(s.index, s.name, None, 0, True, 0, 0),
        )
        for s in seats
    ]
