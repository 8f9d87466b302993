"""bench/live.py refuses a database that is not a benchmark's. Its tiny run on the database the
suite runs on (SQLite with the embedded default's Unix socket, PostgreSQL with Redis pub/sub) is
tests/bench/test_benches_run.py's, with every other benchmark's (issue 30)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "live.py"


@pytest.mark.parametrize("name", ["keltis", "test_keltis", "keltis_live"])
def test_the_live_bench_refuses_a_database_that_is_not_a_benchmarks(name: str) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH), "--db", name, "--pages", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "refusing database" in run.stderr
