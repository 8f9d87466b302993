"""Rematches: after a game's end, the same table again (the same people and bots, the same
options and clock, seats rotated by one so that another player starts).

One player offers (a click on the game page, the API, or a "yes" reply to the game-over email:
``rematch_reply``); every other person of the old table accepts or declines the same ways. The
new game is made by the last acceptance, in the transaction that records it, with the old
game's row locked: two last acceptances racing make one game. One decline closes the offer for
everyone (the others see who declined). A game has one rematch offer at most.

Refused when the table could no longer sit together: one of its people blocked another
(``accounts.blocks``), or an account was closed. The refusal does not say which, as a block is
never told to the player blocked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from accounts import blocks
from accounts.models import User
from games import services as game_services
from games.models import Game, GameStatus, Seat
from games.services import GameServiceError

from .models import Rematch, RematchStatus


class RematchError(GameServiceError):
    """A refused rematch offer or answer; nothing was changed."""

    code = "rematch_refused"
    default_message = _("This rematch cannot be made.")

    def __str__(self) -> str:
        message = self.args[0]
        return str(message % self.params if self.params else message)


class RematchNotPossible(RematchError):
    """The game is not over (or was cancelled), or its table cannot sit together again."""

    code = "rematch_not_possible"


class NotAtTheTable(RematchError):
    code = "rematch_not_seated"
    default_message = _("Only the players of this game can offer or answer a rematch.")


class NoRematchOffered(RematchError):
    code = "rematch_not_offered"
    default_message = _("Nobody has offered a rematch of this game.")


class RematchClosed(RematchError):
    """Declined by someone, or started already."""

    code = "rematch_closed"


NOT_APART = _(
    "A rematch of this table is not possible: not all of its players can play together again."
)


# -- reading --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RematchState:
    """What a finished game's page (and the API) shows of its rematch, for one viewer."""

    status: str | None = None  # None: not offered
    offered_by: str = ""
    accepted: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    declined_by: str = ""
    new_game_id: int | None = None
    #: the viewer sits at the table and may offer one now
    may_offer: bool = False
    #: the viewer sits at the table and has not answered the offer yet
    may_answer: bool = False


def _people(seats: list[Seat]) -> list[User]:
    return [seat.user for seat in seats if seat.user_id is not None]


def _refusal(game: Game, people: list[User]) -> Any:
    """Why ``game``'s table cannot be played again, in words; None when it can."""
    if game.status == GameStatus.CANCELLED:
        return _("This game was cancelled: there is nothing to play again.")
    if game.status != GameStatus.FINISHED:
        return _("A rematch can be offered once the game is over.")
    if any(not person.is_active for person in people):
        return NOT_APART
    ids = [person.pk for person in people]
    if blocks.blocked_pairs(ids):
        return NOT_APART
    return None


def rematch_state(game: Game, user: Any) -> RematchState:
    """The rematch of a finished ``game`` as ``user`` (anyone, or nobody signed in) sees it."""
    if game.status != GameStatus.FINISHED:
        return RematchState()
    seats = list(game.seats.select_related("user").order_by("index"))
    people = _people(seats)
    seated = user is not None and user.is_authenticated and any(p.pk == user.pk for p in people)
    rematch = Rematch.objects.filter(game=game).select_related("offered_by", "declined_by").first()
    if rematch is None:
        return RematchState(may_offer=seated and _refusal(game, people) is None)
    accepted_ids = set(rematch.accepted.values_list("pk", flat=True))
    offered = rematch.status == RematchStatus.OFFERED
    return RematchState(
        status=rematch.status,
        offered_by=rematch.offered_by.public_name if rematch.offered_by else "",
        accepted=[p.public_name for p in people if p.pk in accepted_ids],
        waiting=[p.public_name for p in people if p.pk not in accepted_ids] if offered else [],
        declined_by=rematch.declined_by.public_name if rematch.declined_by else "",
        new_game_id=rematch.new_game_id,
        may_answer=offered and seated and user.pk not in accepted_ids,
    )


# -- writing --------------------------------------------------------------------------------------
def _locked(game_id: int, user: User) -> tuple[Game, list[Seat], Rematch | None]:
    """The old game locked (every offer and answer of its rematch waits here for the one before
    it), its seats, and its rematch locked too when there is one. Refuses a non-player."""
    game = Game.objects.select_for_update().get(pk=game_id)
    seats = list(game.seats.select_related("user").order_by("index"))
    if not any(seat.user_id == user.pk for seat in seats):
        raise NotAtTheTable()
    rematch = Rematch.objects.select_for_update().filter(game=game).first()
    return game, seats, rematch


def _check_open(rematch: Rematch) -> None:
    if rematch.status == RematchStatus.DECLINED:
        name = rematch.declined_by.public_name if rematch.declined_by else ""
        raise RematchClosed(_("%(name)s declined the rematch."), name=name)
    if rematch.status == RematchStatus.STARTED:
        raise RematchClosed(_("The rematch has started already."))


def _check_table(game: Game, seats: list[Seat]) -> None:
    refusal = _refusal(game, _people(seats))
    if refusal is not None:
        raise RematchNotPossible(refusal)


def rotated(seats: list[Seat]) -> list[Any]:
    """The new game's seating: old seat 1 first, old seat 0 last; each a user or a bot level."""
    ordered = sorted(seats, key=lambda seat: seat.index)
    return [
        seat.user if seat.user_id is not None else seat.bot for seat in ordered[1:] + ordered[:1]
    ]


def _start_if_all(game: Game, seats: list[Seat], rematch: Rematch) -> None:
    """The last acceptance makes the new game (in the caller's transaction, under its locks)."""
    accepted = set(rematch.accepted.values_list("pk", flat=True))
    if any(person.pk not in accepted for person in _people(seats)):
        return
    new_game = game_services.game_create_seated(
        kind=game.kind,
        seats=rotated(seats),
        options=dict(game.options or {}),
        days_per_move=game.days_per_move,
        bank_increment_hours=game.bank_increment_hours,
        bank_cap_hours=game.bank_cap_hours,
        rated=game.rated,
        private=game.private,
    )
    rematch.status = RematchStatus.STARTED
    rematch.new_game = new_game
    rematch.save(update_fields=["status", "new_game"])


def rematch_offer(*, game_id: int, user: User) -> Rematch:
    """``user`` offers the same table again; they count as accepting it. An offer made already
    by another player is accepted instead (two players clicking at once both mean yes)."""
    with transaction.atomic():
        game, seats, rematch = _locked(game_id, user)
        if rematch is not None:
            return _accept(game, seats, rematch, user)
        _check_table(game, seats)
        try:
            with transaction.atomic():
                rematch = Rematch.objects.create(game=game, offered_by=user)
        except IntegrityError:  # another offer committed first (no row lock on SQLite)
            rematch = Rematch.objects.select_for_update().get(game=game)
            return _accept(game, seats, rematch, user)
        rematch.accepted.add(user)
        _start_if_all(game, seats, rematch)
        game_services.changed(game.pk)
    return rematch


def _accept(game: Game, seats: list[Seat], rematch: Rematch, user: User) -> Rematch:
    said_yes = rematch.accepted.filter(pk=user.pk).exists()
    if said_yes and rematch.status != RematchStatus.DECLINED:
        return rematch  # a retried yes changes nothing (and finds the new game once started)
    _check_open(rematch)
    _check_table(game, seats)
    rematch.accepted.add(user)
    _start_if_all(game, seats, rematch)
    game_services.changed(game.pk)
    return rematch


def rematch_accept(*, game_id: int, user: User) -> Rematch:
    """``user`` says yes to the offered rematch; the last yes starts its game."""
    with transaction.atomic():
        game, seats, rematch = _locked(game_id, user)
        if rematch is None:
            raise NoRematchOffered()
        return _accept(game, seats, rematch, user)


def rematch_decline(*, game_id: int, user: User) -> Rematch:
    """``user`` says no: the offer is closed for everyone, who see who declined."""
    with transaction.atomic():
        game, _seats, rematch = _locked(game_id, user)
        if rematch is None:
            raise NoRematchOffered()
        _check_open(rematch)
        rematch.status = RematchStatus.DECLINED
        rematch.declined_by = user
        rematch.save(update_fields=["status", "declined_by"])
        game_services.changed(game.pk)
    return rematch


def rematch_reply(*, game_id: int, user: User) -> Rematch:
    """A "yes" however it comes (the game-over email's reply, the API): an offer when there is
    none yet, else an acceptance of the one there is."""
    return rematch_offer(game_id=game_id, user=user)
