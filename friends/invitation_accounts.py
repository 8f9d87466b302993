"""Invitations and accounts: a newcomer answers an invitation by signing up, a member by
signing in, and lands in the game.

An anonymous "take the seat" is a POST on the invitation's page: it keeps the invitation (id
and secret) in the session and sends the player to sign up or sign in. Once they are signed
in (``user_logged_in``: after a sign-up whose address needs no confirmation, after signing in,
or after confirming the address in the same browser), the acceptance is made there, as a POST
would: the page they come back to (GET) only reads. A new or newly confirmed address also
brings the invitations sent to it into its player's list (``attach_address_invitations``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Q
from django.http import HttpRequest
from django.utils.translation import gettext as _

from accounts.adapter import INVITED_EMAIL_SESSION_KEY
from accounts.models import User
from games.error_messages import service_error_text
from games.services import GameServiceError

from . import invitations
from .models import Invitation, InvitationStatus

#: the invitation an anonymous player chose to accept: {"id": ..., "secret": ...}
PENDING_ACCEPT_SESSION_KEY = "invitation_to_accept"


def remember_acceptance(request: HttpRequest, invitation: Invitation, *, signup: bool) -> None:
    """Keep ``invitation`` to accept once the player is signed in; for a sign-up with the
    invited address, that address counts as verified (accounts.adapter)."""
    request.session[PENDING_ACCEPT_SESSION_KEY] = {
        "id": invitation.pk,
        "secret": invitation.secret,
    }
    if signup and invitation.email:
        request.session[INVITED_EMAIL_SESSION_KEY] = invitation.email
    else:
        request.session.pop(INVITED_EMAIL_SESSION_KEY, None)


def accept_remembered(request: HttpRequest | None, user: User) -> Invitation | None:
    """Accept the invitation the session kept, once: a refusal (it expired meanwhile, the
    table filled) becomes a message, the invitation's page then says why."""
    session = getattr(request, "session", None)
    if session is None:
        return None
    pending = session.pop(PENDING_ACCEPT_SESSION_KEY, None)
    session.pop(INVITED_EMAIL_SESSION_KEY, None)
    if not isinstance(pending, dict):
        return None
    try:
        invitation = invitations.accept(
            invitation_id=int(pending["id"]), user=user, secret=str(pending["secret"])
        )
    except (GameServiceError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, GameServiceError):
            messages.error(request, service_error_text(exc), fail_silently=True)
        return None
    messages.success(request, _("You accepted the invitation."), fail_silently=True)
    return invitation


def attach_address_invitations(user: User, address: str) -> int:
    """Give ``user`` the pending invitations sent to ``address`` (now verified as theirs):
    they show in their list and can be answered without the link. Left out: the tables and
    clubs they are invited to already as a member (one pending invitation each) and the
    tables they sit at."""
    address = invitations.normalize_address(address)
    if not address:
        return 0
    theirs = Invitation.objects.filter(invitee=user, status=InvitationStatus.PENDING)
    return (
        Invitation.objects.filter(invitee=None, email=address, status=InvitationStatus.PENDING)
        .exclude(game__in=theirs.exclude(game=None).values("game"))
        .exclude(league__in=theirs.exclude(league=None).values("league"))
        .exclude(Q(game__seats__user=user))
        .update(invitee=user)
    )


# -- signal receivers (registered by friends.apps) ------------------------------------------------
def on_logged_in(
    sender: Any, request: HttpRequest | None = None, user: Any = None, **kwargs: Any
) -> None:
    if user is not None:
        accept_remembered(request, user)


def on_signed_up(
    sender: Any, request: HttpRequest | None = None, user: Any = None, **kwargs: Any
) -> None:
    from allauth.account.models import EmailAddress

    if user is None:
        return
    for address in EmailAddress.objects.filter(user=user, verified=True).values_list(
        "email", flat=True
    ):
        attach_address_invitations(user, address)


def on_email_confirmed(
    sender: Any, request: HttpRequest | None = None, email_address: Any = None, **kwargs: Any
) -> None:
    if email_address is not None and email_address.user_id is not None:
        attach_address_invitations(email_address.user, email_address.email)
