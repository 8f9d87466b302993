"""The players' panels and the discard piles, written in Python (games/templatetags/
table_panels.py, issue 30), are the bytes the templates drew before: the old template texts,
kept in tests/games/before_issue30/ (not live templates), and the live include files render
every position of random games of both kinds, 2-4 players, in every language, for a visitor,
a seated player and the finished game's history (hands shown), with winners, retired, bot and
named seats."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.template import Context, Template
from django.template.loader import get_template
from django.utils import translation

from games.engine import game_class
from games.engine.base import SPECTATOR
from games.engine.bots import RandomBot
from games.presenters.table import table_view
from games.selectors import SeatInfo

BEFORE = Path(__file__).parent / "before_issue30"
OLD = {name: Template((BEFORE / f"_{name}.html").read_text()) for name in ("players", "piles")}
NAMES = ['Ann & <b>"Bo"</b>', "Zoë's", "Юрий", "p3"]
LANGUAGES = [code for code, _name in settings.LANGUAGES]


def seats(n: int, variant: int) -> list[SeatInfo]:
    """Seats that differ by ``variant``: who views (or nobody), who is a bot or a bot account,
    who retired, who has a profile."""
    viewer = variant % (n + 1)  # n: a visitor
    return [
        SeatInfo(
            i,
            NAMES[i],
            is_bot=(i + variant) % 3 == 1,
            username=f"user{i}" if i % 2 else None,
            is_viewer=i == viewer,
            score=None,
            place=None,
            timeouts=1 + variant % 3,
            retired=(i + variant) % 4 == 2,
            bot_account=(i + variant) % 5 == 3,
        )
        for i in range(n)
    ]


def positions(kind: str, n: int, seed: int) -> list[tuple[Any, list[int] | None]]:
    """Positions through a random game (the engine's state), the last one finished, with its
    winners."""
    game, bot, states = game_class(kind).new(n, {"seed": seed}), RandomBot(seed), []
    for step in itertools.count():
        if game.finished:
            states.append((game, game.winners()))
            return states
        if step % 9 == 0:
            states.append((game.copy(), None))
        game.apply(bot.choose(game))
    raise AssertionError("unreachable")


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_panels_written_in_python_are_the_old_templates_byte_for_byte(
    kind: str, n: int
) -> None:
    live = {name: get_template(f"games/_{name}.html") for name in ("players", "piles")}
    seen: set[str] = set()
    compared = 0
    for index, (game, winners) in enumerate(positions(kind, n, seed=n * 7 + len(kind))):
        # the game's page (a seat's view, hands never shown; its clock), the history's (no
        # clock; once finished, every hand shown)
        page = (False, {"bank": 1}, game.view(index % n))
        history = (winners is not None, None, game.view(None if winners else SPECTATOR))
        for show_hands, clock, view in (page, history):
            table = table_view(
                kind, view, seats(n, index + show_hands), show_hands=show_hands, winners=winners
            )
            context = {"table": table, "is_board": kind == "keltis", "clock": clock}
            for language in LANGUAGES:
                with translation.override(language):
                    for name, old in OLD.items():
                        html = old.render(Context(context))
                        assert live[name].render(context) == html, (name, language, index)
                        seen.add(html)
                        compared += 1
    drawn = "".join(seen)
    for mark in [
        "badge--you", 'badge">bot<', "badge--retired", "badge--turn", "badge--win", "<a href=",
        "player-hand", "pile-fresh", "kcard-empty", "&lt;b&gt;&quot;Bo&quot;", "Zoë&#x27;s",
    ]:  # fmt: skip
        assert mark in drawn, mark  # every part of the panels was compared
    assert ("goal-count" in drawn) == (kind == "keltis")
    assert compared >= 2 * 2 * len(LANGUAGES) * 3
