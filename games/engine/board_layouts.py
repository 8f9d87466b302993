"""Board layouts of the board game, as data: which stones of each path are dark.

Which stones the printed board darkens could not be checked against the German original, so the
layout is data rather than code. Any layout must give 20 dark stones plus the 5 end stones, which
is where the 25 path tiles go.
"""

from __future__ import annotations

from .cards import COLOURS

STONES = 9
END_STONE = 9
GOAL_FROM = 7  # stones 7..9 are the goal area
STONE_VALUES = (0, -4, -3, -2, 1, 2, 3, 6, 7, 10)  # index = stone; 0 is the start stone

#: The default layout: four dark stones on each path, never the end stone.
DEFAULT_LAYOUT: dict[str, tuple[int, ...]] = {
    "g": (2, 4, 6, 8),
    "y": (1, 3, 5, 7),
    "r": (2, 3, 5, 8),
    "p": (1, 4, 6, 7),
    "b": (3, 4, 6, 8),
}

#: The 25 path tiles: 9 wishing stones, 9 clovers, point tiles 1, 1, 2, 2, 2, 3, 3.
TILES: tuple[str, ...] = ("wish",) * 9 + ("clover",) * 9 + ("1", "1", "2", "2", "2", "3", "3")


def check_layout(layout: dict[str, tuple[int, ...]]) -> None:
    """Raise ValueError unless the layout has 20 dark stones (not end stones) on the 5 paths."""
    if sorted(layout) != sorted(COLOURS):
        raise ValueError("a layout names the five paths g, y, r, p, b")
    dark = 0
    for colour, stones in layout.items():
        if len(set(stones)) != len(stones):
            raise ValueError(f"path {colour} names a stone twice")
        for stone in stones:
            if not 1 <= stone < END_STONE:
                raise ValueError(f"path {colour}: dark stones are 1..8, not {stone}")
        dark += len(stones)
    if dark != len(TILES) - len(COLOURS):
        raise ValueError(f"a layout has 20 dark stones, this one {dark}")


def tile_positions(layout: dict[str, tuple[int, ...]]) -> list[tuple[str, int]]:
    """Every stone that takes a tile (dark stones and end stones), in a fixed order."""
    check_layout(layout)
    return [(colour, stone) for colour in COLOURS for stone in (*sorted(layout[colour]), END_STONE)]
