"""Live pages under load, by hand (issue 31; docs/benchmarks.md says what it prints and how
it counts connections):

    .venv/bin/python bench/live.py [--pages 1000,5000] [--db keltis_bench_live] [--port 8450]
        [--redis redis://127.0.0.1:6379/13] [--connection-limit 50] [--drop] [--tiny]
    .venv/bin/python bench/live.py --sqlite [--pages 1000]   # the embedded default

For each size: a fresh stream server (uvicorn, DEBUG off), N Server-Sent Events streams, one
move through ``action_submit`` here and each stream's latency from its commit, the server's
memory, CPU and database connections (on PostgreSQL a role with a connection limit, on SQLite
its open handles of the file); then moves, page reads and the reference, the streams open.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import ROOT, markdown_table
from bench.infra import free_port, manage, port_free, serve, stop_process
from bench.measure import Reference, Series, django_pg_settings, median, p95
from bench.measure import process_cpu_ms as cpu_ms

TINY = {"pages": [5], "repeats": 2, "timeout": 30.0}
#: the ports this bench takes the first free one of
PORTS = range(8450, 8500)
#: issue 31: a move's event reaches 95% of the open pages within this
WITHIN_S = 2.0
#: application_name of each process's connections (how pg_stat_activity tells them apart)
SERVER_APP = "keltis-bench-live-stream"
BENCH_APP = "keltis-bench-live"
#: the stream server's per-visitor caps (live/), lifted above the streams opened
CAP_VARIABLES = (
    "LIVE_STREAMS_PER_ADDRESS", "LIVE_STREAMS_PER_USER", "LIVE_STREAM_OPENS_PER_MINUTE",
)  # fmt: skip

T = TypeVar("T")
Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


def sizes(text: str) -> list[int]:
    values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: at least one number of streams, each >= 1")
    return values


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = common.command_line(
        __doc__,
        ("--pages", [1000], "streams, e.g. 1000,5000", {"type": sizes}),
        ("--postgres", f"{common.DEFAULT_PG}/postgres", "a superuser's URL"),
        ("--connection-limit", 50, "connections the database's role may hold (-1: no limit)"),
        ("--drop", False, "drop the database and role after"),
        ("--port", 0, f"default: the first free of {PORTS}"),
        ("--redis", "", "Redis pub/sub URL of the transport (default: Unix socket)"),
        ("--repeats", 5, "moves and page reads meanwhile"),
        ("--concurrency", 100, "streams opening at once"),
        ("--timeout", 60.0, "s to open or hear a stream"),
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", default="keltis_bench_live", help="the PostgreSQL database's name")
    where.add_argument("--sqlite", action="store_true", help="a SQLite file instead")
    return common.parse_args(parser, argv, TINY)


# -- this machine --------------------------------------------------------------------------------
def proc_status(pid: int, key: str) -> int:
    """/proc/<pid>/status's number for ``key`` (VmRSS in kB, Threads); 0 once gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1])
    return 0


def open_handles(pid: int, path: Path) -> int:
    """How many of the process's file descriptors are ``path`` (SQLite: a connection each)."""
    count = 0
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                count += os.readlink(fd) == str(path)
    return count


# -- the database --------------------------------------------------------------------------------
class Postgres:
    """The bench database on a shared server, its role of the same name, and the superuser's
    connection that counts connections."""

    def __init__(self, admin_url: str, name: str) -> None:
        try:
            self.name = common.bench_database(name)
        except ValueError as exc:
            raise SystemExit(f"bench/live.py: {exc} (its name must say bench)") from None
        self.admin_url = admin_url
        self.server = admin_url.rsplit("/", 1)[0]
        self.monitor: Any = None

    def url(self, application_name: str) -> str:
        """The role's URL of the bench database (no password: trust on loopback)."""
        parts = urlsplit(self.admin_url)
        netloc = f"{self.name}@{parts.hostname or '127.0.0.1'}:{parts.port or 5432}"
        query = f"application_name={application_name}"
        return urlunsplit((parts.scheme, netloc, f"/{self.name}", query, ""))

    def prepare(self, connection_limit: int) -> str:
        """The role (with its connection limit) and its database, created if missing (says
        which); a database of another owner stops the run."""
        import psycopg
        from psycopg import sql

        role = sql.Identifier(self.name)
        self.monitor = cur = psycopg.connect(
            self.admin_url, autocommit=True, application_name="keltis-bench-live-monitor"
        )
        owner = cur.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [self.name]
        ).fetchone()
        if owner and owner[0] != self.name:
            raise SystemExit(
                f"bench/live.py: database {self.name!r} exists, owned by {owner[0]!r}: not one "
                "this bench made; choose another --db"
            )
        row = cur.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = %s", [self.name]
        ).fetchone()
        if row and row[0]:
            raise SystemExit(f"bench/live.py: role {self.name!r} is a superuser: not ours")
        if not row:
            cur.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
        cur.execute(
            sql.SQL("ALTER ROLE {} NOSUPERUSER NOCREATEDB NOCREATEROLE CONNECTION LIMIT {}").format(
                role, sql.Literal(connection_limit)
            )
        )
        if owner:
            return "reused"
        common.create_database(self.server, self.name, owner=self.name)
        return "created"

    def connections(self) -> str:
        """pg_stat_activity's rows of the bench database but this process's, and how counted."""
        total, own, named = self.monitor.execute(
            "SELECT count(*), count(*) FILTER (WHERE application_name = %s),"
            " count(*) FILTER (WHERE application_name = %s)"
            " FROM pg_stat_activity WHERE datname = %s",
            [BENCH_APP, SERVER_APP, self.name],
        ).fetchone()
        return (
            f"{total - own} (pg_stat_activity rows of {self.name}: {total}, minus this "
            f"process's {own}; rows named {SERVER_APP}: {named})"
        )

    def settings_line(self) -> str:
        row = self.monitor.execute(
            "SELECT current_setting('max_connections'),"
            " current_setting('superuser_reserved_connections'),"
            " (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')"
        ).fetchone()
        return f"max_connections {row[0]} ({row[1]} reserved for superusers), {row[2]} in use now"

    def new_connection(self) -> str:
        """Whether one more connection of the role is accepted now, and in how long."""
        import psycopg

        started = time.perf_counter()
        try:
            with psycopg.connect(self.url(BENCH_APP + "-probe"), connect_timeout=10) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as exc:
            return "refused: " + str(exc).strip().splitlines()[-1][:160]
        return f"accepted in {(time.perf_counter() - started) * 1000:.1f} ms"


# -- the site's processes ------------------------------------------------------------------------
def site_env(folder: Path, database_url: str, pubsub_url: str) -> dict[str, str]:
    """Production's settings for the site's processes here, its static files, task queue and
    cache in ``folder`` (no task reaches anybody's worker)."""
    return common.production_env(
        DJANGO_SETTINGS_MODULE=common.settings_module(folder, "bench_live_settings"),
        PYTHONPATH=os.pathsep.join(
            p for p in (str(folder), str(ROOT), os.environ.get("PYTHONPATH")) if p
        ),
        VAR_DIR=str(folder / "var"), DATABASE_URL=database_url, CELERY_BROKER_URL="filesystem://",
        CELERY_TASK_ALWAYS_EAGER="False", CACHE_URL=f"filecache://{folder / 'var' / 'cache'}",
        LIVE_PUBSUB_URL=pubsub_url,
        LIVE_CHANNEL=f"keltis:live:bench:{os.getpid()}",  # pub/sub ignores the db number
        LOG_LEVEL="WARNING", LOG_FORMAT="plain",
    )  # fmt: skip


@contextlib.contextmanager
def stream_server(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    if not port_free(port):
        raise SystemExit(f"bench/live.py: port {port} is taken")
    server = serve(
        [
            sys.executable, "-m", "uvicorn", "keltis_site.asgi:application", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning", "--no-access-log",
            "--timeout-graceful-shutdown", "1", "--backlog", "4096",
        ],
        {**os.environ, **env}, log, port,
    )  # fmt: skip
    try:
        yield server
    finally:
        stop_process(server)


def log_summary(log: Path, start: int) -> str:
    """The stream server's log from byte ``start``: lines, and the last error."""
    try:
        lines = log.read_bytes()[start:].decode(errors="replace").splitlines()
    except OSError:
        return "no log"
    errors = [line for line in lines if re.search(r"Error|error|FATAL", line)]
    last = f"; last error line: {errors[-1].strip()[:200]}" if errors else ""
    return f"{len(lines)} lines, {len(errors)} naming an error ({log}){last}"


# -- this process's Django: one thread, so one connection ----------------------------------------
class Site:
    """The site's services in this process, every call in one thread (so one connection)."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="django")
        self.runs = 0

    def close(self) -> None:
        from django.db import connections

        with contextlib.suppress(Exception):
            self.call(connections.close_all)
        self.pool.shutdown()

    def call(self, func: Callable[..., T], *args: Any) -> T:
        return self.pool.submit(func, *args).result()

    async def acall(self, func: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, func, *args)

    def game(self) -> tuple[int, list[Any]]:
        """A running two-player game of new players, its page read once."""
        from accounts.models import User
        from games.services import game_create, game_join

        self.runs += 1
        tag = f"{os.getpid()}-{int(time.time())}-{self.runs}"
        users = [
            User.objects.create_user(username=n, email=f"{n}@example.test", password=None)
            for n in (f"anna-{tag}", f"bela-{tag}")
        ]
        game = game_create(creator=users[0], kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=users[1])
        self.page(game.pk, users[0])  # once untimed: its templates compiled, its queries warm
        return game.pk, users

    @staticmethod
    def _action(game_id: int, users: list[Any]) -> dict[str, Any]:
        from games.engine.bots import RandomBot
        from games.models import Game
        from games.services import engine_state

        game = Game.objects.get(pk=game_id)
        return {
            "game_id": game_id, "seat": game.to_move, "expected_seq": game.seq,
            "action": RandomBot(game.seq).choose(engine_state(game)),
            "user": users[game.to_move],
        }  # fmt: skip

    def first_move(self, game_id: int, users: list[Any]) -> tuple[float, float]:
        """A move: when it committed (a hook before the action's own) and when it returned."""
        from django.db import transaction

        from games.services import action_submit

        kwargs = self._action(game_id, users)
        committed: list[float] = []
        with transaction.atomic():
            transaction.on_commit(lambda: committed.append(time.perf_counter()))
            action_submit(**kwargs)
        return committed[0], time.perf_counter()

    def move(self, game_id: int, users: list[Any]) -> tuple[float, float]:
        """Another move: its wall ms and this thread's CPU ms."""
        from games.services import action_submit

        start, cpu = time.perf_counter(), time.thread_time()
        action_submit(**self._action(game_id, users))
        return (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000

    def page(self, game_id: int, user: Any) -> tuple[float, float]:
        """The game page as its player reads it (test client): wall and CPU ms."""
        from django.test import Client

        client = Client()
        client.force_login(user)
        start, cpu = time.perf_counter(), time.thread_time()
        response = client.get(f"/games/{game_id}/")
        wall, cpu = (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000
        if response.status_code != 200:
            raise RuntimeError(f"the game page answered {response.status_code}")
        return wall, cpu


# -- the streams ---------------------------------------------------------------------------------
async def open_stream(port: int, game_id: int, timeout: float) -> tuple[str, Stream | None]:
    """One page's stream: ("open", it) once its first line came, else what came instead."""
    writer = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(
                f"GET /live/events/?game={game_id} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = head.split(None, 2)[1].decode()
            if status != "200":
                writer.close()
                return f"HTTP {status}", None
            await reader.readuntil(b"retry:")  # its first line: subscribed, marks read
            return "open", (reader, writer)
    except TimeoutError:
        outcome = "timeout"
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
        outcome = type(exc).__name__
    if writer is not None:
        writer.close()
    return outcome, None


async def hear(stream: Stream) -> float:
    await stream[0].readuntil(b"event: change")
    return time.perf_counter()


@dataclass
class Result:
    """One size's figures (the run's summary table)."""

    asked: int
    outcomes: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)  # s, of the streams that heard
    rss: tuple[float, float] = (0.0, 0.0)
    connections: str = "n/a"
    move: Series = field(
        default_factory=lambda: Series("move (action_submit, publish included)", cpu_of="thread")
    )
    page: Series = field(
        default_factory=lambda: Series("game page (test client, its player)", cpu_of="thread")
    )

    @property
    def open(self) -> int:
        return self.outcomes["open"]

    @property
    def within(self) -> int:
        return sum(1 for t in self.latencies if t <= WITHIN_S)

    def per_stream_kib(self) -> float | None:
        return (self.rss[1] - self.rss[0]) * 1024 / self.open if self.open else None


def ms(values: list[float], pick: Callable[[list[float]], float]) -> str:
    return f"{pick(values) * 1000:.0f} ms" if values else "-"


def cpu_used(what: str, before: float | None, after: float | None) -> str:
    return f"{what} {after - before:.0f} ms" if before is not None and after is not None else ""


async def measure(
    args: argparse.Namespace, site: Site, db: Postgres | None, db_file: Path | None,
    server: subprocess.Popen[bytes], port: int, pages: int,
) -> Result:  # fmt: skip
    result = Result(pages)
    pid = server.pid
    game_id, users = await site.acall(site.game)
    print(f"game {game_id}: a running two-player game, its page open to visitors")

    def connections() -> str:
        if db is not None:
            return db.connections()
        assert db_file is not None
        return f"{open_handles(pid, db_file)} open handles of {db_file.name} (/proc/{pid}/fd)"

    # a first stream, opened and closed: the server has imported and connected once
    outcome, warm = await open_stream(port, game_id, args.timeout)
    if warm is not None:
        warm[1].close()
    await asyncio.sleep(0.5)
    rss_before, cpu_before = proc_status(pid, "VmRSS") / 1024, cpu_ms(pid)
    print(
        f"stream server (pid {pid}) before: RSS {rss_before:.1f} MiB, "
        f"{proc_status(pid, 'Threads')} threads; database connections {connections()}; "
        f"warm-up stream: {outcome}"
    )
    gate = asyncio.Semaphore(args.concurrency)

    async def one() -> tuple[str, Stream | None]:
        async with gate:
            return await open_stream(port, game_id, args.timeout)

    started = time.perf_counter()
    opened = await asyncio.gather(*(one() for _ in range(pages)))
    took = time.perf_counter() - started
    streams = [stream for _, stream in opened if stream is not None]
    try:
        result.outcomes.update(outcome for outcome, _ in opened)
        refused = ", ".join(f"{n} {w}" for w, n in result.outcomes.most_common() if w != "open")
        print(
            f"{len(streams)} of {pages} streams open in {took:.1f} s; refused or failed: "
            f"{pages - len(streams)}{f' ({refused})' if refused else ''}"
        )
        await asyncio.sleep(1.0)  # the server settles (threads of refused streams end)
        rss_after, cpu_opened = proc_status(pid, "VmRSS") / 1024, cpu_ms(pid)
        result.rss = (rss_before, rss_after)
        result.connections = connections()
        per = result.per_stream_kib()
        print(
            f"stream server after: RSS {rss_after:.1f} MiB, {proc_status(pid, 'Threads')} "
            f"threads; memory per open stream {f'{per:.1f} KiB' if per is not None else '-'}"
            + cpu_used("; its CPU for the opening", cpu_before, cpu_opened)
        )
        if len(streams) < pages and per is not None:
            print(
                f"  (the difference includes the server's work on the {pages - len(streams)} "
                "refused streams, whose memory it does not give back: not a stream's cost)"
            )
        print(f"stream server's database connections: {result.connections}")
        if db is not None:
            print(f"a new connection of the site's role to {db.name} now: {db.new_connection()}")

        # the move, and each open stream's latency from its commit
        waits = [asyncio.ensure_future(hear(stream)) for stream in streams]
        await asyncio.sleep(0.5)
        cpu_fan = cpu_ms(pid)
        try:
            committed, returned = await site.acall(site.first_move, game_id, users)
        except Exception as exc:  # a refused connection: said, and the run goes on
            print(f"the move failed: {type(exc).__name__}: {str(exc).strip()[:200]}")
            for wait in waits:
                wait.cancel()
            return result
        done, pending = await asyncio.wait(waits, timeout=args.timeout) if waits else ((), ())
        cpu_fanned = cpu_ms(pid)
        for wait in pending:
            wait.cancel()
        heard = sorted(
            w.result() - committed for w in done if not w.cancelled() and not w.exception()
        )
        result.latencies = heard
        share = f"{result.within / len(streams):.1%}" if streams else "-"
        print(
            f"the move committed; action_submit returned {(returned - committed) * 1000:.1f} ms "
            "later (its after-commit hooks, the publish among them)"
        )
        fan_cpu = cpu_used("; the stream server's CPU for the fan-out", cpu_fan, cpu_fanned)
        print(
            f"delivery from commit: {len(heard)} of {len(streams)} open streams heard the move "
            f"(not within {args.timeout:.0f} s: {len(streams) - len(heard)}); p50 "
            f"{ms(heard, median)}, p95 {ms(heard, p95)}, max {ms(heard, max)}; "
            f"within {WITHIN_S:.0f} s: {result.within} of {len(streams)} open ({share}), "
            f"{result.within} of {pages} asked ({result.within / pages:.1%}){fan_cpu}"
        )

        # the streams still open: do moves and pages keep answering?
        ref = Reference()
        failures: Counter[str] = Counter()

        def attempt(what: str, func: Callable[..., Any], *a: Any) -> Any:
            try:
                return func(*a)
            except Exception as exc:
                failures[f"{what}: {type(exc).__name__}: {str(exc).strip()[:160]}"] += 1

        timed = ((result.page, site.page, users[0]), (result.move, site.move, users))

        def repeats() -> None:  # interleaved: the three share the minutes of the run
            for _ in range(args.repeats):
                for series, func, who in timed:
                    if figures := attempt(series.what, func, game_id, who):
                        series.add([figures[0]], figures[1])
                attempt("reference", ref.measure)

        await site.acall(repeats)
        print(f"meanwhile, {len(streams)} streams open, {args.repeats} repeats in this process:")
        for series in (result.page, result.move):
            print("  " + (series.line(ref) if series.wall else f"{series.what}: no answer"))
        for line in ref.lines() if ref.loop_cpu else []:
            print("  " + line)
        for what, n in failures.items():
            print(f"  failed {n}x: {what}")
    finally:
        for stream in streams:
            stream[1].close()
    return result


# -- the run -------------------------------------------------------------------------------------
def summary(results: list[Result]) -> list[str]:
    def wall(s: Series) -> str:
        return f"{median(s.wall):.0f} / {p95(s.wall):.0f} ms" if s.wall else "-"

    rows = []
    for r in results:
        per = r.per_stream_kib()
        rows.append((
            f"{r.asked:,}", f"{r.open:,}", f"{r.asked - r.open:,}", ms(r.latencies, median),
            ms(r.latencies, p95), ms(r.latencies, max),
            f"{r.within:,} ({r.within / r.asked:.1%})", f"{r.rss[0]:.0f} → {r.rss[1]:.0f} MiB",
            f"{per:.0f} KiB" if per is not None else "-", r.connections.split(" ", 1)[0],
            wall(r.move), wall(r.page),
        ))  # fmt: skip
    head = (
        "streams asked", "open", "refused or failed", "p50", "p95", "max",
        "within 2 s (of asked)", "RSS before → after", "per stream",
        "DB connections of the stream server", "move p50 / p95", "page p50 / p95",
    )  # fmt: skip
    return markdown_table(head, rows)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    with common.dated("live.py", argv, after=False):
        return run(args)


def run(args: argparse.Namespace) -> int:
    # the soft limit of open files up to the hard one (the stream server inherits it)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    db = None if args.sqlite else Postgres(args.postgres, args.db)  # the name checked first
    port = args.port or free_port(PORTS)
    folder = Path(tempfile.mkdtemp(prefix="bench-live-"))
    db_file = folder / "db.sqlite3" if args.sqlite else None
    transport = args.redis or f"unix://{folder / 'var' / 'live.sock'}"
    ok = False
    site: Site | None = None
    try:
        if db is not None:
            done = db.prepare(args.connection_limit)
            limit = "none" if args.connection_limit < 0 else args.connection_limit
            print(
                f"database: PostgreSQL {db.name} ({done}), as role {db.name} (connection "
                f"limit {limit}); server: {db.settings_line()}"
            )
        else:
            print(f"database: SQLite {db_file}")
        env = site_env(folder, db.url(BENCH_APP) if db else f"sqlite:///{db_file}", transport)
        print(
            f"transport: {'Redis pub/sub ' + args.redis if args.redis else 'Unix socket'}; "
            f"stream server on 127.0.0.1:{port}; open files: soft limit {soft} (hard {hard}), "
            f"the stream server's the same"
        )
        manage({**os.environ, **env}, "migrate")
        manage({**os.environ, **env}, "collectstatic", "--noinput")  # DEBUG off: hashed names
        common.setup_django(env)
        logging.getLogger("kombu").setLevel(logging.ERROR)  # the file queue's hostname notice
        from django.conf import settings

        site = Site()
        if db is not None:
            print(site.call(django_pg_settings))
        source = "from the environment" if "LIVE_DB_THREADS" in os.environ else "the default"
        print(f"LIVE_DB_THREADS: {settings.LIVE_DB_THREADS} ({source})")
        if max(args.pages) + 100 > soft:
            print(f"warning: {max(args.pages)} streams need more open files than {soft}")
        server_url = db.url(SERVER_APP) if db is not None else env["DATABASE_URL"]
        log = folder / "stream-server.log"
        results = []
        for pages in args.pages:
            caps = {name: str(pages * 2 + 100) for name in CAP_VARIABLES}
            lifted = ", ".join(f"{k}={v}" for k, v in caps.items())
            print(f"\n== {pages:,} streams; caps lifted: {lifted}")
            start = log.stat().st_size if log.exists() else 0
            with stream_server({**env, **caps, "DATABASE_URL": server_url}, port, log) as server:
                results.append(asyncio.run(measure(args, site, db, db_file, server, port, pages)))
            print(f"stream server's log: {log_summary(log, start)}")
        print("\n" + "\n".join(summary(results)))
        ok = all(r.latencies for r in results)
        if not ok:
            print("no delivery figure for some size: no open stream heard the move")
    finally:
        if site is not None:
            site.close()
        if db is not None:
            if db.monitor is not None:
                db.monitor.close()
            if args.drop:
                common.drop_database(db.server, db.name, role=True)
                print(f"dropped database and role {db.name}")
        if ok or not (folder / "stream-server.log").exists():  # nothing to read there
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"kept {folder} (the stream server's log, the settings)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
