"""bench/engine.py runs at a tiny size: it completes and prints its lines (no timing asserted;
the figures are read by hand from a full run, docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "engine.py"


def test_the_engine_bench_completes_and_prints_every_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location("bench_engine", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    bench.main(["--games", "2", "--seeds", "2", "--repeats", "2"])

    out = capsys.readouterr().out
    assert out.startswith("bench/engine.py ")
    for name in ("keltis", "keltis-cards"):
        assert f"== {name}\n" in out
    for players in (2, 3, 4):
        assert out.count(f"{players} players: ") == 2 * 2  # games/s and replay, for each game
        assert out.count(f"{players} players: replay of a finished game") == 2
    assert out.count("random games/s") == 6
    assert out.count(" of 2 2-player games (mean score greedy ") == 2
