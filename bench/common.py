"""What the benchmarks repeat, in one place: their command line's ``--tiny``, the lines that
date a run (bench/measure.py's header and footer), the reference loop of the same run, a
Markdown table, Django's setup from an environment, and the drop of a bench database.

``--tiny`` exists so that CI runs every benchmark at a size of seconds (tests/bench/,
``bench/run_all.py --tiny``): a benchmark that no longer runs fails CI instead of rotting
until the next time someone runs it by hand. A tiny run's figures mean nothing; its lines
are the same as a full run's.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.measure import REFERENCE_LOOP, footer, header, median, python_loop

ROOT = Path(__file__).resolve().parent.parent
#: the PostgreSQL server the benchmarks use by default (loopback, trust auth)
DEFAULT_PG = "postgres://postgres@127.0.0.1:5432"

__all__ = [
    "DEFAULT_PG",
    "ROOT",
    "drop_database",
    "footer",
    "header",
    "markdown_table",
    "parse_args",
    "reference_line",
    "setup_django",
]


def parse_args(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None, tiny: dict[str, Any]
) -> argparse.Namespace:
    """Parse ``argv`` with a ``--tiny`` option added: it makes ``tiny``'s values the defaults
    (an option given on the command line still wins)."""
    parser.add_argument(
        "--tiny", action="store_true",
        help="a run of seconds that checks the benchmark still runs (its figures mean nothing)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.tiny:
        parser.set_defaults(**tiny)
        args = parser.parse_args(argv)
    return args


def reference_line(repeats: int = 3) -> str:
    """The reference loop (bench/measure.py) measured now: its best CPU ms of ``repeats``
    (the loop's own cost, not a scheduler's hiccup), to compare a run's figures with."""
    best = min(python_loop() for _ in range(max(1, repeats)))
    return f"reference, pure-Python loop ({REFERENCE_LOOP:,} iterations): CPU {best:.2f} ms"


def reference_median(runs: int = 5) -> float:
    """The reference loop's median CPU ms over ``runs`` (for ratios printed by a bench)."""
    return median([python_loop() for _ in range(max(1, runs))])


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines, as docs/benchmarks.md keeps them."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def setup_django(env: dict[str, str]) -> None:
    """Configure Django in this process with ``env`` (the settings the bench's other
    processes get too)."""
    os.environ.update(env)
    import django

    django.setup()


def drop_database(server: str, name: str, *, role: bool = False) -> None:
    """Drop one bench database (and its role of the same name: bench/live.py's) on the
    PostgreSQL ``server`` (e.g. postgres://postgres@127.0.0.1:5432); only a name that says it
    is a benchmark's (``bench``, ``load`` or ``fanout`` in it; never keltis nor test_*)."""
    import psycopg
    from psycopg import sql

    if (
        not re.fullmatch(r"keltis_[a-z0-9_]+", name)
        or name.startswith("test_")
        or not re.search(r"bench|load|fanout", name)
    ):
        raise ValueError(f"refusing to drop {name!r}: not a benchmark's database")
    with psycopg.connect(f"{server.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        if role:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))
