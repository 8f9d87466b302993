"""``{% players_panels %}`` and ``{% piles_panel %}``: the players' panels and the discard
piles of the context's ``table`` (games.presenters.table.TableView), written in Python: the
templates' loops over seats, badges, rows and piles were most of the time a first view spends
on the table (issue 30). The markup is the one games/_players.html and games/_piles.html held,
byte for byte: a ``{% translate %}`` of a literal is not escaped (Django marks it safe), a
value is, numbers unlocalized (no thousand separators, as the settings have it); the strings
are the templates' own msgids (``{% blocktranslate %}`` gives ``%(n)s``), so makemessages
finds them here."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.presenters.cards import CardChip
from games.presenters.table import PileInfo, PlayerPanel, TableView
from keltis_site.markup import esc

from .card_chips import card_chip
from .figure_icons import figure_icon
from .table_rows import NONE, row_html

register = template.Library()


def _badge(css: str, text: str, title: str | None = None) -> str:
    """A badge of the panel's heading (``css``: its modifier, "" for a plain one)."""
    modifier = f" badge--{css}" if css else ""
    titled = "" if title is None else f' title="{title}"'
    return f'<span class="badge{modifier}"{titled}>{text}</span>'


def _chips(cards: list[CardChip]) -> str:
    """Cards as chips, or a dash for none (the templates' ``{% empty %}``)."""
    return "".join(card_chip(c) for c in cards) or NONE


@register.simple_tag(takes_context=True)
def players_panels(context: template.Context) -> SafeString:
    """games/_players.html: a panel per seat, ``clock`` (the running game's page) showing who
    retired, ``is_board`` the board game's columns and facts."""
    table: TableView = context["table"]
    is_board, clock = bool(context.get("is_board")), bool(context.get("clock"))
    panels = "".join(_panel(p, is_board, clock) for p in table.players)
    title = _("Players")
    return mark_safe(
        f'<section class="players" id="players">\n  <h2>{title}</h2>\n  {panels}\n</section>'
    )


def _panel(p: PlayerPanel, is_board: bool, clock: bool) -> str:
    """One seat's ``<article>``, with the whitespace the template's loop left around it."""
    seat = p.seat
    name = esc(seat.name)
    if p.profile_url:
        name = f'<a href="{esc(p.profile_url)}">{name}</a>'
    you = _badge("you", _("you")) if seat.is_viewer else ""
    bot = _badge("", _("bot")) if seat.is_bot or seat.bot_account else ""
    retired = ""
    if clock and seat.retired:
        retired = _badge("retired", _("retired"), esc(p.retired_note))
    turn = _badge("turn", _("to move")) if p.to_move else ""
    win = _badge("win", _("winner")) if p.winner else ""
    score = ngettext("%(score)s point", "%(score)s points", p.score) % {"score": p.score}
    rows = "".join(row_html(col, is_board) for col in p.columns)
    card_rows = ""
    if not is_board:
        point_row, stones = _("point row"), _("wishing stones")
        card_rows = (
            '\n      <tr class="column column-points">\n'
            f'        <th scope="row">{point_row}</th>\n'
            f'        <td class="column-cards" colspan="2">{_chips(p.point_row)}</td>\n'
            "      </tr>\n"
            '      <tr class="column column-stones">\n'
            f'        <th scope="row">{stones}</th>\n'
            f'        <td class="column-cards" colspan="2">{_chips(p.stone_cards)}</td>\n'
            "      </tr>\n      "
        )
    facts = ""
    if is_board:
        stones = _("Wishing stones: %(n)s") % {"n": p.wishing_stones}
        tiles = _("Point tiles: %(n)s") % {"n": p.tile_points}
        start = _("On the start stone: %(s)s") % {"s": esc(p.on_start)}
        facts = (
            f"\n      {stones} \N{MIDDLE DOT}\n      {tiles} \N{MIDDLE DOT}\n"
            f"      {start} \N{MIDDLE DOT}\n      "
        )
    hand = ""
    if p.hand is not None:
        cards = render_to_string("games/_hand.html", {"cards": p.hand, "seat": seat.index})
        label = _("Hand:")
        hand = (
            f'\n    <div class="player-hand"><span class="label">{label}</span> {cards}</div>\n    '
        )
    in_hand = _("Cards in hand: %(n)s") % {"n": p.hand_count}
    return (
        f'\n  <article class="player{" player-to-move" if p.to_move else ""}'
        f'{" player-me" if seat.is_viewer else ""}" data-seat="{seat.index}">\n'
        "    <h3>\n"
        f"      {figure_icon(p.icon)}\n"
        f"      {name}\n"
        f"      {you}\n"
        f"      {bot}\n"
        f"      {retired}\n"
        f"      {turn}\n"
        f"      {win}\n"
        f'      <span class="score">{score}</span>\n'
        "    </h3>\n"
        '    <table class="columns">\n'
        "      <tbody>\n"
        f"      {rows}\n"
        f"      {card_rows}\n"
        "      </tbody>\n"
        "    </table>\n"
        '    <p class="player-facts">\n'
        f"      {facts}\n"
        f"      {in_hand}\n"
        "    </p>\n"
        f"    {hand}\n"
        "  </article>\n  "
    )


@register.simple_tag(takes_context=True)
def piles_panel(context: template.Context) -> SafeString:
    """games/_piles.html: the discard piles, the deck and (board game) the goal area's count."""
    table: TableView = context["table"]
    piles = "".join(_pile(pile) for pile in table.piles)
    n = table.deck_count
    deck = ngettext("Deck: %(n)s card left", "Deck: %(n)s cards left", n) % {"n": n}
    goal = ""
    if table.goal_count is not None:
        count = ngettext(
            "%(n)s figure in the goal area: the fifth ends the game",
            "%(n)s figures in the goal area: the fifth ends the game",
            table.goal_count,
        ) % {"n": table.goal_count}
        goal = (
            '\n  <p class="goal-count"><span class="goal-swatch" aria-hidden="true"></span>\n'
            f'    <span class="goal-text">{count}</span>\n'
            "  </p>\n  "
        )
    label, title = _("Discard piles and deck"), _("Discard piles")
    return mark_safe(
        f'<section class="piles" aria-label="{label}">\n'
        f"  <h2>{title}</h2>\n"
        '  <ul class="pile-list">\n'
        f"    {piles}\n"
        "  </ul>\n"
        '  <p class="deck"><span class="kcard kcard-back" aria-hidden="true"></span>\n'
        f'    <span class="deck-text">{deck}</span>\n'
        "  </p>\n"
        f"  {goal}\n"
        "</section>"
    )


def _pile(pile: PileInfo) -> str:
    """One pile's ``<li>``, with the whitespace the template's loop left around it."""
    if pile.top:
        top = card_chip(pile.top)
    else:
        empty = _("empty")
        top = f'<span class="kcard kcard-empty" title="{empty}"><span class="vh">{empty}</span>'
        top += "</span>"
    size = ngettext("%(n)s card", "%(n)s cards", pile.size) % {"n": pile.size}
    note = ""
    if pile.fresh:
        note = _("discarded this turn")
        note = f'<span class="pile-note">{note}</span>'
    return (
        f'\n    <li class="pile pile-{esc(pile.key)}{" pile-fresh" if pile.fresh else ""}">\n'
        f"      {top}\n"
        f'      <span class="pile-name" aria-hidden="true">{esc(pile.short)}</span>'
        f'<span class="vh">{esc(pile.label)}:</span>\n'
        f'      <span class="pile-size">{size}</span>\n'
        f"      {note}\n"
        "    </li>\n    "
    )
