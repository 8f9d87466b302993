"""``{{ f|figure_icon }}``: a seat's figure (games.presenters.board.Figure) as a small inline
SVG, written in Python: the page draws one beside every event, player, column and clock row,
and a template included for each cost more than the rest of those lists (issue 21). The
markup is the one games/_figure_icon.html held, byte for byte (numbers unlocalized)."""

from __future__ import annotations

import functools

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from games.presenters.board import Figure

register = template.Library()

OPEN = (
    '<svg class="figure-icon" viewBox="-11 -11 22 22" width="22" height="22" aria-hidden="true" '
    'focusable="false"><g class="figure{}">'
)
CLOSE = "</g></svg>\n"  # the template file ended with a newline


def figure_outline(f: Figure) -> str:
    """The figure's shape around (0, 0), as the board draws it too."""
    return _outline(f.shape, f.r, f.points, f.fill, f.stroke)


@functools.lru_cache(maxsize=256, typed=True)
def _outline(shape: str, r: float, points: str, fill: str, stroke: str) -> str:
    """Remembered: a few seats' shapes in a few sizes, drawn for every figure and icon."""
    fill, stroke = escape(fill), escape(stroke)
    if shape == "circle":
        return f'<circle r="{r}" fill="{fill}" stroke="{stroke}"/>'
    return f'<polygon points="{escape(points)}" fill="{fill}" stroke="{stroke}"/>'


def figure_dot(f: Figure) -> str:
    """The dot that marks a big figure ("" for a small one)."""
    return _dot(f.mark) if f.big else ""


@functools.lru_cache(maxsize=64)
def _dot(mark: str) -> str:
    return f'<circle r="2.6" fill="{escape(mark)}"/>'


@register.filter
def figure_icon(f: Figure | None) -> SafeString:
    if f is None:  # as the template drew a missing figure: its frame, no shape
        return mark_safe(OPEN.format("") + '<polygon points="" fill="" stroke=""/>' + CLOSE)
    big = " figure-big" if f.big else ""
    return mark_safe(OPEN.format(big) + figure_outline(f) + figure_dot(f) + CLOSE)
