"""The history's replay as data: every position of the game, worded here, for replay.js to step
through in the browser without loading a page per step.

Each position is a frame of what the replay draws (figures and tiles on the board, piles, deck,
each player's rows, score and facts, whose turn); frame 0 whole, every later one only with
what changed since the one before, so a 600-action game stays well under 300 KB. The frames
are made from the views the selector hands over (``HistoryPage.views``): the replay shows
exactly what the server-drawn ``?step=`` page shows, never more.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games.engine import game_class
from games.engine.board_layouts import END_STONE, STONE_VALUES
from games.engine.cards import COLOURS

from ..selectors import SeatInfo
from .board import BoardSvg, board_svg, make_figure, narrow_board, seat_style
from .cards import BOARD, chip, colour_label
from .messages import phase_text
from .table import _DIRECTION_TEXTS, _DIRECTIONS, _on_start, closed_rows_text

#: a column's order as replay.js draws it: (arrow, words)
_DIRECTION_WORDS = {
    "": ("", ""),
    "open": ("↕", _DIRECTION_TEXTS["open"]),
    **{key: (arrow, _DIRECTION_TEXTS[key]) for key, arrow in _DIRECTIONS.items()},
}


def _player(
    kind: str, player: dict[str, Any], show_hands: bool, language: str | None
) -> dict[str, Any]:
    """A player's part of a frame, from the engine's view of them: numbers and card codes,
    worded by replay.js from ``words`` (what ``table_view``'s panel shows, without building
    it: a frame a step, 600 steps a long game)."""
    directions = player.get("directions", {})
    figures = player.get("figures", {})
    laid = player.get("columns" if kind == BOARD else "rows", {})
    # the board game's columns are never closed nor sealed (table._board_columns)
    closed = player.get("closed", {}) if kind != BOARD else {}
    sealed = player.get("sealed", {}) if kind != BOARD else {}
    badges = bool(closed or sealed)  # 600 players a long game: no lookups that find nothing
    columns = {}
    for colour in COLOURS:
        cards = laid.get(colour)
        order = directions.get(colour) if cards else ""
        direction = "open" if order is None else order
        badge = ("s" if sealed.get(colour) else "c" if closed.get(colour) else "") if badges else ""
        figure = figures.get(colour) if figures else None
        stone, big = (figure["stone"], int(figure["big"])) if figure else (-1, 0)
        columns[colour] = [" ".join(cards) if cards else "", direction, badge, stone, big]
    score = player.get("score", 0)
    out: dict[str, Any] = {
        "score": worded(language, "score", score), "cols": columns,
        "in_hand": player.get("hand_count", 0),
    }
    if kind == BOARD:
        out["wish"] = player.get("wishing_stones", 0)
        out["tiles"] = player.get("tile_points", 0)
        on_start = player.get("on_start", {})
        out["start"] = worded(language, "start", on_start.get("big", 0), on_start.get("small", 0))
    else:
        out["points"] = " ".join(player.get("point_row") or [])
        out["stones"] = " ".join(player.get("wishing_stones") or [])
    if show_hands and player.get("hand"):
        out["hand"] = " ".join(player["hand"])
    return out


@lru_cache(maxsize=4096)
def worded(language: str | None, what: str, *values: Any) -> str:
    """A phrase a frame repeats (a score, the start stone, a phase), worded once a language."""
    if what == "score":
        return ngettext("%(score)s point", "%(score)s points", values[0]) % {"score": values[0]}
    if what == "start":
        return _on_start({"on_start": {"big": values[0], "small": values[1]}})
    if what == "closed":
        view = {"closed_rows": values[0], "end_reason": None if values[1] else "ended"}
        return closed_rows_text(view)
    kind, phase, draws = values
    return phase_text(kind, phase, {"draws_left": draws})


def _seat_figures(seat: int, player: dict[str, Any]) -> list[list[Any]]:
    """A seat's figures in ``board_svg``'s order, each where it stands whatever the board's
    layout: [seat, big, colour, stone] ("" and 0 on the start stone, where replay.js puts the
    seat's i-th waiting figure on the i-th place of its layout's ``start``)."""
    out: list[list[Any]] = [
        [seat, int(figure["big"]), colour, figure["stone"]]
        for colour, figure in player.get("figures", {}).items()
    ]
    on_start = player.get("on_start", {})
    out.extend([seat, 1, "", 0] for _ in range(on_start.get("big", 0)))
    out.extend([seat, 0, "", 0] for _ in range(on_start.get("small", 0)))
    return out


def _layout(board: BoardSvg, seats: int, waiting: int) -> dict[str, Any]:
    """One drawing's figure places, read off ``board`` (a probe position, see
    ``board_layouts``): each seat's offset from a stone's centre, its places on the start stone
    and its figures' shapes at the drawing's size; replay.js adds a stone's centre, which it
    reads off the drawing itself."""
    centres = {(s.colour, s.number): (s.x, s.y) for s in board.stones}
    slots: list[list[float]] = [[0.0, 0.0]] * seats
    start: list[list[list[float]]] = [[] for _ in range(seats)]
    shapes: dict[str, list[Any]] = {}
    for f in board.figures:
        shapes.setdefault(f"{f.seat}-{int(f.big)}", [f.r, f.points])
        if f.colour is None:
            start[f.seat].append([f.x, f.y])
        else:
            x, y = centres[(f.colour, f.stone)]
            slots[f.seat] = [f.x - x, f.y - y]
    return {"slots": slots, "start": start, "shapes": shapes}


def _waiting(player: dict[str, Any]) -> int:
    """The figures a player has waiting on the start stone."""
    on_start = player.get("on_start", {})
    return on_start.get("big", 0) + on_start.get("small", 0)


def board_layouts(waiting: int, names: list[str]) -> dict[str, dict[str, Any]]:
    """Where the wide board (``board_svg``) and the narrow one (``narrow_board``) put each
    seat's figures, for replay.js to redraw a step's figures on whichever drawings the page
    holds: taken from the drawings of a position with every seat's small figure on a stone,
    its big one on another and ``waiting`` figures at the start, as many as ever wait there
    in this game, so that the layouts' own code places them (never a copy of it)."""
    seats = len(names)
    probe = {"players": [
        {"figures": {"g": {"stone": 1, "big": False}, "y": {"stone": 1, "big": True}},
         "on_start": {"big": 0, "small": waiting}}
        for _ in range(seats)
    ]}
    wide = board_svg(probe, names)
    return {
        "wide": _layout(wide, seats, waiting),
        "narrow": _layout(narrow_board(wide), seats, waiting),
    }


def _tiles(tiles: dict[str, dict[str, str]]) -> list[str]:
    """The stones a tile still lies on, in ``board_svg``'s order."""
    return [
        f"{colour}{number}" for colour in COLOURS for number in range(1, END_STONE + 1)
        if tiles.get(colour, {}).get(str(number))
    ]


def _frame(
    kind: str, view: dict[str, Any], show_hands: bool, reuse: dict[str, Any] | None,
    language: str | None,
) -> dict[str, Any]:
    """One position, whole: ``reuse`` (the frame before) lends what did not change since,
    most players on any step, and the tiles on most."""
    phase = view.get("phase")
    phase_words = ""
    if phase != "finished":
        draws = (view.get("draws_left") or 1) if phase == "draw" else 0
        phase_words = worded(language, "phase", kind, phase, draws)
    fresh = view.get("discarded_this_turn") if phase != "finished" else None
    fresh_keys = set(fresh) if isinstance(fresh, list) else ({fresh[0]} if fresh else set())
    piles = view.get("piles", {})
    raw = view.get("players", [])
    players, figures = [], []
    waiting = reuse["_waiting"] if reuse is not None else 0
    for index, player in enumerate(raw):
        if reuse is not None and reuse["_raw"][index] == player:
            players.append(reuse["players"][index])
            figures.append(reuse["_figures"][index])
        else:
            players.append(_player(kind, player, show_hands, language))
            figures.append(_seat_figures(index, player) if kind == BOARD else [])
            waiting = max(waiting, _waiting(player))
    frame: dict[str, Any] = {
        "piles": {key: [cards[-1] if cards else "", len(cards)] for key, cards in piles.items()},
        "deck": view.get("deck_count", 0),
        "to_move": view.get("to_move"),
        "phase": phase_words,
        "players": players,
        "fresh": [key for key, cards in piles.items() if key in fresh_keys and cards],
        "_raw": raw,
        "_figures": figures,
        "_waiting": waiting,  # the most figures waiting at the start so far (board_layouts)
    }
    if kind == BOARD:
        frame["figures"] = [f for seat in figures for f in seat]
        tiles = view.get("tiles", {})
        frame["_tiles"] = tiles
        if reuse is not None and reuse["_tiles"] == tiles:
            frame["tiles"] = reuse["tiles"]
        else:
            frame["tiles"] = _tiles(tiles)
        frame["goal"] = view.get("goal_count") or 0
    else:
        free = set(view.get("wishing_stones", []))
        frame["free"] = [f"W{v}" for v in range(1, 10) if f"W{v}" in free]
        frame["closed"] = worded(
            language, "closed", view.get("closed_rows") or 0,
            view.get("end_reason") is None,
        )
    return frame


#: what ``_frame`` keeps for the next frame's use, not for replay.js
_KEPT = frozenset({"_raw", "_figures", "_tiles", "_waiting"})


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``after`` that differ from ``before``'s."""
    return {k: v for k, v in after.items() if before.get(k) != v}


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What ``after`` changes of ``before``: the top-level keys that changed; for the piles
    the piles that changed; for the players each player's changed fields, and of their
    columns the changed colours (``{"players": {"1": {"score": 3, "cols": {"r": …}}}}``)."""
    changed: dict[str, Any] = {}
    for key, value in after.items():
        if key in _KEPT:
            continue
        if key == "players":
            players = {}
            for index, player in enumerate(value):
                if player is before["players"][index]:
                    continue
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
    name as chips, the seats' figures (and, for the board game, where each drawing of the board
    puts them: ``board_layouts``) and the words that frame the positions."""
    frames: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    # every card the game has, worded once: the rules' card list, the same whatever was dealt
    codes: set[str] = set(game_class(kind).ALL_CARDS)
    phases: dict[str, int] = {}
    most = 0  # the most cards a count may say (deck, pile)
    language = get_language()
    for view in views:
        frame = _frame(kind, view, show_hands, previous, language)
        frame["phase"] = phases.setdefault(frame["phase"], len(phases))
        most = max(most, frame["deck"], *(size for _top, size in frame["piles"].values()))
        if previous is None:
            frames.append({k: v for k, v in frame.items() if k not in _KEPT})
        else:
            frames.append(_changes(previous, frame))
        previous = frame
    if kind != BOARD:
        codes.update(f"W{v}" for v in range(1, 10))  # the wishing stones' row
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
    out: dict[str, Any] = {
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
            # the move list's pages, drawn by replay.js (the server draws the one it shows)
            "shown": _("Moves %(first)s–%(last)s of %(total)s"),  # noqa: RUF001
            "talk": _("Table talk at this move: show it"),
        },
    }
    if kind == BOARD:
        waiting = previous["_waiting"] if previous is not None else 0
        out["boards"] = board_layouts(waiting, [s.name for s in seats])
    return out


def replay_json(data: dict[str, Any]) -> SafeString:
    """The replay's data for ``<script type="application/json">``: compact (no spaces, a
    sixth less to send and parse than ``json_script``'s), and escaped as ``json_script``
    escapes, so that no "</script>" nor "<!--" can end or change the script early."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("&", "\\u0026").replace("<", "\\u003C").replace(">", "\\u003E")
    return mark_safe(text)  # every character that could end the script is escaped above
