"""The JSON game record of records.md: read, check, replay and write.

The explicit setup is what the site stores, so that a change of shuffle never changes an old
game; a record may instead give ``{"seed": N}`` and be dealt by ``Game.deal``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import Game
from .errors import IllegalAction, RecordError
from .registry import game_class

FORMAT = 1
#: ``talk`` (the site's table talk, in a downloaded record when its authors agreed) is read
#: and left aside: it changes nothing of the game
KEYS = {"format", "game", "players", "options", "setup", "actions", "talk"}


@dataclass
class Record:
    game: str
    players: list[str]
    setup: dict[str, Any]
    options: dict[str, bool] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "players": list(self.players),
            "options": dict(self.options),
            "setup": self.setup,
            "actions": list(self.actions),
        }


class ReplayError(Exception):
    """An action of a record that could not be applied: which one, and why."""

    def __init__(self, index: int, action: Any, error: IllegalAction) -> None:
        self.index = index
        self.action = action
        self.error = error
        super().__init__(f"action {index} ({action!r}): {error}")


def read_record(data: Any) -> Record:
    """Check a record's shape (not yet its setup's cards) and return it as a Record."""
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise RecordError(f"unknown key {', '.join(unknown)}")
    if data.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT}")
    for key in ("game", "players", "setup"):
        if key not in data:
            raise RecordError(f"the record has no '{key}'")
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names")
    if not isinstance(data["setup"], dict):
        raise RecordError("setup must be an object")
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise RecordError("actions must be a list of strings")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise RecordError("options must be an object")
    return Record(
        game=data["game"],
        players=players,
        setup=data["setup"],
        options=options,
        actions=actions,
    )


def load_record(path: str | Path) -> Record:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON ({exc.msg}, line {exc.lineno})") from None
    return read_record(data)


def start_game(record: Record) -> Game:
    """The game at its start, before any of the record's actions."""
    cls = game_class(record.game)
    return cls.new(len(record.players), record.setup, record.options)


def replay(record: Record) -> Game:
    """The game after all the record's actions; ReplayError names the first one that fails."""
    game = start_game(record)
    actions = record.actions
    try:
        game.apply_all(actions)
    except IllegalAction as exc:
        index = len(game.actions)  # every applied action is recorded: the failing one is next
        raise ReplayError(index, actions[index], exc) from None
    return game


def explicit_setup(record: Record) -> dict[str, Any]:
    """The record's setup in explicit form (dealt from the seed when it gives one)."""
    if set(record.setup) == {"seed"}:
        cls = game_class(record.game)
        return cls.deal(len(record.players), record.setup["seed"])
    return record.setup
