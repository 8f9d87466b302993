"""The board's two drawings (wide and narrow, games.templatetags.board_drawing) are pinned byte
for byte: a digest of each, for positions along random games of 2, 3 and 4 players, in every
language, as the code drew them before issue 30 made them cheaper. A change that draws any
byte otherwise fails here; one meant to (a new look, a new word) writes the fixture again
with ``board_digests()`` (``json.dumps(board_digests(), indent=0, sort_keys=True)``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.utils import translation

from games.engine import game_class
from games.engine.base import SPECTATOR
from games.engine.bots import RandomBot
from games.presenters.board import board_svg
from games.templatetags.board_drawing import board_drawing, board_drawing_narrow

FIXTURE = Path(__file__).with_name("board_digests.json")
LANGUAGES = ("en", "hu", "pl", "cs", "sk", "ru", "de")
#: names a template escapes (a tag, an ampersand, a quote)
NAMES = ["anna", "<b>bela</b>", "cecil & co", 'd"or']


def positions(players: int) -> list[dict[str, Any]]:
    """Spectators' views along a seeded random game: figures big and small, on the start
    stone and on every path, tiles taken, to the end."""
    game = game_class("keltis").new(players, {"seed": 30 + players})
    bot, views = RandomBot(players), []
    for step in range(600):
        if game.finished:
            break
        if step % 25 == 0:
            views.append(game.view(SPECTATOR))
        game.apply(bot.choose(game))
    return [*views, game.view(SPECTATOR)]


def board_digests() -> dict[str, str]:
    """``"players/language/position"``: a digest of the wide and the narrow board drawn."""
    found = {}
    for players in (2, 3, 4):
        views = positions(players)
        for language in LANGUAGES:
            with translation.override(language):
                for i, view in enumerate(views):
                    svg = board_svg(view, NAMES[:players])
                    html = board_drawing(svg) + "\0" + board_drawing_narrow(svg)
                    found[f"{players}/{language}/{i}"] = hashlib.sha256(
                        html.encode()
                    ).hexdigest()[:16]
    return found


def test_the_boards_are_drawn_byte_for_byte_as_pinned() -> None:
    expected = json.loads(FIXTURE.read_text())
    found = board_digests()
    assert len(expected) > 150
    assert {k: v for k, v in found.items() if expected.get(k) != v} == {}
    assert found.keys() == expected.keys()
