"""Private tournaments (``Tournament.private``, issue 28): kept out of the list and of strangers'
eyes, and signed up for by a secret link its organiser shares, as a private table is
(games.private_tables) and for the same reasons.

Who sees one: its entrants, its organiser and staff (``may_view``, ``visible_tournaments``);
for anyone else its page, standings and API reads answer as a tournament that does not exist.
Its rounds' games are private tables (``rounds._start_game``), seen by their players only.

The link names the tournament and a secret; whoever has it may sign up while sign-up is open.
Its organiser (or staff) may renew it: the old link then stops working. A player and the
organiser who blocked one another never meet there (``rounds.tournament_signup`` refuses);
that two blocked entrants are not paired together is not done: the pairing ignores blocks.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _

from games.services import new_join_secret

from .models import Tournament, TournamentPlayer
from .rounds import TournamentError, may_organise, signup_open, tournament_signup

__all__ = [
    "LinkNotValid",
    "join_url",
    "link_matches",
    "link_not_valid_text",
    "link_renew",
    "may_view",
    "signup_by_link",
    "visible_tournaments",
]


def link_not_valid_text() -> str:
    """What a forged or renewed link says, in the active language."""
    return _(
        "This link to a private tournament is not valid: it may have been renewed by its "
        "organiser. Ask them for the new one."
    )


class LinkNotValid(TournamentError):
    """A sign-up link that names no private tournament with this secret (forged or renewed)."""

    def __init__(self) -> None:
        super().__init__(link_not_valid_text())


# -- who sees it ----------------------------------------------------------------------------------
def may_view(tournament: Tournament, user: Any) -> bool:
    """Everyone sees a public tournament; a private one its entrants, organiser and staff."""
    if not tournament.private:
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return (
        may_organise(tournament, user)
        or TournamentPlayer.objects.filter(tournament_id=tournament.pk, user_id=user.pk).exists()
    )


def visible_tournaments(viewer: Any = None) -> QuerySet[Tournament]:
    """The tournaments ``viewer`` may see (``may_view`` for many)."""
    if getattr(viewer, "is_staff", False):
        return Tournament.objects.all()
    if not getattr(viewer, "is_authenticated", False):
        return Tournament.objects.filter(private=False)
    entered = TournamentPlayer.objects.filter(user_id=viewer.pk).values("tournament_id")
    return Tournament.objects.filter(
        Q(private=False) | Q(created_by_id=viewer.pk) | Q(pk__in=entered)
    )


# -- the link -------------------------------------------------------------------------------------
def link_matches(tournament: Tournament, secret: str) -> bool:
    return (
        tournament.private
        and bool(tournament.join_secret)
        and hmac.compare_digest(tournament.join_secret, secret)
    )


def join_url(tournament: Tournament) -> str:
    """The link to share (absolute: it is pasted into mails and chats)."""
    path = reverse("tournament_private_join", args=[tournament.pk, tournament.join_secret])
    return f"{settings.SITE_URL}{path}"


def link_renew(*, tournament_id: int, user: Any) -> Tournament:
    """A new secret for the sign-up link: the organiser (or staff), while sign-up is open.
    Raises Tournament.DoesNotExist, TournamentError."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not tournament.private or not may_organise(tournament, user):
            raise TournamentError(
                _("Only the organiser of a private tournament can renew its link.")
            )
        if not signup_open(tournament):
            raise TournamentError(_("Sign-up for this tournament is closed."))
        tournament.join_secret = new_join_secret()
        tournament.save(update_fields=["join_secret"])
    return tournament


def signup_by_link(*, tournament_id: int, secret: str, user: Any) -> TournamentPlayer:
    """Sign ``user`` up for the private tournament whose link this is. Raises LinkNotValid
    (also for an unknown tournament), TournamentError (closed, blocked, signed up already)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not link_matches(tournament, secret):
        raise LinkNotValid()
    # the secret is checked again under the row lock: a renewal in between wins
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not link_matches(locked, secret):
            raise LinkNotValid()
        return tournament_signup(tournament_id=tournament_id, user=user, admitted=True)
