"""The invitation pages: the link from the email (anyone holding it: accept, decline, or sign
up or in on the way), a member's answers from their games page, and the table creator's
actions on the open table's page (withdraw, invite, give a free seat to a bot).

Views only route: ``friends.invitations`` and ``games.services`` decide and write; a refusal
becomes a message or the page's reason. GET never changes anything.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games import listings
from games.error_messages import service_error_text
from games.models import Game
from games.services import GameServiceError, game_seat_bot
from games.views.next_page import next_page

from .. import invitation_accounts, invitations
from ..invitations import InvitationNotValid
from ..models import Invitation

#: the invitation pages say why a link did nothing: a forged one is a bad request, an answered,
#: withdrawn or expired one is gone
FORGED_STATUS = 400
CLOSED_STATUS = 410


def _target_url(invitation: Invitation) -> str:
    """Where accepting leads: the game, or the club's page."""
    if invitation.game_id is not None:
        return listings.game_url(invitation.game_id)
    return reverse("league_detail", args=[invitation.league_id])


def table_summary(game: Game) -> dict[str, Any]:
    """The table an invitation is to, in words (games.listings' helpers)."""
    seats = list(game.seats.select_related("user").order_by("index"))
    return {
        "kind": game.get_kind_display(),
        "players": [seat.name for seat in seats],
        "player_count": game.player_count,
        "options": listings.options_in_words(game.kind, game.options),
        "time_control": listings.time_control_text(game),
        "rated": game.rated,
        "private": game.private,
    }


def _closed(request: HttpRequest, reason: Any, status: int) -> HttpResponse:
    return render(request, "friends/invitation.html", {"reason": reason}, status=status)


@require_http_methods(["GET", "POST"])
def invitation_answer(request: HttpRequest, invitation_id: int, secret: str) -> HttpResponse:
    """The link from the invitation email. GET shows the table and the answers; POST answers:
    ``accept`` (signed in), ``decline`` (no account needed), ``signup`` / ``login`` (not signed
    in: the acceptance waits in the session until the player is signed in)."""
    try:
        invitation = invitations.invitation_read(invitation_id, secret)
    except InvitationNotValid as exc:
        return _closed(request, str(exc), FORGED_STATUS)
    user = request.user if request.user.is_authenticated else None
    if user is not None and invitation.accepted_by_id == user.pk:
        # back from signing up or in: the acceptance was made there; this only shows the way
        return redirect(_target_url(invitation))
    reason = invitations.closed_reason(invitation)
    if reason is not None:
        return _closed(request, reason, CLOSED_STATUS)
    page = request.path
    if request.method == "POST":
        answer = request.POST.get("answer", "")
        try:
            if answer == "decline":
                invitations.decline(invitation_id=invitation.pk, secret=secret)
                return render(request, "friends/invitation.html", {"declined": True})
            if answer == "accept" and user is not None:
                invitations.accept(invitation_id=invitation.pk, user=user, secret=secret)
                messages.success(request, _("You accepted the invitation."))
                return redirect(_target_url(invitation))
        except GameServiceError as exc:
            messages.error(request, service_error_text(exc))
            return redirect(page)
        if answer in ("signup", "login", "accept") and user is None:
            signup = answer == "signup" and invitation.invitee_id is None
            invitation_accounts.remember_acceptance(request, invitation, signup=signup)
            query = {"next": page}
            if signup:
                query["email"] = invitation.email
            return redirect(
                f"{reverse('account_signup' if signup else 'account_login')}?{urlencode(query)}"
            )
        return redirect(page)
    for_someone_else = (
        user is not None and invitation.invitee_id is not None and invitation.invitee_id != user.pk
    )
    context = {
        "invitation": invitation,
        "table": table_summary(invitation.game) if invitation.game_id else None,
        "for_someone_else": for_someone_else,
        # a member invited by name signs in; an address may be a newcomer's
        "may_sign_up": invitation.invitee_id is None,
    }
    return render(request, "friends/invitation.html", context)


def _signed_in(request: HttpRequest, back: str) -> HttpResponse | None:
    """A redirect to the sign-in page (then back to ``back``) for an anonymous POST."""
    if request.user.is_authenticated:
        return None
    return redirect_to_login(back)


@require_POST
def member_accept(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """The member invited accepts from the site (their games page, the table's page)."""
    back = next_page(request, reverse("my_games"))
    if (refusal := _signed_in(request, back)) is not None:
        return refusal
    try:
        invitation = invitations.accept(invitation_id=invitation_id, user=request.user)
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
        return HttpResponseRedirect(back)
    messages.success(request, _("You accepted the invitation."))
    return redirect(_target_url(invitation))


@require_POST
def member_decline(request: HttpRequest, invitation_id: int) -> HttpResponse:
    back = next_page(request, reverse("my_games"))
    if (refusal := _signed_in(request, back)) is not None:
        return refusal
    try:
        invitations.decline(invitation_id=invitation_id, user=request.user)
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("You declined the invitation."))
    return HttpResponseRedirect(back)


@require_POST
def withdraw(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """The inviter takes a pending invitation back: its seat is free again."""
    invitation = Invitation.objects.filter(pk=invitation_id).only("game_id", "league_id").first()
    if invitation is None:
        raise Http404
    back = next_page(request, _target_url(invitation))
    if (refusal := _signed_in(request, back)) is not None:
        return refusal
    try:
        invitations.withdraw(invitation_id=invitation_id, user=request.user)
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("The invitation is withdrawn: its seat is free again."))
    return HttpResponseRedirect(back)


def _table_action(request: HttpRequest, game_id: int) -> tuple[str, HttpResponse | None]:
    if not Game.objects.filter(pk=game_id).exists():
        raise Http404
    back = listings.game_url(game_id)
    return back, _signed_in(request, back)


@require_POST
def table_invite(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table's creator invites one more person to a free seat."""
    back, refusal = _table_action(request, game_id)
    if refusal is not None:
        return refusal
    try:
        invitations.game_invite(
            game_id=game_id, inviter=request.user, invitee=request.POST.get("invitee", "")
        )
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("Your invitation is on its way."))
    return HttpResponseRedirect(back)


@require_POST
def table_seat_bot(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table's creator gives a free seat (never invited, or declined, expired, withdrawn)
    to a bot of the level chosen."""
    back, refusal = _table_action(request, game_id)
    if refusal is not None:
        return refusal
    try:
        game_seat_bot(game_id=game_id, user=request.user, level=request.POST.get("level", ""))
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("A bot took the seat."))
    return HttpResponseRedirect(back)
