"""Pure rules of both Keltis games: state machines over the records.md notation.

No Django here (a test checks): the site, the bots and the command line all build on this.
"""

from .base import Game
from .errors import EngineError, IllegalAction, MalformedAction, RecordError
from .records import Record, ReplayError, load_record, read_record, replay, start_game
from .registry import GAMES, game_class

__all__ = [
    "GAMES",
    "EngineError",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "Record",
    "RecordError",
    "ReplayError",
    "game_class",
    "load_record",
    "read_record",
    "replay",
    "start_game",
]
