"""Inviting people to a table: by display name or by email address, answered by a link, a click
on the site, the API or a reply to the invitation email.

Every way in ends here, so each rule is checked once: who may be invited (not oneself, not
across a block, not an address that asked never to hear from us or that bounced), how many
(the table's free seats; ``INVITATIONS_TO_ADDRESSES_PER_DAY`` to addresses without an account),
and what a link may do (its invitation only, once, until it expires: ``INVITATION_DAYS``).

A pending invitation holds its seat: ``held_seats`` is registered with ``games.services`` so
that nobody else, from the lobby or a private table's link, takes the last seats promised.
Answering needs no account: a declined seat, an expired or withdrawn one is free again, for the
lobby, the link, another invitation or a bot (``games.services.game_seat_bot``).
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from secrets import token_urlsafe
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts import blocks
from accounts.display_names import name_keys
from accounts.models import User
from games import services as game_services
from games.models import Game, GameStatus
from games.services import CannotJoin, GameServiceError
from keltis_site.prepared import Prepared
from tournaments.leagues import LeagueError, league_join, may_organise

from .models import Invitation, InvitationStatus, MailStatus, OptOut

#: called with an invitation's id once the transaction that made it has committed: its email
#: is then sent (friends.tasks registers the sending)
INVITED_HOOKS: list[Any] = []


class InvitationError(GameServiceError):
    """A refused invitation or answer; its message is worded with its parameters."""

    code = "invitation_error"
    default_message = _("This invitation cannot be made.")

    def __str__(self) -> str:
        message = self.args[0]
        return str(message % self.params if self.params else message)


class InviteeNotFound(InvitationError):
    code = "invitee_not_found"

    def __init__(self, name: str) -> None:
        super().__init__(
            _(
                "There is no player called “%(name)s”. To invite someone without an account, "
                "give their email address."
            ),
            name=name,
        )


class AddressNotValid(InvitationError):
    code = "address_not_valid"

    def __init__(self, address: str) -> None:
        super().__init__(_("“%(address)s” is not an email address."), address=address)


class AddressRefused(InvitationError):
    """The address asked never to be emailed, or our mail to it bounced."""

    code = "address_refused"


class CannotInvite(InvitationError):
    code = "cannot_invite"


class TooManyInvitees(InvitationError):
    code = "too_many_invitees"


class RateLimited(InvitationError):
    code = "invitations_rate_limited"


class InvitationNotValid(InvitationError):
    """A forged or altered link, or an invitation that does not exist."""

    code = "invitation_not_valid"
    default_message = _(
        "This invitation link is not valid. Check that the whole link was copied, or ask for a "
        "new invitation."
    )


class InvitationClosed(InvitationError):
    """Answered already, withdrawn, expired or its table is gone: the link did nothing."""

    code = "invitation_closed"


class NotTheInvitee(InvitationError):
    code = "not_the_invitee"
    default_message = _("This invitation is for another player.")


# -- who is invited -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Invitee:
    """A member, or an address without an account (``user`` None)."""

    user: User | None
    email: str = ""

    @property
    def key(self) -> str:
        return f"user:{self.user.pk}" if self.user is not None else f"email:{self.email}"


def normalize_address(address: str) -> str:
    return address.strip().lower()


def member_by_address(address: str) -> User | None:
    """The active member whose address this is (their sign-in address or a verified one)."""
    found = User.objects.filter(email__iexact=address, is_active=True).first()
    if found is not None:
        return found
    row = (
        EmailAddress.objects.filter(email__iexact=address, verified=True, user__is_active=True)
        .select_related("user")
        .first()
    )
    return row.user if row is not None else None


def member_by_name(name: str) -> User | None:
    """The active member a display name (or a username) names: exactly, else by the name's
    look-alike key, so "Zoltan" finds "Zoltán" as the sign-up's uniqueness rule reads names."""
    exact = User.objects.filter(
        Q(display_name__iexact=name) | Q(display_name="", username__iexact=name),
        is_active=True,
    ).first()
    if exact is not None:
        return exact
    folded = name_keys(name).folded_skeleton
    if not folded:
        return None
    return User.objects.filter(display_name_folded_skeleton=folded, is_active=True).first()


def resolve(text: str, *, inviter: User) -> Invitee:
    """The invitee ``text`` names: an email address (a member's, or a new person's) or a
    player's display name. Refuses oneself, a block either way and a refused address."""
    text = text.strip()
    if "@" in text:
        address = normalize_address(text)
        try:
            validate_email(address)
        except ValidationError:
            raise AddressNotValid(text) from None
        user = member_by_address(address)
        if user is None:
            opted_out = OptOut.objects.filter(email=address).first()
            if opted_out is not None:
                raise AddressRefused(
                    _(
                        "We do not send invitations to %(address)s: its owner asked us never to "
                        "email them."
                    )
                    if opted_out.reason == OptOut.Reason.ASKED
                    else _("We do not send invitations to %(address)s: our mail to it bounced."),
                    address=address,
                )
            return Invitee(None, address)
    else:
        user = member_by_name(text)
        if user is None:
            raise InviteeNotFound(text)
    if user.pk == inviter.pk:
        raise CannotInvite(_("You cannot invite yourself."))
    if blocks.apart(inviter.pk, [user.pk]):
        raise CannotInvite(
            _("You cannot invite %(name)s: you and they do not play together."),
            name=user.public_name,
        )
    return Invitee(user)


def resolve_all(texts: Sequence[str], *, inviter: User, seats: int) -> list[Invitee]:
    """Every non-empty entry of ``texts`` resolved; nobody twice, no more than ``seats``."""
    invitees = [resolve(text, inviter=inviter) for text in texts if text.strip()]
    if len({invitee.key for invitee in invitees}) != len(invitees):
        raise CannotInvite(_("The same person is invited twice."))
    if len(invitees) > seats:
        raise TooManyInvitees(
            ngettext_lazy(
                "This table has %(seats)s free seat: invite fewer people.",
                "This table has %(seats)s free seats: invite fewer people.",
                "seats",
            ),
            seats=seats,
        )
    return invitees


def _check_rate(inviter: User, addresses: int, now: datetime) -> None:
    """At most INVITATIONS_TO_ADDRESSES_PER_DAY invitations to addresses without an account in
    any 24 hours: counted from the rows, so it holds across processes and restarts."""
    if not addresses or inviter.is_staff:
        return
    limit = settings.INVITATIONS_TO_ADDRESSES_PER_DAY
    sent = (
        Invitation.objects.filter(inviter=inviter, created_at__gt=now - timedelta(days=1))
        .exclude(email="")
        .count()
    )
    if sent + addresses > limit:
        raise RateLimited(
            ngettext_lazy(
                "You can invite at most %(limit)s email address without an account a day; you "
                "have %(left)s left today. Invite members by their display name, or try "
                "tomorrow.",
                "You can invite at most %(limit)s email addresses without an account a day; "
                "you have %(left)s left today. Invite members by their display name, or try "
                "tomorrow.",
                "limit",
            ),
            limit=limit,
            left=max(0, limit - sent),
        )


# -- making them ----------------------------------------------------------------------------------
def _create(invitee: Invitee, *, inviter: User, now: datetime, **target: Any) -> Invitation:
    invitation = Invitation.objects.create(
        inviter=inviter,
        invitee=invitee.user,
        email=invitee.email,
        language=(invitee.user.language if invitee.user is not None else inviter.language),
        secret=token_urlsafe(24),
        created_at=now,
        expires_at=now + timedelta(days=settings.INVITATION_DAYS),
        **target,
    )
    transaction.on_commit(lambda: _invited(invitation.pk))
    return invitation


def _invited(invitation_id: int) -> None:
    for hook in INVITED_HOOKS:
        hook(invitation_id)


def invitations_create(
    invitees: Sequence[Invitee], *, inviter: User, now: datetime | None = None, **target: Any
) -> list[Invitation]:
    """Rows for ``invitees`` to one target (``game=`` or ``league=``), in the caller's
    transaction, after the daily limit for addresses."""
    now = now or timezone.now()
    _check_rate(inviter, sum(1 for invitee in invitees if invitee.user is None), now)
    return [_create(invitee, inviter=inviter, now=now, **target) for invitee in invitees]


def game_create_with_invitations(
    *, creator: User, invitees: Sequence[str], **game_kwargs: Any
) -> Game:
    """``games.services.game_create`` with seats held for the people named in ``invitees``
    (display names or addresses): all of it, or nothing and a clear error."""
    player_count = game_kwargs.get("player_count", 2)
    seats = player_count - 1 - len(game_kwargs.get("bots", ()))
    found = resolve_all(invitees, inviter=creator, seats=seats)
    with transaction.atomic():
        game = game_services.game_create(creator=creator, **game_kwargs)
        invitations_create(found, inviter=creator, game=game)
        if found:
            game_services.changed(game.pk)
    return game


def game_invite(*, game_id: int, inviter: User, invitee: str) -> Invitation:
    """One more invitation to an open table: by its creator, to a seat nobody holds."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.created_by_id != inviter.pk:
            raise CannotInvite(_("Only the player who opened this table can invite to it."))
        if game.status != GameStatus.OPEN:
            raise CannotJoin(_("This game is no longer open."))
        found = resolve_all([invitee], inviter=inviter, seats=free_seats(game))
        if not found:
            raise InviteeNotFound(invitee)
        if found[0].user is not None and game.seats.filter(user=found[0].user).exists():
            raise CannotInvite(
                _("%(name)s has a seat at this table already."), name=found[0].user.public_name
            )
        if (
            _pending(game=game)
            .filter(Q(invitee=found[0].user) if found[0].user else Q(email=found[0].email))
            .exists()
        ):
            raise CannotInvite(_("This person is invited already."))
        (invitation,) = invitations_create(found, inviter=inviter, game=game)
        game_services.changed(game.pk)
    return invitation


# -- seats held -----------------------------------------------------------------------------------
def _pending(now: datetime | None = None, **target: Any) -> Any:
    return Invitation.objects.filter(
        status=InvitationStatus.PENDING, expires_at__gt=now or timezone.now(), **target
    )


def held_seats(game: Game) -> int:
    """The seats of ``game`` its pending invitations hold (games.services.SEATS_HELD)."""
    return _pending(game=game).count()


def free_seats(game: Game) -> int:
    """The seats of ``game`` nobody sits at and no pending invitation holds."""
    return max(0, game.player_count - game.seats.count() - held_seats(game))


def held_seats_expression() -> Any:
    """``held_seats`` for the lobby's query (``games.listings.SEATS_HELD_EXPRESSIONS``): a
    subquery counting the seats held of the game ``OuterRef("pk")``, so the lobby asks once
    however many games it shows."""
    pending = (
        _pending(game=OuterRef("pk"))
        .order_by()
        .values("game")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Subquery(pending, output_field=IntegerField())


#: a player's pending invitations to an open table or an active league, newest first, with
#: what their rows show: compiled once a process (keltis_site.prepared), since the player's
#: games page asks on every view and most players have none (the ORM's building and compiling
#: was nearly all of that answer)
_PENDING_FOR = Prepared(
    lambda user_id: Invitation.objects.filter(status=InvitationStatus.PENDING, invitee_id=user_id)
    .filter(Q(game__status=GameStatus.OPEN) | Q(league__active=True))
    .select_related("game", "league", "inviter")
    .order_by("-created_at")
)


def pending_for(user: User) -> list[Invitation]:
    """The invitations waiting for ``user``'s answer, newest first (their games page, the API):
    those not expired yet (``_pending``), the rows the sweep has not marked expired yet left out
    here."""
    now = timezone.now()
    return [row for row in _PENDING_FOR.run(user.pk) if row.expires_at > now]


def table_invitations(game: Game) -> list[Invitation]:
    """A table's invitations for its page: pending first, then the answered ones, newest first
    (withdrawn ones are left out)."""
    rows = (
        Invitation.objects.filter(game=game)
        .exclude(status=InvitationStatus.WITHDRAWN)
        .select_related("invitee")
        .order_by("-created_at")
    )
    now = timezone.now()
    for row in rows:
        if row.pending and row.expires_at <= now:
            row.status = InvitationStatus.EXPIRED  # as the sweep will write it
    return sorted(rows, key=lambda row: not row.pending)


# -- answering ------------------------------------------------------------------------------------
def secret_matches(invitation: Invitation, secret: str) -> bool:
    return bool(invitation.secret) and hmac.compare_digest(invitation.secret, str(secret))


def invitation_read(invitation_id: int, secret: str | None) -> Invitation:
    """The invitation a link names, or InvitationNotValid for a forged one (the same error
    whether the id exists or not)."""
    invitation = (
        Invitation.objects.filter(pk=invitation_id)
        .select_related("game", "league", "inviter", "invitee")
        .first()
    )
    if invitation is None or (secret is not None and not secret_matches(invitation, secret)):
        raise InvitationNotValid()
    return invitation


def closed_reason(invitation: Invitation, now: datetime | None = None) -> Any:
    """Why ``invitation`` can no longer be answered, in words; None while it can."""
    now = now or timezone.now()
    if invitation.status == InvitationStatus.ACCEPTED:
        return _("This invitation has been accepted already.")
    if invitation.status == InvitationStatus.DECLINED:
        return _("This invitation has been declined already.")
    if invitation.status == InvitationStatus.WITHDRAWN:
        return _("This invitation was withdrawn by the player who sent it.")
    if invitation.status == InvitationStatus.EXPIRED or invitation.expires_at <= now:
        return _("This invitation has expired. Ask for a new one.")
    if invitation.game_id is not None and invitation.game.status != GameStatus.OPEN:
        return _("This table is no longer waiting for players.")
    if invitation.league_id is not None and not invitation.league.active:
        return _("This league is closed.")
    return None


def _locked(invitation_id: int, secret: str | None, user: User | None) -> Invitation:
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id).first()
    if invitation is None:
        raise InvitationNotValid()
    if secret is not None:
        if not secret_matches(invitation, secret):
            raise InvitationNotValid()
    elif user is None or invitation.invitee_id != user.pk:
        raise NotTheInvitee()  # without the link only the member invited may answer
    if user is not None and invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        raise NotTheInvitee()
    reason = closed_reason(invitation)
    if reason is not None:
        raise InvitationClosed(reason)
    return invitation


def accept(*, invitation_id: int, user: User, secret: str | None = None) -> Invitation:
    """``user`` takes the seat (or joins the club) ``invitation`` holds. With ``secret`` (the
    link from the email) anyone signed in may, since they read that mailbox; without it only
    the member invited. Nothing changes when it is refused."""
    with transaction.atomic():
        invitation = _locked(invitation_id, secret, user)
        if invitation.inviter_id and blocks.apart(user.pk, [invitation.inviter_id]):
            raise CannotInvite(
                _("You cannot accept: you and the player who invited you do not play together.")
            )
        invitation.status = InvitationStatus.ACCEPTED
        invitation.answered_at = timezone.now()
        invitation.accepted_by = user
        if invitation.invitee_id is None:
            invitation.invitee = user
        invitation.save(update_fields=["status", "answered_at", "accepted_by", "invitee"])
        if invitation.game_id is not None:
            game_services.game_join(game_id=invitation.game_id, user=user, admitted=True)
        else:
            try:
                league_join(league_id=invitation.league_id, user=user, admitted=True)
            except LeagueError as exc:  # a member already, a rating outside the band
                raise InvitationError(str(exc)) from None
    return invitation


def decline(
    *, invitation_id: int, user: User | None = None, secret: str | None = None
) -> Invitation:
    """No, thanks: by the member invited, or by whoever holds the link (no account needed)."""
    with transaction.atomic():
        invitation = _locked(invitation_id, secret, user)
        _close(invitation, InvitationStatus.DECLINED)
    return invitation


def _may_withdraw(invitation: Invitation, user: User) -> bool:
    """Its inviter, the table's creator, or an organiser of the club it invites to."""
    if user.pk == invitation.inviter_id:
        return True
    if invitation.game_id is not None:
        return user.pk == invitation.game.created_by_id
    return may_organise(user, invitation.league)


def withdraw(*, invitation_id: int, user: User) -> Invitation:
    """The inviter (or the table's creator, a club's organiser) takes a pending invitation
    back: its seat is free."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update(of=("self",))  # PostgreSQL: not the outer join
            .select_related("game", "league")
            .get(pk=invitation_id)
        )
        if not _may_withdraw(invitation, user):
            raise CannotInvite(_("Only the player who sent an invitation can withdraw it."))
        if invitation.status != InvitationStatus.PENDING:
            raise InvitationClosed(closed_reason(invitation) or InvitationClosed.default_message)
        _close(invitation, InvitationStatus.WITHDRAWN)
    return invitation


def _close(invitation: Invitation, status: str) -> None:
    """Declined or withdrawn: its seat is free again, and an email not sent yet never goes."""
    invitation.status = status
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    _mail_not_needed(invitation)
    if invitation.game_id is not None:
        game_services.changed(invitation.game_id)


def _mail_not_needed(invitation: Invitation) -> None:
    """An invitation answered or withdrawn before its email went out is not sent after all."""
    Invitation.objects.filter(pk=invitation.pk, mail_status=MailStatus.QUEUED).update(
        mail_status=MailStatus.SKIPPED
    )


def expire_due(now: datetime | None = None) -> int:
    """Mark the pending invitations past their time expired (the periodic sweep; until it runs
    an expired one already holds no seat and its link already says it expired)."""
    now = now or timezone.now()
    due = Invitation.objects.filter(status=InvitationStatus.PENDING, expires_at__lte=now)
    games = set(due.exclude(game=None).values_list("game_id", flat=True))
    count = due.update(status=InvitationStatus.EXPIRED, answered_at=now)
    for game_id in games:
        game_services.changed(game_id)
    return count
