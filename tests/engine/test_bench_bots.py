"""bench/bots.py at a tiny size: it completes and prints its table (strength is measured by
hand at full size; nothing here is timed)."""

from __future__ import annotations

import re

from bench.bots import main, run
from games.engine import GAMES
from games.engine.search import Budget

TINY = Budget(playouts=1, seconds=None, candidates=2, horizon=1, min_worlds=1)


def test_the_bot_bench_completes_at_a_tiny_size(capsys) -> None:
    lines = run(games=2, tables=1, budget=TINY, names=sorted(GAMES))
    assert len(lines) >= 3 + len(GAMES)
    for name in GAMES:
        assert any(line.startswith(f"| {name} |") and " of 2 " in line for line in lines)
    assert "strong vs greedy" in capsys.readouterr().out


def test_the_bench_command_line_takes_a_game_and_a_budget(capsys) -> None:
    main(["--games", "1", "--tables", "0", "--seconds", "0", "--playouts", "1", "--game", "keltis"])
    out = capsys.readouterr().out
    assert "| keltis |" in out and "keltis-cards" not in out
    assert "| not run |" in out  # no tables: no share of none


def test_a_run_split_over_processes_plays_the_same_tables(capsys) -> None:
    """``--jobs``: each process plays a range of the tables, with the seeds and seats one
    process would give them, so the shares agree (the tiny budget counts playouts only)."""
    one = run(games=3, tables=2, budget=TINY, names=["keltis-cards"])
    two = run(games=3, tables=2, budget=TINY, names=["keltis-cards"], jobs=2)
    assert "2 processes" in two[0]
    row = next(line for line in one if line.startswith("| keltis-cards |"))
    split = next(line for line in two if line.startswith("| keltis-cards |"))
    assert split.split("|")[2:4] == row.split("|")[2:4]  # the shares
    assert re.findall(r"\((\d+) moves\)", split) == re.findall(r"\((\d+) moves\)", row)
    assert "table 3/3" in capsys.readouterr().err
