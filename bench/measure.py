"""How the benchmarks take their figures (docs/benchmarks.md says why): a process's CPU from
/proc, median and p95 over interleaved repeats, a reference workload in the same repeats, and
the run's machine, load and PostgreSQL settings."""

from __future__ import annotations

import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

#: PostgreSQL's settings that change what a benchmark measures (printed with its figures)
PG_SETTINGS = (
    "server_version", "autovacuum", "shared_buffers", "synchronous_commit", "fsync", "work_mem",
    "full_page_writes", "wal_level", "jit",
)  # fmt: skip

#: iterations of the reference loop: about 10 ms of CPU on this project's machine
REFERENCE_LOOP = 20_000
#: round trips of the database reference per repeat
REFERENCE_QUERIES = 200

CLOCK_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
T = TypeVar("T")


# -- CPU time of a process -------------------------------------------------------------------------
def process_cpu_ms(pid: int, children: bool = False) -> float | None:
    """A process's user + system CPU ms so far (None if gone); ``children``: with its reaped
    children's."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # after the ")": state is field 0, so utime, stime, cutime, cstime are 11 to 14
    ticks = sum(int(t) for t in fields[11 : 15 if children else 13])
    return ticks * 1000 / CLOCK_TICK


def worker_pids(master: int) -> list[int]:
    """The child processes of ``master`` (a gunicorn master's workers), from ``/proc``."""
    try:
        return [int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    except OSError:
        return []


def tree_cpu_ms(pid: int) -> float:
    """CPU ms of a process and all its descendants, alive or reaped."""
    own = process_cpu_ms(pid, children=True) or 0.0
    return own + sum(tree_cpu_ms(child) for child in worker_pids(pid))


def timed(func: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``func(*args)`` and its wall ms."""
    start = time.perf_counter()
    value = func(*args)
    return value, (time.perf_counter() - start) * 1000


# -- statistics ----------------------------------------------------------------------------------
def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: Sequence[float]) -> float:
    """The 95th percentile (inclusive: of five values, nearly the largest)."""
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[94]


@dataclass
class Series:
    """One measured thing over a run's repeats: each request's wall ms, and each repeat's CPU
    ms per request (a batch's CPU over its requests)."""

    what: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    repeats: int = 0
    queries: list[float] = field(default_factory=list)
    #: whose CPU: "server" (the web process, from /proc) or "process" (this one)
    cpu_of: str = "process"

    def add(
        self, wall: Sequence[float], cpu_total_ms: float | None, queries: float | None = None
    ) -> None:
        self.wall += wall
        self.repeats += 1
        if cpu_total_ms is not None and wall:
            self.cpu.append(cpu_total_ms / len(wall))
        if queries is not None:
            self.queries.append(queries)

    def line(self, ref: Reference | None = None) -> str:
        text = (
            f"{self.what}: wall median {median(self.wall):.2f} ms, p95 {p95(self.wall):.2f} ms "
            f"({len(self.wall)} requests in {self.repeats} repeats)"
        )
        if self.cpu:
            text += (
                f"; {self.cpu_of} CPU per request median {median(self.cpu):.2f} ms, "
                f"p95 {p95(self.cpu):.2f} ms"
            )
        if self.queries:
            text += f"; {statistics.mean(self.queries):.1f} queries"
        if ref is not None:
            text += f"; {ref.ratios(self)}"
        return text


# -- the reference workload ----------------------------------------------------------------------
def python_loop() -> float:
    """A fixed pure-Python workload (dicts, strings, calls): its CPU ms in this process."""
    start = time.process_time()
    table: dict[str, int] = {}
    total = 0
    for i in range(REFERENCE_LOOP):
        key = f"k{i % 97}"
        table[key] = table.get(key, 0) + i
        total += len(str(i)) + (i % 7)
    assert total and table
    return (time.process_time() - start) * 1000


def db_round_trip(queries: int = REFERENCE_QUERIES) -> tuple[float, float]:
    """``SELECT 1`` through Django ``queries`` times: median wall ms, CPU ms per query."""
    from django.db import connection

    times = []
    with connection.cursor() as cur:
        cur.execute("SELECT 1")  # connected, warm
        start_cpu = time.process_time()
        for _ in range(queries):
            start = time.perf_counter()
            cur.execute("SELECT 1")
            cur.fetchone()
            times.append((time.perf_counter() - start) * 1000)
        cpu = (time.process_time() - start_cpu) * 1000 / queries
    return median(times), cpu


@dataclass
class Reference:
    """Each repeat's reference: the loop's CPU ms, ``SELECT 1``'s wall ms."""

    loop_cpu: list[float] = field(default_factory=list)
    select1: list[float] = field(default_factory=list)
    select1_cpu: list[float] = field(default_factory=list)

    def measure(self) -> None:
        """One repeat's (the best of three loops: not a scheduler's hiccup)."""
        self.loop_cpu.append(min(python_loop() for _ in range(3)))
        wall, cpu = db_round_trip()
        self.select1.append(wall)
        self.select1_cpu.append(cpu)

    def lines(self) -> list[str]:
        return [
            f"reference, pure-Python loop ({REFERENCE_LOOP:,} iterations): CPU median "
            f"{median(self.loop_cpu):.2f} ms, p95 {p95(self.loop_cpu):.2f} ms "
            f"({len(self.loop_cpu)} repeats)",
            f"reference, database floor (SELECT 1 through Django's connection): wall median "
            f"{median(self.select1):.3f} ms, p95 {p95(self.select1):.3f} ms; client CPU "
            f"{median(self.select1_cpu):.3f} ms",
        ]

    def ratios(self, series: Series) -> str:
        """The series' CPU median to the loop's, and its wall median to ``SELECT 1``'s."""
        parts = []
        if series.cpu and self.loop_cpu:
            parts.append(f"CPU {median(series.cpu) / median(self.loop_cpu):.2f}x loop")
        if series.wall and self.select1:
            parts.append(f"wall {median(series.wall) / median(self.select1):.0f}x SELECT 1")
        return ", ".join(parts)


# -- the run's circumstances ---------------------------------------------------------------------
def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = found.group(1).strip() if found else cpu
    return f"{os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min)"


def django_pg_settings() -> str:
    from django.db import connection

    values = []
    with connection.cursor() as cur:
        for name in PG_SETTINGS:
            cur.execute(f"SHOW {name}")
            values.append(f"{name}={cur.fetchone()[0]}")
    return "PostgreSQL: " + ", ".join(values)


@contextmanager
def count_queries() -> Iterator[list[int]]:
    """Count the queries Django sends (cheap enough to leave on while timing)."""
    from django.db import connection

    box = [0]

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, ctx: Any) -> Any:
        box[0] += 1
        return execute(sql, params, many, ctx)

    with connection.execute_wrapper(wrapper):
        yield box
