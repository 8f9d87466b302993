"""Every benchmark in bench/ runs in CI at its tiny size (issue 30), so none can rot unseen:
``bench/run_all.py --tiny`` once per database run, each benchmark's part of its output checked
by a test of its own. On SQLite the benchmarks that need no PostgreSQL run (bench/live.py on
the embedded default's SQLite); on PostgreSQL (CI's second run, DATABASE_URL set) all of them,
in databases of this run's own (``--tag``), dropped afterwards. Those that need PostgreSQL are
not collected on SQLite: they are never skipped, they run in the other run.

No figure is asserted: a tiny run's figures mean nothing. What fails is a benchmark that
exits with an error or no longer prints its table."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from bench import common
from bench.run_all import BENCHES, LIBRARIES

REPO = Path(__file__).resolve().parents[2]
ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"

#: a line each benchmark prints only when it got to its table (a regular expression)
PRINTS = {
    "engine": r"^4 players: replay of a finished game",
    "engine_checksum": r"^all: [0-9a-f]{64}$",
    "bots": r"^\| keltis-cards \| .* of 2 ",
    "pairing": r"^matchmaking time: median",
    "history_page": r"^history page of a \d+-event game: CPU per GET median",
    "live": r"^delivery from commit: 5 of 5 open streams heard the move",
    "scale": r"^\| action over HTTP \(POST of the page's form\) \|",
    "profile_action": r"^CPU per POST without the profiler: median",
    "profile_action --http": r"^CPU by package \(own time\):",
    "ab_action": r"^this checkout: worker CPU per POST, median",
    "email_fanout": r"^ok: every player got exactly one email",
    "email_cpu": r"^finished emails, \d+ a task: best [\d.]+ ms CPU per email",
    "loadtest": r"^ok: all 2 games ended; every accepted action is one event",
}
RUN_HERE = [b.name for b in BENCHES if ON_POSTGRES or not b.postgres]


def server_url(database: dict[str, object]) -> str:
    """The suite's PostgreSQL server, as its user (a superuser here and in CI)."""
    user = quote(str(database.get("USER") or "postgres"))
    password = f":{quote(str(database['PASSWORD']))}" if database.get("PASSWORD") else ""
    host = database.get("HOST") or "127.0.0.1"
    return f"postgres://{user}{password}@{host}:{database.get('PORT') or 5432}"


@pytest.fixture(scope="module")
def run_all(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One tiny run of every benchmark this database runs: each one's output by name, and
    the final table under "all"."""
    where = ["--sqlite"]
    if ON_POSTGRES:
        where = ["--pg", server_url(settings.DATABASES["default"]), "--tag", f"t{os.getpid()}"]
        where += ["--drop"]
    run = subprocess.run(
        [sys.executable, "bench/run_all.py", "--tiny", "--jobs", "2", *where],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("bench"))},
        capture_output=True,
        text=True,
        timeout=600,
    )
    sections = {"": run.stdout + run.stderr}
    for part in re.split(r"^## ", run.stdout, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        sections[head.split(":", 1)[0]] = body
    return sections


def test_run_all_lists_every_benchmark_in_bench() -> None:
    scripts = {path.name for path in (REPO / "bench").glob("*.py")} - LIBRARIES
    assert scripts == {bench.script for bench in BENCHES}
    assert set(PRINTS) == {bench.name for bench in BENCHES}


@pytest.mark.parametrize("name", RUN_HERE)
def test_the_benchmark_runs_at_its_tiny_size(run_all: dict[str, str], name: str) -> None:
    assert name in run_all, run_all[""][-5000:]
    out = run_all[name]
    assert re.search(rf"^\| {re.escape(name)} \| ok \|", run_all["all"], re.M), out[-5000:]
    assert re.search(PRINTS[name], out, re.M), out[-5000:]


def test_the_run_prints_its_date_load_and_reference(run_all: dict[str, str]) -> None:
    out = run_all[""]
    assert re.match(r"bench/run_all.py --tiny .*: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n", out)
    assert re.search(r"^load average at the start: ", out, re.M)
    assert re.search(r"^load average at the end: ", out, re.M)
    assert len(re.findall(r"^reference, pure-Python loop \(20,000 iterations\): CPU ", out, re.M))
    if ON_POSTGRES:
        assert re.search(r"^dropped database keltis_t\d+_bench_live$", out, re.M)


def test_the_live_bench_prints_its_figures(run_all: dict[str, str]) -> None:
    """bench/live.py (issue 31): the streams, the delivery from the commit, the memory, the
    database connections, the moves and pages meanwhile and the reference."""
    out = run_all["live"]
    transport = "Redis pub/sub" if ON_POSTGRES else "Unix socket"
    assert re.search(rf"^transport: {transport}", out, re.M), out
    assert "\n5 of 5 streams open in " in out, out
    delivery = re.search(
        r"^delivery from commit: (\d+) of (\d+) open streams heard the move .*; "
        r"p50 \d+ ms, p95 \d+ ms, max \d+ ms; within 2 s: \d+ of \d+ open",
        out,
        re.M,
    )
    assert delivery and delivery.group(1) == delivery.group(2) == "5", out
    assert re.search(r"^stream server after: RSS [\d.]+ MiB, .*memory per open stream", out, re.M)
    assert re.search(r"^stream server's database connections: \d+ ", out, re.M), out
    for what in ("game page", "move"):
        assert re.search(rf"^  {what} .*: wall median [\d.]+ ms", out, re.M), out
    if ON_POSTGRES:
        assert "dropped database and role" in out
        assert re.search(r"^PostgreSQL: server_version=", out, re.M)


if ON_POSTGRES:  # like the benchmarks that need PostgreSQL, not collected on SQLite

    def test_the_fanout_of_turn_emails_runs_at_its_tiny_size(tmp_path: Path) -> None:
        """bench/email_fanout.py --kind turn (issue 30's goal: turn emails); run_all runs its
        default kind only. One turn email a game, each sent once to its player to move."""
        server = server_url(settings.DATABASES["default"])
        database = f"keltis_t{os.getpid()}_turn_fanout"
        command = ["bench/email_fanout.py", "--tiny", "--kind", "turn"]
        try:
            run = subprocess.run(
                [sys.executable, *command, "--pg", server, "--database", database],
                cwd=REPO,
                env={**os.environ, "TMPDIR": str(tmp_path)},
                capture_output=True,
                text=True,
                timeout=300,
            )
        finally:
            common.drop_database(server, database)
        out = run.stdout + run.stderr
        assert run.returncode == 0, out[-5000:]
        assert re.search(r"^8 games, 1 worker processes .*; turn emails, 1 a game$", out, re.M)
        assert re.search(r"^ok: every player to move got exactly one email", out, re.M), out


def test_the_scale_fill_writes_every_column_the_models_need() -> None:
    """bench/scale.py writes raw rows with COPY: its column lists must follow the models (a
    NOT NULL column added by a migration, as games/0014's deadline_moves was, broke its fill)."""
    from bench.scale import column_problems

    assert column_problems() == []
