"""Every benchmark in one command, with the run's date, load average and reference loop
(docs/benchmarks.md; ``--tiny`` is what CI runs, tests/bench/).

``--jobs N`` runs N groups (benchmarks sharing a database) at once: to check they run only.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from bench.common import DEFAULT_PG, ROOT, command_line, dated, markdown_table, parse_args
from bench.infra import PrivateRedis, free_port, parse_ports, use_ports


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

    def db(self, name: str) -> str:
        """A database's name: keltis_bench_live, or with the tag keltis_WORD_bench_live."""
        return f"keltis_{self.tag}_{name}" if self.tag else f"keltis_{name}"

    def redis(self, db: int, scheme: str = "redis") -> str:
        return f"{scheme}://127.0.0.1:{self.redis_port}/{db}"

    def scale_args(self) -> list[str]:
        return [
            "--db", f"{self.pg}/{self.db('bench')}", "--broker", self.redis(0),
            "--cache", self.redis(1, "rediscache"),
        ]  # fmt: skip

    def live_args(self) -> list[str]:
        args = ["--port", str(self.live_port)] if self.live_port else []
        if self.sqlite:
            return [*args, "--sqlite"]
        args += ["--postgres", f"{self.pg}/postgres", "--db", self.db("bench_live")]
        return [*args, "--redis", self.redis(2), *(["--drop"] if self.drop else [])]

    def load_args(self) -> list[str]:
        args = ["--pg", self.pg, "--database", self.db("load")]
        if self.ports is not None:
            args += ["--ports", f"{self.ports.start}-{self.ports.stop - 1}"]
        return args


@dataclass(frozen=True)
class Bench:
    """One benchmark: its script, group (sharing a database, run in order), whether it needs
    PostgreSQL, run_all's Redis, bench/scale.py's fill; its arguments and database."""

    name: str
    script: str
    group: str
    postgres: bool = False
    args: Callable[[Context], list[str]] = lambda ctx: []
    redis: bool = False
    filled: bool = False
    database: str = ""


SCALE = {"postgres": True, "args": Context.scale_args, "redis": True, "database": "bench"}
FANOUT = {
    "postgres": True, "database": "fanout",
    "args": lambda ctx: ["--pg", ctx.pg, "--database", ctx.db("fanout")],
}  # fmt: skip
HTTP = {**SCALE, "args": lambda ctx: [*ctx.scale_args(), "--http"]}
BENCHES: list[Bench] = [
    Bench("engine", "engine.py", "engine"),
    Bench("engine_checksum", "engine_checksum.py", "engine"),
    Bench("bots", "bots.py", "engine"),
    Bench("pairing", "pairing.py", "engine"),
    Bench("history_page", "history_page.py", "history_page"),
    Bench("live", "live.py", "live", args=Context.live_args, redis=True, database="bench_live"),
    Bench("scale", "scale.py", "scale", **SCALE),
    Bench("profile_action", "profile_action.py", "scale", filled=True, **SCALE),
    Bench("profile_action --http", "profile_action.py", "scale", filled=True, **HTTP),
    Bench("ab_action", "ab_action.py", "scale", filled=True, **SCALE),
    Bench("email_fanout", "email_fanout.py", "email_fanout", **FANOUT),
    Bench("email_cpu", "email_cpu.py", "email_fanout", **FANOUT),
    Bench("loadtest", "loadtest.py", "loadtest", True, Context.load_args, database="load"),
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
    out = subprocess.PIPE if capture else None
    done = subprocess.run(command, cwd=ROOT, text=True, stdin=subprocess.DEVNULL, stdout=out,
                          stderr=subprocess.STDOUT if capture else None)  # fmt: skip
    return Outcome(bench, command, done.returncode, time.perf_counter() - started, done.stdout)


def run_group(benches: list[Bench], ctx: Context, capture: bool) -> list[Outcome]:
    """A group's benchmarks in order, after bench/scale.py's fill if one needs it."""
    outcomes = []
    if any(b.filled for b in benches) and not any(b.script == "scale.py" for b in benches):
        fill = Bench("scale --only fill", "scale.py", "scale", **SCALE)
        outcomes.append(run_one(fill, ctx, capture, ["--only", "fill"]))
    return outcomes + [run_one(bench, ctx, capture) for bench in benches]


def run_groups(chosen: list[Bench], ctx: Context, jobs: int) -> list[Outcome]:
    """The groups in turn, or ``jobs`` at once (output printed as each ends)."""
    groups: dict[str, list[Bench]] = {}
    for bench in chosen:
        groups.setdefault(bench.group, []).append(bench)
    if jobs <= 1:
        return [o for benches in groups.values() for o in run_group(benches, ctx, False)]
    outcomes = []
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_group, b, ctx, True) for b in groups.values()]
        for future in futures:
            for outcome in future.result():
                print(f"\n## {outcome.bench.name}: {' '.join(outcome.command[1:])}")
                print(outcome.output, end="", flush=True)
                outcomes.append(outcome)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = command_line(
        __doc__,
        ("--only", "", "comma-separated names of BENCHES"),
        ("--sqlite", False, "only those without PostgreSQL"),
        ("--pg", DEFAULT_PG, "PostgreSQL server (a superuser's)"),
        ("--tag", "", "a word in every database's name"),
        ("--ports", "", "loopback ports to use, e.g. 18500-18599"),
        ("--drop", False, "drop the databases at the end"),
        ("--jobs", 1, "groups run at once"),
    )
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
    ports = parse_ports(args.ports) if args.ports else None
    ctx = Context(args.tiny, args.sqlite, args.pg.rstrip("/"), args.tag, ports, args.drop)

    with dated("run_all.py", argv, before=True):
        with ExitStack() as stack:
            if ports is not None:
                use_ports(ports)
            if any(b.redis and not (args.sqlite and b.name == "live") for b in chosen):
                ctx.redis_port = stack.enter_context(PrivateRedis()).port
            if any(b.name == "live" for b in chosen):
                ctx.live_port = free_port(ports or range(8450, 8500))
                if ports is not None:  # the load test's services keep off the stream server's
                    ctx.ports = range(ctx.live_port + 1, ports.stop)
            if args.drop and not args.sqlite:
                stack.callback(drop_all, ctx, chosen)
            outcomes = run_groups(chosen, ctx, args.jobs)
        print("\n## all")
        rows = [
            (o.bench.name, "ok" if o.returncode == 0 else f"FAILED (exit {o.returncode})",
             f"{o.seconds:.1f} s")
            for o in outcomes
        ]  # fmt: skip
        print("\n".join(markdown_table(("benchmark", "ran", "wall time"), rows)))
    return 0 if all(o.returncode == 0 for o in outcomes) else 1


def drop_all(ctx: Context, chosen: list[Bench]) -> None:
    """Drop the PostgreSQL databases of the benchmarks that ran (bench/live.py's role too)."""
    for name in sorted({b.database for b in chosen if b.database}):
        common.drop_database(ctx.pg, ctx.db(name), role=name == "bench_live")
        print(f"dropped database {ctx.db(name)}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")  # the benches' lines as they come
    sys.exit(main())
