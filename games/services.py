"""Writes to games: create, join, and the one path every action takes (people, bots, timeouts).

``action_submit`` locks the game row, checks seat, turn and legality against the engine, appends
the event, moves the snapshot on and finishes the game, all in one transaction; what became due
(a turn, the game's end) is told to ``games.due``'s listeners inside it, and whatever must happen
next (bots, emails) is queued only once that transaction has committed.
"""

from __future__ import annotations

import functools
import inspect
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from secrets import token_urlsafe
from typing import Any, ParamSpec

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Case, F, QuerySet, Value, When
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts import blocks
from games.engine import Game as EngineGame
from games.engine import IllegalAction, RecordError, game_class
from keltis_site.prepared import Prepared, PreparedUpdate

from . import clock, creation_limits, due
from .after_response import call_after_response
from .event_chain import ChainRow, check_link
from .integrity import ChainHeadBroken, LogNotReplayable, check_head, game_freeze
from .models import BotKind, Event, EventSource, Game, GameStatus, Seat, Snapshot
from .rated import rated_status
from .state import engine_start, engine_state

log = logging.getLogger(__name__)

#: called with (game_id, seq, automatic_next) once a game start, or an action that passed the
#: turn, has committed: games.tasks registers the bots' wake-up, notifications its delivery
AFTER_COMMIT_HOOKS: list[Callable[[int, int, bool | None], None]] = []
#: called with the game id once a finished game has committed (ratings, standings, rounds)
FINISHED_HOOKS: list[Callable[[int], None]] = []


@dataclass(frozen=True)
class Position:
    """Where a game stands as an action's transaction wrote it: its move number, status, seat
    to move and the user of each seat by index (None: a bot's). A CHANGED_HOOKS hook given one
    need not read the game back after the commit."""

    seq: int
    status: str
    to_move: int | None
    users: tuple[int | None, ...]


#: called with the game id, and its ``Position`` when the caller wrote it (else None), once
#: anything its pages show has committed: every action (mid-turn ones too), a seat taken or
#: given up, a start, a cancel; the live app registers (live pages)
CHANGED_HOOKS: list[Callable[[int, Position | None], None]] = []
#: each says how many of an open game's free seats it holds for someone (friends: the pending
#: invitations); a player who is not that someone may take only the seats left
SEATS_HELD: list[Callable[[Game], int]] = []
#: ``game_create`` that also holds seats for people named by display name or email address,
#: called as ``hook(creator=, invitees=[...], **game_create kwargs)``: friends registers
#: ``game_create_with_invitations`` (games cannot import friends); the create page offers
#: "invite a person" only while one is registered, and uses the last
CREATE_WITH_INVITEES: list[Callable[..., Game]] = []


class GameServiceError(Exception):
    """A refused request, with a message id and parameters for the player-facing wording.

    Messages are lazy translations: ``str(error)`` words them in the language active where the
    error is shown (games.error_messages words the engine's refusals the same way).
    """

    code = "game_error"
    default_message: Any = _("This cannot be done.")

    def __init__(self, message: Any = None, **params: Any) -> None:
        self.params = params
        super().__init__(message or self.default_message)

    def __str__(self) -> str:
        return str(self.args[0])


class GameMovedOn(GameServiceError):
    code = "moved_on"
    default_message = _("The game has moved on since this page was shown: nothing was changed.")


class GameNotRunning(GameServiceError):
    code = "not_running"
    default_message = _("This game is not running.")


class NotYourTurn(GameServiceError):
    code = "not_your_turn"
    default_message = _("It is not your turn.")


class GameFrozen(GameServiceError):
    """The game's event log failed an integrity check: nobody acts until staff unfreeze it
    (games.integrity). Raised from a fresh detection, ``__cause__`` is the
    ``LogNotReplayable`` found."""

    code = "frozen"
    default_message = _(
        "This game is frozen until the staff have checked its move record: nothing was changed."
    )


class NotYourSeat(GameServiceError):
    code = "not_your_seat"
    default_message = _("You do not play this seat.")


class CannotJoin(GameServiceError):
    code = "cannot_join"


class CreationLimitReached(GameServiceError):
    """The player has as many open games as ``MAX_OPEN_GAMES_PER_PLAYER`` allows, or as
    many unfinished games with bots as ``MAX_BOT_GAMES_PER_PLAYER``."""

    code = "creation_limit"


class ActionRejected(GameServiceError):
    """The engine refused the action: its message id and parameters travel with it (the
    English ``str()`` is for logs; games.error_messages words it for the player)."""

    code = "illegal"

    def __init__(self, error: IllegalAction) -> None:
        self.engine_code = error.code
        super().__init__(str(error), **error.params)


@dataclass(frozen=True)
class Submitted:
    game: Game
    event: Event
    engine: EngineGame
    #: the game's seats in order, with their users (read under the lock; for the names)
    seats: list[Seat]
    #: the acting seat's view right before the action: what the action won is the difference
    before: dict[str, Any] | None = None
    #: the steps taken for the same seat right after, each the only legal one (``only_step``):
    #: ``engine`` is then the position after the last of them
    automatic: tuple[Event, ...] = ()


#: ``Locked.last_event`` when the caller did not read it
LAST_UNREAD: Any = object()


@dataclass
class Locked:
    """What a caller that already holds the game's lock in its open transaction read under it,
    handed to ``action_submit`` so that the action reads none of it again (the deadline sweep:
    ``games.timeouts``): the game (with its snapshot), its seats with their users, the engine
    restored from that snapshot (None: restored by the action) and the game's last stored event
    (``LAST_UNREAD``: the action reads it for the chain check). ``seat_fields``: columns of the
    acting seat the caller changed, written with the action's own write of that seat."""

    game: Game
    seats: Sequence[Seat]
    engine: EngineGame | None = None
    last_event: Any = LAST_UNREAD
    seat_fields: tuple[str, ...] = ()


# -- creating and joining ----------------------------------------------------------------------
def game_create(
    *,
    creator: Any,
    kind: str,
    player_count: int,
    options: dict[str, bool] | None = None,
    days_per_move: int = 3,
    bots: Sequence[str] = (),
    bank_increment_hours: int = 0,
    bank_cap_hours: int = 0,
    rated: bool | None = None,
    internal: bool = False,
    private: bool = False,
) -> Game:
    """A new game with the creator in seat 0 and ``bots`` in the next seats; starts when full.
    ``private``: a private table (games.private_tables), joined by its link only.

    It is rated when ``games.rated`` says so (two people or more, bots or not) unless
    ``rated`` is False. A player may have only so many open games waiting for players
    (games.creation_limits); ``internal`` is for the games the site makes itself (league
    matchmaker, tournament rounds), which are filled and started at once and are not the
    creator's doing.
    """
    cls = game_class(kind)
    try:
        opts = cls.check_options(options or {})
    except RecordError as exc:
        raise GameServiceError(str(exc)) from None
    if not 2 <= player_count <= 4:
        raise GameServiceError(_("A game has 2 to 4 players."))
    if len(bots) > player_count - 1:
        raise GameServiceError(_("There are more bots than free seats."))
    for bot in bots:
        if bot not in BotKind.values:
            raise GameServiceError(format_lazy(_("Unknown bot '{bot}'."), bot=bot))
    if bank_increment_hours < 0 or bank_cap_hours < bank_increment_hours:
        raise GameServiceError(_("The time bank's cap must be at least its increment."))
    setup = cls.deal(player_count, secrets.randbits(62))
    with transaction.atomic():
        if not internal and bots:
            refusal = creation_limits.bot_game_refusal(creator)
            if refusal is not None:
                raise CreationLimitReached(refusal)
        if not internal and len(bots) + 1 < player_count:
            refusal = creation_limits.open_game_refusal(creator)
            if refusal is not None:
                raise CreationLimitReached(refusal)
        game = Game.objects.create(
            kind=kind,
            options=opts,
            player_count=player_count,
            days_per_move=days_per_move,
            max_timeouts=settings.MAX_TIMEOUTS,
            bank_increment_hours=bank_increment_hours,
            bank_cap_hours=bank_cap_hours,
            rated=rated_status(
                people=player_count - len(bots), bots=len(bots), marked_rated=rated is not False
            ).rated,
            setup=setup,
            created_by=creator,
            private=private,
            join_secret=new_join_secret() if private else "",
        )
        Seat.objects.create(game=game, index=0, user=creator)
        for index, bot in enumerate(bots, start=1):
            Seat.objects.create(game=game, index=index, bot=bot)
        if len(bots) + 1 == player_count:
            _start(game)
        _changed(game.pk)
    return game


def new_join_secret() -> str:
    """The secret of a private table's link (games.private_tables): 192 random bits, URL-safe.
    Not from ``secrets`` above, which the tests replace to deal the same cards."""
    return token_urlsafe(24)


def game_create_seated(
    *,
    kind: str,
    seats: Sequence[Any],
    options: dict[str, bool] | None = None,
    days_per_move: int = 3,
    bank_increment_hours: int = 0,
    bank_cap_hours: int = 0,
    rated: bool | None = None,
    private: bool = False,
) -> Game:
    """A game the site seats itself (a tournament round, a league table), started at once:
    ``seats`` in seating order, each a user or a bot level (a ``BotKind`` value), bots at any
    seat and even only bots. Rated when ``games.rated`` says so (the people against each
    other) unless ``rated`` is False. Unlike ``game_create`` nobody is its creator's open game:
    it is full from the start, so no creation limit applies (a rematch, friends.rematches, is
    made here too: ``private`` keeps a private table's rematch private)."""
    cls = game_class(kind)
    try:
        opts = cls.check_options(options or {})
    except RecordError as exc:
        raise GameServiceError(str(exc)) from None
    if not 2 <= len(seats) <= 4:
        raise GameServiceError(_("A game has 2 to 4 players."))
    bots = [seat for seat in seats if isinstance(seat, str)]
    for bot in bots:
        if bot not in BotKind.values:
            raise GameServiceError(format_lazy(_("Unknown bot '{bot}'."), bot=bot))
    people = [seat for seat in seats if not isinstance(seat, str)]
    if len({person.pk for person in people}) != len(people):
        raise CannotJoin(_("You already have a seat in this game."))
    if bank_increment_hours < 0 or bank_cap_hours < bank_increment_hours:
        raise GameServiceError(_("The time bank's cap must be at least its increment."))
    setup = cls.deal(len(seats), secrets.randbits(62))
    with transaction.atomic():
        game = Game.objects.create(
            kind=kind,
            options=opts,
            player_count=len(seats),
            days_per_move=days_per_move,
            max_timeouts=settings.MAX_TIMEOUTS,
            bank_increment_hours=bank_increment_hours,
            bank_cap_hours=bank_cap_hours,
            rated=rated_status(
                people=len(people), bots=len(bots), marked_rated=rated is not False
            ).rated,
            setup=setup,
            created_by=people[0] if people else None,
            private=private,
        )
        Seat.objects.bulk_create(
            Seat(game=game, index=index, bot=seat)
            if isinstance(seat, str)
            else Seat(game=game, index=index, user=seat)
            for index, seat in enumerate(seats)
        )
        _start(game)
        _changed(game.pk)
    return game


def game_join(*, game_id: int, user: Any, admitted: bool = False) -> Game:
    """Take the next free seat of an open game; the game starts when the table is full.

    A private table takes only the players its link admits (games.private_tables):
    ``admitted``. Two players of whom one blocked the other never sit at one table."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != GameStatus.OPEN:
            raise CannotJoin(_("This game is no longer open."))
        if game.private and not admitted:
            raise CannotJoin(_("This table is private: only the players invited can join."))
        seats = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise CannotJoin(_("You already have a seat in this game."))
        if blocks.apart(user.pk, [seat.user_id for seat in seats if seat.user_id]):
            raise CannotJoin(
                _("You cannot join this table: you and a player at it do not play together.")
            )
        if len(seats) + seats_held(game) >= game.player_count:
            raise CannotJoin(_("The free seats of this table are kept for the players invited."))
        Seat.objects.create(game=game, index=len(seats), user=user)
        if len(seats) + 1 == game.player_count:
            _start(game)
        _changed(game.pk)
    return game


def seats_held(game: Game) -> int:
    """How many of ``game``'s free seats are held for someone (``SEATS_HELD``)."""
    return sum(held(game) for held in SEATS_HELD)


def game_seat_bot(*, game_id: int, user: Any, level: str) -> Game:
    """The creator gives a free seat of their open game to a bot (a seat nobody took, or whose
    invitation was declined); the game starts when that fills the table."""
    if level not in BotKind.values:
        raise GameServiceError(format_lazy(_("Unknown bot '{bot}'."), bot=level))
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.created_by_id != user.pk:
            raise NotYourSeat(_("Only the player who opened this table can seat a bot."))
        if game.status != GameStatus.OPEN:
            raise CannotJoin(_("This game is no longer open."))
        seats = list(game.seats.all())
        if len(seats) + seats_held(game) >= game.player_count:
            raise CannotJoin(_("This table has no free seat."))
        bots = sum(1 for seat in seats if seat.bot)
        if bots + 1 > game.player_count - 1:
            raise GameServiceError(_("There are more bots than free seats."))
        Seat.objects.create(game=game, index=len(seats), bot=level)
        status = rated_status(
            people=game.player_count - bots - 1, bots=bots + 1, marked_rated=game.rated
        )
        if game.rated != status.rated:
            game.rated = status.rated
            game.save(update_fields=["rated"])
        if len(seats) + 1 == game.player_count:
            _start(game)
        _changed(game.pk)
    return game


def game_leave(*, game_id: int, user: Any) -> Game:
    """Leave an open game before it starts; the creator leaving cancels it."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != GameStatus.OPEN:
            raise CannotJoin(_("Only a game that has not started can be left."))
        seat = game.seats.filter(user=user).first()
        if seat is None:
            raise NotYourSeat()
        _changed(game.pk)
        if seat.index == 0:
            game.status = GameStatus.CANCELLED
            game.save(update_fields=["status"])
            return game
        seat.delete()
        for later in game.seats.filter(index__gt=seat.index).order_by("index"):
            later.index -= 1
            later.save(update_fields=["index"])
    return game


def _start(game: Game) -> None:
    engine = engine_start(game)
    now = timezone.now()
    game.status = GameStatus.RUNNING
    game.started_at = now
    game.to_move = engine.to_move
    _begin_turn(game, now)
    game.save(update_fields=["status", "started_at", "to_move", *TURN_FIELDS])
    Snapshot.objects.update_or_create(game=game, defaults={"seq": 0, "data": engine.snapshot()})
    _after_commit(game.pk, 0)


TURN_FIELDS = ("turn_started_at", "turn_seq", "deadline", "reminder_at")


def _begin_turn(game: Game, now: Any, seat: Seat | None = None) -> None:
    """The seat ``game.to_move`` starts its turn now: its clock, reminders and turn email
    (``seat`` is that seat when the caller has read it already)."""
    if seat is None:
        seat = Seat.objects.get(game=game, index=game.to_move)
    game.turn_started_at = now
    game.turn_seq = game.seq
    game.deadline = clock.seat_deadline(game, seat, now)
    game.reminder_at = clock.next_reminder(game.deadline, now)
    due.turn_began(game, seat)


def _end_turn(game: Game, seat: Seat, now: Any) -> list[str]:
    """The seat's turn is over: settle its time bank. Returns the seat's columns to write
    (none when the bank did not change: a game without a bank never writes it)."""
    bank = clock.bank_after_turn(game, seat, game.turn_started_at or now, now)
    if bank == seat.bank_seconds:
        return []
    seat.bank_seconds = bank
    return ["bank_seconds"]


# -- the one path of every action ---------------------------------------------------------------
P = ParamSpec("P")


@contextmanager
def frozen_on_bad_log() -> Iterator[None]:
    """Around work whose transaction is the outermost one (an action, a timeout, the bots'
    turn): a log that does not replay rolls the work back, then freezes the game in a
    transaction of its own, and the caller gets ``GameFrozen``. A ``GameFrozen`` from a nested
    action, whose freeze was rolled back with the caller's transaction, is frozen again here.
    Also a decorator (``contextmanager`` objects are)."""
    try:
        yield
    except LogNotReplayable as exc:
        # inside a caller's transaction that the failure broke (an action run in it without a
        # savepoint: the sweep's) the freeze waits for the caller's own frozen_on_bad_log
        if not transaction.get_connection().needs_rollback:
            game_freeze(game_id=exc.game_id, reason=exc.reason)
        raise GameFrozen() from exc
    except GameFrozen as exc:
        if isinstance(exc.__cause__, LogNotReplayable):
            game_freeze(game_id=exc.__cause__.game_id, reason=exc.__cause__.reason)
        raise


def _logged(submit: Callable[P, Submitted]) -> Callable[P, Submitted]:
    """One log line per submission, with the game id: "action applied" once the action has
    committed (an enclosing transaction that rolls back logs nothing), or "action rejected"
    with the error code. Both say how long the submission took, row-lock wait included. Each
    step taken for the player (``only_step``) has its "action applied" line too, as when it
    was a submission of its own."""
    signature = inspect.signature(submit)
    defaults = {
        name: p.default for name, p in signature.parameters.items() if p.default is not p.empty
    }

    @functools.wraps(submit)
    def logged(*args: P.args, **kwargs: P.kwargs) -> Submitted:
        started = time.perf_counter()
        if args:  # (the submit functions take keywords only: binding is for a positional call)
            call = signature.bind(*args, **kwargs)
            call.apply_defaults()
            arguments = call.arguments
        else:
            arguments = {**defaults, **kwargs}
        fields: dict[str, Any] = {
            "game_id": arguments["game_id"],
            "seat": arguments["seat"],
            "source": str(arguments["source"]),
            "action_kind": _action_kind(arguments["action"]),
        }
        try:
            result = submit(*args, **kwargs)
        except GameServiceError as exc:
            fields["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
            fields["error"] = exc.code
            if isinstance(exc, ActionRejected):
                fields["engine_error"] = exc.engine_code
            fields["expected_seq"] = arguments["expected_seq"]
            log.info("action rejected", extra=fields)
            raise
        fields["seq"], fields["seat"] = result.event.seq, result.event.seat
        fields["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
        lines = [fields]
        if arguments.get("then") is None:  # the steps taken for the player: a line each
            lines += [
                {**fields, "action_kind": _action_kind(e.action), "seq": e.seq}
                for e in result.automatic
            ]
        transaction.on_commit(lambda: [log.info("action applied", extra=f) for f in lines])
        return result

    return logged


def _action_kind(action: Any) -> str:
    """What a log line names of an action: its first word ("play", "draw"), its kind."""
    return str(action).split(" ", 1)[0][:32]


#: the two reads of every action, compiled once (keltis_site.prepared): the game, locked, with its
#: snapshot (not locked: written below only where its seq is still the one read) ...
_GAME_LOCKED = Prepared(
    lambda pk: (
        Game.objects.select_for_update(of=("self",))
        .select_related("snapshot")
        .filter(pk=pk)
        .order_by()
    )
)
#: ... and its 2-4 seats, with their users: names for the page, vacation ends for the clock
_SEATS_WITH_USERS = Prepared(
    lambda game_id: Seat.objects.filter(game_id=game_id).select_related("user")
)

#: the action's writes, their SQL written once (keltis_site.prepared): the snapshot moved on where
#: it is still the one read, and the game's changed columns
_SNAPSHOT_MOVE = PreparedUpdate(Snapshot, ["seq", "data"], where=["game", "seq"])
_GAME_UPDATES: dict[tuple[str, ...], PreparedUpdate] = {}


def _save_fields(game: Game, fields: Sequence[str]) -> None:
    """``game.save(update_fields=fields)`` for the few sets of columns an action writes."""
    key = tuple(fields)
    update = _GAME_UPDATES.get(key)
    if update is None:
        update = _GAME_UPDATES.setdefault(key, PreparedUpdate(Game, key, where=["id"]))
    if not update.run([getattr(game, name) for name in key], [game.pk]):
        raise DatabaseError("Save with update_fields did not affect any rows.")


#: a turn is a handful of actions: a bound on a ``then`` that never lets the turn end
MAX_RUN_ACTIONS = 50


def _apply_run(
    engine: EngineGame,
    game: Game,
    seat: int,
    action: str,
    then: Callable[[EngineGame], str | None] | None,
    now: Any,
    source: str,
) -> list[Event]:
    """Apply ``action``, then each action ``then`` names while the turn is still the seat's,
    to ``engine``: the events to store, numbered on from ``game.seq`` (not yet linked)."""
    events: list[Event] = []
    next_action: str | None = action
    while next_action is not None:
        if len(events) >= MAX_RUN_ACTIONS:
            raise RuntimeError(f"game {game.pk}: the turn of seat {seat} did not end")
        try:
            engine.apply(next_action, player=seat)
        except IllegalAction as exc:
            raise ActionRejected(exc) from None
        events.append(
            Event(
                game=game, seq=game.seq + len(events) + 1, seat=seat, action=next_action,
                created_at=now, source=source,
            )
        )  # fmt: skip
        mine = then is not None and not engine.finished and engine.to_move == seat
        next_action = then(engine) if mine and then is not None else None
    return events


def _check_read_head(game_id: int, seq: int, head: str, row: ChainRow | None) -> None:
    """``integrity.check_head`` on the last event the caller read under the game's lock."""
    problems = check_link(game_id, seq, head, row)
    if problems:
        raise ChainHeadBroken(game_id, problems)


def _insert_linked(events: list[Event], head: str | None) -> None:
    """Insert a run of a game's new events in one statement, each linked to the one before it
    (the first to ``head``, the game's chain head read under its lock). ``Event.objects``'s own
    ``bulk_create`` would read the first one's predecessor back: it is linked here instead."""
    for event in events:
        event.link(prev_hash=head)
        head = event.hash
    QuerySet.bulk_create(Event.objects.all(), events)


@_logged
@frozen_on_bad_log()
def action_submit(
    *,
    game_id: int,
    seat: int | None,
    action: str,
    expected_seq: int | None = None,
    user: Any = None,
    source: str = EventSource.PLAYER,
    locked: Locked | None = None,
    then: Callable[[EngineGame], str | None] | None = None,
) -> Submitted:
    """Apply ``action`` for ``seat`` or raise; exactly one of two racing submissions wins.

    ``expected_seq`` is the number of events the submitter saw: when the game has moved on since,
    nothing is applied. ``user``, when given, must hold the seat (bots and the deadline sweep
    pass None and act for the seat itself); ``seat`` None means the seat ``user`` holds (the
    game page's form: the seats are read here anyway). No such game: ``Game.DoesNotExist``.
    A frozen game refuses every action (``GameFrozen``), and so does one whose log turns out
    not to replay, which is then frozen.

    The deadline sweep plays a whole turn in one pass: ``locked``, what it read under the
    game's lock in its own open transaction (the action then runs in that transaction, without
    a savepoint, and reads none of it again), and ``then``, which names the seat's next action
    while the turn is still its own (None: ``only_step``, the step the seat must take, as after
    every action). The actions share one insert of their events, one write of the snapshot,
    the game and the seat (``Submitted.automatic``: the later ones).
    """
    with transaction.atomic(savepoint=locked is None):
        if locked is None:
            # one query for the game (locked) and its snapshot (not locked: written below only
            # where its seq is still the one read), one for its 2-4 seats
            found = _GAME_LOCKED.run(game_id)
            if not found:
                raise Game.DoesNotExist("Game matching query does not exist.")
            game = found[0]
        else:
            game = locked.game
        if game.frozen:
            raise GameFrozen()
        if game.status != GameStatus.RUNNING:
            if expected_seq is not None and expected_seq != game.seq:
                raise GameMovedOn()
            raise GameNotRunning()
        # with their users: names for the page, vacation ends for the clock
        seats = {
            s.index: s for s in (_SEATS_WITH_USERS.run(game.pk) if locked is None else locked.seats)
        }
        if seat is None:
            seat = next((s.index for s in seats.values() if _holds(s, user)), None)
            if seat is None:
                raise NotYourSeat()
        acting = seats.get(seat)
        if user is not None and (acting is None or not _holds(acting, user)):
            raise NotYourSeat()
        if expected_seq is not None and expected_seq != game.seq:
            raise GameMovedOn()
        if game.to_move != seat or acting is None:
            raise NotYourTurn()
        engine = locked.engine if locked is not None and locked.engine else engine_state(game)
        before = engine.view(seat)
        now = timezone.now()
        previous_seq = game.seq
        # the one step left to the same seat (``only_step``) is taken at once, in this run, as
        # the player's own (source kept): a click that decides nothing is no choice
        events = _apply_run(engine, game, seat, action, then or only_step, now, source)
        event = events[0]
        game.seq = previous_seq + len(events)
        # the game row holds its chain's head, read under its lock: the link extended must
        # hold (the stored last event still hashes to it: one row read, one HMAC), else the
        # game freezes and nothing is added (integrity.ChainHeadBroken, via frozen_on_bad_log)
        if locked is not None and locked.last_event is not LAST_UNREAD:
            _check_read_head(game.pk, previous_seq, game.chain_head, locked.last_event)
        else:
            check_head(game.pk, previous_seq, game.chain_head)
        if len(events) == 1:
            event.save(prev_hash=game.chain_head or None)
        else:
            _insert_linked(events, game.chain_head or None)
        game.chain_head = events[-1].hash
        moved = _SNAPSHOT_MOVE.run([game.seq, engine.snapshot()], [game.pk, previous_seq])
        if not moved:  # missing or stale cache: write it whole
            Snapshot.objects.update_or_create(
                game=game, defaults={"seq": game.seq, "data": engine.snapshot()}
            )
        fields = ["seq", "to_move", "chain_head"]
        turn_passed = engine.to_move != game.to_move
        seat_fields = list(locked.seat_fields) if locked is not None else []
        if source == EventSource.PLAYER and acting.timeouts:
            acting.timeouts = 0  # a move of the player's own resets their timeouts
            seat_fields.append("timeouts")
        if turn_passed:
            seat_fields += _end_turn(game, acting, now)
        finished = turn_passed and engine.finished
        if seat_fields and not finished:  # one write of the acting seat, whatever changed in it
            acting.save(update_fields=seat_fields)
        if turn_passed:
            game.to_move = engine.to_move
            if finished:  # every seat written at once, the acting seat's changes with them
                table = [seats[index] for index in sorted(seats)]
                _finish(game, engine.scores(), now, table, acting, seat_fields)
                fields += ["status", "finished_at"]
            else:
                _begin_turn(game, now, seats.get(game.to_move))
            fields += TURN_FIELDS
        _save_fields(game, fields)
        if turn_passed:  # mid-turn, no email is due and the same person still acts
            following = seats.get(game.to_move) if game.to_move is not None else None
            automatic = following is not None and following.acts_automatically
            _after_commit(game.pk, game.seq, automatic_next=automatic)
        users = tuple(seats[i].user_id for i in sorted(seats))
        _changed(game.pk, Position(game.seq, str(game.status), game.to_move, users))
    return Submitted(
        game=game, event=event, engine=engine, seats=list(seats.values()), before=before,
        automatic=tuple(events[1:]),
    )


def retried_move(
    *, game_id: int, user_id: int, seq: int, action: str, after_error: bool = False
) -> Event | None:
    """The move a submission of ``action`` at move number ``seq`` by ``user_id`` made, if it
    did: the event right after ``seq``, by the seat the user holds, the same action, from the
    player's own hand. A submission retried after its answer was lost (the connection broke
    after the commit, a double click, a client that resends) finds its move here and is
    answered as the success it was, not as "the game has moved on".

    ``after_error``: called after a database error; a connection the error left unusable is
    closed first, and the read opens a fresh one (not inside a caller's transaction, whose
    state is the caller's to settle: None then)."""
    if after_error:
        connection = transaction.get_connection()
        if connection.in_atomic_block:
            return None
        connection.close_if_unusable_or_obsolete()
    seats = Seat.objects.filter(game_id=game_id, user_id=user_id).values("index")
    return (
        Event.objects.filter(
            game_id=game_id, seq=seq + 1, action=action, seat__in=seats,
            source=EventSource.PLAYER,
        )
        .order_by()
        .first()
    )  # fmt: skip


def only_step(engine: EngineGame) -> str | None:
    """The action the seat to move must take when it has exactly one (the deck is the only
    pile to draw from, "done" is the only thing left to do), else None: the site takes it
    for them. Only mid-turn: ``action_submit`` asks after an action that kept the turn."""
    if engine.finished:
        return None
    legal = engine.legal()
    return legal[0] if len(legal) == 1 else None


def _holds(seat: Seat, user: Any) -> bool:
    return user is not None and seat.user_id is not None and seat.user_id == user.pk


def _finish(
    game: Game,
    scores: list[int],
    now: Any,
    seats: Sequence[Seat],
    acting: Seat | None = None,
    acting_fields: Sequence[str] = (),
) -> None:
    """Final scores and places on the seats: tied players share a place (1, 1, 3); retired
    seats rank after every active one (by score among themselves).

    ``seats`` are the table's seats with their users, as the caller read them under the
    game's lock; ``acting_fields``: the columns of ``acting`` (one of them) that changed with
    the last turn (its timeouts, its bank). Every seat is written in one statement, with the
    news of the end queued to their players: a game's last move (or the sweep's timeout that
    ends it) costs no more statements than any other move (tests/games/test_sweep_queries.py)."""
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.to_move = None
    game.deadline = None
    game.reminder_at = None

    def rank_key(seat: Seat) -> tuple[bool, int]:
        return (seat.retired, -scores[seat.index])

    for seat in seats:
        seat.score = scores[seat.index]
        seat.place = 1 + sum(1 for other in seats if rank_key(other) < rank_key(seat))
    _write_results(seats, acting, acting_fields)
    due.game_finished(game, seats)
    for hook in FINISHED_HOOKS:
        transaction.on_commit(lambda hook=hook: call_after_response(hook, game.pk))


def _write_results(
    seats: Sequence[Seat], acting: Seat | None, acting_fields: Sequence[str]
) -> None:
    """One UPDATE of every seat's score and place, and of ``acting``'s ``acting_fields``
    (the other seats keep theirs: nothing is written back that this move did not change)."""
    if not seats:
        return

    def value(seat: Seat, name: str) -> Value:
        return Value(getattr(seat, name), output_field=Seat._meta.get_field(name))

    columns: dict[str, Case] = {
        name: Case(*(When(pk=seat.pk, then=value(seat, name)) for seat in seats))
        for name in ("score", "place")
    }
    if acting is not None:
        for name in acting_fields:
            columns[name] = Case(When(pk=acting.pk, then=value(acting, name)), default=F(name))
    Seat.objects.filter(pk__in=[seat.pk for seat in seats]).update(**columns)


def game_finish_early(
    game: Game,
    engine: EngineGame,
    now: Any,
    seats: Sequence[Seat] | None = None,
    acting: Seat | None = None,
    acting_fields: Sequence[str] = (),
) -> None:
    """End a game the engine has not ended (fewer than two active seats): current scores.
    ``seats``: the table's seats with their users when the caller holds them (else read)."""
    if seats is None:
        seats = list(game.seats.select_related("user"))
    _finish(game, engine.scores(), now, seats, acting, acting_fields)
    game.save(update_fields=["status", "finished_at", "to_move", *TURN_FIELDS])


def changed(game_id: int) -> None:
    """Tell the game's open pages that something they show changed (an invitation answered,
    say), once the caller's transaction commits."""
    _changed(game_id)


def _changed(game_id: int, position: Position | None = None) -> None:
    """Tell CHANGED_HOOKS once the transaction has committed (after the response, in a
    request); a hook that fails is logged, never raised: the change is stored."""
    for hook in CHANGED_HOOKS:
        transaction.on_commit(lambda hook=hook: call_after_response(hook, game_id, position))


def _after_commit(game_id: int, seq: int, automatic_next: bool | None = None) -> None:
    """Queue the follow-up work once the transaction has committed: after a game starts and
    after every action that passes the turn (mid-turn actions make no email due).
    ``automatic_next`` says whether the seat now to move is a bot or retired seat, when the
    caller knows (None: the hook looks it up). In a web request it runs once the response is
    sent (after_response). Robust: a broker that is down must not turn a stored move into an
    error page; the periodic sweeps catch up."""
    for hook in AFTER_COMMIT_HOOKS:
        transaction.on_commit(
            lambda hook=hook: call_after_response(hook, game_id, seq, automatic_next)
        )
