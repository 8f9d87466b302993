"""``python -m games.engine replay RECORD.json [--as N]`` as records.md describes it.

Each test writes a record to a temporary folder and runs the command line in a child process
from the repository root, without Django settings, as any checkout would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import GAMES
from games.engine.base import Game
from games.engine.bots import GreedyBot, RandomBot, play_out
from tests.engine.builders import board_record

REPO_ROOT = Path(__file__).resolve().parents[2]
OUTCOME_KEYS = {"game", "finished", "to_move", "scores", "winners", "legal", "state"}
ERROR_KEYS = {"error", "action_index", "action"}


def run_replay(path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """Run the command line on ``path``; its exit code and the one JSON object it prints."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay", str(path), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip(), f"nothing on stdout; stderr: {proc.stderr}"
    answer = json.loads(proc.stdout)  # fails unless stdout is exactly one JSON value
    assert isinstance(answer, dict)
    return proc.returncode, answer


def write(tmp_path: Path, record: dict[str, Any] | str, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    return path


def played(
    name: str, n: int, seed: int, stop: int | None = None, greedy: bool = True
) -> tuple[dict[str, Any], Game]:
    """A game played by bots (to its end, or its first ``stop`` actions) and its record."""
    cls = GAMES[name]
    setup = cls.deal(n, seed)
    game = cls.new(n, setup)
    bots: list[Any] = [RandomBot(seed + i) for i in range(n)]
    if greedy and name == "keltis":
        bots[0] = GreedyBot(seed)
    play_out(game, bots)
    actions = game.actions if stop is None else game.actions[:stop]
    record = {
        "format": 1,
        "game": name,
        "players": [f"player{i}" for i in range(n)],
        "options": {},
        "setup": setup,
        "actions": list(actions),
    }
    if stop is not None:
        game = cls.new(n, setup)
        for action in actions:
            game.apply(action)
    return record, game


def keys_in(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*(keys_in(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(v) for v in data))
    return set()


def as_json(data: Any) -> Any:
    return json.loads(json.dumps(data))


# -- outcomes ------------------------------------------------------------------------------------
def test_a_finished_board_game(tmp_path: Path) -> None:
    record, game = played("keltis", 3, seed=2026)
    assert game.finished
    code, out = run_replay(write(tmp_path, record))
    assert code == 0
    assert set(out) >= OUTCOME_KEYS
    assert out["game"] == "keltis"
    assert out["finished"] is True
    assert out["to_move"] is None
    assert out["legal"] == []
    assert out["scores"] == game.scores()
    best = max(out["scores"])
    assert out["winners"] == [i for i, s in enumerate(out["scores"]) if s == best]
    assert out["winners"] == game.winners()
    assert out["state"] == as_json(game.view())
    assert len(out["state"]["players"]) == 3


def test_a_running_board_game_shows_who_moves_and_what_is_legal(tmp_path: Path) -> None:
    record, game = played("keltis", 3, seed=7, stop=101)
    assert not game.finished
    code, out = run_replay(write(tmp_path, record))
    assert code == 0
    assert out["finished"] is False
    assert out["to_move"] == game.to_move
    assert out["to_move"] in (0, 1, 2)
    assert out["legal"] == game.legal()
    assert out["legal"], "a running game has legal actions"
    assert out["winners"] == []
    assert out["scores"] == game.scores()  # as if the game ended now
    assert out["state"] == as_json(game.view())


@pytest.mark.parametrize("viewer_moves", [True, False])
def test_as_a_player_shows_only_their_hand(tmp_path: Path, viewer_moves: bool) -> None:
    _, finished = played("keltis", 2, seed=11)
    # the first position after 40 actions where player 1 is (or is not) to move
    game = GAMES["keltis"].new(2, GAMES["keltis"].deal(2, 11))
    for stop, action in enumerate(finished.actions):
        if stop >= 40 and (game.to_move == 1) == viewer_moves:
            break
        game.apply(action)
    record, game = played("keltis", 2, seed=11, stop=stop)
    assert (game.to_move == 1) == viewer_moves
    code, out = run_replay(write(tmp_path, record), "--as", "1")
    assert code == 0
    state = out["state"]
    hands = [player["hand"] for player in game.view()["players"]]
    assert state["players"][1]["hand"] == hands[1]
    assert state["players"][1]["hand"], "player 1 sees their own hand"
    assert state["players"][0].get("hand") is None
    assert not {"deck", "removed"} & keys_in(state)
    assert state["deck_count"] == game.view()["deck_count"] > 0
    assert state["removed_count"] == 30
    assert out["to_move"] == game.to_move
    assert out["legal"] == (game.legal() if viewer_moves else [])
    assert out["scores"] == game.scores()
    assert out["finished"] is False
    # the same record seen by all shows what player 1 may not see
    code, everything = run_replay(write(tmp_path, record))
    assert code == 0
    assert everything["state"]["players"][0]["hand"] == hands[0]
    assert len(everything["state"]["removed"]) == 30
    assert everything["legal"] == game.legal()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_answers_as_the_engine_does(tmp_path: Path, name: str) -> None:
    record, game = played(name, 4, seed=5, greedy=False)
    code, out = run_replay(write(tmp_path, record))
    assert code == 0
    assert out["game"] == name
    assert out["finished"] is True
    assert out["to_move"] is None
    assert out["legal"] == []
    assert out["scores"] == game.scores()
    assert out["winners"] == game.winners() != []
    assert out["state"] == as_json(game.view())
    code, seen = run_replay(write(tmp_path, record), "--as", "3")
    assert code == 0
    assert seen["state"] == as_json(game.view(3))
    assert [p.get("hand") is None for p in seen["state"]["players"]] == [True] * 3 + [False]


# -- illegal actions -----------------------------------------------------------------------------
P0 = ["r5", "r3", "r7", "g0", "g1", "g2", "g3", "g4"]
P1 = ["b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"]
DECK_TOP = ["y0", "y1", "y2", "y3", "y4"]


def two_player_record(actions: list[str]) -> dict[str, Any]:
    return board_record(hands=[P0, P1], deck=DECK_TOP, actions=actions)


def expect_error(out: dict[str, Any], index: int | None, action: str | None) -> str:
    assert set(out) >= ERROR_KEYS
    assert out["action_index"] == index
    assert out["action"] == action
    assert isinstance(out["error"], str) and out["error"].strip()
    return out["error"]


def test_a_card_against_the_column_order(tmp_path: Path) -> None:
    actions = [
        "play r5 small", "draw deck",  # player 0 opens red with 5
        "discard b0", "draw deck",
        "play r3", "draw deck",  # 3 after 5: the red column is descending
        "discard b1", "draw deck",
        "play r7",  # 7 after 3
    ]  # fmt: skip
    code, out = run_replay(write(tmp_path, two_player_record(actions)))
    assert code == 2
    error = expect_error(out, 8, "play r7")
    assert "descending" in error
    assert "7" in error and "3" in error


def test_the_actions_before_the_illegal_one_are_fine(tmp_path: Path) -> None:
    actions = ["play r5 small", "draw deck", "discard b0", "draw deck", "play r3", "draw deck"]
    code, out = run_replay(write(tmp_path, two_player_record(actions)))
    assert code == 0
    assert out["to_move"] == 1
    assert out["state"]["players"][0]["columns"] == {"r": ["r5", "r3"]}
    assert out["state"]["players"][0]["directions"] == {"r": "descending"}


def test_an_unknown_card(tmp_path: Path) -> None:
    actions = ["play r5 small", "draw deck", "play r11"]
    code, out = run_replay(write(tmp_path, two_player_record(actions)))
    assert code == 2
    assert "r11" in expect_error(out, 2, "play r11")


def test_a_card_not_in_hand(tmp_path: Path) -> None:
    actions = ["play r5 small", "draw deck", "discard r7"]  # player 1 holds no r7
    code, out = run_replay(write(tmp_path, two_player_record(actions)))
    assert code == 2
    assert "r7" in expect_error(out, 2, "discard r7")


def test_an_action_after_the_end(tmp_path: Path) -> None:
    record, game = played("keltis", 2, seed=3)
    record["actions"].append("draw deck")
    code, out = run_replay(write(tmp_path, record))
    assert code == 2
    expect_error(out, len(game.actions), "draw deck")


# -- malformed records ---------------------------------------------------------------------------
def _card_three_times(record: dict[str, Any]) -> None:
    record["setup"]["deck"][0] = "r5"  # r5 is in hand 0 and the deck already: now 3 times


def _short_hand(record: dict[str, Any]) -> None:
    record["setup"]["deck"].append(record["setup"]["hands"][1].pop())


def _unknown_option(record: dict[str, Any]) -> None:
    record["options"] = {"no_such_option": True}


def _unknown_game(record: dict[str, Any]) -> None:
    record["game"] = "chess"


def _unknown_card_in_setup(record: dict[str, Any]) -> None:
    record["setup"]["deck"][0] = "q7"


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (_card_three_times, "r5"),
        (_short_hand, "hand 1"),
        (_unknown_option, "no_such_option"),
        (_unknown_game, "chess"),
        (_unknown_card_in_setup, "q7"),
    ],
)
def test_a_malformed_record(tmp_path: Path, spoil: Any, words: str) -> None:
    record = two_player_record(["play r5 small", "draw deck"])
    spoil(record)
    code, out = run_replay(write(tmp_path, record))
    assert code == 2
    assert words in expect_error(out, None, None)


def test_a_record_that_is_not_json(tmp_path: Path) -> None:
    code, out = run_replay(write(tmp_path, '{"format": 1, "game": "keltis", '))
    assert code == 2
    assert "JSON" in expect_error(out, None, None)


def test_a_missing_record(tmp_path: Path) -> None:
    code, out = run_replay(tmp_path / "missing.json")
    assert code == 2
    assert "missing.json" in expect_error(out, None, None)


def test_as_a_player_the_game_does_not_have(tmp_path: Path) -> None:
    record, _ = played("keltis", 3, seed=1, stop=10)
    code, out = run_replay(write(tmp_path, record), "--as", "9")
    assert code == 2
    error = expect_error(out, None, None)
    assert "player 9" in error
