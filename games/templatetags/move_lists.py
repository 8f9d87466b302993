"""``{{ events|latest_moves }}``: the items of the game page's "Latest moves" list, written in
Python: the template's loop (a figure, the text, the source's note and a ``{% blocktranslate %}``
of ``timesince`` for every move) cost a quarter of a millisecond of each read of the page
(issue 30). The markup is the one games/game.html's loop held, byte for byte
(tests/games/test_latest_moves.py renders the old loop beside it): values escaped, the
translation not, its msgid the template's own (``{% blocktranslate with since=... %}`` gives
``%(since)s``), so makemessages finds it here."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.template.defaultfilters import timesince_filter
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.presenters.history import EventLine
from keltis_site.markup import esc

from .figure_icons import figure_icon

register = template.Library()


@register.filter
def latest_moves(events: Iterable[EventLine]) -> SafeString:
    """One ``<li>`` per move, numbered by its place in the game, with how long ago it was."""
    ago = _("%(since)s ago")
    items = []
    for e in events:
        note = ""
        if e.source_note:
            note = (
                f' <span class="event-source event-source--{esc(e.source)}">'
                f"{esc(e.source_note)}</span>"
            )
        since = ago % {"since": esc(timesince_filter(e.when))}
        items.append(
            f'<li value="{esc(e.seq)}">{figure_icon(e.icon)} {esc(e.text)}{note}'
            f' <span class="muted">{since}</span></li>'
        )
    return mark_safe("".join(items))
