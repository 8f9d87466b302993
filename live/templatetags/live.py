"""Template tags of live pages: the stream's address and state on <body>, the turn count."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from games.models import Game
from live.messages import state_id
from live.selectors import page_reads, turn_count

register = template.Library()


@register.simple_tag(takes_context=True)
def live_attrs(context: Any) -> str:
    """``data-live-*`` attributes for <body>: where live.js listens, and the state this page
    shows. A page of a game (``game`` in its context) follows that game, a player's page their
    own games, the lobby (``live_lobby`` in its context) every open game too; a visitor's page
    of no game gets nothing (nothing could change for them)."""
    request = context.get("request")
    html = _live_attrs(request, context.get("game"), lobby=bool(context.get("live_lobby")))
    if request is not None:
        request.live_page = bool(html)
    return html


@register.simple_tag(takes_context=True)
def live_script(context: Any) -> str:
    """live.js, on the pages that ``live_attrs`` made live only (after it, in <body>)."""
    if not getattr(context.get("request"), "live_page", False):
        return ""
    return format_html('<script src="{}" defer></script>', static("live/live.js"))


def _live_attrs(request: Any, game: Any, *, lobby: bool = False) -> str:
    user = getattr(request, "user", None)
    user_id = user.pk if user is not None and user.is_authenticated else None
    game_id = game.pk if isinstance(game, Game) else None
    if user_id is None and game_id is None and not lobby:
        return ""
    marks, turns = page_reads(user_id=user_id, game_id=game_id, lobby=lobby)
    if user_id is not None and request is not None:
        request.live_turn_count = turns  # the header's count (``live_turn_count``), read along
    since = state_id(marks.items())
    url = settings.LIVE_STREAM_URL + reverse("live_events")
    html = format_html(' data-live-url="{}" data-live-since="{}"', url, since)
    if game_id is not None:
        html += format_html(' data-live-game="{}"', game_id)
    if lobby:
        html += mark_safe(' data-live-lobby="1"')  # a constant
    return html


@register.simple_tag(takes_context=True)
def live_turn_count(context: Any) -> int:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return 0
    read = getattr(request, "live_turn_count", None)  # by ``live_attrs``, on <body>: above
    return read if read is not None else turn_count(user_id=user.pk)
