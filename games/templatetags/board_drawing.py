"""``{{ board|board_drawing }}``: the board game's board (games.presenters.board.BoardSvg) as
SVG, written in Python: 45 stones, their tiles and every figure took a template most of a game
page's time whenever a position was first drawn, and on every step of the history page
(issue 21). The markup is the one games/_board_svg.html held, byte for byte (numbers
unlocalized, as ``{% localize off %}`` wrote them)."""

from __future__ import annotations

import functools

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.presenters.board import BoardSvg, Line, PathHead, Stone, narrow_board, narrow_cell
from keltis_site.markup import esc

from .figure_icons import figure_dot, figure_outline

register = template.Library()

TILE_SHAPES = {
    "wish": '<polygon points="0,-10 8,0 0,10 -8,0"/><polygon class="tile-wish-shine" '
    'points="0,-10 3,-2 0,0 -3,-2"/>\n      \n',
    "clover": '<line x1="0" y1="2" x2="1.5" y2="10"/><circle cx="0" cy="-4.5" r="4.3"/>'
    '<circle cx="-4.6" cy="1.6" r="4.3"/><circle cx="4.6" cy="1.6" r="4.3"/>\n      \n',
}

#: a stone's markup is remembered by the stone (its words and its tile's included): 45 stones are
#: most of a board's markup (issue 30), and the presenter makes at most 45 x 6 of them a
#: language (games.presenters.board._STONES), under this bound for both boards' seven languages
_STONES_KEPT = 4096


@functools.lru_cache(maxsize=_STONES_KEPT)
def _stone(s: Stone) -> str:
    css = (" stone-goal" if s.goal else "") + (" stone-end" if s.end else "")
    html = (
        f'\n  <g class="stone{css}" data-stone="{esc(s.colour)}{s.number}">\n'
        f"    <title>{esc(s.title)}</title>\n"
        f'    <circle cx="{s.x}" cy="{s.y}" r="{s.r}" fill="{esc(s.fill)}" '
        f'stroke="{esc(s.stroke)}"/>\n'
        f'    <text class="stone-value" x="{s.x}" y="{s.y}">{s.value}</text>\n    '
    )
    tile = s.tile
    if tile:
        shape = TILE_SHAPES.get(tile.kind) or (
            '<rect x="-9" y="-9" width="18" height="18" rx="3"/>'
            f'<text x="0" y="0.5">{esc(tile.text)}</text>\n'
        )
        html += (
            f'<g class="tile tile-{esc(tile.kind)}" transform="translate({tile.x} {tile.y})">'
            f"<title>{esc(tile.title)}</title>\n      {shape}    </g>"
        )
    return html + "\n  </g>\n  "


@functools.lru_cache(maxsize=64)
def _paths(lines: tuple[Line, ...], heads: tuple[PathHead, ...]) -> str:
    """The wide board's path lines and names: the same on every board of a language."""
    return (
        "".join(
            f'<line class="path-line" x1="{line.x1}" y1="{line.y1}" x2="{line.x2}" '
            f'y2="{line.y2}" stroke="{esc(line.stroke)}"/>\n  '
            for line in lines
        )
        + "\n  "
        + "".join(
            f'<text class="path-head" x="{h.x}" y="{h.y}" fill="{esc(h.stroke)}">'
            f"{esc(h.label)}</text>\n  "
            for h in heads
        )
    )


@register.filter
def board_drawing(board: BoardSvg) -> SafeString:
    b = board
    # worded outside the f-strings below, where xgettext would not find them
    title, goal, start = (
        _("The board: five paths of nine stones from the start stone"),
        _("goal area"),
        _("start"),
    )
    parts = [
        '\n<figure class="board">\n'
        f'<svg class="board-svg" viewBox="0 0 {b.width} {b.height}" role="img" '
        'aria-labelledby="board-title" xmlns="http://www.w3.org/2000/svg">\n'
        '  <title id="board-title">'
        f"{esc(title)}</title>\n"
        f'  <rect class="goal-band" x="4" y="{b.goal_top}" width="{b.width - 8}" '
        f'height="{b.goal_height}" rx="12"/>\n'
        f'  <text class="goal-label" transform="translate(16 {b.goal_label_y}) rotate(-90)">'
        f"{esc(goal)}</text>\n  "
    ]
    parts.append(_paths(tuple(b.lines), tuple(b.heads)))
    parts.append(
        f'\n  <ellipse class="start-stone" cx="{b.start_x}" cy="{b.start_y}" '
        f'rx="{b.start_rx}" ry="{b.start_ry}"/>\n'
        f'  <text class="start-label" x="{b.start_label_x}" y="{b.start_y}">'
        f"{esc(start)}</text>\n  "
    )
    parts.extend(_stone(s) for s in b.stones)
    parts.append('\n  <g class="figures">\n  ')
    parts.extend(
        f'\n  <g class="figure{" figure-big" if f.big else ""}" data-seat="{f.seat}" '
        f'transform="translate({f.x} {f.y})"><title>{esc(f.title)}</title>\n'
        f"    {figure_outline(f)}\n    {figure_dot(f)}\n  </g>\n  "
        for f in b.figures
    )
    parts.append("\n  </g>\n</svg>\n</figure>\n\n")  # the template file ended with a newline
    return mark_safe("".join(parts))


@functools.lru_cache(maxsize=_STONES_KEPT)
def _narrow_stone(s: Stone) -> str:
    """A stone of the narrow board: its whole cell is the tap target (play.js lights it)."""
    x, y, w, h = narrow_cell(s.colour, s.number)
    css = (" stone-goal" if s.goal else "") + (" stone-end" if s.end else "")
    tile = ""
    if s.tile:
        shape = TILE_SHAPES.get(s.tile.kind) or (
            '<rect x="-9" y="-9" width="18" height="18" rx="3"/>'
            f'<text x="0" y="0.5">{esc(s.tile.text)}</text>'
        )
        tile = (
            f'<g class="tile tile-{esc(s.tile.kind)}" transform="translate({s.tile.x} {s.tile.y})'
            f'{" scale(0.85)" if s.tile.kind != "points" else ""}"><title>{esc(s.tile.title)}'
            f"</title>{shape.strip()}</g>"
        )
    return (
        f'<g class="stone{css}" data-stone="{esc(s.colour)}{s.number}">'
        f"<title>{esc(s.title)}</title>"
        f'<rect class="stone-hit" x="{x}" y="{y}" width="{w}" height="{h}"/>'
        f'<circle cx="{s.x}" cy="{s.y}" r="{s.r}" fill="{esc(s.fill)}" stroke="{esc(s.stroke)}"/>'
        f'<text class="stone-value" x="{s.x}" y="{s.y}">{s.value}</text>{tile}</g>\n'
    )


@functools.lru_cache(maxsize=64)
def _narrow_paths(lines: tuple[Line, ...], heads: tuple[PathHead, ...]) -> str:
    """The narrow board's path lines and names: the same on every board of a language."""
    return "".join(
        f'<line class="path-line" x1="{line.x1}" y1="{line.y1}" x2="{line.x2}" y2="{line.y2}" '
        f'stroke="{esc(line.stroke)}"/>\n'
        for line in lines
    ) + "".join(
        f'<text class="path-head" x="{h.x}" y="{h.y}" fill="{esc(h.stroke)}">'
        f"{esc(h.label)}</text>\n"
        for h in heads
    )


@register.filter
def board_drawing_narrow(board: BoardSvg) -> SafeString:
    """The board laid out for a narrow screen (games.presenters.board.narrow_board): the
    game page draws it beside the wide one, and play.css shows the one that fits (never both), so
    that no word on either is drawn under 11 CSS px."""
    b = narrow_board(board)
    title, goal, start = (
        _("The board: five paths of nine stones from the start stone"),
        _("goal area"),
        _("start"),
    )
    parts = [
        f'<svg class="board-svg board-svg--narrow" viewBox="0 0 {b.width} {b.height}" '
        'role="img" aria-labelledby="board-title-narrow" xmlns="http://www.w3.org/2000/svg">\n'
        f'<title id="board-title-narrow">{esc(title)}</title>\n'
        f'<rect class="goal-band" x="2" y="{b.goal_top}" width="{b.width - 4}" '
        f'height="{b.goal_height}" rx="10"/>\n'
        f'<text class="goal-label goal-label--narrow" x="{b.width - 6}" y="{b.goal_label_y}">'
        f"{esc(goal)} \N{UPWARDS ARROW}</text>\n"
    ]
    parts.append(_narrow_paths(tuple(b.lines), tuple(b.heads)))
    parts.append(
        f'<ellipse class="start-stone" cx="{b.start_x}" cy="{b.start_y}" rx="{b.start_rx}" '
        f'ry="{b.start_ry}"/>\n<text class="start-label start-label--narrow" '
        f'x="{b.start_label_x}" y="{b.start_y}">{esc(start)}</text>\n'
    )
    parts.extend(_narrow_stone(s) for s in b.stones)
    parts.append('<g class="figures">\n')
    parts.extend(
        f'<g class="figure{" figure-big" if f.big else ""}" data-seat="{f.seat}" '
        f'transform="translate({f.x} {f.y})"><title>{esc(f.title)}</title>'
        f"{figure_outline(f)}{figure_dot(f)}</g>\n"
        for f in b.figures
    )
    parts.append("</g>\n</svg>\n")
    return mark_safe("".join(parts))
