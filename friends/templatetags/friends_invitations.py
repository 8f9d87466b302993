"""Invitation panels in games' pages, which load this library so that ``games`` needs no import
of friends:

- ``{% table_invitations game %}``: an open table's invitations on its page; the creator's
  withdraw, invite and bot buttons; the invited member's accept and decline;
- ``{% invitations_for_you %}``: the invitations waiting for the signed-in player (my games);
- ``{% game_challenges page %}``: "Challenge" links to the other people of a finished game.

An address is shown to its inviter only; everyone else reads "someone invited by email".
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from accounts import blocks
from accounts.models import User
from games.models import BOT_LEVELS, GameStatus

from .. import invitations
from ..models import InvitationStatus

register = template.Library()


def _viewer(context: template.Context) -> Any:
    request = context.get("request")
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


@register.inclusion_tag("friends/_table_invitations.html", takes_context=True)
def table_invitations(context: template.Context, game: Any) -> dict[str, Any]:
    """Nothing unless the table is open and has invitations or the viewer opened it."""
    viewer = _viewer(context)
    if game.status != GameStatus.OPEN:
        return {"show": False}
    is_creator = viewer is not None and game.created_by_id == viewer.pk
    rows = invitations.table_invitations(game)
    if not rows and not is_creator:
        return {"show": False}
    now = timezone.now()
    free = invitations.free_seats(game)
    shown = []
    mine = None
    for row in rows:
        shown.append(
            {"invitation": row, "name": row.name_for(viewer), "status": row.get_status_display()}
        )
        if viewer is not None and row.pending and row.invitee_id == viewer.pk:
            mine = row
    return {
        "show": True,
        "game": game,
        "rows": shown,
        "is_creator": is_creator,
        "free_seats": free,
        "some_closed": any(
            row.status in (InvitationStatus.DECLINED, InvitationStatus.EXPIRED) for row in rows
        ),
        "bot_levels": BOT_LEVELS,
        "mine": mine,
        "now": now,
        "csrf_token": context.get("csrf_token"),
        "request": context.get("request"),
    }


@register.inclusion_tag("friends/_invitations_for_you.html", takes_context=True)
def invitations_for_you(context: template.Context) -> dict[str, Any]:
    viewer = _viewer(context)
    rows = invitations.pending_for(viewer) if viewer is not None else []
    return {
        "rows": rows,
        "csrf_token": context.get("csrf_token"),
        "request": context.get("request"),
    }


@register.inclusion_tag("friends/_challenges.html", takes_context=True)
def game_challenges(context: template.Context, page: Any) -> dict[str, Any]:
    """For a signed-in player looking at a finished game: a challenge to each other person at
    it (not bots, not a bot account, nobody either of them blocked)."""
    viewer = _viewer(context)
    if viewer is None or not page.finished:
        return {"seats": []}
    people = [seat for seat in page.seats if seat.username and not seat.is_viewer]
    users = User.objects.filter(username__in=[seat.username for seat in people])
    allowed = {user.username for user in users if blocks.may_challenge(viewer, user)}
    return {"seats": [seat for seat in people if seat.username in allowed]}
