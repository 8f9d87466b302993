"""Scale benchmark, run by hand (docs/benchmarks.md: the fill, figures, targets).

Fills a PostgreSQL database with 100,000 games by COPY of bot-played trajectories (kept for the
next run of the same plan); then, in interleaved repeats, the reference and the write floor, the
game page and the action in process and over HTTP, and the deadline sweep with its EXPLAIN.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import pickle
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, measure
from bench.common import ROOT, markdown_table
from bench.infra import free_port, serve, stop_process, wait_until
from bench.measure import Reference, Series, count_queries, median, p95, timed
from bench.players import Forms, Http, session_cookies
from games.engine import GAMES  # the engine needs no Django
from games.engine.bots import GreedyBot, play_out
from games.event_chain import genesis_hash

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/keltis_bench"
#: the services' options (bench/profile_action.py and bench/ab_action.py take them too)
SERVICES = (
    ("--db", DEFAULT_DB, "the bench database"),
    ("--broker", "redis://127.0.0.1:6379/13", "Celery broker the actions queue their tasks on"),
    ("--cache", "rediscache://127.0.0.1:6379/14", "the site's cache: sessions, rate limits"),
)
#: "floor" is measured in the requests' repeats
PIECES = ("fill", "floor", "action", "page", "sweep")

#: issue 21's goals by series: CPU per request (median) and, over HTTP, the wall p95, in ms
TARGETS = {
    "page": (8.0, None), "page_again": (8.0, None), "action": (4.0, None),
    "page_http": (8.0, 20.0), "page_http_again": (8.0, 20.0), "action_http": (4.0, 10.0),
}  # fmt: skip
#: the idle sweep's share of the 1% sweep; the per-game cost at 1% to that at 0.1%
TARGET_SWEEP_IDLE_SHARE = 0.01
TARGET_SWEEP_PER_GAME_FACTOR = 2.0

LOG_DIR = ROOT / "var" / "bench"
#: ``--tiny``: seconds, not minutes (the least fill whose 0.1% of running games is one game)
TINY = {
    "games": 2000, "trajectories": 30, "repeats": 1, "batch": 2, "sweep_repeats": 1,
    "sweep_idle_repeats": 2,
}  # fmt: skip


def configure_django(db_url: str, broker_url: str, cache_url: str) -> None:
    """Production settings for this process and its server (bench/scale_settings.py)."""
    path = os.pathsep.join(p for p in (str(ROOT / "bench"), os.environ.get("PYTHONPATH")) if p)
    common.setup_django(common.production_env(
        DJANGO_SETTINGS_MODULE="scale_settings", PYTHONPATH=path, DATABASE_URL=db_url,
        CELERY_BROKER_URL=broker_url, CACHE_URL=cache_url,
    ))  # fmt: skip


# -- trajectories: bot games, reused by many game ids ---------------------------------------------
@dataclass
class Trajectory:
    """One game played to its end by greedy bots, with what a copy of any prefix needs."""

    kind: str
    players: int
    options_json: str
    setup_json: str
    actions: list[str]
    seats: list[int]  # the seat that took each action
    to_move: list[int | None]  # after i actions, i = 0..len(actions)
    turn_seq: list[int]  # Game.turn_seq after i actions
    snapshots: dict[int, str]  # position -> the engine snapshot after it, as JSON
    scores: list[int]

    @property
    def checkpoints(self) -> list[int]:
        """The positions of running copies: every stored snapshot but the final one."""
        return sorted(p for p in self.snapshots if p < len(self.actions))


def simulate(spec: tuple[str, int, int, int]) -> Trajectory:
    """Play one game with greedy bots (kind, players, seed, checkpoints): deterministic."""
    kind, players, seed, checkpoints = spec
    cls = GAMES[kind]
    rng = random.Random(seed)
    options = {name: rng.random() < 0.2 for name in cls.OPTIONS}
    setup = cls.deal(players, seed)
    played = play_out(
        cls.new(players, setup, options), [GreedyBot(seed * 10 + i) for i in range(players)]
    )
    actions = list(played.actions)
    wanted = {rng.randrange(len(actions)) for _ in range(checkpoints)}
    game = cls.new(players, setup, options)  # replayed: each action's seat, the snapshots
    seats: list[int] = []
    to_move, turn_seq, snapshots = [game.to_move], [0], {}
    for i, action in enumerate(actions):
        if i in wanted:
            snapshots[i] = json.dumps(game.snapshot())
        seats.append(game.to_move)
        game.apply(action, player=seats[-1])
        to_move.append(game.to_move)
        turn_seq.append(turn_seq[-1] if to_move[-1] == to_move[-2] else i + 1)
    snapshots[len(actions)] = json.dumps(game.snapshot())
    return Trajectory(
        kind, players, json.dumps(options), json.dumps(setup), actions, seats, to_move, turn_seq,
        snapshots, played.scores(),
    )  # fmt: skip


# -- the fill ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FillPlan:
    """What the database holds; stored with the fill so that a different plan refills."""

    games: int = 100_000
    trajectories: int = 3_000
    checkpoints: int = 8
    seed: int = 2026
    layout: int = 5  # bumped when the fill writes something else: an older fill is redone

    @property
    def running(self) -> int:
        return self.games // 2

    @property
    def users(self) -> int:
        return max(100, self.games // 5)


DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)
DAYS_WEIGHTS = (10, 15, 40, 20, 10, 5)


@dataclass
class GamePlan:
    """One game of the fill: which trajectory, how far, who plays, and its clock."""

    id: int
    traj: int
    status: str
    seq: int
    users: list[int]
    days: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    turn_started_at: datetime | None = None
    deadline: datetime | None = None
    reminder_at: datetime | None = None
    last_event_at: datetime | None = None
    seat_count: int = 0


def simulate_all(plan: FillPlan) -> list[Trajectory]:
    """The trajectories (nine in ten of the board game), on every core or from var/bench/."""
    engine = hashlib.sha256()
    for path in sorted((ROOT / "games" / "engine").glob("*.py")):
        engine.update(path.read_bytes())
    key = f"{plan.trajectories}-{plan.checkpoints}-{plan.seed}-{engine.hexdigest()[:12]}"
    cache = LOG_DIR / f"trajectories-{key}.pickle"
    if cache.exists():
        print(f"  trajectories from {cache.relative_to(ROOT)}")
        with cache.open("rb") as f:
            return pickle.load(f)  # our own file, written below
    specs = []
    card_share = plan.trajectories // 10
    for kind, count in (("keltis", plan.trajectories - card_share), ("keltis-cards", card_share)):
        for i in range(count):
            specs.append((kind, 2 + i % 3, plan.seed * 100_000 + len(specs), plan.checkpoints))
    with multiprocessing.get_context("spawn").Pool(os.cpu_count() or 1) as pool:
        trajs = pool.map(simulate, specs, chunksize=8)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    with cache.open("wb") as f:
        pickle.dump(trajs, f, protocol=pickle.HIGHEST_PROTOCOL)
    return trajs


def plan_games(plan: FillPlan, trajs: list[Trajectory], now: datetime) -> list[GamePlan]:
    """Every game of the fill, from the plan's seed; ``now`` is the moment the fill ends."""
    from games.clock import next_reminder
    from games.models import GameStatus

    rng = random.Random(plan.seed)
    by_shape: dict[tuple[str, int], list[int]] = {}
    for i, t in enumerate(trajs):
        by_shape.setdefault((t.kind, t.players), []).append(i)
    # half running, 1% cancelled, 1% waiting for players, the rest finished
    hundredth = plan.games // 100
    statuses = [GameStatus.RUNNING] * plan.running
    statuses += [GameStatus.CANCELLED] * hundredth + [GameStatus.OPEN] * hundredth
    statuses += [GameStatus.FINISHED] * (plan.games - len(statuses))
    rng.shuffle(statuses)
    running_ids = [i for i, s in enumerate(statuses) if s == GameStatus.RUNNING]
    overdue = set(rng.sample(running_ids, plan.running // 100))  # the sweep missed them
    games = []
    for index, status in enumerate(statuses):
        kind = rng.choice(("keltis", "keltis-cards"))
        players = rng.randint(2, 4)
        traj_index = rng.choice(by_shape[(kind, players)])
        traj = trajs[traj_index]
        days = rng.choices(DAYS_PER_MOVE, DAYS_WEIGHTS)[0]
        users = rng.sample(range(1, plan.users + 1), players)
        game = GamePlan(index + 1, traj_index, status, 0, users, days, now, seat_count=players)
        move_gap = timedelta(hours=rng.uniform(0.5, 6))
        if status == GameStatus.RUNNING:
            game.seq = rng.choice(traj.checkpoints)
            if index in overdue:  # the sweep missed it for up to an hour
                turn_started = now - timedelta(days=days, seconds=rng.uniform(60, 3600))
            else:
                turn_started = now - timedelta(days=days * rng.uniform(0.01, 0.99))
            game.turn_started_at = game.last_event_at = turn_started
            game.deadline = turn_started + timedelta(days=days)
            game.reminder_at = None if index in overdue else next_reminder(game.deadline, now)
            game.started_at = turn_started - move_gap * traj.turn_seq[game.seq]
        elif status == GameStatus.FINISHED:
            game.seq = len(traj.actions)
            game.finished_at = game.last_event_at = now - timedelta(days=rng.uniform(1, 365))
            game.started_at = game.finished_at - move_gap * game.seq
        else:  # waiting for players, or cancelled before it started: the creator and a few
            game.seat_count = rng.randint(1, players - 1)
            back = rng.uniform(0, 10) if status == GameStatus.OPEN else rng.uniform(10, 300)
            game.created_at = now - timedelta(days=back)
        if game.started_at is not None:
            game.created_at = game.started_at - timedelta(hours=rng.uniform(0, 72))
        games.append(game)
    return games


USER_COLUMNS = (
    "id", "password", "last_login", "is_superuser", "username", "first_name", "last_name",
    "is_staff", "is_active", "date_joined", "email", "display_name", "time_zone", "language",
    "digest_hour", "email_mode", "always_notify", "channel_modes", "is_bot",
    "display_name_skeleton", "display_name_folded_skeleton", "message_modes", "talk_in_records",
)  # fmt: skip
GAME_COLUMNS = (
    "id", "kind", "options", "player_count", "days_per_move", "status", "setup", "created_at",
    "started_at", "finished_at", "seq", "to_move", "turn_started_at", "created_by_id",
    "bank_cap_hours", "bank_increment_hours", "deadline", "max_timeouts", "reminder_at",
    "turn_seq", "rated", "chain_head", "frozen_reason", "deadline_moves", "private",
    "join_secret",
)  # fmt: skip
SEAT_COLUMNS = (
    "id", "game_id", "index", "user_id", "bot", "joined_at", "score", "place", "bank_seconds",
    "retired", "timeouts",
)  # fmt: skip
#: the events go in binary COPY (3-5x faster than text), which needs each column's type
EVENT_TYPES = {
    "id": "int8", "game_id": "int8", "seq": "int4", "seat": "int2", "action": "varchar",
    "created_at": "timestamptz", "source": "varchar", "prev_hash": "varchar", "hash": "varchar",
    "hash_key": "varchar",
}  # fmt: skip
#: each table the fill writes raw rows to: its model, and the columns it writes
COLUMNS = {
    "accounts_user": ("accounts.User", USER_COLUMNS),
    "games_game": ("games.Game", GAME_COLUMNS),
    "games_seat": ("games.Seat", SEAT_COLUMNS),
    "games_snapshot": ("games.Snapshot", ("game_id", "seq", "data")),
    "games_event": ("games.Event", tuple(EVENT_TYPES)),
}
LOADED_TABLES = tuple(COLUMNS)


def column_problems() -> list[str]:
    """How the column lists above differ from the models: a column gone, or a NOT NULL one left
    out (COPY would write NULL: Django keeps defaults in Python). Checked by every fill and CI."""
    from django.apps import apps

    problems = []
    for label, columns in COLUMNS.values():
        meta = apps.get_model(label)._meta
        fields = {f.column: f for f in meta.concrete_fields}
        problems += [f"{meta.db_table}.{c}: no such column" for c in columns if c not in fields]
        problems += [
            f"{meta.db_table}.{c}: NOT NULL and not written by the fill"
            for c, f in fields.items()
            if c not in columns and not f.null
        ]
    return problems


def user_rows(plan: FillPlan, now: datetime) -> Iterator[tuple[Any, ...]]:
    from accounts.display_names import name_keys

    for i in range(1, plan.users + 1):
        yield (
            i, "!bench-unusable", None, False, f"bench{i}", "", "", False, True,
            now - timedelta(days=400), f"bench{i}@example.invalid", f"Bench player {i}", "UTC",
            "en", 7, "every_turn", False, "{}", False, *name_keys(f"Bench player {i}"), "{}",
            False,
        )  # fmt: skip


def game_row(game: GamePlan, traj: Trajectory) -> tuple[Any, ...]:
    """The fill's finished games are unrated: it makes no rating rows for the catch-up to do."""
    running = game.status == "running"
    return (
        game.id, traj.kind, traj.options_json, traj.players, game.days, game.status,
        traj.setup_json, game.created_at, game.started_at, game.finished_at, game.seq,
        traj.to_move[game.seq] if running else None, game.turn_started_at, game.users[0], 0, 0,
        game.deadline, 3, game.reminder_at, traj.turn_seq[game.seq] if running else 0,
        game.status != "finished", "",  # chain_head: set from the events once they are in
        "", 0, False, "",
    )  # fmt: skip


def seat_rows(first_id: int, game: GamePlan, traj: Trajectory) -> list[tuple[Any, ...]]:
    finished = game.status == "finished"
    rows = []
    for index in range(game.seat_count):
        score = traj.scores[index] if finished else None
        place = 1 + sum(other > score for other in traj.scores) if finished else None
        rows.append((first_id + index, game.id, index, game.users[index], "", game.created_at,
                     score, place, 0, False, 0))  # fmt: skip
    return rows


def event_rows(first_id: int, game: GamePlan, traj: Trajectory, keys: Any) -> list[tuple[Any, ...]]:
    """One game's first ``game.seq`` events, spread from its start to its last move (the turn
    under way's a minute apart), signed and chained as the model does (``keys``)."""
    if not game.seq:
        return []
    assert game.started_at is not None and game.last_event_at is not None
    turn_seq = traj.turn_seq[game.seq] if game.status == "running" else game.seq
    span = game.last_event_at - game.started_at
    prev = genesis_hash(SimpleNamespace(
        pk=game.id, kind=traj.kind, player_count=traj.players,
        options=json.loads(traj.options_json), setup=json.loads(traj.setup_json),
    ))  # fmt: skip
    rows = []
    for seq in range(1, game.seq + 1):
        if seq <= turn_seq:
            at = game.started_at + span * seq / turn_seq
        else:
            at = game.last_event_at + timedelta(minutes=seq - turn_seq)
        seat, action = traj.seats[seq - 1], traj.actions[seq - 1]
        key_id, digest = keys.sign(
            game_id=game.id, seq=seq, seat=seat, action=action, source="player", created_at=at,
            prev_hash=prev,
        )  # fmt: skip
        rows.append(
            (first_id + seq - 1, game.id, seq, seat, action, at, "player", prev, digest, key_id)
        )
        prev = digest
    return rows


def numbered(
    games: list[GamePlan], trajs: list[Trajectory], make: Callable[..., list[tuple[Any, ...]]]
) -> Iterator[tuple[Any, ...]]:
    """The rows ``make(first_id, game, trajectory)`` of every game, their ids counted on."""
    next_id = 1
    for game in games:
        rows = make(next_id, game, trajs[game.traj])
        next_id += len(rows)
        yield from rows


def copy_rows(cur: Any, table: str, rows: Iterable[tuple[Any, ...]]) -> int:
    """COPY the rows in (the events in binary), FREEZE: the table was truncated in this
    transaction, so index-only scans need no vacuum."""
    count = 0
    binary = table == "games_event"
    cols = ", ".join(f'"{c}"' for c in COLUMNS[table][1])
    options = "FORMAT BINARY, FREEZE" if binary else "FREEZE"
    with cur.copy(f"COPY {table} ({cols}) FROM STDIN WITH ({options})") as copy:
        if binary:
            copy.set_types(list(EVENT_TYPES.values()))
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


@contextmanager
def without_constraints(cur: Any, tables: Sequence[str]) -> Iterator[None]:
    """Drop the tables' indexes and constraints but the primary keys, made again afterwards
    from their definitions: PostgreSQL's advice for a bulk load."""
    constraints: list[tuple[str, str, str, str]] = []
    indexes: list[tuple[str, str]] = []
    for table in tables:
        constraints += cur.execute(
            "SELECT %s, conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype <> 'p'",
            [table, table],
        ).fetchall()
        indexes += cur.execute(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary AND NOT EXISTS ("
            "  SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid"
            "  AND c.conrelid = i.indrelid)",
            [table],
        ).fetchall()
    constraints.sort(key=lambda c: c[2] != "f")  # foreign keys go first, come back last
    for table, name, _, _ in constraints:
        cur.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        cur.execute(f"DROP INDEX {name}")
    yield
    for _, definition in indexes:
        cur.execute(definition)
    for table, name, _, definition in reversed(constraints):
        cur.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


#: the table a finished fill leaves: its plan, when and how fast it ran, its row counts
MARKER = "bench_fill"


def fill(db_url: str, plan: FillPlan) -> dict[str, Any]:
    """Load the plan's games in one transaction (an interrupted fill leaves nothing)."""
    from games.event_chain import current_keys

    stages: dict[str, float] = {}
    start = mark = time.perf_counter()

    def lap(stage: str = "") -> float:  # seconds since the last lap, kept when named
        nonlocal mark
        seconds, mark = time.perf_counter() - mark, time.perf_counter()
        if stage:
            stages[stage] = seconds
        return seconds

    trajs = simulate_all(plan)
    print(
        f"  {len(trajs)} trajectories played by greedy bots in {lap('simulate'):.1f} s "
        f"({sum(len(t.actions) for t in trajs) / len(trajs):.0f} actions a game on average)"
    )
    now = datetime.now(UTC).replace(microsecond=0)
    games = plan_games(plan, trajs, now)
    counts: dict[str, int] = {}
    with psycopg.connect(db_url) as conn, conn.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '512MB'")
        cur.execute(f"DROP TABLE IF EXISTS {MARKER}")
        cur.execute(f"TRUNCATE {', '.join(LOADED_TABLES)} CASCADE")
        keys = current_keys()
        loads = {
            "accounts_user": user_rows(plan, now),
            "games_game": (game_row(g, trajs[g.traj]) for g in games),
            "games_seat": numbered(games, trajs, seat_rows),
            "games_snapshot": (
                (g.id, g.seq, trajs[g.traj].snapshots[g.seq])
                for g in games if g.status in ("running", "finished")
            ),
            "games_event": numbered(games, trajs, lambda *a: event_rows(*a, keys)),
        }  # fmt: skip
        with without_constraints(cur, LOADED_TABLES):
            lap()
            for table, rows in loads.items():
                began = time.perf_counter()
                counts[table] = copy_rows(cur, table, rows)
                print(f"  COPY {table}: {counts[table]:,} rows in "
                      f"{time.perf_counter() - began:.1f} s")  # fmt: skip
            lap("copy")
        print(f"  indexes and constraints made again in {lap('indexes and constraints'):.1f} s")
        cur.execute(
            "UPDATE games_game g SET chain_head = e.hash FROM games_event e "
            "WHERE e.game_id = g.id AND e.seq = g.seq"
        )
        print(f"  chain heads set in {lap():.1f} s")
        for table in ("accounts_user", "games_game", "games_seat", "games_event"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"(SELECT max(id) FROM {table}))")  # fmt: skip
        filled_at = datetime.now(UTC).isoformat(timespec="seconds")
        info = {"plan": asdict(plan), "now": now.isoformat(), "filled_at": filled_at}
        info |= {"counts": counts, "stages": stages}
        cur.execute(f"CREATE TABLE {MARKER} (info jsonb NOT NULL)")
        cur.execute(f"INSERT INTO {MARKER} VALUES (%s)", [Jsonb(info)])
        conn.commit()
        lap()
        conn.autocommit = True
        cur.execute(f"ANALYZE {', '.join(LOADED_TABLES)}")
        lap("analyze")
        stages["total"] = time.perf_counter() - start
        cur.execute(f"UPDATE {MARKER} SET info = info || %s", [Jsonb({"stages": stages})])
    return info


def bench_fill(args: argparse.Namespace, plan: FillPlan) -> list[str]:
    """The fill, made now or found; its stages' times and the tables' rows and sizes."""
    with psycopg.connect(args.db, autocommit=True) as conn:
        stored = None
        if conn.execute("SELECT to_regclass(%s)", [MARKER]).fetchone()[0] is not None:
            row = conn.execute(f"SELECT info FROM {MARKER}").fetchone()
            stored = row[0] if row else None
        if stored is not None and stored["plan"] != asdict(plan):
            raise SystemExit(f"the database holds another fill ({stored['plan']}): --refill")
        if stored is None:
            if problems := column_problems():
                raise SystemExit(
                    "the fill's columns differ from the models: " + "; ".join(problems)
                )
            print("filling (nothing to skip: no finished fill in this database)")
            stored = fill(args.db, plan)
            lines = ["filled now:"]
        else:
            lines = [f"already filled at {stored['filled_at']} (--refill to redo):"]
        stages = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in stored["stages"].items())
        lines.append(f"fill time: {stages}")
        for table in LOADED_TABLES:  # bytes with indexes and TOAST
            rows = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            size = conn.execute("SELECT pg_total_relation_size(%s)", [table]).fetchone()[0]
            loaded = stored["counts"][table]
            changed = f" ({rows - loaded:+,} since the fill)" if rows != loaded else ""
            lines.append(f"  {table:<15} {rows:>12,} rows {size / 2**20:>9,.0f} MiB{changed}")
    return lines


# -- measuring -----------------------------------------------------------------------------------
@dataclass
class Results:
    series: dict[str, Series] = field(default_factory=dict)
    reference: Reference = field(default_factory=Reference)
    sweeps: dict[str, list[float]] = field(default_factory=dict)
    sweep_mark: str = ""  # PASS or MISS
    sweep_verdict: str = ""


def running_ids(rng: random.Random, n: int) -> list[int]:
    """``n`` distinct random running games whose seat to move is a person."""
    from games.models import Game, GameStatus

    running = Game.objects.filter(status=GameStatus.RUNNING, deadline__isnull=False)
    ids = list(running.values_list("pk", flat=True))
    return rng.sample(ids, min(n, len(ids)))


class Floor:
    """PostgreSQL's floor for one action: a bare psycopg transaction that INSERTs an event-like
    row and UPDATEs a snapshot-sized one, on tables shaped like those (each repeat's)."""

    STATES = 10_000

    def __init__(self, db_url: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.conn = conn = psycopg.connect(db_url)
        conn.execute(  # several statements: no parameters, psycopg sends them as one query
            "CREATE TABLE IF NOT EXISTS bench_floor_event (id bigint GENERATED BY DEFAULT AS "
            "IDENTITY PRIMARY KEY, game_id bigint NOT NULL, seq integer NOT NULL, seat smallint "
            "NOT NULL, action varchar(40) NOT NULL, created_at timestamptz NOT NULL, source "
            "varchar(10) NOT NULL, UNIQUE (game_id, seq));"
            "CREATE INDEX IF NOT EXISTS bench_floor_event_game ON bench_floor_event (game_id);"
            "CREATE TABLE IF NOT EXISTS bench_floor_state (id bigint PRIMARY KEY, seq integer "
            "NOT NULL, data jsonb NOT NULL)"
        )
        self.sample = [row[0] for row in conn.execute(
            "SELECT data::text FROM games_snapshot WHERE game_id IN "
            "(SELECT id FROM games_game WHERE status = 'running' LIMIT 50)"
        )]  # fmt: skip
        if not conn.execute("SELECT 1 FROM bench_floor_state LIMIT 1").fetchone():
            with conn.cursor().copy("COPY bench_floor_state (id, seq, data) FROM STDIN") as copy:
                for i in range(1, self.STATES + 1):
                    copy.write_row((i, 0, self.sample[i % len(self.sample)]))
        conn.commit()
        self.seqs = dict(conn.execute("SELECT id, seq FROM bench_floor_state").fetchall())
        conn.commit()
        self.n = 0
        self.batch(10)  # warm the connection and its prepared statements

    def batch(self, count: int) -> list[float]:
        times = []
        for _ in range(count):
            self.n += 1
            state = self.rng.randint(1, self.STATES)
            seq = self.seqs[state] + 1
            data = self.sample[self.n % len(self.sample)]
            start = time.perf_counter()
            self.conn.execute(
                "INSERT INTO bench_floor_event (game_id, seq, seat, action, created_at, source) "
                "VALUES (%s, %s, %s, %s, now(), 'player')",
                [state, seq, self.n % 4, "play r7"],
            )
            self.conn.execute(
                "UPDATE bench_floor_state SET seq = %s, data = %s WHERE id = %s", [seq, data, state]
            )
            self.conn.commit()
            times.append((time.perf_counter() - start) * 1000)
            self.seqs[state] = seq
        return times


@dataclass(frozen=True)
class Server:
    """A gunicorn of ``http_server``: one worker, whose CPU is the server's."""

    port: int
    master: int

    def cpu_ms(self) -> tuple[int | None, float | None]:
        """The one worker's pid and CPU ms so far (None while there is not one worker)."""
        children = measure.worker_pids(self.master)
        pid = children[0] if len(children) == 1 else None
        return pid, (measure.process_cpu_ms(pid) if pid is not None else None)

    def batch(self, run: Callable[[], list[float]]) -> tuple[list[float], float | None]:
        """A batch of requests and the worker's CPU ms for it (None if replaced meanwhile); the
        sleeps let the last response's after-response work end before its CPU is read."""
        time.sleep(0.05)
        pid, before = self.cpu_ms()
        times = run()
        time.sleep(0.05)
        pid_after, after = self.cpu_ms()
        if pid is None or pid != pid_after or before is None or after is None:
            return times, None
        return times, after - before

    def browser(self) -> Http:
        """A browser of the server: one connection per request."""
        return Http(f"http://127.0.0.1:{self.port}")


@contextmanager
def http_server(config: str = "gunicorn.conf.py") -> Iterator[Server]:
    """gunicorn with ``config`` on a free loopback port, one worker (its CPU is the server's),
    with this process's settings."""
    port = free_port()
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = LOG_DIR / "gunicorn.log"
    log.write_text("")
    env = {**os.environ, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1"}
    # the server's working directory is ROOT: bench/ab_action.py serves another tree there
    proc = serve([sys.executable, "-m", "gunicorn", "--config", config], env, log, port, ROOT)
    server = Server(port, proc.pid)
    try:
        with suppress(TimeoutError):  # without one worker, its batches have no CPU figure
            wait_until(lambda: server.cpu_ms()[0], 60, "the gunicorn worker")
        yield server
    finally:
        stop_process(proc)


@dataclass
class Turn:
    """One game's turn to be measured; over HTTP with the browser's cookies and the form."""

    game_id: int
    seq: int
    user: Any
    action: str
    cookies: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)


def turns(game_ids: Sequence[int], logged_in: bool = False) -> list[Turn]:
    """The turns of these games: the user to move and the greedy bot's action (not timed);
    ``logged_in``: with a session cookie of their player."""
    from games.models import Game, Seat
    from games.state import engine_state

    out = []
    for pk in game_ids:
        game = Game.objects.get(pk=pk)
        user = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
        action = GreedyBot(game.pk + game.seq).choose(engine_state(game))
        out.append(
            Turn(game.pk, game.seq, user, action, session_cookies(user) if logged_in else {})
        )
    return out


def in_process(
    batch: list[Turn], request: Callable[[Turn], Any], login: Any = None
) -> tuple[list[float], float, float]:
    """``request`` of each turn in this process (after ``login.force_login``): wall ms each,
    CPU ms in all, queries each."""
    times: list[float] = []
    cpu = 0.0
    queries = 0
    for turn in batch:
        if login is not None:
            login.force_login(turn.user)
        with count_queries() as box:
            start, start_cpu = time.perf_counter(), time.process_time()
            request(turn)
            times.append((time.perf_counter() - start) * 1000)
            cpu += (time.process_time() - start_cpu) * 1000
        queries += box[0]
    return times, cpu, queries / len(batch)


def other_profiles(batch: list[Turn], page: Callable[..., None]) -> Callable[[Turn], None]:
    """``page`` for each turn's player of the profile of the next turn's player."""
    nxt = zip(batch, batch[1:] + batch[:1], strict=True)
    other = {turn.game_id: after.user.username for turn, after in nxt}
    return lambda turn: page(turn, path=f"/players/{other[turn.game_id]}/")


def action_in_process(turn: Turn) -> None:
    from games.services import action_submit

    action_submit(
        game_id=turn.game_id, seat=None, action=turn.action, expected_seq=turn.seq, user=turn.user
    )


def pages_http(browser: Http, batch: list[Turn], post: bool = False) -> list[float]:
    """GET each turn's game page with its player's session, keeping the form of the bot's
    button; ``post``: POST that form instead. The wall ms of each."""
    times = []
    for turn in batch:
        browser.cookies = dict(turn.cookies)
        if post:
            answer = browser.post(f"/games/{turn.game_id}/act/", "action", turn.form)
            if answer.status != 303:
                raise RuntimeError(f"game {turn.game_id}: the POST answered {answer.status}")
        else:
            answer = browser.get(f"/games/{turn.game_id}/", "game page")
            if answer.status != 200 or not (forms := Forms.parse(answer.body).actions):
                raise RuntimeError(f"game {turn.game_id}: page {answer.status}, no action forms")
            turn.form = next((f for f in forms if f.action == turn.action), forms[0]).fields
            turn.cookies = dict(browser.cookies)  # the CSRF cookie the page set
        times.append(answer.seconds * 1000)
    return times


def actions_http(browser: Http, batch: list[Turn]) -> list[float]:
    return pages_http(browser, batch, post=True)


def check_applied(batch: list[Turn]) -> None:
    from games.models import Game

    seqs = dict(Game.objects.filter(pk__in=[t.game_id for t in batch]).values_list("pk", "seq"))
    if missed := [t.game_id for t in batch if seqs[t.game_id] <= t.seq]:
        raise RuntimeError(f"actions not applied in games {missed[:10]}")


def bench_requests(args: argparse.Namespace, results: Results, pieces: list[str]) -> list[str]:
    """``args.repeats`` interleaved repeats of ``args.batch`` requests a kind (and a warm-up)."""
    from django.core.cache import cache
    from django.test import Client

    # an empty cache: each position's drawings are drawn on its first request, as after a move
    cache.clear()
    want_page, want_action = "page" in pieces, "action" in pieces
    rng = random.Random(args.seed + 2)
    series = results.series
    kinds = {
        "page": (want_page, "game page, in process (test client)", "process"),
        # the same pages at once again: the position unchanged, its drawings read from the cache
        "page_again": (want_page, "game page read again, in process", "process"),
        # the player's own list of games (15 a player on the default fill): the page they
        # open between moves
        "my_games": (want_page, "my games page, in process (test client)", "process"),
        # the lobby: a page of open games and the latest running ones, as a player sees it
        "lobby": (want_page, "lobby page, in process (test client)", "process"),
        # another player's profile: their running and finished games as this player may see them
        "profile": (want_page, "another player's profile, in process (test client)", "process"),
        "action": (want_action, "action, in process (action_submit)", "process"),
        "page_http": (want_page, "game page over HTTP (GET)", "server"),
        "page_http_again": (want_page, "game page read again over HTTP", "server"),
        "action_http": (want_action, "action over HTTP (POST of the page's form)", "server"),
    }
    series.update({k: Series(what, cpu_of=of) for k, (on, what, of) in kinds.items() if on})
    series["floor"] = Series("write floor: INSERT + UPDATE + COMMIT (psycopg)")
    floor = Floor(args.db, args.seed + 1)
    client = Client()  # one client: a new one would load the middleware (whitenoise) again

    def page(turn: Turn, path: str = "") -> None:
        response = client.get(path or f"/games/{turn.game_id}/")
        if response.status_code != 200:
            raise RuntimeError(f"{path or turn.game_id}: page {response.status_code}")

    n = args.batch
    with http_server() as server:
        client_http = server.browser()
        for repeat in range(args.repeats + 1):
            record = repeat > 0
            size = n if record else min(n, 10)
            measured: dict[str, Any] = {}
            if record:
                results.reference.measure()
            measured["floor"] = floor.batch(size), None
            ids = running_ids(rng, 3 * size)
            if want_page:
                measured["page"] = in_process(turns(ids[:size]), page, client)
                measured["page_again"] = in_process(turns(ids[:size]), page, client)
                mine = partial(page, path="/games/mine/")
                measured["my_games"] = in_process(turns(ids[:size]), mine, client)
                lobby = partial(page, path="/games/")
                measured["lobby"] = in_process(turns(ids[:size]), lobby, client)
                batch = turns(ids[:size])
                measured["profile"] = in_process(batch, other_profiles(batch, page), client)
            if want_action:
                measured["action"] = in_process(turns(ids[size : 2 * size]), action_in_process)
            batch = turns(ids[2 * size :], logged_in=True)
            measured["page_http"] = server.batch(get := partial(pages_http, client_http, batch))
            if want_page:
                measured["page_http_again"] = server.batch(get)
            if want_action:
                measured["action_http"] = server.batch(partial(actions_http, client_http, batch))
                check_applied(batch)
            for key, figures in measured.items():
                if record and key in series:
                    series[key].add(*figures)
            print(f"  repeat {repeat}{'' if record else ' (warm-up, not counted)'} done")
    floor.conn.close()
    ref = results.reference
    return [*ref.lines(), series["floor"].line()] + [
        item.line(ref) for key, item in series.items() if key != "floor"
    ]


# -- the deadline sweep --------------------------------------------------------------------------
def quiet_moment() -> datetime:
    """A moment just before any running game's deadline or reminder: nothing is due then."""
    from django.db.models import Min

    from games.models import Game, GameStatus

    found = Game.objects.filter(status=GameStatus.RUNNING).aggregate(
        deadline=Min("deadline"), reminder=Min("reminder_at")
    )
    return min(v for v in found.values() if v is not None) - timedelta(minutes=1)


def arm(rng: random.Random, n: int, at: datetime) -> list[int]:
    """Make ``n`` random running games up to an hour overdue at ``at``, reminders sent."""
    from django.db import connection

    ids = running_ids(rng, n)
    lateness = [timedelta(seconds=rng.uniform(1, 3600)) for _ in ids]
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE games_game g SET deadline = v.deadline, reminder_at = NULL, "
            "turn_started_at = v.deadline - make_interval(days => g.days_per_move) "
            "FROM unnest(%s::bigint[], %s::timestamptz[]) AS v(id, deadline) WHERE g.id = v.id",
            [ids, [at - late for late in lateness]],
        )
    return ids


def bench_sweep(args: argparse.Namespace, results: Results) -> list[str]:
    """``sweep_deadlines`` with 0, 0.1% and 1% of the running games made due at a moment
    (time-machine) before anything else is."""
    import time_machine
    from django.utils.timezone import now

    from games import timeouts
    from games.models import Game, GameStatus
    from games.tasks import sweep_deadlines

    rng = random.Random(args.seed + 6)
    running_games = Game.objects.filter(status=GameStatus.RUNNING)
    running = running_games.count()
    if round(running * 0.001) < 1:
        raise SystemExit(f"{running} running games: the sweep needs 0.1% of them (--games 2000)")
    lines = [f"{running:,} running games"]
    shares = {"idle": (0.0, args.sweep_idle_repeats), "tenth": (0.001, 3),
              "full": (0.01, args.sweep_repeats)}  # fmt: skip
    counted: dict[str, int] = {}
    for key, (share, repeats) in shares.items():
        n = counted[key] = round(running * share)
        runs: list[tuple[float, int]] = []
        for _ in range(repeats):
            moment = quiet_moment()
            arm(rng, n, moment)
            with time_machine.travel(moment, tick=True):
                at = now()
                due = (running_games.filter(deadline__lte=at).count(),
                       running_games.filter(reminder_at__lte=at).count())  # fmt: skip
                if due != (n, 0):
                    raise RuntimeError(f"expected {n} timeouts and no reminder due, got {due}")
                if key == "full" and not runs:
                    for name in ("due_reminders", "due_deadlines"):
                        lines += explain(f"{name} (1% due)", getattr(timeouts, name), at)
                with count_queries() as box:
                    counts, elapsed = timed(sweep_deadlines)
                if sum(v for k, v in counts.items() if k.startswith("timeout_")) != n:
                    raise RuntimeError(f"the sweep applied {counts}, not {n} timeouts")
            runs.append((elapsed, box[0]))
        ms = median([r[0] for r in runs])
        results.sweeps[key] = [r[0] for r in runs]
        per_game = f", {ms / n:.1f} ms a game due" if n else ""
        lines.append(
            f"{share:6.1%} due ({n:>4} games): sweep median {ms:9.1f} ms over {len(runs)} runs, "
            f"{median([r[1] for r in runs]):.0f} queries{per_game}"
        )
    idle, tenth, full = (median(results.sweeps[key]) for key in shares)
    per_full, per_tenth = (full - idle) / counted["full"], (tenth - idle) / counted["tenth"]
    factor = per_full / per_tenth
    ok = idle < TARGET_SWEEP_IDLE_SHARE * full and factor < TARGET_SWEEP_PER_GAME_FACTOR
    results.sweep_mark = "PASS" if ok else "MISS"
    results.sweep_verdict = (
        f"nothing due {idle:.1f} ms; per game due {per_full:.1f} ms at 1% vs "
        f"{per_tenth:.1f} ms at 0.1% ({factor:.2f}x)"
    )
    lines.append(
        f"in proportion to the games due: {results.sweep_verdict}  "
        f"[target: idle < {TARGET_SWEEP_IDLE_SHARE:.0%} of the 1% sweep and per-game cost "
        f"within {TARGET_SWEEP_PER_GAME_FACTOR:.0f}x: {results.sweep_mark}]"
    )
    return lines + bench_sweep_bots(args, results)


def bench_sweep_bots(args: argparse.Namespace, results: Results) -> list[str]:
    """``sweep_bots`` with no bot waiting (every seat is a person): next to nothing."""
    from games import bot_play
    from games.tasks import sweep_bots

    times: list[float] = []
    results.sweeps["bots"] = times
    for _ in range(args.sweep_idle_repeats):
        woken, ms = timed(sweep_bots)
        times.append(ms)
        if woken:
            raise RuntimeError(f"sweep_bots woke {woken} games: the fill has no bot seats")
    return [
        f"sweep_bots, nothing waiting: median {median(times):.2f} ms, p95 {p95(times):.2f} ms "
        f"over {len(times)}",
        *explain("games_waiting_for_bots", bot_play.games_waiting_for_bots),
    ]


def explain(name: str, query: Callable[..., Any], *args: Any) -> list[str]:
    """EXPLAIN ANALYZE of the first query ``query(*args)`` sends, as Django sends it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        query(*args)
    with connection.cursor() as cur:
        cur.execute(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {captured.captured_queries[0]['sql']}")
        return [f"EXPLAIN {name}:", *(f"    {row[0]}" for row in cur.fetchall())]


# -- main ----------------------------------------------------------------------------------------
def verdict(key: str, item: Series) -> tuple[str, str]:
    """The series' target as text, and PASS or MISS (empty without a target)."""
    cpu_target, p95_target = TARGETS.get(key, (None, None))
    parts, ok = [], True
    if cpu_target is not None:
        parts.append(f"CPU median <= {cpu_target:.0f} ms")
        ok = ok and bool(item.cpu) and median(item.cpu) <= cpu_target
    if p95_target is not None:
        parts.append(f"p95 < {p95_target:.0f} ms")
        ok = ok and p95(item.wall) < p95_target
    return (", ".join(parts), "PASS" if ok else "MISS") if parts else ("", "")


def summary(results: Results) -> list[str]:
    """The docs' table: each figure, its ratios to the same repeats' reference, the sweeps."""
    ref, sweeps = results.reference, results.sweeps
    rows: list[tuple[str, ...]] = []
    if ref.loop_cpu:
        loop_cell = f"{median(ref.loop_cpu):.2f} ms ({p95(ref.loop_cpu):.2f})"
        rows.append(("reference: pure-Python loop", "", "", loop_cell, "1", "", "", ""))
        rows.append(("reference: SELECT 1 through Django", f"{median(ref.select1):.3f} ms",
                     f"{p95(ref.select1):.3f} ms", "", "", "1", "", ""))  # fmt: skip
    for key, item in results.series.items():
        cpu = loop = ""
        if item.cpu:
            cpu = f"{median(item.cpu):.2f} ms ({p95(item.cpu):.2f}, {item.cpu_of})"
            loop = f"{median(item.cpu) / median(ref.loop_cpu):.2f}x" if ref.loop_cpu else ""
        wall_ratio = f"{median(item.wall) / median(ref.select1):.0f}x" if ref.select1 else ""
        rows.append((item.what, f"{median(item.wall):.2f} ms", f"{p95(item.wall):.2f} ms", cpu,
                     loop, wall_ratio, *verdict(key, item)))  # fmt: skip
    if results.sweep_verdict:
        rows.append((
            "deadline sweep, 0 / 0.1% / 1% of running games due",
            f"{median(sweeps['idle']):.1f} / {median(sweeps['tenth']):.0f} / "
            f"{median(sweeps['full']):.0f} ms", "", "", "", "",
            f"in proportion to games due: {results.sweep_verdict}", results.sweep_mark,
        ))  # fmt: skip
    if "bots" in sweeps:
        rows.append(("sweep_bots (beat, every minute), no bot waiting",
                     f"{median(sweeps['bots']):.1f} ms", f"{p95(sweeps['bots']):.1f} ms",
                     "", "", "", "", ""))  # fmt: skip
    head = ("what", "wall median", "wall p95", "CPU per request, median (p95)", "CPU / loop",
            "wall / SELECT 1", "target", "")  # fmt: skip
    return markdown_table(head, rows)


def main(argv: list[str] | None = None) -> None:
    parser = common.command_line(
        __doc__,
        *SERVICES,
        ("--only", ",".join(PIECES), f"comma-separated pieces of {', '.join(PIECES)}"),
        ("--refill", False, "drop the database and fill again"),
        ("--games", FillPlan.games, "games to fill"),
        ("--trajectories", FillPlan.trajectories, "distinct bot games"),
        ("--repeats", 5, "interleaved repeats (>= 5)"),
        ("--batch", 40, "requests of a kind a repeat"),
        ("--sweep-repeats", 3, "sweeps with 1%% due"),
        ("--sweep-idle-repeats", 20, "sweeps, none due"),
        ("--seed", 2026, "seed of the fill and samples"),
    )
    args = common.parse_args(parser, argv, TINY)
    pieces = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(pieces) - set(PIECES))
    if unknown:
        parser.error(f"unknown piece(s) {', '.join(unknown)}; known: {', '.join(PIECES)}")
    if "floor" in pieces and not {"action", "page"} & set(pieces):
        pieces.append("action")  # the floor is measured in the repeats of the requests
    with common.dated("scale.py", argv, after=False):
        run(
            args, pieces, FillPlan(games=args.games, trajectories=args.trajectories, seed=args.seed)
        )
        print()


def run(args: argparse.Namespace, pieces: list[str], plan: FillPlan) -> None:
    server, _, name = args.db.rpartition("/")
    if args.refill and common.database_exists(server, name):
        print(f"dropping database {name}")
    if common.create_database(server, name, drop=args.refill):
        print(f"creating database {name}")
    configure_django(args.db, args.broker, args.cache)
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0, interactive=False)
    print(f"database {connection.settings_dict['NAME']}; {measure.django_pg_settings()}")
    requests = bool({"action", "page"} & set(pieces))
    if requests:  # DEBUG off: the pages name the hashed files (collected into var/bench/static)
        call_command("collectstatic", verbosity=0, interactive=False)
    results = Results()
    if "fill" in pieces:
        print("\n== fill")
        print("\n".join(bench_fill(args, plan)))
    if requests:
        print(f"\n== requests: {args.repeats} interleaved repeats of {args.batch} requests a "
              "kind (HTTP: gunicorn, one sync worker, on loopback, DEBUG off)")  # fmt: skip
        print("\n".join(bench_requests(args, results, pieces)))
    if "sweep" in pieces:
        print("\n== sweep")
        print("\n".join(bench_sweep(args, results)))
    if requests or "sweep" in pieces:
        from keltis_site.celery import app

        try:  # drop the tasks the actions queued (no worker consumes the benchmark's broker)
            app.control.purge()
        except Exception as exc:  # the figures are printed already; say it and go on
            print(f"could not purge the broker: {exc}")
    if results.sweeps or results.series:  # a run of the requests only has its table too
        print("\n== summary")
        print("\n".join(summary(results)))


if __name__ == "__main__":
    main()
