"""Operator tasks behind the management commands: rebuild snapshots, verify the event chains,
unfreeze a repaired game, export a user's data, create demo data for a new site. The commands in
``games/management/commands`` only parse arguments and print; the work is here, in plain
functions that tests can call."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import EmailMode, User

from . import clock, services, state
from .bot_play import bots_play
from .event_chain import ChainProblem, verify_game_chain
from .integrity import LogNotReplayable, chain_reason, game_freeze
from .models import BotKind, Event, Game, GameKind, GameStatus, Seat, Snapshot
from .services import action_submit, game_create
from .state import snapshot_rebuild


# -- rebuild snapshots --------------------------------------------------------------------------
@dataclass
class RebuildReport:
    rebuilt: int = 0
    #: game id -> why the stored snapshot was wrong ("missing", "seq 3 != 5", "state differs")
    differed: dict[int, str] = field(default_factory=dict)
    #: game id -> the error replaying its event log raised (an engine change or a bad log);
    #: the game is frozen
    failed: dict[int, str] = field(default_factory=dict)
    #: game id -> what is wrong with its event chain: not rebuilt from a log that may be
    #: forged, its snapshot left as it was, the game frozen
    refused: dict[int, list[ChainProblem]] = field(default_factory=dict)


def rebuild_snapshots(game_ids: Iterable[int] | None = None) -> RebuildReport:
    """Recompute the snapshot of every started game (or of ``game_ids``) from its event log and
    compare it with the stored one. Each game is locked while it is rebuilt, so a move arriving
    at the same time waits and then continues from the fresh snapshot.

    The log is trusted only when its hash chain verifies: a game whose chain is broken keeps
    its snapshot (the last state reached through ``action_submit``) and is frozen, as is one
    whose log does not replay (games.integrity)."""
    report = RebuildReport()
    games = Game.objects.filter(started_at__isnull=False)
    if game_ids is not None:
        games = games.filter(pk__in=list(game_ids))
    for game_id in games.order_by("pk").values_list("pk", flat=True).iterator():
        try:
            with transaction.atomic():
                game = Game.objects.select_for_update().get(pk=game_id)
                problems = verify_game_chain(game)
                if problems:
                    report.refused[game_id] = problems
                    game_freeze(game_id=game_id, reason=chain_reason(problems))
                    continue
                stored = Snapshot.objects.filter(game=game).values_list("seq", "data").first()
                snap = snapshot_rebuild(game)
        except LogNotReplayable as exc:  # rolled back: the snapshot stays, the game freezes
            report.failed[game_id] = str(exc)
            game_freeze(game_id=game_id, reason=exc.reason)
            continue
        except Exception as exc:  # report and go on with the other games
            report.failed[game_id] = f"{type(exc).__name__}: {exc}"
            continue
        report.rebuilt += 1
        if stored is None:
            report.differed[game_id] = "missing"
        elif stored[0] != snap.seq:
            report.differed[game_id] = f"seq {stored[0]} != {snap.seq}"
        elif stored[1] != snap.data:
            report.differed[game_id] = "state differs"
    return report


# -- verify the event chains -------------------------------------------------------------------
@dataclass
class ChainReport:
    checked: int = 0
    #: game id -> what is wrong with its chain (games with an intact chain are not listed)
    broken: dict[int, list[ChainProblem]] = field(default_factory=dict)
    #: the broken games this check froze (the others were frozen already)
    frozen: list[int] = field(default_factory=list)
    #: requested game ids that do not exist
    unknown: list[int] = field(default_factory=list)


def verify_event_chains(game_ids: Iterable[int] | None = None) -> ChainReport:
    """Recompute the hash chain of every game (or of ``game_ids``) from its stored events. One
    game at a time, its events streamed; each game is locked while it is read, so a move
    committing meanwhile cannot look like an extra or a missing event. A broken game is
    frozen (games.integrity): its players see why, and staff are told."""
    report = ChainReport()
    games = Game.objects.all()
    if game_ids is not None:
        wanted = set(game_ids)
        games = games.filter(pk__in=wanted)
        report.unknown = sorted(wanted - set(games.values_list("pk", flat=True)))
    for game_id in games.order_by("pk").values_list("pk", flat=True).iterator():
        with transaction.atomic():
            game = (
                Game.objects.select_for_update()
                .only("pk", "kind", "player_count", "options", "setup", "seq", "chain_head")
                .get(pk=game_id)
            )
            problems = verify_game_chain(game)
            if problems and game_freeze(game_id=game_id, reason=chain_reason(problems)):
                report.frozen.append(game_id)
        report.checked += 1
        if problems:
            report.broken[game_id] = problems
    return report


# -- unfreeze a repaired game ---------------------------------------------------------------------
class StillBroken(Exception):
    """The game stays frozen: its log still fails a check (the message says which)."""


def game_unfreeze(*, game_id: int) -> Game:
    """Let a frozen game go on once its log is sound again: its hash chain verifies and its
    events replay (the snapshot is rebuilt from them). Otherwise ``StillBroken``, and the game
    stays frozen. The seat to move gets a fresh clock from now: the time the game stood frozen
    is not theirs to lose (a bot to move is woken by the bot sweep within a minute).
    ``Game.DoesNotExist`` for an unknown id."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if not game.frozen:
            raise StillBroken(f"game {game_id} is not frozen")
        problems = verify_game_chain(game)
        if problems:
            raise StillBroken(chain_reason(problems))
        try:
            snapshot_rebuild(game)
        except LogNotReplayable as exc:
            raise StillBroken(exc.reason) from None
        game.frozen_at, game.frozen_reason = None, ""
        fields = ["frozen_at", "frozen_reason"]
        if game.status == GameStatus.RUNNING and game.to_move is not None:
            now = timezone.now()
            seat = Seat.objects.select_related("user").get(game=game, index=game.to_move)
            game.turn_started_at = now
            fields += ["turn_started_at"]
            fields += clock.deadline_move(game, clock.seat_deadline(game, seat, now), now)
        game.save(update_fields=fields)
    return game


# -- export a user's data -----------------------------------------------------------------------
#: other apps' parts of a user's data, each a dict of top-level keys added after games' own;
#: registered in their AppConfig.ready() (tournaments: ratings, leagues, tournament entries;
#: notifications: the messages queued for the player),
#: so that games never imports the apps built on it
USER_DATA_PARTS: list[Callable[[User], dict[str, Any]]] = []


def find_user(username_or_email: str) -> User:
    """The user with this username, or with this (primary or secondary) email address."""
    from allauth.account.models import EmailAddress

    value = username_or_email.strip()
    user = User.objects.filter(Q(username=value) | Q(email__iexact=value)).first()
    if user is None:
        address = EmailAddress.objects.filter(email__iexact=value).select_related("user").first()
        if address is not None:
            user = address.user
    if user is None:
        raise User.DoesNotExist(f"No user with the username or email address {value!r}.")
    return user


def iso(value: Any) -> str | None:
    """A time of a user's data export as JSON: ISO 8601, or None (the other apps' parts too)."""
    return value.isoformat() if value is not None else None


def _game_public(game: Game, own_seat: Seat) -> dict[str, Any]:
    """What anyone looking at the game sees: no setup (hands, deck), no engine state."""
    return {
        "id": game.pk,
        "kind": game.kind,
        "options": game.options,
        "player_count": game.player_count,
        "days_per_move": game.days_per_move,
        "status": game.status,
        "rated": game.rated,
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "moves": game.seq,
        "your_seat": own_seat.index,
        "seats": [
            {
                "index": seat.index,
                "name": seat.name,  # the public name: never an email address
                "bot": seat.bot or None,
                "you": seat.pk == own_seat.pk,
                "score": seat.score,
                "place": seat.place,
                "retired": seat.retired,
            }
            for seat in game.seats.all()
        ],
        "your_result": (
            {"score": own_seat.score, "place": own_seat.place}
            if game.status == GameStatus.FINISHED
            else None
        ),
    }


def export_user_data(user: User) -> dict[str, Any]:
    """Everything the site holds about ``user``, as JSON-ready data: never the password hash,
    another player's email address, or any game's setup (the hidden cards)."""
    from allauth.account.models import EmailAddress

    seats = list(
        Seat.objects.filter(user=user)
        .select_related("game")
        .prefetch_related("game__seats__user")
        .order_by("game__created_at", "game_id")
    )
    games = []
    for seat in seats:
        entry = _game_public(seat.game, seat)
        entry["your_actions"] = [
            {"seq": seq, "action": action, "source": source, "at": iso(at)}
            for seq, action, source, at in Event.objects.filter(
                game_id=seat.game_id, seat=seat.index
            )
            .order_by("seq")
            .values_list("seq", "action", "source", "created_at")
        ]
        games.append(entry)
    data: dict[str, Any] = {
        "exported_at": iso(timezone.now()),
        "profile": {
            "id": user.pk,
            "username": user.username,
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "display_name": user.display_name,
            "public_name": user.public_name,
            "time_zone": user.time_zone,
            "language": user.language,
            "is_active": user.is_active,
            "is_staff": user.is_staff,
            "date_joined": iso(user.date_joined),
            "last_login": iso(user.last_login),
        },
        "email_addresses": [
            {"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=user).order_by("pk")
        ],
        "notification_preferences": {
            "email_mode": user.email_mode,
            "digest_hour": user.digest_hour,
        },
        "vacations": [
            {"starts_at": iso(v.starts_at), "ends_at": iso(v.ends_at)}
            for v in user.vacations.order_by("starts_at")
        ],
        "games": games,
    }
    for part in USER_DATA_PARTS:
        data.update(part(user))
    return data


# -- demo data ----------------------------------------------------------------------------------
DEMO_PASSWORD = "keltis-demo-play"
DEMO_EMAIL_DOMAIN = "example.com"

#: the games each demo player gets (kind, players, bots, actions to play; None = to the end)
DEMO_GAMES: list[tuple[str, int, tuple[str, ...], int | None]] = [
    (GameKind.BOARD, 2, (BotKind.RANDOM,), 0),
    (GameKind.CARDS, 3, (BotKind.RANDOM, BotKind.GREEDY), 12),
    (GameKind.BOARD, 4, (BotKind.GREEDY, BotKind.RANDOM, BotKind.GREEDY), 40),
    (GameKind.CARDS, 2, (BotKind.GREEDY,), None),
]


@dataclass
class DemoReport:
    users: list[str] = field(default_factory=list)
    #: other apps' parts, one line each for the command's report ("league created: ...")
    notes: list[str] = field(default_factory=list)
    #: whether those parts created anything
    others_created: bool = False
    #: (game id, owner, status, actions played)
    games: list[tuple[int, str, str, int]] = field(default_factory=list)
    password_set: bool = False


#: other apps' demo data, called with the demo users (after they exist, before their games) and
#: the report to add to; registered in their AppConfig.ready() (tournaments: the demo league)
DEMO_DATA_PARTS: list[Callable[[list[User], DemoReport], None]] = []


@contextmanager
def without_after_commit_hooks() -> Iterator[None]:
    """No task per action (turn emails, bot wake-ups) queued meanwhile: the demo plays bot
    seats itself, as the benchmarks fill their games. Finished-game hooks (standings, ratings)
    still run."""
    saved = list(services.AFTER_COMMIT_HOOKS)
    services.AFTER_COMMIT_HOOKS.clear()
    try:
        yield
    finally:
        services.AFTER_COMMIT_HOOKS[:] = saved


def _advance(game: Game, person: User, target: int | None, rng: random.Random) -> Game:
    """Play the game on until it has ``target`` events (or to its end): the person's seat plays
    random legal moves through ``action_submit``, the bot seats play as they always do. It
    stops only where the person is to move: a demo game never waits for a bot."""
    for _ in range(100_000):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        seat = Seat.objects.get(game=game, index=game.to_move)
        if seat.user_id == person.pk:
            if target is not None and game.seq >= target:
                break
            action = rng.choice(state.engine_state(game).legal())
            action_submit(
                game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq, user=person
            )
        elif not bots_play(game_id=game.pk):
            break
    return game


def create_demo_data(players: int = 6) -> DemoReport:
    """Demo users demo1..N (verified addresses, no emails), a league they all belong to, and for
    each demo user a few games with bots at various stages (new, early, midgame, finished).
    Idempotent: existing demo users, the league, memberships and games are left as they are."""
    from allauth.account.models import EmailAddress

    if players < 1:
        raise ValueError("At least one demo player is needed.")
    report = DemoReport()
    users: list[User] = []
    for number in range(1, players + 1):
        username = f"demo{number}"
        email = f"{username}@{DEMO_EMAIL_DOMAIN}"
        with transaction.atomic():
            user = User.objects.filter(username=username).first()
            if user is None:
                user = User.objects.create_user(
                    username=username,
                    email=email,
                    password=DEMO_PASSWORD,
                    display_name=f"Demo Player {number}",
                    email_mode=EmailMode.NONE,
                )
                report.users.append(username)
                report.password_set = True
            if not EmailAddress.objects.filter(user=user).exists():
                EmailAddress.objects.create(
                    user=user, email=user.email, verified=True, primary=True
                )
        users.append(user)

    for part in DEMO_DATA_PARTS:
        part(users, report)

    with without_after_commit_hooks():
        for index, user in enumerate(users):
            if Game.objects.filter(created_by=user, seats__bot__gt="").exists():
                continue  # made by an earlier run
            rng = random.Random(index)
            made = []
            with transaction.atomic():  # a player's demo games are made together or not at all
                for kind, count, bots, target in DEMO_GAMES:
                    game = game_create(
                        creator=user, kind=kind, player_count=count, bots=list(bots)
                    )
                    game = _advance(game, user, target, rng)
                    made.append((game.pk, user.username, game.status, game.seq))
            report.games.extend(made)
    return report
