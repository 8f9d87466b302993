"""A rating history drawn as an inline SVG line chart: pure geometry, no Django, no JavaScript.

:func:`rating_chart` turns the ratings after each game into coordinates; the template
``tournaments/ratings/_chart.html`` writes the SVG (so its words are translated there). Every
number the SVG needs is a preformatted string, so the template's number localisation can never
put a decimal comma into a coordinate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ChartPoint", "RatingChart", "rating_chart"]

#: beyond this many points the line is drawn without a marker per game
MAX_MARKERS = 60


def _num(value: float) -> str:
    """A coordinate for SVG: one decimal at most, no trailing ".0", never "-0"."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True)
class ChartPoint:
    #: 0 for the rating before the first game, then 1, 2, ... after each rated game
    index: int
    rating: float
    x: str
    y: str
    #: the game after which the player had this rating (None for the starting point)
    game_id: int | None

    @property
    def rounded(self) -> int:
        return round(self.rating)


@dataclass(frozen=True)
class RatingChart:
    width: int
    height: int
    #: the plot area inside the margins (axes run along its left and bottom edges)
    left: str
    right: str
    top: str
    bottom: str
    points: list[ChartPoint]
    #: the ``points`` attribute of the SVG polyline: "x,y x,y ..."
    polyline: str
    #: the ratings at the bottom and the top edge of the plot, and their labels
    low: float
    high: float
    low_label: int
    high_label: int
    games: int
    last: ChartPoint
    #: draw a marker (with its title) per point: only for short histories
    markers: bool
    #: text anchor positions; the template centres the labels on them (``dy`` in em), so they
    #: stay in place at any font size
    label_x: str
    high_y: str
    low_y: str
    axis_label_y: str
    last_label_x: str
    last_label_y: str


def rating_chart(
    ratings: Sequence[float],
    game_ids: Sequence[int | None] | None = None,
    *,
    width: int = 600,
    height: int = 190,
) -> RatingChart | None:
    """The chart of a rating history: ``ratings[0]`` is the rating before the first rated game,
    ``ratings[i]`` the rating after the i-th; ``game_ids[i]`` the game that produced
    ``ratings[i]`` (None for the start). None when there is nothing to draw (no game rated).

    The y axis spans the lowest to the highest rating of the history (labels rounded to whole
    points, at least 20 points apart so a flat line stays readable); the x axis the games, 0 to
    the number of rated games, evenly spaced.
    """
    if len(ratings) < 2:
        return None
    if game_ids is None:
        game_ids = [None] * len(ratings)
    if len(game_ids) != len(ratings):
        raise ValueError(f"{len(ratings)} ratings but {len(game_ids)} game ids")

    # room for the labels at the largest font the page gives them (26 units on the narrowest
    # phones, site.css): four digits left of the axis, the last rating right of the plot
    margin_left, margin_right, margin_top, margin_bottom = 70.0, 78.0, 16.0, 38.0
    left, right = margin_left, width - margin_right
    top, bottom = margin_top, height - margin_bottom

    low = float(min(ratings))
    high = float(max(ratings))
    if high - low < 20:  # a flat history: centre it in a band of 20 points
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    games = len(ratings) - 1

    def x_of(i: int) -> float:
        return left + (right - left) * i / games

    def y_of(rating: float) -> float:
        return bottom - (bottom - top) * (rating - low) / (high - low)

    points = [
        ChartPoint(index=i, rating=r, x=_num(x_of(i)), y=_num(y_of(r)), game_id=g)
        for i, (r, g) in enumerate(zip(ratings, game_ids, strict=True))
    ]
    last = points[-1]
    return RatingChart(
        width=width,
        height=height,
        left=_num(left),
        right=_num(right),
        top=_num(top),
        bottom=_num(bottom),
        points=points,
        polyline=" ".join(f"{p.x},{p.y}" for p in points),
        low=low,
        high=high,
        low_label=round(low),
        high_label=round(high),
        games=games,
        last=last,
        markers=len(points) <= MAX_MARKERS,
        label_x=_num(left - 6),
        high_y=_num(top),
        low_y=_num(bottom),
        axis_label_y=_num(bottom),
        last_label_x=_num(right + 8),
        last_label_y=_num(y_of(last.rating)),
    )
