"""``python -m games.engine replay RECORD.json [--as N]``: a record's outcome as JSON.

Exit 0 with the state; exit 2 with ``{"error", "action_index", "action"}`` for an illegal or
malformed action or record.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .base import Game
from .errors import EngineError, IllegalAction
from .records import ReplayError, load_record, replay

EXIT_BAD_INPUT = 2


def outcome(game: Game, viewer: int | None = None) -> dict[str, Any]:
    """The records.md answer for a game, as everyone (None) or as player ``viewer`` sees it."""
    state = game.view(viewer)
    to_move = game.to_move
    legal = game.legal() if viewer is None or viewer == to_move else []
    return {
        "game": game.name,
        "finished": game.finished,
        "to_move": to_move,
        "scores": game.scores(),
        "winners": game.winners(),
        "legal": legal,
        "state": state,
    }


def _error(error: EngineError, index: int | None = None, action: Any = None) -> dict[str, Any]:
    return {
        "error": str(error),
        "code": error.code,
        "action_index": index,
        "action": action,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("replay", help="replay a JSON game record and print the outcome")
    rep.add_argument("record", help="path to the record (JSON, records.md format 1)")
    rep.add_argument(
        "--as",
        dest="viewer",
        type=int,
        default=None,
        metavar="N",
        help="show only what player N (0-based) may see",
    )
    args = parser.parse_args(argv)

    try:
        record = load_record(args.record)
        game = replay(record)
        result = outcome(game, args.viewer)
    except ReplayError as exc:
        answer = _error(exc.error, exc.index, exc.action)
    except IllegalAction as exc:  # --as names no player of the game
        answer = _error(exc)
    except EngineError as exc:
        answer = _error(exc)
    else:
        json.dump(result, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    json.dump(answer, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return EXIT_BAD_INPUT
