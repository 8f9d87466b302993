"""Tournaments: creation, sign-up, starting, pairing rounds, ending overdue rounds, standings.

Services (writes) and the standings selector (a read). The pairing rules themselves are pure
functions in :mod:`tournaments.pairing`; this module feeds them the players, points and
history, and starts the games through ``games.services.game_create_seated`` (people's and bot
entrants' seats in the pairing's order; the start, turn emails and bot wake-ups as for any
game), rated among the people.

Life of a tournament:

* **Sign-up** (status ``signup``) until ``signup_until``: players sign up and may withdraw;
  the organiser (or staff) may enter bots of a level and take them out again (``bot_add``,
  ``bot_remove``; see "Bot entrants" below).
* **Start** (``tournaments_advance`` once ``signup_until`` has passed): fewer than two people
  cancel it (bots alone make no tournament). Otherwise each person's rating in the tournament's
  game is recorded (1500 if they have none), each bot gets its level's fixed seeding rating,
  and seeds are given by it (seed 1 = best; equal ratings: who signed up first).
  Round robin and elimination then store their derived number of rounds in ``rounds``
  (round robin: the Berger table's rounds, n - 1 for even n, n for odd n; elimination:
  ceil(log2 n)), and round 1 is paired.
* **Rounds**: a round is complete when every one of its games has finished (a timed-out seat
  finishes its game by the games' own timeout policy, so that counts too) -- byes are complete
  from the start. A complete round is closed and the next one paired at once, or after the
  last round the tournament finishes. This runs right after the last game of a round finishes
  (``round_check_for_game``, from the finished-game task) and in every periodic
  ``tournaments_advance`` as a catch-up; both take the same path.
* **Round deadline** (``started_at + round_days``): games of the round still running then are
  ended by the timeout policy: the timeout bot plays every remaining turn of every seat through
  ``games.services.action_submit`` (``games.timeouts.play_out``), so the game ends by the rules
  and its events say which moves the bot made. Then the round moves on.

Pairing per format:

* **Swiss**: ``pairing.swiss_tables`` with each player's tournament points and start rating and
  the tables of the earlier rounds as history (a bye counts as a table of one). Seats within a
  table: whoever has sat first (seat 0, the first to move) least often in this tournament sits
  first, ties in ranking order.
* **Round robin**: ``pairing.round_robin(n)`` with player number = seed; the pairing's first
  player (white in the FIDE table) takes seat 0; the number n + 1 of an odd field is the bye.
* **Single elimination**: round 1 from ``pairing.single_elimination_seeding(n)``: the top
  seeds get the byes. Later rounds pair the winners of neighbouring tables of the round before,
  in bracket order (tables are stored in bracket order, so their ids keep it); the better seed
  sits first. The winner of a game is the seat placed first; a tie (both placed first, i.e.
  equal scores) is won by the **higher seed** (smaller seed number), as is a game that was
  cancelled. Losers are marked ``eliminated``; the final decides the tournament.

Tournament points (standings, and the Swiss ranking): at a table of N players, place p scores
N - p points; players tied for a place share the points of the places they cover (two tied
first at a 2-player table get 0.5 each; two tied second at a 4-player table get (2 + 1) / 2).
A bye scores as a win at a 2-player table: 1 point. Tie-breaks, in order: Buchholz (the sum
of the final tournament points of every opponent met in a finished game -- at a multiplayer
table, every table-mate; a bye adds nothing), then the rating at the start. Elimination
standings rank by the round reached instead (the champion first, then the finalist, then the
semi-finalists, ...), ties by seed.

Bot entrants: an organiser fills a thin field with bots of a level (easy, normal, strong), at
most ``MAX_BOTS`` of them and never more bots than people (people who withdraw may leave more:
the bots entered last are then taken out at the start). A bot entrant is paired like a
person, seeded by a fixed rating per level (``BOT_SEED_RATING``: easy 1200, normal 1500, strong
1800: where players of such strength would sit), plays its games in a bot seat of its level
(the bot worker plays it, as in any game), takes byes and points, and is named by its level and
number ("Strong bot 2") in the standings. It is never rated: ``tournaments.ratings`` rates the
people at a table against each other only, and a table of bots alone is an unrated game.

Entrants: pairing, points and standings are keyed by entrant (``TournamentPlayer`` id), not by
user, since bots have no user; a table stores its game's entrants in seat order
(``TournamentGame.entries``) because a game's seats cannot tell two bots of a level apart.

Concurrency: every change to a running tournament happens in one transaction holding the
tournament row lock (``select_for_update``) and re-checks the state under it, so two
advancers at once (two beat runs, a beat run and a finished-game task) start a tournament
once and pair each round once: the second one finds the work done. Lock order is always the
tournament row, then game rows (``action_submit`` only ever locks a game row, and calls in
here only after its own transaction committed).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import blocks
from games import timeouts
from games.engine import RecordError, game_class
from games.models import (
    BOT_LEVELS,
    DAYS_PER_MOVE_CHOICES,
    BotKind,
    Game,
    GameKind,
    GameStatus,
    Seat,
)
from games.services import game_create_seated, new_join_secret

from .creation_limits import tournament_refusal
from .models import START_RATING, Rating, Round, Tournament, TournamentGame, TournamentPlayer
from .pairing import SwissPlayer, round_robin, single_elimination_seeding, swiss_tables

__all__ = [
    "BOT_SEED_RATING",
    "MAX_BOTS",
    "Standing",
    "TournamentError",
    "bot_add",
    "bot_remove",
    "round_check_for_game",
    "rounds_planned",
    "rounds_with_tables",
    "signup_open",
    "table_points",
    "tournament_create",
    "tournament_signup",
    "tournament_standings",
    "tournament_withdraw",
    "tournaments_advance",
]

log = logging.getLogger(__name__)

Format = Tournament.Format
Status = Tournament.Status

MAX_SWISS_ROUNDS = 20
MAX_ROUND_DAYS = 365
#: the points of a bye: a win at a 2-player table
BYE_POINTS = 1.0
#: a game of a round counts as done in these states
DONE = (GameStatus.FINISHED, GameStatus.CANCELLED)
#: bot entrants a tournament may have at most (and never more than its people)
MAX_BOTS = 16
#: a bot entrant's rating for seeding and pairing, by level: where people of its strength sit
BOT_SEED_RATING = {BotKind.EASY: 1200.0, BotKind.NORMAL: 1500.0, BotKind.STRONG: 1800.0}


class TournamentError(Exception):
    """A refused request; the message is for the player."""


# -- creating, signing up, withdrawing -----------------------------------------------------------
def tournament_create(
    *,
    creator: Any,
    name: str,
    kind: str,
    format: str,
    signup_until: datetime,
    table_size: int = 2,
    rounds: int = 5,
    round_days: int = 30,
    days_per_move: int = 3,
    bank_increment_hours: int = 0,
    bank_cap_hours: int = 0,
    options: dict[str, bool] | None = None,
    now: datetime | None = None,
    private: bool = False,
) -> Tournament:
    """A new tournament open for sign-up until ``signup_until``; raises TournamentError, also
    when the creator has as many tournaments as a player may (tournaments.creation_limits).
    ``private``: a private tournament, signed up for by its link (tournaments.private_tournaments).
    """
    now = now or timezone.now()
    name = (name or "").strip()
    if not name or len(name) > 80:
        raise TournamentError(_("A tournament needs a name of at most 80 characters."))
    if kind not in GameKind.values:
        raise TournamentError(_("Unknown game."))
    if format not in Format.values:
        raise TournamentError(_("Unknown tournament format."))
    if format == Format.SWISS:
        if not 2 <= table_size <= 4:
            raise TournamentError(_("Swiss tables seat 2 to 4 players."))
        if not 1 <= rounds <= MAX_SWISS_ROUNDS:
            raise TournamentError(
                _("A Swiss tournament has 1 to %(n)s rounds.") % {"n": MAX_SWISS_ROUNDS}
            )
    elif table_size != 2:
        raise TournamentError(_("Round robin and elimination games have 2 players."))
    if signup_until <= now:
        raise TournamentError(_("The sign-up deadline must be in the future."))
    if not 1 <= round_days <= MAX_ROUND_DAYS:
        raise TournamentError(
            _("A round lasts 1 to %(n)s days.") % {"n": MAX_ROUND_DAYS}
        )
    if days_per_move not in dict(DAYS_PER_MOVE_CHOICES):
        raise TournamentError(_("Unknown number of days per move."))
    if bank_increment_hours < 0 or bank_cap_hours < bank_increment_hours:
        raise TournamentError(_("The time bank's cap must be at least its increment."))
    try:
        opts = game_class(kind).check_options(options or {})
    except RecordError as exc:
        raise TournamentError(str(exc)) from None
    with transaction.atomic():
        refusal = tournament_refusal(creator, now)
        if refusal is not None:
            raise TournamentError(refusal)
        return Tournament.objects.create(
            name=name,
            kind=kind,
            format=format,
            table_size=table_size,
            rounds=rounds if format == Format.SWISS else 0,  # the others derive theirs at start
            signup_until=signup_until,
            round_days=round_days,
            days_per_move=days_per_move,
            bank_increment_hours=bank_increment_hours,
            bank_cap_hours=bank_cap_hours,
            options=opts,
            created_by=creator,
            created_at=now,
            private=private,
            join_secret=new_join_secret() if private else "",
        )


def tournament_signup(
    *, tournament_id: int, user: Any, now: datetime | None = None, admitted: bool = False
) -> TournamentPlayer:
    """Sign ``user`` up, while sign-up is open. Raises Tournament.DoesNotExist, TournamentError.

    A private tournament takes its organiser (and staff) and the players its link admits
    (``admitted``: the caller, tournaments.private_tournaments.signup_by_link, checked the
    secret), never someone who and its organiser blocked one another."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        _check_signup_open(tournament, now)
        if tournament.private and not admitted and not may_organise(tournament, user):
            raise TournamentError(
                _("This tournament is private: players sign up by the link its organiser shares.")
            )
        organiser = [tournament.created_by_id] if tournament.created_by_id else []
        if tournament.private and blocks.apart(user.pk, organiser):
            raise TournamentError(_("You cannot sign up for this tournament."))
        if tournament.players.filter(user=user).exists():
            raise TournamentError(_("You are already signed up."))
        try:
            with transaction.atomic():
                return TournamentPlayer.objects.create(
                    tournament=tournament, user=user, joined_at=now
                )
        except IntegrityError:  # a double click that passed the check in another transaction
            raise TournamentError(_("You are already signed up.")) from None


def tournament_withdraw(*, tournament_id: int, user: Any, now: datetime | None = None) -> None:
    """Take ``user`` off the list, before the tournament starts."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        _check_signup_open(tournament, now)
        deleted, _rows = tournament.players.filter(user=user).delete()
        if not deleted:
            raise TournamentError(_("You are not signed up."))


def _check_signup_open(tournament: Tournament, now: datetime) -> None:
    if tournament.status != Status.SIGNUP or tournament.signup_until <= now:
        raise TournamentError(_("Sign-up for this tournament is closed."))


def may_organise(tournament: Tournament, user: Any) -> bool:
    """Whether ``user`` may change the tournament's field: its organiser, or staff."""
    if not getattr(user, "is_authenticated", False):
        return False
    return user.is_staff or (
        tournament.created_by_id is not None and tournament.created_by_id == user.pk
    )


def bot_add(
    *, tournament_id: int, user: Any, level: str, now: datetime | None = None
) -> TournamentPlayer:
    """Enter a bot of ``level`` (the organiser or staff, while sign-up is open): it is named
    by its level and the next free number. Raises Tournament.DoesNotExist, TournamentError."""
    now = now or timezone.now()
    if level not in [str(v) for v in BOT_LEVELS]:
        raise TournamentError(_("Choose the bot's level: easy, normal or strong."))
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not may_organise(tournament, user):
            raise TournamentError(_("Only the organiser may add or remove bots."))
        _check_signup_open(tournament, now)
        entrants = list(tournament.players.values_list("bot", flat=True))
        bots = sum(1 for bot in entrants if bot)
        if bots >= MAX_BOTS:
            raise TournamentError(
                _("A tournament has at most %(n)s bots.") % {"n": MAX_BOTS}
            )
        if bots >= len(entrants) - bots:
            raise TournamentError(
                _("A tournament may have at most as many bots as people: sign up more people "
                  "first.")
            )
        number = (
            tournament.players.filter(bot=level).aggregate(n=Max("bot_number"))["n"] or 0
        ) + 1
        return TournamentPlayer.objects.create(
            tournament=tournament, bot=level, bot_number=number, joined_at=now
        )


def bot_remove(
    *, tournament_id: int, user: Any, entry_id: int, now: datetime | None = None
) -> None:
    """Take a bot entrant out again (the organiser or staff, while sign-up is open)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not may_organise(tournament, user):
            raise TournamentError(_("Only the organiser may add or remove bots."))
        _check_signup_open(tournament, now)
        deleted, _rows = tournament.players.filter(pk=entry_id, user__isnull=True).delete()
        if not deleted:
            raise TournamentError(_("There is no such bot in this tournament."))


def signup_open(tournament: Tournament, now: datetime | None = None) -> bool:
    return tournament.status == Status.SIGNUP and tournament.signup_until > (now or timezone.now())


# -- moving tournaments on -----------------------------------------------------------------------
def tournaments_advance(*, now: datetime) -> int:
    """The periodic step; returns how many changes it made (tournaments started or cancelled,
    games ended at a round deadline, rounds paired, tournaments finished).

    (a) start the tournaments whose sign-up has closed; (c) end the games of rounds whose
    deadline passed; (b) pair the next round of every tournament whose round is complete (or
    finish it). Each tournament is handled in its own transaction under its row lock; one that
    fails is logged and the others still move on.
    """
    changes = 0
    due = Tournament.objects.filter(status=Status.SIGNUP, signup_until__lte=now)
    for tournament_id in due.values_list("pk", flat=True):
        changes += _guarded(tournament_id, now, _start_if_due)
    overdue = Round.objects.filter(
        tournament__status=Status.RUNNING, finished_at__isnull=True, deadline__lte=now
    )
    for tournament_id in set(overdue.values_list("tournament_id", flat=True)):
        changes += _guarded(tournament_id, now, _end_overdue_rounds)
    complete = Round.objects.filter(
        tournament__status=Status.RUNNING, finished_at__isnull=True
    ).exclude(tables__game__status__in=[GameStatus.OPEN, GameStatus.RUNNING])
    for tournament_id in set(complete.values_list("tournament_id", flat=True)):
        changes += _guarded(tournament_id, now, _advance)
    return changes


def round_check_for_game(*, game_id: int, now: datetime | None = None) -> int:
    """A game finished: if it was the last one of its tournament round, move the tournament on
    now (the same step as the periodic advance). Returns the changes made (0 or 1)."""
    link = (
        TournamentGame.objects.filter(game_id=game_id)
        .values_list("round__tournament_id", flat=True)
        .first()
    )
    if link is None:
        return 0
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=link)
        return _advance(tournament, now or timezone.now())


def _guarded(tournament_id: int, now: datetime, step: Any) -> int:
    try:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
            return step(tournament, now)
    except Exception:
        log.exception("tournament %s: %s failed", tournament_id, step.__name__)
        return 0


def _start_if_due(tournament: Tournament, now: datetime) -> int:
    """(a) Sign-up closed: cancel, or seed the players and pair round 1. Row lock held."""
    if tournament.status != Status.SIGNUP or tournament.signup_until > now:
        return 0  # another run started it meanwhile
    players = list(tournament.players.all())
    people = sum(1 for p in players if not p.is_bot)
    if people < 2:
        tournament.status = Status.CANCELLED
        tournament.save(update_fields=["status"])
        return 1
    # people who withdrew may have left more bots than people: the last entered go
    surplus = sorted((p for p in players if p.is_bot), key=lambda p: (p.joined_at, p.pk))[people:]
    if surplus:
        TournamentPlayer.objects.filter(pk__in=[p.pk for p in surplus]).delete()
        players = [p for p in players if p not in surplus]
    ratings = dict(
        Rating.objects.filter(
            kind=tournament.kind, user_id__in=[p.user_id for p in players if not p.is_bot]
        ).values_list("user_id", "rating")
    )
    for player in players:
        if player.is_bot:
            player.rating = BOT_SEED_RATING[BotKind(player.bot)]
        else:
            player.rating = ratings.get(player.user_id, START_RATING)
    players.sort(key=lambda p: (-p.rating, p.joined_at, p.pk))
    for seed, player in enumerate(players, start=1):
        player.seed = seed
        player.eliminated = False
    TournamentPlayer.objects.bulk_update(players, ["rating", "seed", "eliminated"])
    tournament.rounds = rounds_planned(tournament, len(players))  # while still SIGNUP
    tournament.status = Status.RUNNING
    tournament.save(update_fields=["rounds", "status"])
    _pair_round(tournament, 1, now)
    return 1


def _end_overdue_rounds(tournament: Tournament, now: datetime) -> int:
    """(c) The round's deadline passed: end its running games by the timeout policy, then
    move on. Row lock held."""
    if tournament.status != Status.RUNNING:
        return 0
    changes = 0
    overdue = tournament.round_set.filter(finished_at__isnull=True, deadline__lte=now)
    for game_id in Game.objects.filter(
        tournament_link__round__in=overdue, status=GameStatus.RUNNING
    ).values_list("pk", flat=True):
        if timeouts.play_out(game_id=game_id):  # a move may have finished it meanwhile
            changes += 1
    return changes + _advance(tournament, now)


def _advance(tournament: Tournament, now: datetime) -> int:
    """(b) If the current round is complete: close it and pair the next, or finish the
    tournament. Row lock held; a second caller finds the round closed and does nothing."""
    if tournament.status != Status.RUNNING:
        return 0
    current = tournament.round_set.filter(finished_at__isnull=True).order_by("-number").first()
    if current is None:  # not reachable through these services (round 1 comes with the start)
        log.warning("tournament %s is running without an open round", tournament.pk)
        return 0
    if current.tables.filter(game__status__in=[GameStatus.OPEN, GameStatus.RUNNING]).exists():
        return 0
    current.finished_at = now
    current.save(update_fields=["finished_at"])
    if tournament.format == Format.ELIMINATION:
        _eliminate_losers(tournament, current)
        if tournament.players.filter(eliminated=False).count() <= 1:
            return _finish(tournament)
    if current.number >= tournament.rounds:
        return _finish(tournament)
    _pair_round(tournament, current.number + 1, now)
    return 1


def _finish(tournament: Tournament) -> int:
    tournament.status = Status.FINISHED
    tournament.save(update_fields=["status"])
    return 1


# -- pairing a round ------------------------------------------------------------------------------
def _pair_round(tournament: Tournament, number: int, now: datetime) -> Round:
    """Create round ``number`` with its tables: a started game per table, a bye per player
    left over."""
    round_ = Round.objects.create(
        tournament=tournament,
        number=number,
        started_at=now,
        deadline=now + timedelta(days=tournament.round_days),
    )
    if tournament.format == Format.SWISS:
        tables = _swiss_tables(tournament)
    elif tournament.format == Format.ROUND_ROBIN:
        tables = _round_robin_tables(tournament, number)
    else:
        tables = _elimination_tables(tournament, number)
    entrants = {p.pk: p for p in tournament.players.select_related("user")}
    for table in tables:
        if len(table) == 1:
            TournamentGame.objects.create(round=round_, bye_id=table[0])
        else:
            game = _start_game(tournament, [entrants[e] for e in table])
            TournamentGame.objects.create(round=round_, game=game, entries=list(table))
    return round_


def _start_game(tournament: Tournament, entrants: Sequence[TournamentPlayer]) -> Game:
    """The game of these entrants in this seat order, started at once: a person's seat, or a
    bot seat of the bot entrant's level. Rated among the people (games.rated)."""
    return game_create_seated(
        kind=tournament.kind,
        seats=[e.bot if e.is_bot else e.user for e in entrants],
        options=tournament.options,
        days_per_move=tournament.days_per_move,
        bank_increment_hours=tournament.bank_increment_hours,
        bank_cap_hours=tournament.bank_cap_hours,
        private=tournament.private,  # a private tournament's tables are their players' alone
    )


def rounds_planned(tournament: Tournament, players: int | None = None) -> int:
    """How many rounds the tournament has (or, before the start, would have with ``players``
    players, by default those signed up now)."""
    if tournament.status != Status.SIGNUP or tournament.format == Format.SWISS:
        return tournament.rounds
    n = tournament.players.count() if players is None else players
    if n < 2:
        return 0
    if tournament.format == Format.ROUND_ROBIN:
        return len(round_robin(n))
    return (n - 1).bit_length()


def _seeds(tournament: Tournament) -> dict[int, int]:
    """entrant id -> seed"""
    return dict(tournament.players.values_list("pk", "seed"))


def _round_robin_tables(tournament: Tournament, number: int) -> list[list[int]]:
    by_seed = {seed: user for user, seed in _seeds(tournament).items()}
    n = len(by_seed)
    tables = []
    for first, second in round_robin(n)[number - 1]:
        if first > n or second > n:
            tables.append([by_seed[min(first, second)]])
        else:
            tables.append([by_seed[first], by_seed[second]])
    # the bye last, as the Swiss pairing lists it
    return sorted(tables, key=len, reverse=True)


def _elimination_tables(tournament: Tournament, number: int) -> list[list[int]]:
    """Bracket order: byes stay in their place, so the next round pairs neighbours."""
    seeds = _seeds(tournament)
    if number == 1:
        by_seed = {seed: user for user, seed in seeds.items()}
        return [
            [by_seed[a]] if b is None else [by_seed[a], by_seed[b]]
            for a, b in single_elimination_seeding(len(by_seed))
        ]
    previous = tournament.round_set.get(number=number - 1)
    winners = [_table_winner(table, seeds) for table in _tables_with_seats(previous)]
    return [
        sorted(winners[i : i + 2], key=lambda u: seeds[u]) for i in range(0, len(winners), 2)
    ]


def _swiss_tables(tournament: Tournament) -> list[list[int]]:
    players = list(tournament.players.all())
    results = _results(tournament)
    ranked = [
        SwissPlayer(id=p.pk, points=results.points[p.pk], rating=p.rating or 0.0)
        for p in players
    ]
    tables = swiss_tables(ranked, tournament.table_size, results.history)
    # who moves first: fewest first seats so far, then ranking order (the order given)
    firsts = results.firsts
    return [sorted(t, key=lambda e: firsts[e]) for t in tables]


def _eliminate_losers(tournament: Tournament, round_: Round) -> None:
    seeds = _seeds(tournament)
    losers: list[int] = []
    for table in _tables_with_seats(round_):
        if table.game_id is not None:
            winner = _table_winner(table, seeds)
            losers += [e for e in table.entries if e != winner]
    tournament.players.filter(pk__in=losers).update(eliminated=True)


def _table_winner(table: TournamentGame, seeds: dict[int, int]) -> int:
    """The entrant who goes through: the bye, the seat placed first, or on a tie (or a game
    with no result) the higher seed."""
    if table.game_id is None:
        return table.bye_id
    seats = sorted(table.game.seats.all(), key=lambda s: s.index)
    places = {entry: seat.place for entry, seat in zip(table.entries, seats, strict=True)}
    placed = [p for p in places.values() if p is not None]
    best = min(placed) if placed else None
    contenders = [e for e, p in places.items() if p == best] if best is not None else []
    return min(contenders or list(places), key=lambda e: seeds[e])


def _tables_with_seats(round_: Round) -> list[TournamentGame]:
    return list(
        round_.tables.select_related("game").prefetch_related("game__seats").order_by("pk")
    )


# -- standings ----------------------------------------------------------------------------------
def table_points(places: Sequence[int | None]) -> list[float]:
    """Tournament points of one finished table, given each seat's place (1 = first, tied seats
    share a number): N - p for place p, tied seats share the points of the places they cover.
    A seat without a place (a game that was cancelled) scores 0."""
    n = len(places)
    shared = defaultdict(int)
    for place in places:
        if place is not None:
            shared[place] += 1
    points = []
    for place in places:
        if place is None:
            points.append(0.0)
        else:
            k = shared[place]  # covers places place .. place + k - 1
            points.append(n - place - (k - 1) / 2)
    return points


@dataclass
class _Results:
    points: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    #: entrant id -> the entrant ids met at each finished table (repeats counted)
    opponents: defaultdict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    games: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    byes: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    #: the round number each entrant last played (or had a bye) in
    reached: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    #: every table so far, as entrant ids (a bye is a table of one): the Swiss history
    history: list[list[int]] = field(default_factory=list)
    #: how often each entrant sat first (seat 0, the first to move)
    firsts: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))


def _results(tournament: Tournament) -> _Results:
    """Points, opponents and tables of every round so far (a fixed number of queries)."""
    results = _Results()
    tables = TournamentGame.objects.filter(round__tournament=tournament).values_list(
        "pk", "round__number", "game_id", "game__status", "bye_id", "entries"
    )
    places: defaultdict[int, list[int | None]] = defaultdict(list)
    for game_id, place in (
        Seat.objects.filter(game__tournament_link__round__tournament=tournament)
        .order_by("game_id", "index")
        .values_list("game_id", "place")
    ):
        places[game_id].append(place)
    for _pk, number, game_id, status, bye_id, entries in sorted(tables):
        if game_id is None:
            results.points[bye_id] += BYE_POINTS
            results.byes[bye_id] += 1
            results.reached[bye_id] = max(results.reached[bye_id], number)
            results.history.append([bye_id])
            continue
        results.history.append(list(entries))
        results.firsts[entries[0]] += 1
        for entry in entries:
            results.reached[entry] = max(results.reached[entry], number)
        if status != GameStatus.FINISHED:
            continue
        for entry, points in zip(entries, table_points(places[game_id]), strict=True):
            results.points[entry] += points
            results.games[entry] += 1
            results.opponents[entry] += [e for e in entries if e != entry]
    return results


@dataclass
class Standing:
    rank: int
    player: TournamentPlayer
    points: float
    buchholz: float
    games: int
    byes: int
    #: elimination: the last round played in; whether still in (the champion, when finished)
    reached: int = 0
    eliminated: bool = False

    @property
    def rating(self) -> float | None:
        return self.player.rating

    @property
    def user(self) -> Any:
        return self.player.user

    @property
    def name(self) -> str:
        return self.player.name


def tournament_standings(tournament: Tournament) -> list[Standing]:
    """The standings, best first. Swiss and round robin: points, then Buchholz, then rating at
    the start; players equal on all three share a rank. Elimination: the round reached (those
    still in first: the champion, once finished), then seed. Empty before the start."""
    if tournament.status in (Status.SIGNUP, Status.CANCELLED):
        return []
    players = list(tournament.players.select_related("user"))
    results = _results(tournament)
    rows = []
    for player in players:
        u = player.pk
        rows.append(
            Standing(
                rank=0,
                player=player,
                points=results.points[u],
                buchholz=sum(results.points[o] for o in results.opponents[u]),
                games=results.games[u],
                byes=results.byes[u],
                reached=results.reached[u],
                eliminated=player.eliminated,
            )
        )
    if tournament.format == Format.ELIMINATION:
        def key(row: Standing) -> tuple:
            return (row.eliminated, -row.reached)

        rows.sort(key=lambda r: (*key(r), r.player.seed or 0))
    else:
        def key(row: Standing) -> tuple:
            return (-row.points, -row.buchholz, -(row.rating or 0.0))

        rows.sort(key=lambda r: (*key(r), r.player.seed or 0))
    for i, row in enumerate(rows):
        row.rank = rows[i - 1].rank if i and key(rows[i - 1]) == key(row) else i + 1
    return rows


def rounds_with_tables(tournament: Tournament) -> list[tuple[Round, list[TournamentGame]]]:
    """Every round with its tables (games with their seats and users prefetched), in order."""
    rounds = list(tournament.round_set.order_by("number"))
    tables: defaultdict[int, list[TournamentGame]] = defaultdict(list)
    for table in (
        TournamentGame.objects.filter(round__tournament=tournament)
        .select_related("game", "bye__user")
        .prefetch_related("game__seats__user")
        .order_by("pk")
    ):
        tables[table.round_id].append(table)
    return [(r, tables[r.pk]) for r in rounds]

