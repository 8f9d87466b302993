"""Every benchmark in one command, with the run's date, load average and reference loop:

    .venv/bin/python bench/run_all.py [--tiny] [--only engine,scale,...] [--sqlite]
        [--pg postgres://postgres@127.0.0.1:5432] [--tag WORD] [--ports FIRST-LAST] [--drop]
        [--jobs N]

Runs each benchmark of ``BENCHES`` as its own process (each sets up Django with its own
settings) and prints its output under a ``## name`` heading, then a table of what ran, how
long and with what exit status. The reference loop (bench/measure.py) is measured before
and after, with the load average and the date.

``--tiny`` runs every one at a size of seconds (each script's own ``--tiny``): what CI runs
(tests/bench/) so that none can rot. ``--sqlite`` runs only those that need no PostgreSQL
(bench/live.py on the embedded default's SQLite). On PostgreSQL (``--pg``, a superuser's URL
of the server) the databases are keltis_bench, keltis_bench_live, keltis_fanout and
keltis_load, or with ``--tag WORD`` keltis_WORD_bench, keltis_WORD_bench_live,
keltis_WORD_fanout and keltis_WORD_load; ``--drop`` drops them at the end. A private
redis-server is started for the benchmarks that take a Redis URL (scale, profile_action,
ab_action, live); email_fanout and loadtest start their own.

``--jobs N`` runs N groups at once (a group: benchmarks sharing a database, run in order).
Only for checking that they run: figures taken side by side are not figures.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    DEFAULT_PG,
    ROOT,
    drop_database,
    footer,
    header,
    markdown_table,
    parse_args,
    reference_line,
)


@dataclass
class Context:
    """What the benchmarks' command lines are made of."""

    tiny: bool
    sqlite: bool
    pg: str
    tag: str
    ports: range | None
    drop: bool
    redis_port: int = 0
    live_port: int = 0

    def db(self, default: str, tagged: str) -> str:
        """A database's name: the bench's default, or with the tag (``tagged`` has {tag})."""
        return tagged.format(tag=self.tag) if self.tag else default

    @property
    def scale_db(self) -> str:
        return self.db("keltis_bench", "keltis_{tag}_bench")

    @property
    def live_db(self) -> str:
        return self.db("keltis_bench_live", "keltis_{tag}_bench_live")

    @property
    def fanout_db(self) -> str:
        return self.db("keltis_fanout", "keltis_{tag}_fanout")

    @property
    def load_db(self) -> str:
        return self.db("keltis_load", "keltis_{tag}_load")

    def redis(self, db: int, scheme: str = "redis") -> str:
        return f"{scheme}://127.0.0.1:{self.redis_port}/{db}"

    def scale_args(self) -> list[str]:
        return [
            "--db", f"{self.pg}/{self.scale_db}", "--broker", self.redis(0),
            "--cache", self.redis(1, "rediscache"),
        ]  # fmt: skip

    def live_args(self) -> list[str]:
        args = ["--port", str(self.live_port)] if self.live_port else []
        if self.sqlite:
            return [*args, "--sqlite"]
        args += ["--postgres", f"{self.pg}/postgres", "--db", self.live_db]
        return [*args, "--redis", self.redis(2), *(["--drop"] if self.drop else [])]

    def load_args(self) -> list[str]:
        args = ["--pg", self.pg, "--database", self.load_db]
        if self.ports is not None:
            args += ["--ports", f"{self.ports.start}-{self.ports.stop - 1}"]
        return args


@dataclass(frozen=True)
class Bench:
    """One benchmark's run: its script in bench/, what it needs, its arguments."""

    name: str
    script: str
    #: benchmarks of one group share a database and run in order
    group: str
    postgres: bool = False
    args: Callable[[Context], list[str]] = lambda ctx: []
    #: needs a Redis of run_all's (the private one)
    redis: bool = False
    #: needs bench/scale.py's filled database
    filled: bool = False


BENCHES: list[Bench] = [
    Bench("engine", "engine.py", "engine"),
    Bench("engine_checksum", "engine_checksum.py", "engine"),
    Bench("bots", "bots.py", "engine"),
    Bench("pairing", "pairing.py", "engine"),
    Bench("history_page", "history_page.py", "history_page"),
    Bench("live", "live.py", "live", args=Context.live_args, redis=True),
    Bench("scale", "scale.py", "scale", True, Context.scale_args, redis=True),
    Bench("profile_action", "profile_action.py", "scale", True, Context.scale_args, True, True),
    Bench(
        "profile_action --http",
        "profile_action.py",
        "scale",
        True,
        lambda ctx: [*ctx.scale_args(), "--http"],
        True,
        True,
    ),
    Bench("ab_action", "ab_action.py", "scale", True, Context.scale_args, True, True),
    Bench(
        "email_fanout",
        "email_fanout.py",
        "email_fanout",
        True,
        lambda ctx: ["--pg", ctx.pg, "--database", ctx.fanout_db],
    ),
    Bench(
        "email_cpu",
        "email_cpu.py",
        "email_fanout",
        True,
        lambda ctx: ["--pg", ctx.pg, "--database", ctx.fanout_db],
    ),
    Bench("loadtest", "loadtest.py", "loadtest", True, Context.load_args),
]
#: the scripts in bench/ that are not benchmarks but what they share
LIBRARIES = {
    "__init__.py", "__main__.py", "common.py", "gunicorn_profile.py", "infra.py", "measure.py",
    "players.py", "run_all.py", "scale_settings.py",
}  # fmt: skip


@dataclass
class Outcome:
    bench: Bench
    command: list[str]
    returncode: int
    seconds: float
    output: str = ""  # captured (--jobs > 1), else printed as it came


def run_one(bench: Bench, ctx: Context, capture: bool, extra: list[str] | None = None) -> Outcome:
    command = [
        sys.executable, str(ROOT / "bench" / bench.script), *bench.args(ctx), *(extra or []),
        *(["--tiny"] if ctx.tiny else []),
    ]  # fmt: skip
    started = time.perf_counter()
    if not capture:
        print(f"\n## {bench.name}: {' '.join(command[1:])}", flush=True)
    done = subprocess.run(
        command, cwd=ROOT, text=True, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.STDOUT if capture else None,
    )  # fmt: skip
    return Outcome(bench, command, done.returncode, time.perf_counter() - started, done.stdout)


def run_group(benches: list[Bench], ctx: Context, capture: bool) -> list[Outcome]:
    """A group's benchmarks in order; one that needs the fill runs bench/scale.py's fill
    first when the group has no bench/scale.py of its own."""
    outcomes = []
    if any(b.filled for b in benches) and not any(b.script == "scale.py" for b in benches):
        fill = next(b for b in BENCHES if b.script == "scale.py")
        outcomes.append(
            run_one(
                Bench("scale --only fill", "scale.py", fill.group, True, fill.args), ctx,
                capture, ["--only", "fill"],
            )
        )  # fmt: skip
    for bench in benches:
        outcomes.append(run_one(bench, ctx, capture))
    return outcomes


def free_port(ports: range | None) -> int:
    for port in ports or range(8450, 8500):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"no free port in {ports}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated names of BENCHES")
    parser.add_argument("--sqlite", action="store_true", help="only those without PostgreSQL")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL server (a superuser's)")
    parser.add_argument("--tag", default="", help="a word in every database's name")
    parser.add_argument("--ports", default="", help="loopback ports to use, e.g. 18500-18599")
    parser.add_argument("--drop", action="store_true", help="drop the databases at the end")
    parser.add_argument("--jobs", type=int, default=1, help="groups run at once")
    args = parse_args(parser, argv, {})
    if args.tag and not re.fullmatch(r"[a-z0-9]+", args.tag):
        parser.error("--tag: lower-case letters and digits only")
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - {b.name for b in BENCHES})
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}; known: {', '.join(b.name for b in BENCHES)}")
    chosen = [
        b for b in BENCHES if (not names or b.name in names) and not (args.sqlite and b.postgres)
    ]
    first, _, last = args.ports.partition("-")
    ports = range(int(first), int(last or first) + 1) if first else None
    ctx = Context(args.tiny, args.sqlite, args.pg.rstrip("/"), args.tag, ports, args.drop)

    started = time.perf_counter()
    print("\n".join(header("bench/run_all.py " + " ".join(argv or sys.argv[1:]))))
    print(reference_line(), flush=True)
    outcomes: list[Outcome] = []
    with ExitStack() as stack:
        if any(b.redis for b in chosen) and not (args.sqlite and all(
            b.name == "live" for b in chosen if b.redis
        )):  # fmt: skip
            from bench.infra import PrivateRedis, use_ports

            if ports is not None:
                use_ports(ports)
            redis = PrivateRedis().start()
            stack.callback(redis.stop)
            ctx.redis_port = redis.port
        if any(b.name == "live" for b in chosen):
            ctx.live_port = free_port(ports)
            if ports is not None:  # the load test's services keep off the stream server's
                ctx.ports = range(ctx.live_port + 1, ports.stop)
        if args.drop and not args.sqlite:
            stack.callback(drop_all, ctx, chosen)
        groups: dict[str, list[Bench]] = {}
        for bench in chosen:
            groups.setdefault(bench.group, []).append(bench)
        if args.jobs <= 1:
            for benches in groups.values():
                outcomes += run_group(benches, ctx, capture=False)
        else:
            with ThreadPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(run_group, b, ctx, True) for b in groups.values()]
                for future in futures:
                    for outcome in future.result():
                        print(f"\n## {outcome.bench.name}: {' '.join(outcome.command[1:])}")
                        print(outcome.output, end="", flush=True)
                        outcomes.append(outcome)
    print("\n## all")
    rows = [
        (o.bench.name, "ok" if o.returncode == 0 else f"FAILED (exit {o.returncode})",
         f"{o.seconds:.1f} s")
        for o in outcomes
    ]  # fmt: skip
    print("\n".join(markdown_table(("benchmark", "ran", "wall time"), rows)))
    print(reference_line())
    print("\n".join(footer(started)))
    return 0 if all(o.returncode == 0 for o in outcomes) else 1


def drop_all(ctx: Context, chosen: list[Bench]) -> None:
    """Drop the PostgreSQL databases of the benchmarks that ran (bench/live.py's role too)."""
    scripts = {b.script for b in chosen if b.postgres or b.name == "live"}
    names = {
        "scale.py": ctx.scale_db, "profile_action.py": ctx.scale_db,
        "ab_action.py": ctx.scale_db, "live.py": ctx.live_db, "email_fanout.py": ctx.fanout_db,
        "loadtest.py": ctx.load_db,
    }  # fmt: skip
    for name in sorted({names[s] for s in scripts if s in names}):
        drop_database(ctx.pg, name, role=name == ctx.live_db)
        print(f"dropped database {name}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")  # the benches' lines as they come
    sys.exit(main())
