"""The friends app's part of a user's data export (``manage.py export_user_data``): the
invitations they sent and received, the players they blocked and their rematch offers.

An address the player typed to invite someone is theirs to see; the secret of a link is not
exported (it would let the file's reader answer for the invitee)."""

from __future__ import annotations

from typing import Any

from accounts.models import Block, User
from games.maintenance import iso

from .models import Invitation, Rematch


def _invitation(invitation: Invitation, *, sent: bool) -> dict[str, Any]:
    return {
        "game": invitation.game_id,
        "league": invitation.league_id,
        "inviter": invitation.inviter.public_name if invitation.inviter_id else None,
        "invitee": invitation.invitee_name() if sent else invitation.invitee.public_name,
        "status": invitation.status,
        "created_at": iso(invitation.created_at),
        "expires_at": iso(invitation.expires_at),
        "answered_at": iso(invitation.answered_at),
    }


def user_data(user: User) -> dict[str, Any]:
    sent = Invitation.objects.filter(inviter=user).select_related("inviter", "invitee")
    received = Invitation.objects.filter(invitee=user).select_related("inviter", "invitee")
    return {
        "invitations_sent": [_invitation(i, sent=True) for i in sent.order_by("created_at", "pk")],
        "invitations_received": [
            _invitation(i, sent=False) for i in received.order_by("created_at", "pk")
        ],
        "blocked_players": [
            {"player": b.blocked.public_name, "since": iso(b.created_at)}
            for b in Block.objects.filter(blocker=user).select_related("blocked").order_by("pk")
        ],
        "rematches_offered": [
            {"game": r.game_id, "status": r.status, "offered_at": iso(r.offered_at)}
            for r in Rematch.objects.filter(offered_by=user).order_by("offered_at", "pk")
        ],
    }
