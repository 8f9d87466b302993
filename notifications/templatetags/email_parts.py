"""The repeated parts of the turn email (and the reminder and reply answer that include it),
written in Python: the events since the last turn, the table talk, the hand's chips, the moves'
links and the reply lines. Their template loops were a quarter of rendering a turn email, which
was about 40% of its CPU (issue 30). The markup is the one their loops in
templates/emails/_turn.* and _reply_moves.* held, byte for byte (tests/notifications/
test_turn_email_parts_same.py): each value escaped as the template escaped it, that is only
while autoescape is on (the text part's templates turn it off). No text of these parts is
translated: the headings stay in the templates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.safestring import SafeString, mark_safe

from keltis_site.markup import esc

if TYPE_CHECKING:
    from games.presenters.history import EventLine
    from notifications.emails import LinkedGroup, MailCard, MailMessage
    from notifications.inbound.moves import ReplyChoice

register = template.Library()

Escape = Callable[[object], str]



def _escape(autoescape: bool) -> Escape:
    """How the template wrote a value: escaped while autoescape is on, else as it is."""
    return esc if autoescape else str


def _filter(fn: Callable[[Sequence[Any], bool], str]) -> Callable[..., SafeString]:
    """``fn`` as a filter given the template's autoescape, its markup marked safe (so it is not
    escaped again); no items (None, or a name the context lacks) as ``{% for %}`` took them."""

    def wrapped(items: Sequence[Any] | None, autoescape: bool = True) -> SafeString:
        return mark_safe(fn(items or (), autoescape))

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    register.filter(fn.__name__, wrapped, needs_autoescape=True)
    return wrapped


# -- the HTML part --------------------------------------------------------------------------------
_CHIP = (
    '<span title="{name}"\nstyle="display:inline-block;min-width:22px;padding:3px 6px;'
    "margin:0 4px 4px 0;border:2px solid {border};background:{background};border-radius:4px;"
    'text-align:center;">{name}</span>'
)
_GROUP_CARD = (
    '<span style="display:inline-block;min-width:18px;padding:1px 5px;margin-right:6px;'
    'border:2px solid {border};background:{background};border-radius:4px;text-align:center;">'
    "{text}</span>"
)
_LINK = (
    '<a href="{url}" title="{label}"\nstyle="display:inline-block;margin:0 6px 6px 0;'
    "padding:5px 10px;border:1px solid #2f63b8;border-radius:4px;color:#2f63b8;"
    'text-decoration:none;">{short}</a>'
)


@_filter
def since_html(since: Sequence[EventLine], autoescape: bool) -> str:
    """The items of the "since your last turn" list."""
    e = _escape(autoescape)
    return "".join(f"\n<li>{e(event.text)}</li>" for event in since)


@_filter
def talk_html(talk: Sequence[MailMessage], autoescape: bool) -> str:
    """The items of the table talk's list, each message's lines broken as ``linebreaksbr``."""
    e = _escape(autoescape)
    return "".join(
        f"\n<li><strong>{e(m.author)}</strong>: {linebreaksbr(m.text, autoescape)}</li>"
        for m in talk
    )


@_filter
def hand_html(hand: Sequence[MailCard], autoescape: bool) -> str:
    """The hand's chips, or a dash for an empty hand."""
    e = _escape(autoescape)
    if not hand:
        return "—"
    return "".join(
        _CHIP.format(name=e(c.name), border=e(c.border), background=e(c.background)) for c in hand
    )


@_filter
def groups_html(groups: Sequence[LinkedGroup], autoescape: bool) -> str:
    """Each group of moves: its card (if any) and title, then a link for each choice."""
    e = _escape(autoescape)
    parts = []
    for group in groups:
        card = group.card
        chip = ""
        if card:
            chip = _GROUP_CARD.format(
                border=e(card.border), background=e(card.background), text=e(card.text)
            )
        links = "".join(
            _LINK.format(url=e(c.url), label=e(c.label), short=e(c.short)) for c in group.choices
        )
        parts.append(
            '\n<div style="margin:0 0 10px 0;">\n<p style="margin:0 0 4px 0;font-weight:bold;">'
            f'{chip}{e(group.title)}</p>\n<p style="margin:0;">{links}</p>\n</div>\n'
        )
    return "".join(parts)


@_filter
def replies_html(replies: Sequence[ReplyChoice], autoescape: bool) -> str:
    """The items of the reply lines' list: each line to write and what it does."""
    e = _escape(autoescape)
    return "".join(
        f'\n<li><code style="font-size:15px;">{e(r.text)}</code> ({e(r.label)})</li>'
        for r in replies
    )


# -- the text part --------------------------------------------------------------------------------
@_filter
def since_text(since: Sequence[EventLine], autoescape: bool) -> str:
    """The lines of "since your last turn"."""
    e = _escape(autoescape)
    return "".join(f"- {e(event.text)}\n" for event in since)


@_filter
def talk_text(talk: Sequence[MailMessage], autoescape: bool) -> str:
    """The table talk, each message's further lines indented under the name."""
    e = _escape(autoescape)
    return "".join(f"- {e(m.author)}: {e(m.indented)}\n" for m in talk)


@_filter
def hand_text(hand: Sequence[MailCard], autoescape: bool) -> str:
    """The hand's cards, or a dash for an empty hand."""
    e = _escape(autoescape)
    return ", ".join(e(c.name) for c in hand) if hand else "—"


@_filter
def groups_text(groups: Sequence[LinkedGroup], autoescape: bool) -> str:
    """Each group of moves: its title, then each choice's label and link."""
    e = _escape(autoescape)
    return "".join(
        f"\n{e(group.title)}\n"
        + "".join(f"  * {e(c.label)}\n    {e(c.url)}\n" for c in group.choices)
        for group in groups
    )


@_filter
def replies_text(replies: Sequence[ReplyChoice], autoescape: bool) -> str:
    """The reply lines: each line to write and what it does."""
    e = _escape(autoescape)
    return "".join(f"  {e(r.text)}   ({e(r.label)})\n" for r in replies)
