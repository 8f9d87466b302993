"""Everything public about a position: the players' panels (rows, columns, figures, score),
the discard piles, the deck and the card game's wishing stones; hands only when shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine.board_layouts import STONE_VALUES
from games.engine.cards import COLOURS

from ..selectors import SeatInfo
from .board import BoardSvg, Figure, SeatStyle, board_svg, make_figure, seat_style
from .cards import BOARD, CARD_GAME, CardChip, chip, chips, colour_label, pile_label
from .clock import retired_note

_DIRECTIONS = {"ascending": "↑", "descending": "↓"}
_DIRECTION_TEXTS = {
    "ascending": gettext_lazy("ascending"),
    "descending": gettext_lazy("descending"),
    "open": gettext_lazy("no order yet: either way"),
}


@dataclass(frozen=True)
class ColumnInfo:
    colour: str
    label: str
    cards: list[CardChip]
    direction: str  # "ascending", "descending", "open" or "" (no cards)
    arrow: str
    #: board game: where this column's figure stands ("stone 4"), its icon and a full sentence
    figure: str = ""
    figure_icon: Figure | None = None
    figure_title: str = ""
    closed: bool = False
    sealed: bool = False

    @property
    def direction_text(self) -> str:
        """The order in words, in the reader's language (``direction`` is the engine's)."""
        return str(_DIRECTION_TEXTS.get(self.direction, ""))


@dataclass(frozen=True)
class PlayerPanel:
    seat: SeatInfo
    style: SeatStyle
    profile_url: str | None
    score: int
    hand_count: int
    #: the hand, only when the page may show it (never another player's in a running game)
    hand: list[CardChip] | None
    columns: list[ColumnInfo]
    to_move: bool
    winner: bool
    #: the seat's figure, as drawn on the board (the legend's shape and colour)
    icon: Figure
    # board game
    wishing_stones: int = 0
    tile_points: int = 0
    on_start: str = ""
    # card game
    point_row: list[CardChip] = field(default_factory=list)
    stone_cards: list[CardChip] = field(default_factory=list)

    @property
    def retired_note(self) -> str:
        return retired_note(self.seat.timeouts) if self.seat.retired else ""


@dataclass(frozen=True)
class PileInfo:
    key: str
    label: str
    short: str
    top: CardChip | None
    size: int
    #: discarded this turn (may not be taken back, where that rule applies)
    fresh: bool


@dataclass(frozen=True)
class StoneSlot:
    chip: CardChip
    free: bool


@dataclass(frozen=True)
class TableView:
    kind: str
    players: list[PlayerPanel]
    piles: list[PileInfo]
    deck_count: int
    goal_count: int | None
    wishing_stones: list[StoneSlot]
    closed_rows: int | None
    #: the card game's closed rows in words ("" for the board game)
    closed_rows_text: str = ""
    #: the board game's view and seat names, from which ``board`` is drawn when first read
    board_source: tuple[dict[str, Any], list[str]] | None = field(
        default=None, repr=False, compare=False
    )

    @cached_property
    def board(self) -> BoardSvg | None:
        """The board's coordinates, worked out when first read: a page whose board drawing
        is cached (games/drawings.py) never reads it."""
        if self.board_source is None:
            return None
        view, names = self.board_source
        return board_svg(view, names)


def profile_url(username: str | None) -> str | None:
    """The player's profile page (a route of tournaments, named here only by its URL name)."""
    if not username:
        return None
    try:
        return reverse("player_profile", args=[username])
    except NoReverseMatch:
        return None


def _direction(direction: str | None, has_cards: bool) -> tuple[str, str]:
    if not has_cards:
        return "", ""
    if direction is None:
        return "open", "↕"
    return direction, _DIRECTIONS.get(direction, "")


def _board_columns(player: dict[str, Any], seat: SeatInfo) -> list[ColumnInfo]:
    columns = []
    for colour in COLOURS:
        cards = player.get("columns", {}).get(colour, [])
        direction, arrow = _direction(player.get("directions", {}).get(colour), bool(cards))
        figure = player.get("figures", {}).get(colour)
        icon = None
        if figure:
            icon = make_figure(seat.index, seat.name, colour, figure["stone"], figure["big"], 0, 0)
        columns.append(
            ColumnInfo(
                colour, colour_label(colour), chips(cards), direction, arrow,
                figure=_("stone %(stone)s (%(value)s)") % {
                    "stone": figure["stone"], "value": STONE_VALUES[figure["stone"]]
                } if figure else "",
                figure_icon=icon,
                figure_title=icon.title if icon else "",
            )
        )
    return columns


def _card_rows(player: dict[str, Any]) -> list[ColumnInfo]:
    rows = []
    for colour in COLOURS:
        cards = player.get("rows", {}).get(colour, [])
        direction, arrow = _direction(player.get("directions", {}).get(colour), bool(cards))
        rows.append(
            ColumnInfo(
                colour, colour_label(colour), chips(cards), direction, arrow,
                closed=bool(player.get("closed", {}).get(colour)),
                sealed=bool(player.get("sealed", {}).get(colour)),
            )
        )
    return rows


def _on_start(player: dict[str, Any]) -> str:
    on_start = player.get("on_start", {})
    big, small = on_start.get("big", 0), on_start.get("small", 0)
    parts = []
    if big:
        parts.append(_("the big figure"))
    if small:
        parts.append(ngettext("%(n)s small figure", "%(n)s small figures", small) % {"n": small})
    return ", ".join(parts) if parts else _("none")


def table_view(
    kind: str,
    view: dict[str, Any],
    seats: list[SeatInfo],
    *,
    show_hands: bool = False,
    winners: list[int] | None = None,
) -> TableView:
    """Everything public about the position (and the hands, when ``show_hands``)."""
    names = [s.name for s in seats]
    winners = winners or []
    panels = []
    for index, player in enumerate(view.get("players", [])):
        seat = seats[index] if index < len(seats) else SeatInfo(
            index, str(index), False, None, False, None, None
        )
        common = {
            "seat": seat,
            "style": seat_style(index),
            "profile_url": profile_url(seat.username),
            "score": player.get("score", 0),
            "hand_count": player.get("hand_count", 0),
            "hand": chips(player.get("hand")) if show_hands and player.get("hand") else None,
            "to_move": view.get("to_move") == index,
            "winner": index in winners,
            "icon": make_figure(index, seat.name, None, 0, False, 0, 0),
        }
        if kind == BOARD:
            panels.append(
                PlayerPanel(
                    **common, columns=_board_columns(player, seat),
                    wishing_stones=player.get("wishing_stones", 0),
                    tile_points=player.get("tile_points", 0), on_start=_on_start(player),
                )
            )
        else:
            panels.append(
                PlayerPanel(
                    **common, columns=_card_rows(player),
                    point_row=chips(player.get("point_row")),
                    stone_cards=chips(player.get("wishing_stones")),
                )
            )
    # a finished game has no turn left: what was discarded in the last one may not be marked
    fresh = view.get("discarded_this_turn") if view.get("phase") != "finished" else None
    fresh_keys = set(fresh) if isinstance(fresh, list) else ({fresh[0]} if fresh else set())
    piles = []
    for key, cards in view.get("piles", {}).items():
        piles.append(
            PileInfo(
                key=key, label=pile_label(key),
                short=_("points") if key == "P" else colour_label(key),
                top=chip(cards[-1]) if cards else None,
                size=len(cards), fresh=key in fresh_keys and bool(cards),
            )
        )
    stones: list[StoneSlot] = []
    if kind == CARD_GAME:
        free = set(view.get("wishing_stones", []))
        stones = [StoneSlot(chip(f"W{v}"), f"W{v}" in free) for v in range(1, 10)]
    return TableView(
        kind=kind,
        board_source=(view, names) if kind == BOARD else None,
        players=panels,
        piles=piles,
        deck_count=view.get("deck_count", 0),
        goal_count=view.get("goal_count") if kind == BOARD else None,
        wishing_stones=stones,
        closed_rows=view.get("closed_rows") if kind == CARD_GAME else None,
        closed_rows_text=closed_rows_text(view) if kind == CARD_GAME else "",
    )


def closed_rows_text(view: dict[str, Any]) -> str:
    """The card game's closed rows: out of the five that end it while it runs; once its end
    has begun just the count, as the last lays may close more rows than the five (rules.md
    §2: any existing row, by the normal rules)."""
    n = view.get("closed_rows") or 0
    if view.get("end_reason") is None:
        return ngettext(
            "%(n)s row closed of the 5 that end the game",
            "%(n)s rows closed of the 5 that end the game",
            n,
        ) % {"n": n}
    return ngettext("%(n)s row closed in all", "%(n)s rows closed in all", n) % {"n": n}
