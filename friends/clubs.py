"""Inviting people to a club (a league players run, tournaments.clubs): by display name or
email address, with the rules of every invitation (friends.invitations.resolve_all: not
oneself, not across a block, not an address that asked never to hear from us, the daily limit
for addresses), plus a club's own: only its organisers invite, and not its members or people
invited already. Accepting goes through ``invitations.accept``, which joins the club.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.models import User
from tournaments.leagues import may_organise
from tournaments.models import League, LeagueMember

from . import invitations
from .invitations import CannotInvite, InvitationClosed, TooManyInvitees
from .models import Invitation, InvitationStatus

#: people one submission of the invite form may name (the daily limit for addresses applies too)
MAX_AT_ONCE = 20


def club_invite(*, league_id: int, inviter: User, texts: Sequence[str]) -> list[Invitation]:
    """Invitations to the club for everyone ``texts`` names (display names or addresses), made
    by one of its organisers: all of them, or none and an InvitationError saying why."""
    texts = [text for text in texts if text.strip()]
    if not texts:
        raise CannotInvite(_("Give at least one display name or email address."))
    if len(texts) > MAX_AT_ONCE:
        raise TooManyInvitees(
            ngettext_lazy(
                "Invite at most %(n)s person at once.",
                "Invite at most %(n)s people at once.",
                "n",
            ),
            n=MAX_AT_ONCE,
        )
    found = invitations.resolve_all(texts, inviter=inviter, seats=MAX_AT_ONCE)
    with transaction.atomic():
        league = League.objects.select_for_update().get(pk=league_id)
        if not may_organise(inviter, league):
            raise CannotInvite(_("Only the club's organisers can invite to it."))
        if not league.active:
            raise InvitationClosed(_("This league is closed."))
        # an expired invitation the sweep has not marked yet would still count as pending for
        # the "once" constraints: mark this club's now, as ``invitations.expire_due`` would
        now = timezone.now()
        Invitation.objects.filter(
            league=league, status=InvitationStatus.PENDING, expires_at__lte=now
        ).update(status=InvitationStatus.EXPIRED, answered_at=now)
        for invitee in found:
            if invitee.user is not None:
                member = LeagueMember.objects.filter(league=league, user=invitee.user, active=True)
                if member.exists():
                    raise CannotInvite(
                        _("%(name)s is a member of this club already."),
                        name=invitee.user.public_name,
                    )
            who = Q(invitee=invitee.user) if invitee.user is not None else Q(email=invitee.email)
            if pending(league).filter(who).exists():
                raise CannotInvite(
                    _("%(name)s is invited already."),
                    name=invitee.user.public_name if invitee.user is not None else invitee.email,
                )
        return invitations.invitations_create(found, inviter=inviter, league=league)


def pending(league: League) -> Any:
    """The club's invitations still waiting for an answer (not yet expired)."""
    return Invitation.objects.filter(
        league=league, status=InvitationStatus.PENDING, expires_at__gt=timezone.now()
    )


def club_invitations(league: League) -> list[Invitation]:
    """The club's pending invitations for its organisers' page, newest first."""
    return list(pending(league).select_related("invitee", "inviter").order_by("-created_at"))
