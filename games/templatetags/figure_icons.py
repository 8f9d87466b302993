"""``{{ f|figure_icon }}``: a seat's figure (games.presenters.board.Figure) as a small inline
SVG, written in Python: the page draws one beside every event, player, column and clock row,
and a template included for each cost more than the rest of those lists (issue 21). The
markup is the one games/_figure_icon.html held, byte for byte (numbers unlocalized)."""

from __future__ import annotations

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
    fill, stroke = escape(f.fill), escape(f.stroke)
    if f.shape == "circle":
        return f'<circle r="{f.r}" fill="{fill}" stroke="{stroke}"/>'
    return f'<polygon points="{escape(f.points)}" fill="{fill}" stroke="{stroke}"/>'


def figure_dot(f: Figure) -> str:
    """The dot that marks a big figure ("" for a small one)."""
    return f'<circle r="2.6" fill="{escape(f.mark)}"/>' if f.big else ""


@register.filter
def figure_icon(f: Figure | None) -> SafeString:
    if f is None:  # as the template drew a missing figure: its frame, no shape
        return mark_safe(OPEN.format("") + '<polygon points="" fill="" stroke=""/>' + CLOSE)
    big = " figure-big" if f.big else ""
    return mark_safe(OPEN.format(big) + figure_outline(f) + figure_dot(f) + CLOSE)
