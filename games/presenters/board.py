"""The board game's board as SVG coordinates: paths, stones, tiles, and the seats' figures.

Also the seat styles (colour and shape per seat) and the words for a stone and its tile,
which the action labels and the message after a move reuse.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine.board_layouts import END_STONE, GOAL_FROM, STONE_VALUES
from games.engine.cards import COLOURS

from .cards import colour_label, worded

#: path colour: (stroke / card colour, light fill of a stone)
PATH_COLOURS = {
    "g": ("#2f8f43", "#d3ecd5"),
    "y": ("#d9a900", "#fbf0bf"),
    "r": ("#cc3328", "#f7d0cb"),
    "p": ("#d9629e", "#f9dbea"),
    "b": ("#2f63b8", "#d2ddf3"),
}


def tile_name(tile: str | None) -> str | None:
    if tile is None:
        return None
    if tile == "wish":
        return _("wishing stone")
    if tile == "clover":
        return _("clover")
    return _("point tile %(value)s") % {"value": tile}


def stone_words(view: dict[str, Any] | None, colour: str, stone: int) -> str:
    """A stone as players see it: "stone 4 (worth 1)", with the tile lying there if any."""
    value = STONE_VALUES[stone]
    tile = tile_name(((view or {}).get("tiles", {}).get(colour) or {}).get(str(stone)))
    if tile:
        return _("stone %(stone)s (worth %(value)s, %(tile)s)") % {
            "stone": stone, "value": value, "tile": tile
        }
    return _("stone %(stone)s (worth %(value)s)") % {"stone": stone, "value": value}


@dataclass(frozen=True)
class SeatStyle:
    fill: str
    stroke: str
    #: the dot that marks a big figure: a colour that stands out on ``fill``
    mark: str
    shape: str
    label: str


#: seat colours, chosen apart from the five path colours; a shape too, for colour-blind eyes
SEAT_STYLES = (
    SeatStyle("#1e1e1e", "#000000", "#ffffff", "circle", gettext_lazy("black circle")),
    SeatStyle("#ffffff", "#1e1e1e", "#1e1e1e", "square", gettext_lazy("white square")),
    SeatStyle("#b0601a", "#3d1f05", "#ffffff", "triangle", gettext_lazy("brown triangle")),
    SeatStyle("#8a3fbf", "#2a0f3d", "#ffffff", "diamond", gettext_lazy("purple diamond")),
)

SVG_WIDTH = 770
SVG_HEIGHT = 645
COLUMN_X0, COLUMN_DX = 82, 146
ROW_TOP, ROW_DY = 84, 54
STONE_R = 19
#: where each seat's figure stands beside a stone: a 2 x 2 cluster right of the stone's centre
FIGURE_SLOTS = ((30.0, -9.5), (30.0, 9.5), (48.0, -9.5), (48.0, 9.5))
SMALL_SIZE, BIG_SIZE = 12, 18
TILE_DX = -37
START_Y = 600
START_RX, START_RY = 190, 30


def seat_style(index: int) -> SeatStyle:
    return SEAT_STYLES[index % len(SEAT_STYLES)]


@dataclass(frozen=True)
class TileMark:
    kind: str  # "wish", "clover" or "points"
    x: float
    y: float
    text: str
    title: str


@dataclass(frozen=True)
class Stone:
    colour: str
    number: int
    value: int
    x: float
    y: float
    r: float
    fill: str
    stroke: str
    goal: bool
    end: bool
    tile: TileMark | None
    title: str


@dataclass(frozen=True)
class Figure:
    seat: int
    colour: str | None  # the path; None on the start stone
    stone: int
    big: bool
    x: float
    y: float
    size: float
    shape: str
    #: polygon points around (0, 0); the template translates to (x, y); empty for circles
    points: str
    fill: str
    stroke: str
    mark: str
    #: the seat's name, for the title
    name: str

    @property
    def r(self) -> float:
        return self.size / 2

    @cached_property
    def title(self) -> str:
        """"anna: big figure on stone 4 of the red path", worded when first read: most icons
        (beside an event, a clock row) never show it. Its words but the name are worded
        once per language (``_figure_words``): both boards title every figure (issue 30)."""
        big = f"{self.big:d}"
        key = big if self.colour is None else f"{big} {self.stone} {self.colour}"
        return f"{self.name}: {worded('figure', key, _figure_words)}"


def _figure_words(key: str) -> str:
    """"big figure on stone 4 of the red path" for ``key`` "1 4 r" (big: 1 or 0, then the
    stone and path; neither: on the start stone)."""
    big, *on = key.split(" ", 2)
    what = _("big figure") if big == "1" else _("small figure")
    if not on:
        where = _("on the start stone")
    else:
        where = _("on stone %(stone)s of the %(colour)s path") % {
            "stone": int(on[0]), "colour": colour_label(on[1])
        }
    return f"{what} {where}"


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str


@dataclass(frozen=True)
class PathHead:
    colour: str
    label: str
    x: float
    y: float
    stroke: str


@dataclass(frozen=True)
class BoardSvg:
    width: int
    height: int
    stones: list[Stone]
    figures: list[Figure]
    lines: list[Line]
    heads: list[PathHead]
    goal_top: float
    goal_height: float
    goal_label_y: float
    start_x: float
    start_y: float
    start_rx: float
    start_ry: float
    start_label_x: float


def stone_xy(colour: str, number: int) -> tuple[float, float]:
    """Centre of stone ``number`` (1..9) of the path ``colour``; paths run bottom to top."""
    ci = COLOURS.index(colour)
    return COLUMN_X0 + ci * COLUMN_DX, ROW_TOP + (END_STONE - number) * ROW_DY


@functools.cache
def figure_points(shape: str, size: float) -> str:
    """Polygon points of a figure shape centred on (0, 0); "" for a circle. Remembered: a few
    shapes and sizes, and every board draws every figure twice."""
    h = size / 2
    corners: list[tuple[float, float]]
    if shape == "square":
        h *= 0.9
        corners = [(-h, -h), (h, -h), (h, h), (-h, h)]
    elif shape == "triangle":
        corners = [(0, -h * 1.15), (h * 1.1, h * 0.85), (-h * 1.1, h * 0.85)]
    elif shape == "diamond":
        corners = [(0, -h * 1.25), (h * 1.05, 0), (0, h * 1.25), (-h * 1.05, 0)]
    else:
        return ""
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def make_figure(
    seat: int, name: str, colour: str | None, stone: int, big: bool, x: float, y: float
) -> Figure:
    style = seat_style(seat)
    size = BIG_SIZE if big else SMALL_SIZE
    return Figure(
        seat=seat, colour=colour, stone=stone, big=big, x=x, y=y, size=size, shape=style.shape,
        points=figure_points(style.shape, size), fill=style.fill, stroke=style.stroke,
        mark=style.mark, name=name,
    )


def _tile_mark(tile: str, x: float, y: float) -> TileMark:
    if tile in ("wish", "clover"):
        return TileMark(tile, x, y, "", tile_name(tile) or "")
    return TileMark("points", x, y, tile, tile_name(tile) or "")


#: the wide board's stones already worded, by language, path, stone and the tile lying there:
#: 45 a board, each worded (its title, its tile's) the same on every board that has it there;
#: at most 45 x 6 (no tile or one of five kinds) a language
_STONES: dict[tuple[str | None, str, int, str | None], Stone] = {}


def _stone(colour: str, number: int, tile: str | None) -> Stone:
    x, y = stone_xy(colour, number)
    stroke, fill = PATH_COLOURS[colour]
    return Stone(
        colour=colour, number=number, value=STONE_VALUES[number], x=x, y=y, r=STONE_R,
        fill=fill, stroke=stroke, goal=number >= GOAL_FROM, end=number == END_STONE,
        tile=_tile_mark(tile, x + TILE_DX, y) if tile else None,
        title=_("%(colour)s path, stone %(stone)s: worth %(value)s") % {
            "colour": colour_label(colour), "stone": number, "value": STONE_VALUES[number]
        },
    )


#: each board's path lines and their names, by board and language: the same on every board
_PATHS: dict[
    tuple[str | None, Callable[..., Any]], tuple[tuple[Line, ...], tuple[PathHead, ...]]
] = {}


def _paths(
    language: str | None, draw: Callable[[], tuple[list[Line], list[PathHead]]]
) -> tuple[list[Line], list[PathHead]]:
    """The lines and names ``draw()`` gives, drawn once per language; a board's own lists."""
    key = (language, draw)
    found = _PATHS.get(key)
    if found is None:
        lines, heads = draw()
        found = _PATHS[key] = (tuple(lines), tuple(heads))
    return list(found[0]), list(found[1])


def _wide_paths() -> tuple[list[Line], list[PathHead]]:
    lines, heads = [], []
    for colour in COLOURS:
        stroke, _fill = PATH_COLOURS[colour]
        x1, y1 = stone_xy(colour, 1)
        x9, y9 = stone_xy(colour, END_STONE)
        lines.append(Line(SVG_WIDTH / 2, START_Y - 26, x1, y1 + STONE_R, stroke))
        lines.append(Line(x1, y1, x9, y9, stroke))
        heads.append(PathHead(colour, colour_label(colour), x9, y9 - ROW_DY / 2 - 12, stroke))
    return lines, heads


def board_svg(view: dict[str, Any], names: list[str]) -> BoardSvg:
    """Coordinates of every stone, tile and figure of a board-game view."""
    stones = []
    start_x = SVG_WIDTH / 2
    tiles = view.get("tiles", {})
    language = get_language()
    lines, heads = _paths(language, _wide_paths)
    for colour in COLOURS:
        on_path = tiles.get(colour, {})
        for number in range(1, END_STONE + 1):
            tile = on_path.get(str(number)) or None
            key = (language, colour, number, tile)
            stone = _STONES.get(key)
            if stone is None:
                stone = _STONES[key] = _stone(colour, number, tile)
            stones.append(stone)
    figures = []
    players = view.get("players", [])
    n = max(len(players), 1)
    group = (2 * START_RX - 40) / n
    for seat, player in enumerate(players):
        name = names[seat] if seat < len(names) else str(seat)
        for colour, figure in player.get("figures", {}).items():
            x, y = stone_xy(colour, figure["stone"])
            dx, dy = FIGURE_SLOTS[seat % len(FIGURE_SLOTS)]
            figures.append(
                make_figure(seat, name, colour, figure["stone"], figure["big"], x + dx, y + dy)
            )
        on_start = player.get("on_start", {})
        left = start_x - START_RX + 20 + seat * group + 12
        waiting = [True] * on_start.get("big", 0) + [False] * on_start.get("small", 0)
        for i, big in enumerate(waiting):
            figures.append(make_figure(seat, name, None, 0, big, left + i * 15, START_Y + 4))
    goal_top = stone_xy("g", END_STONE)[1] - ROW_DY / 2
    goal_bottom = stone_xy("g", GOAL_FROM)[1] + ROW_DY / 2
    return BoardSvg(
        width=SVG_WIDTH, height=SVG_HEIGHT, stones=stones, figures=figures, lines=lines,
        heads=heads, goal_top=goal_top, goal_height=goal_bottom - goal_top,
        goal_label_y=(goal_top + goal_bottom) / 2, start_x=start_x, start_y=START_Y,
        start_rx=START_RX, start_ry=START_RY, start_label_x=start_x - START_RX - 10,
    )


# -- the board drawn for a narrow screen ---------------------------------------------------------
# The wide board (770 units) shrinks on a phone until its words are 5 to 7 px: a phone gets
# this one instead, 340 units wide, drawn about one unit to a CSS pixel at 360 px, so that every
# word is 12 units (>= 11 px) and every stone's cell, a tap target, 68 x 50 (>= 44 px).
NARROW_WIDTH = 340
NARROW_COLUMN = 68
NARROW_TOP = 28  # the paths' names above
NARROW_ROW = 50
#: the room below the goal area for its name
NARROW_GOAL_GAP = 18
NARROW_STONE_R = 13
#: a tile left of its stone; figures right of it, a 2 x 2 cluster per stone
NARROW_TILE_DX = -24
NARROW_SLOTS = ((20.0, -10.0), (20.0, 10.0), (31.0, -10.0), (31.0, 10.0))
NARROW_SMALL, NARROW_BIG = 10, 14
#: the start stone: the figures waiting there, seat by seat, right of its name
NARROW_START_RY = 26
NARROW_START_LEFT = 74
NARROW_START_STEP = 14


def narrow_stone_xy(colour: str, number: int) -> tuple[float, float]:
    """Centre of stone ``number`` of path ``colour`` on the narrow board."""
    ci = COLOURS.index(colour)
    top = NARROW_TOP + (END_STONE - number) * NARROW_ROW
    if number < GOAL_FROM:
        top += NARROW_GOAL_GAP
    return NARROW_COLUMN / 2 + ci * NARROW_COLUMN, top + NARROW_ROW / 2


#: the start stone's centre on the narrow board, below the paths
NARROW_START_Y = narrow_stone_xy("g", 1)[1] + NARROW_ROW / 2 + 14 + NARROW_START_RY


def narrow_cell(colour: str, number: int) -> tuple[float, float, float, float]:
    """The stone's cell (x, y, width, height): where a tap on the narrow board reaches it."""
    x, y = narrow_stone_xy(colour, number)
    return x - NARROW_COLUMN / 2, y - NARROW_ROW / 2, NARROW_COLUMN, NARROW_ROW


def _resized(f: Figure, x: float, y: float, size: float) -> Figure:
    resized = Figure(
        seat=f.seat, colour=f.colour, stone=f.stone, big=f.big, x=x, y=y, size=size,
        shape=f.shape, points=figure_points(f.shape, size), fill=f.fill, stroke=f.stroke,
        mark=f.mark, name=f.name,
    )
    if "title" in f.__dict__:  # the same figure, titled already (the wide board drawn first)
        resized.__dict__["title"] = f.__dict__["title"]
    return resized


#: the narrow board's stones by the wide board's (``_STONES``: as many)
_NARROW_STONES: dict[Stone, Stone] = {}


def _narrow_stone(s: Stone) -> Stone:
    x, y = narrow_stone_xy(s.colour, s.number)
    tile = s.tile
    if tile is not None:
        tile = TileMark(tile.kind, x + NARROW_TILE_DX, y, tile.text, tile.title)
    return Stone(
        colour=s.colour, number=s.number, value=s.value, x=x, y=y, r=NARROW_STONE_R,
        fill=s.fill, stroke=s.stroke, goal=s.goal, end=s.end, tile=tile, title=s.title,
    )


def _narrow_paths() -> tuple[list[Line], list[PathHead]]:
    lines, heads = [], []
    for colour in COLOURS:
        stroke, _fill = PATH_COLOURS[colour]
        x1, y1 = narrow_stone_xy(colour, 1)
        x9, y9 = narrow_stone_xy(colour, END_STONE)
        lines.append(Line(x1, NARROW_START_Y - NARROW_START_RY + 4, x1, y1, stroke))
        lines.append(Line(x1, y1, x9, y9, stroke))
        heads.append(PathHead(colour, colour_label(colour), x9, NARROW_TOP / 2, stroke))
    return lines, heads


def narrow_board(b: BoardSvg) -> BoardSvg:
    """The same position (``b``, the wide board's) laid out for a narrow screen: five
    columns of 68 units, the goal area's name under it, the start stone at the foot."""
    stones = []
    start_y = NARROW_START_Y
    lines, heads = _paths(get_language(), _narrow_paths)
    for s in b.stones:
        narrow = _NARROW_STONES.get(s)
        if narrow is None:
            narrow = _NARROW_STONES[s] = _narrow_stone(s)
        stones.append(narrow)
    figures = []
    seats = sorted({f.seat for f in b.figures})
    group = (NARROW_WIDTH - NARROW_START_LEFT - 6) / max(len(seats), 1)
    step = min(NARROW_START_STEP, group / 5.3)  # five figures a seat, side by side
    waiting: dict[int, int] = {}
    for f in b.figures:
        size = NARROW_BIG if f.big else NARROW_SMALL
        if f.colour is None:
            i = waiting[f.seat] = waiting.get(f.seat, -1) + 1
            left = NARROW_START_LEFT + seats.index(f.seat) * group + step / 2
            figures.append(_resized(f, left + i * step, start_y, size))
            continue
        x, y = narrow_stone_xy(f.colour, f.stone)
        dx, dy = NARROW_SLOTS[f.seat % len(NARROW_SLOTS)]
        figures.append(_resized(f, x + dx, y + dy, size))
    goal_top = NARROW_TOP - 2
    goal_bottom = narrow_stone_xy("g", GOAL_FROM)[1] + NARROW_ROW / 2 + 2
    return BoardSvg(
        width=NARROW_WIDTH, height=int(start_y + NARROW_START_RY + 6), stones=stones,
        figures=figures, lines=lines, heads=heads, goal_top=goal_top,
        goal_height=goal_bottom - goal_top, goal_label_y=goal_bottom + NARROW_GOAL_GAP / 2 - 1,
        start_x=NARROW_WIDTH / 2, start_y=start_y, start_rx=NARROW_WIDTH / 2 - 4,
        start_ry=NARROW_START_RY, start_label_x=12,
    )
