"""The table's talk on the game page and among the moves of its history.

``games`` must not import talk: its templates load this library (``{% load talk_tags %}``) and
the tags read everything they show from the game and the request in the page's context.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django import template
from django.conf import settings
from django.utils.html import escape, urlize
from django.utils.safestring import SafeString, mark_safe

from games.models import Game
from talk import rules, selectors
from talk.selectors import ShownMessage

register = template.Library()

#: the most messages the game page shows (the history shows them all)
PANEL_LIMIT = selectors.NEWEST_READ - 1
#: what links in a message get: never followed for ranking, user content, no opener
LINK_REL = "nofollow ugc noopener"


def _viewer(context: Any) -> Any:
    request = context.get("request")
    return getattr(request, "user", None)


def draft_key(game_id: int) -> str:
    """The session key of a message refused on the page, so the box shows it again."""
    return f"talk-draft-{game_id}"


@register.inclusion_tag("talk/_table_talk.html", takes_context=True)
def table_talk(context: Any, game: Game) -> dict[str, Any]:
    """The "Table talk" panel: the newest PANEL_LIMIT messages oldest first, the box to write
    for the table's players while its talk is open, and the mute toggle."""
    request = context.get("request")
    viewer = _viewer(context)
    shown: dict[str, Any] = {"show": False}
    if not rules.may_read(game, viewer):
        return shown
    signed_in = viewer is not None and viewer.is_authenticated
    reader = selectors.reader_at(game, viewer)
    player = reader.seated and not getattr(viewer, "is_bot", False)
    muted = player and reader.muted
    rows = [] if muted else selectors.newest_for(game, viewer)
    more = len(rows) > PANEL_LIMIT
    is_open = rules.is_open(game)
    stopped = player and is_open and reader.suspended
    draft = ""
    if player and request is not None and hasattr(request, "session"):
        # a refused message comes back to its box once (as a flash message would)
        draft = request.session.pop(draft_key(game.pk), "")
    shown.update(
        show=True,
        game=game,
        request=request,
        viewer_id=viewer.pk if signed_in else None,
        player=player,
        muted=muted,
        messages=rows[-PANEL_LIMIT:],
        more=more,
        may_write=player and is_open and not stopped,
        suspended=stopped,
        is_open=is_open,
        max_length=settings.TALK_MAX_LENGTH,
        draft=draft,
    )
    return shown


@register.filter
def talk_text(message: ShownMessage) -> SafeString:
    """A message's text as HTML: always escaped, its line breaks kept, its links made links
    only when its author's account is old enough (``rules.links_allowed``)."""
    if message.links:
        html = urlize(message.text, nofollow=True, autoescape=True)
        html = html.replace('rel="nofollow"', f'rel="{LINK_REL}"')
    else:
        html = escape(message.text)
    return mark_safe(html.replace("\n", "<br>"))  # escaped above; only <br> and links added


@register.simple_tag(takes_context=True)
def talk_by_move(context: Any, game: Game) -> dict[int, list[ShownMessage]]:
    """The messages the reader may see, by the move number they were written after (the
    history shows each after its move; 0: before the first move)."""
    by_seq: dict[int, list[ShownMessage]] = defaultdict(list)
    for message in selectors.messages_for(game, _viewer(context)):
        by_seq[message.seq].append(message)
    return dict(by_seq)


@register.filter
def talk_at(by_seq: dict[int, list[ShownMessage]] | None, seq: int) -> list[ShownMessage]:
    """The messages written after move ``seq``."""
    return (by_seq or {}).get(seq, [])


@register.filter
def talk_after_last(by_seq: dict[int, list[ShownMessage]] | None, seq: int) -> list[ShownMessage]:
    """Messages written after the last move the history lists (``seq``), if any: a log
    shorter than the game's count must not lose them."""
    return [m for s, rows in sorted((by_seq or {}).items()) if s > seq for m in rows]
