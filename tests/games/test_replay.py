"""The history's replay as data: one page holds every position, small enough for a phone
(under 300 KB for a 600-action game), and only what the viewer may see while the game runs."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import game_class
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_replay, engine_state

pytestmark = pytest.mark.django_db

#: a three-player board game dealt from this seed runs long with random moves
LONG_DEAL = 30


def table(make_user: Any, kind: str, players: int, seed: int) -> tuple[Game, list[Any]]:
    users = [make_user() for _ in range(players)]
    game = game_create(creator=users[0], kind=kind, player_count=players)
    Game.objects.filter(pk=game.pk).update(setup=game_class(kind).deal(players, seed))
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    game.refresh_from_db()
    return game, users


def play_until(game: Game, users: list[Any], events: int, seed: int = LONG_DEAL) -> Game:
    bot = RandomBot(seed)
    while game.status == GameStatus.RUNNING and game.seq < events:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
        game.refresh_from_db()
    return game


def replay_json(html: str) -> str:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found, "the history page holds the replay as data"
    return found.group(1)


def history(client: Client, game: Game, step: int | None = None) -> str:
    params = {} if step is None else {"step": step}
    response = client.get(reverse("game_history", args=[game.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_a_600_action_game_replays_from_one_page_under_300_kb(
    client: Client, make_user: Any
) -> None:
    game, users = table(make_user, "keltis", 3, LONG_DEAL)
    game = play_until(game, users, 600)
    assert game.seq >= 600
    client.force_login(users[0])
    html = history(client, game)
    assert len(html.encode()) < 300_000, len(html.encode())
    data = json.loads(replay_json(html))
    assert len(data["frames"]) == game.seq + 1  # every position, the start included
    # the frames rebuild the last position: frame 0 whole, then the changes
    state = json.loads(json.dumps(data["frames"][0]))
    for frame in data["frames"][1:]:
        for key, value in frame.items():
            if key == "players":
                for index, fields in value.items():
                    player = state["players"][int(index)]
                    player["cols"].update(fields.pop("cols", {}))
                    player.update(fields)
            elif key == "piles":
                state["piles"].update(value)
            else:
                state[key] = value
    view = engine_replay(game, upto=game.seq).view(-1)
    assert state["deck"] == view["deck_count"]
    assert {key: size for key, (_top, size) in state["piles"].items()} == {
        key: len(cards) for key, cards in view["piles"].items()
    }
    assert [p["score"] for p in state["players"]] == [
        f"{p['score']} point{'s' if abs(p['score']) != 1 else ''}" for p in view["players"]
    ]
    assert [p["in_hand"] for p in state["players"]] == [p["hand_count"] for p in view["players"]]


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_replay_holds_nothing_hidden_while_the_game_runs(
    client: Client, make_user: Any, kind: str
) -> None:
    """The payload is the same after the hidden cards are dealt anew: the deck's undrawn cards
    and the cards removed from the game reshuffled among themselves (the past is unchanged, the
    future differs)."""
    game, users = table(make_user, kind, 2, 7)
    game = play_until(game, users, 40, seed=7)
    assert game.status == GameStatus.RUNNING
    client.force_login(users[0])
    before = replay_json(history(client, game, step=3))
    assert '"hand"' not in before  # no hand in any frame, not even the viewer's own

    drawn = engine_state(game).deck_pos
    setup = dict(game.setup)
    hidden = list(setup["deck"][drawn:]) + list(setup.get("removed", []))
    shuffled = hidden[:]
    while shuffled == hidden:
        random.Random(1).shuffle(shuffled)
    rest = len(setup["deck"]) - drawn
    setup["deck"] = setup["deck"][:drawn] + shuffled[:rest]
    if "removed" in setup:
        setup["removed"] = shuffled[rest:]
    Game.objects.filter(pk=game.pk).update(setup=setup)
    assert replay_json(history(client, game, step=3)) == before
    client.logout()
    assert replay_json(history(client, game, step=3)) == before  # the same for everybody


def test_a_finished_game_replays_every_hand(client: Client, make_user: Any) -> None:
    game, users = table(make_user, "keltis-cards", 2, 3)
    game = play_until(game, users, 10_000, seed=3)
    assert game.status == GameStatus.FINISHED
    data = json.loads(replay_json(history(client, game)))
    assert all("hand" in player for player in data["frames"][0]["players"])


def test_the_game_page_and_its_history_name_their_navigation(
    client: Client, make_user: Any
) -> None:
    game, users = table(make_user, "keltis", 2, 7)
    game = play_until(game, users, 3, seed=7)
    client.force_login(users[0])
    for html in (client.get(f"/games/{game.pk}/").content.decode(), history(client, game)):
        navs = re.findall(r"<nav\b[^>]*>", html)
        assert navs and all(re.search(r'aria-label="[^"]+"', nav) for nav in navs), navs
