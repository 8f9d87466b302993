"""``{{ c|card_chip }}``: a card chip (games.presenters.cards.CardChip) as HTML, written in
Python: a page shows dozens of cards, and a template included per card cost more than all the
rest of the table (issue 21). The markup is the one games/_card.html held, byte for byte."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.presenters.cards import CardChip

register = template.Library()

CHIP = (
    '<span class="kcard {}" title="{}" data-card="{}"><span class="vh">{}</span>'
    '<span aria-hidden="true">{}</span></span>'
)


@register.filter
def card_chip(c: CardChip) -> SafeString:
    return format_html(CHIP, c.css, c.name, c.card, c.name, c.text)
