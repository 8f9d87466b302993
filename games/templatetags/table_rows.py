"""``{% column_row col %}``: one row of a player's panel (a colour's column or row of
cards, its order, its badge, the board game's figure there), written in Python: a panel has
five, a page up to twenty, and the template's row was most of a table's first drawing
(issue 21). The markup is the one games/_players.html held in its loop, byte for byte."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.presenters.table import ColumnInfo
from keltis_site.markup import esc

from .card_chips import card_chip
from .figure_icons import figure_icon

register = template.Library()

NONE = '<span class="muted">\N{EM DASH}</span>'


@register.simple_tag(takes_context=True)
def column_row(context: template.Context, col: ColumnInfo) -> SafeString:
    """The row, as the template drew it where ``is_board`` is true (or missing: false)."""
    return row_html(col, bool(context.get("is_board")))


def row_html(col: ColumnInfo, is_board: bool) -> SafeString:
    colour, order = esc(col.colour), esc(col.direction_text)
    cards = "".join(card_chip(c) for c in col.cards) or NONE
    arrow = ""
    if col.arrow:
        arrow = f'<span aria-hidden="true">{esc(col.arrow)}</span><span class="vh">{order}</span>'
    badge = ""
    if col.sealed:
        badge = f'<span class="badge">{esc(_("sealed"))}</span>'
    elif col.closed:
        badge = f'<span class="badge">{esc(_("closed"))}</span>'
    figure = ""
    if is_board:
        where = f"{figure_icon(col.figure_icon)} {esc(col.figure)}" if col.figure_icon else ""
        figure = f'<td class="column-figure" title="{esc(col.figure_title)}">{where}</td>'
    return mark_safe(
        f'\n      <tr class="column column-{colour}{"" if col.cards else " column-empty"}">\n'
        f'        <th scope="row"><span class="swatch swatch-{colour}" aria-hidden="true">'
        f"</span>{esc(col.label)}</th>\n"
        f'        <td class="column-cards">{cards}</td>\n'
        f'        <td class="column-dir" title="{order}">{arrow}\n'
        f"          {badge}</td>\n"
        f"        {figure}\n"
        "      </tr>\n      "
    )
