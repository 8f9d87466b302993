"""The history's replay as data: every position of the game, worded here, for replay.js to step
through in the browser without loading a page per step.

Each position is a frame of what the replay draws (figures and tiles on the board, piles, deck,
each player's rows, score and facts, whose turn); frame 0 whole, every later one only with
what changed since the one before, so a 600-action game stays well under 300 KB. The frames
are made from the views the selector hands over (``HistoryPage.views``): the replay shows
exactly what the server-drawn ``?step=`` page shows, never more.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine.board_layouts import STONE_VALUES
from games.engine.cards import COLOURS

from ..selectors import SeatInfo
from .board import make_figure, seat_style
from .cards import BOARD, chip, colour_label
from .messages import phase_text
from .table import _DIRECTION_TEXTS, _DIRECTIONS, PlayerPanel, TableView, table_view

#: a column's order as replay.js draws it: (arrow, words)
_DIRECTION_WORDS = {
    "": ("", ""),
    "open": ("↕", _DIRECTION_TEXTS["open"]),
    **{key: (arrow, _DIRECTION_TEXTS[key]) for key, arrow in _DIRECTIONS.items()},
}


def _cards(chips: list[Any]) -> str:
    return " ".join(c.card for c in chips)


def _player(kind: str, panel: PlayerPanel) -> dict[str, Any]:
    """A player's part of a frame: numbers and card codes, worded by replay.js from ``words``."""
    columns = {}
    for col in panel.columns:
        badge = "s" if col.sealed else "c" if col.closed else ""
        icon = col.figure_icon
        stone, big = (icon.stone, int(icon.big)) if icon is not None else (-1, 0)
        columns[col.colour] = [_cards(col.cards), col.direction, badge, stone, big]
    score = ngettext("%(score)s point", "%(score)s points", panel.score) % {"score": panel.score}
    player: dict[str, Any] = {"score": score, "cols": columns, "in_hand": panel.hand_count}
    if kind == BOARD:
        player["wish"] = panel.wishing_stones
        player["tiles"] = panel.tile_points
        player["start"] = panel.on_start
    else:
        player["points"] = _cards(panel.point_row)
        player["stones"] = _cards(panel.stone_cards)
    if panel.hand is not None:
        player["hand"] = _cards(panel.hand)
    return player


def _frame(
    kind: str, view: dict[str, Any], table: TableView, phases: dict[str, int]
) -> dict[str, Any]:
    phase = phase_text(kind, view.get("phase"), view) if view.get("phase") != "finished" else ""
    frame: dict[str, Any] = {
        "piles": {p.key: [p.top.card if p.top else "", p.size] for p in table.piles},
        "deck": table.deck_count,
        "to_move": view.get("to_move"),
        "phase": phases.setdefault(phase, len(phases)),
        "players": [_player(kind, panel) for panel in table.players],
        # the piles marked "discarded this turn" (may not be taken back)
        "fresh": [p.key for p in table.piles if p.fresh],
    }
    if table.board is not None:
        frame["figures"] = [
            [f.seat, int(f.big), round(f.x, 1), round(f.y, 1), f.colour or "", f.stone]
            for f in table.board.figures
        ]
        frame["tiles"] = [f"{s.colour}{s.number}" for s in table.board.stones if s.tile]
        frame["goal"] = table.goal_count or 0
    else:
        frame["free"] = [slot.chip.card for slot in table.wishing_stones if slot.free]
        frame["closed"] = table.closed_rows_text
    return frame


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``after`` that differ from ``before``'s."""
    return {k: v for k, v in after.items() if before.get(k) != v}


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What ``after`` changes of ``before``: the top-level keys that changed; for the piles
    the piles that changed; for the players each player's changed fields, and of their
    columns the changed colours (``{"players": {"1": {"score": 3, "cols": {"r": …}}}}``)."""
    changed: dict[str, Any] = {}
    for key, value in after.items():
        if key == "players":
            players = {}
            for index, player in enumerate(value):
                fields = _changed(before["players"][index], player)
                if "cols" in fields:
                    fields["cols"] = _changed(before["players"][index]["cols"], player["cols"])
                if fields:
                    players[str(index)] = fields
            if players:
                changed["players"] = players
        elif key == "piles":
            piles = _changed(before["piles"], value)
            if piles:
                changed["piles"] = piles
        elif before.get(key) != value:
            changed[key] = value
    return changed


def replay_data(
    kind: str, views: list[dict[str, Any]], seats: list[SeatInfo], *, show_hands: bool
) -> dict[str, Any]:
    """Everything replay.js needs: the frames (the first whole, then changes), the cards they
    name as chips, the seats' figures and the words that frame the positions."""
    frames: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    codes: set[str] = set()
    phases: dict[str, int] = {}
    most = 0  # the most cards a count may say (deck, pile)
    for view in views:
        table = table_view(kind, view, seats, show_hands=show_hands)
        frame = _frame(kind, view, table, phases)
        most = max(most, table.deck_count, *(p.size for p in table.piles))
        frames.append(frame if previous is None else _changes(previous, frame))
        previous = frame
        codes.update(_codes(frame))
    cards = {}
    for code in sorted(codes):
        c = chip(code)
        cards[code] = [c.css, c.text, c.name]
    figures = {}
    for s in seats:
        style = seat_style(s.index)
        for big in (0, 1):
            f = make_figure(s.index, s.name, None, 0, bool(big), 0, 0)
            figures[f"{s.index}-{big}"] = {
                "shape": f.shape, "r": f.r, "points": f.points, "fill": style.fill,
                "stroke": style.stroke, "mark": style.mark, "title": f.title,
            }
    return {
        "kind": kind,
        "frames": frames,
        "cards": cards,
        "figures": figures,
        "names": [s.name for s in seats],
        "phases": list(phases),
        "words": {
            "cards": [ngettext("%(n)s card", "%(n)s cards", n) % {"n": n} for n in range(most + 1)],
            "deck": [
                ngettext("Deck: %(n)s card left", "Deck: %(n)s cards left", n) % {"n": n}
                for n in range(most + 1)
            ],
            "goal": [
                ngettext(
                    "%(n)s figure in the goal area: the fifth ends the game",
                    "%(n)s figures in the goal area: the fifth ends the game",
                    n,
                ) % {"n": n}
                for n in range(6)
            ],
            "stone": [
                _("stone %(stone)s (%(value)s)") % {"stone": n, "value": STONE_VALUES[n]}
                for n in range(len(STONE_VALUES))
            ],
            "dirs": {key: [arrow, str(text)] for key, (arrow, text) in _DIRECTION_WORDS.items()},
            # a figure's title, as games.presenters.board.make_figure words it
            "figure": [_("small figure"), _("big figure")],
            "figure_start": _("on the start stone"),
            "figure_on": _("on stone %(stone)s of the %(colour)s path"),
            "colours": {colour: colour_label(colour) for colour in COLOURS},
            "fresh": _("discarded this turn"),
            "sealed": _("sealed"),
            "closed": _("closed"),
            "facts": [
                _("Wishing stones: %(n)s"), _("Point tiles: %(n)s"),
                _("On the start stone: %(s)s"), _("Cards in hand: %(n)s"),
            ],
            "start": _("The start of the game"),
            "after": _("After move %(step)s of %(last)s"),
            "next": _("Next: <strong>%(name)s</strong> to %(phase)s."),
            "over": _("The game is over."),
            "empty": _("empty"),
            "free": _("still free"),
            "taken": _("taken"),
            "to_move": _("to move"),
        },
    }


def _codes(frame: dict[str, Any]) -> set[str]:
    codes = {top for top, _size in frame["piles"].values() if top}
    codes.update(frame.get("free", []))
    for player in frame["players"]:
        for column in player["cols"].values():
            codes.update(column[0].split())
        for key in ("points", "stones", "hand"):
            codes.update((player.get(key) or "").split())
    if "free" in frame:
        codes.update(f"W{v}" for v in range(1, 10))
    return codes
