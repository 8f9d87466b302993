"""examples/api_bot.py plays a whole game through the API alone (HTTP to a live server)
against a person who moves on the game page (the page's form, posted by the test client)."""

from __future__ import annotations

import random
import runpy
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from api.bot_accounts import account_make_bot
from games import selectors
from games.models import Event, GameStatus
from games.services import game_create

pytestmark = pytest.mark.django_db(transaction=True)

BOT = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "api_bot.py"))


def test_the_example_bot_plays_a_whole_game_against_page_moves(
    live_server: Any, make_user: Any, token_for: Any, settings: Any
) -> None:
    # a whole game is a few hundred calls in a few seconds: no limit is the point here
    settings.API_PLAY_RATE_LIMIT = settings.API_READ_RATE_LIMIT = "100000/m"
    settings.ACTION_RATE_LIMIT = "100000/m"
    person, robot = make_user("person"), make_user("robot")
    account_make_bot(user=robot)
    client = BOT["Client"](live_server.url, token_for(robot))
    game = game_create(creator=person, kind="keltis", player_count=2)
    joined = client.post(f"games/{game.pk}/join/")
    assert joined["status"] == GameStatus.RUNNING and joined["my_seat"] == 1

    page = Client()
    page.force_login(person)
    rng = random.Random(7)
    bot_actions = 0
    for _ in range(400):
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        if game.to_move == 0:
            view = selectors.game_page(game=game, user=person)
            move = {"action": rng.choice(view.legal), "seq": game.seq}
            response = page.post(reverse("game_act", args=[game.pk]), move)
            assert response.status_code == 303
        else:
            taken = BOT["play_all"](client, rng)
            assert taken > 0
            bot_actions += taken
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    assert sorted(game.seats.values_list("place", flat=True)) in ([1, 1], [1, 2])
    # every action of the bot's seat was the bot account's own, through the API
    assert Event.objects.filter(game=game, seat=1).count() == bot_actions > 10
    assert not Event.objects.filter(game=game).exclude(source="player").exists()


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_bots_choice_is_always_legal(kind: str, level: str) -> None:
    """At every level, on the view the API answers (the strong bot, which thinks for a while,
    on the first dozen positions)."""
    from games.engine import game_class
    from games.engine.bots import make_bot

    cls = game_class(kind)
    engine = cls.new(3, cls.deal(3, 11), {})
    rng = random.Random(3)
    mover = make_bot("random", 3)
    steps = 12 if level == "strong" else 10_000
    while not engine.finished and steps:
        steps -= 1
        seat = engine.to_move
        answer = {
            "kind": kind, "legal": engine.legal(), "state": engine.view(seat),
        }  # fmt: skip
        assert BOT["choose"](answer, rng, level) in engine.legal()
        engine.apply(mover.choose(engine))
