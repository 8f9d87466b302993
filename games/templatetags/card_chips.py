"""``{{ c|card_chip }}``: a card chip (games.presenters.cards.CardChip) as HTML, written in
Python: a page shows dozens of cards, and a template included per card cost more than all the
rest of the table (issue 21). The markup is the one games/_card.html held, byte for byte."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.presenters.cards import CardChip
from keltis_site.markup import esc

register = template.Library()


@register.filter
def card_chip(c: CardChip) -> SafeString:
    name = esc(c.name)
    return mark_safe(
        f'<span class="kcard {esc(c.css)}" title="{name}" data-card="{esc(c.card)}">'
        f'<span class="vh">{name}</span><span aria-hidden="true">{esc(c.text)}</span></span>'
    )
