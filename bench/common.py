"""What the benchmarks repeat: ``--tiny`` (tests/bench/), the dated header and footer with the
reference loop, Markdown tables, the verdict, and their own PostgreSQL databases."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.measure import REFERENCE_LOOP, load_average, machine, median, python_loop

ROOT = Path(__file__).resolve().parent.parent
#: the PostgreSQL server the benchmarks use by default (loopback, trust auth)
DEFAULT_PG = "postgres://postgres@127.0.0.1:5432"


def command_line(doc: str, *options: tuple[Any, ...]) -> argparse.ArgumentParser:
    """A benchmark's parser: its docstring's first paragraph, and ``options`` as (flag, default,
    help[, argparse's keywords]), typed by the default (False: a switch)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    for flag, default, text, *more in options:
        kwargs = {"default": default, "help": text, **(more[0] if more else {})}
        if default is False:
            kwargs["action"] = "store_true"
        elif default is not None and not {"action", "type"} & set(kwargs):
            kwargs["type"] = type(default)
        parser.add_argument(flag, **kwargs)
    return parser


def parse_args(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None, tiny: dict[str, Any]
) -> argparse.Namespace:
    """Parse ``argv`` with ``--tiny``: ``tiny``'s values as the defaults."""
    parser.add_argument(
        "--tiny", action="store_true",
        help="a run of seconds that checks the benchmark still runs (its figures mean nothing)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.tiny:
        parser.set_defaults(**tiny)
        args = parser.parse_args(argv)
    return args


def cli(
    doc: str, argv: Sequence[str] | None, tiny: dict[str, Any], *options: tuple[Any, ...]
) -> argparse.Namespace:
    return parse_args(command_line(doc, *options), argv, tiny)


def reference_median(runs: int = 5) -> float:
    """The reference loop's median CPU ms over ``runs`` (for ratios printed by a bench)."""
    return median([python_loop() for _ in range(max(1, runs))])


@contextmanager
def dated(
    script: str, argv: Sequence[str] | None, *, before: bool = False, after: bool = True
) -> Iterator[None]:
    """A run's header (command, date, machine, load) and footer; the reference loop's best of
    three at the start (``before``) and at the end (``after``)."""

    def reference() -> None:
        best = min(python_loop() for _ in range(3))
        print(f"reference, pure-Python loop ({REFERENCE_LOOP:,} iterations): CPU {best:.2f} ms")

    def now() -> str:
        return f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC"

    started = time.perf_counter()
    print(f"bench/{script} {' '.join(argv or sys.argv[1:])}: {now()}")
    print(f"machine: {machine()}\nload average at the start: {load_average()}", flush=True)
    if before:
        reference()
    try:
        yield
    finally:
        if after:
            reference()
        print(f"load average at the end: {load_average()}")
        print(f"finished {now()}, {time.perf_counter() - started:.0f} s", flush=True)


def production_env(**extra: str) -> dict[str, str]:
    """The site's production settings for a benchmark (DEBUG off, plain http, no .env)."""
    return {
        "ENV_FILE": os.devnull, "DEBUG": "False",
        "SECRET_KEY": "bench-only-not-a-secret-0123456789abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver", "SECURE_SSL_REDIRECT": "False",
        "SECURE_HSTS_SECONDS": "0", **extra,
    }  # fmt: skip


def settings_module(folder: Path, name: str, more: str = "") -> str:
    """The site's settings with ``more`` and static files in ``folder``, importable; its name."""
    (folder / "static").mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(
        f"from keltis_site.settings import *  # noqa: F403\n{more}"
        f"STATIC_ROOT = {str(folder / 'static')!r}\n"
    )
    sys.path.insert(0, str(folder))
    return name


def setup_django(env: dict[str, str]) -> None:
    """Configure Django in this process with ``env``."""
    os.environ.update(env)
    import django

    django.setup()


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines, as docs/benchmarks.md keeps them."""

    def line(cells: Sequence[object]) -> str:
        return "|" + "|".join(f" {cell} " if str(cell) else " " for cell in cells) + "|"

    return [line(head), "|" + "---|" * len(head), *(line(row) for row in rows)]


def verdict(problems: Sequence[str], ok: str, most: int = 40) -> int:
    """Print the problems found (exit status 1) or the ``ok`` line (0)."""
    if not problems:
        print(ok)
        return 0
    print(f"\nFAILED: {len(problems)} problems")
    for problem in problems[:most]:
        print(f"  {problem}")
    return 1


# -- the benchmarks' PostgreSQL databases ---------------------------------------------------------
def bench_database(name: str) -> str:
    """``name`` if it is a benchmark's (bench, load or fanout in it; not keltis nor test_*)."""
    if (
        not re.fullmatch(r"[a-z_][a-z0-9_]*", name)
        or name == "keltis"
        or name.startswith("test_")
        or not re.search(r"bench|load|fanout", name)
    ):
        raise ValueError(f"refusing database {name!r}: not a benchmark's")
    return name


def _admin(server: str) -> Any:
    import psycopg

    return psycopg.connect(f"{server.rstrip('/')}/postgres", autocommit=True)


def database_exists(server: str, name: str) -> bool:
    with _admin(server) as conn:
        return bool(conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone())


def create_database(server: str, name: str, *, drop: bool = False, owner: str = "") -> bool:
    """Create a benchmark's database if missing (dropped first with ``drop``); whether made."""
    from psycopg import sql

    if drop:
        drop_database(server, name)
    elif database_exists(server, bench_database(name)):
        return False
    query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(bench_database(name)))
    if owner:
        query += sql.SQL(" OWNER {}").format(sql.Identifier(owner))
    with _admin(server) as conn:
        conn.execute(query)
    return True


def drop_database(server: str, name: str, *, role: bool = False) -> None:
    from psycopg import sql

    ident = sql.Identifier(bench_database(name))
    with _admin(server) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(ident))
        if role:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(ident))
