"""The board game's board as SVG coordinates: paths, stones, tiles, and the seats' figures.

Also the seat styles (colour and shape per seat) and the words for a stone and its tile,
which the action labels and the message after a move reuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine.board_layouts import END_STONE, GOAL_FROM, STONE_VALUES
from games.engine.cards import COLOURS

from .cards import colour_label

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
        (beside an event, a clock row) never show it."""
        what = _("big figure") if self.big else _("small figure")
        if self.colour is None:
            where = _("on the start stone")
        else:
            where = _("on stone %(stone)s of the %(colour)s path") % {
                "stone": self.stone, "colour": colour_label(self.colour)
            }
        return f"{self.name}: {what} {where}"


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


def figure_points(shape: str, size: float) -> str:
    """Polygon points of a figure shape centred on (0, 0); "" for a circle."""
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


#: the stones' titles already worded, by language (45 a board, the same on every board)
_STONE_TITLES: dict[tuple[str | None, str, int], str] = {}


def _stone_title(colour: str, number: int) -> str:
    key = (get_language(), colour, number)
    title = _STONE_TITLES.get(key)
    if title is None:
        title = _STONE_TITLES[key] = _("%(colour)s path, stone %(stone)s: worth %(value)s") % {
            "colour": colour_label(colour), "stone": number, "value": STONE_VALUES[number]
        }
    return title


def board_svg(view: dict[str, Any], names: list[str]) -> BoardSvg:
    """Coordinates of every stone, tile and figure of a board-game view."""
    stones, lines, heads = [], [], []
    start_x = SVG_WIDTH / 2
    tiles = view.get("tiles", {})
    for colour in COLOURS:
        stroke, fill = PATH_COLOURS[colour]
        x1, y1 = stone_xy(colour, 1)
        x9, y9 = stone_xy(colour, END_STONE)
        lines.append(Line(start_x, START_Y - 26, x1, y1 + STONE_R, stroke))
        lines.append(Line(x1, y1, x9, y9, stroke))
        heads.append(PathHead(colour, colour_label(colour), x9, y9 - ROW_DY / 2 - 12, stroke))
        for number in range(1, END_STONE + 1):
            x, y = stone_xy(colour, number)
            tile = tiles.get(colour, {}).get(str(number))
            value = STONE_VALUES[number]
            stones.append(
                Stone(
                    colour=colour, number=number, value=value, x=x, y=y, r=STONE_R,
                    fill=fill, stroke=stroke, goal=number >= GOAL_FROM, end=number == END_STONE,
                    tile=_tile_mark(tile, x + TILE_DX, y) if tile else None,
                    title=_stone_title(colour, number),
                )
            )
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
