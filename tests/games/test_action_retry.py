"""A move whose transaction committed is never answered as an error: the same POST sent again
(its answer lost, a double click) or a connection that broke after the commit is answered as
the success it was, and nothing is applied twice. A stale form of another move, or of someone
else's, is still told the game has moved on. (The API's: tests/api/test_retried_actions.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from django.urls import reverse

from games import services
from games.models import Event, Game
from games.services import game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db


def duel(make_user: Any) -> tuple[Game, Any, Any]:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def mover(game: Game, anna: Any, bela: Any) -> tuple[Any, Any]:
    return (anna, bela) if game.to_move == 0 else (bela, anna)


def messages_of(client: Any, game: Game) -> list[str]:
    page = client.get(reverse("game_detail", args=[game.pk]))
    return [str(m) for m in page.context["messages"]]


def test_the_same_post_sent_twice_is_one_move_answered_twice_as_made(
    client: Any, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    player, _ = mover(game, anna, bela)
    action = engine_state(game).legal()[0]
    client.force_login(player)
    url = reverse("game_act", args=[game.pk])
    first = client.post(url, {"action": action, "seq": "0"})
    events = Event.objects.filter(game=game).count()
    messages_of(client, game)  # the first answer's message, read
    again = client.post(url, {"action": action, "seq": "0"})
    assert (first.status_code, again.status_code) == (303, 303)
    assert Event.objects.filter(game=game).count() == events  # nothing applied twice
    assert messages_of(client, game) == ["Your move was made."]


def test_a_stale_form_of_another_move_still_says_the_game_moved_on(
    client: Any, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    player, other = mover(game, anna, bela)
    legal = engine_state(game).legal()
    url = reverse("game_act", args=[game.pk])
    client.force_login(player)
    client.post(url, {"action": legal[0], "seq": "0"})
    messages_of(client, game)
    client.post(url, {"action": legal[1], "seq": "0"})  # another move at the same number
    assert messages_of(client, game) == [
        "The game has moved on since this page was shown: nothing was changed."
    ]
    client.force_login(other)  # the same move, but not theirs
    client.post(url, {"action": legal[0], "seq": "0"})
    [message] = messages_of(client, game)
    assert message != "Your move was made."


@pytest.mark.django_db(transaction=True)
def test_a_connection_broken_after_the_commit_is_answered_as_the_move_made(
    client: Any, make_user: Any, monkeypatch: Any
) -> None:
    """The commit landed, then the database connection broke (as PostgreSQL dropping it at
    that moment): no 500, the move stands and the player is told it was made."""
    game, anna, bela = duel(make_user)
    player, _ = mover(game, anna, bela)
    action = engine_state(game).legal()[0]
    submit = services.action_submit

    def committed_then_broken(**kwargs: Any) -> Any:
        submit(**kwargs)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("games.views.play.action_submit", committed_then_broken)
    client.force_login(player)
    answer = client.post(reverse("game_act", args=[game.pk]), {"action": action, "seq": "0"})
    assert answer.status_code == 303
    assert Event.objects.filter(game=game, seq=1, action=action).exists()
    assert messages_of(client, game) == ["Your move was made."]


@pytest.mark.django_db(transaction=True)
def test_a_connection_broken_before_the_commit_is_still_an_error(
    client: Any, make_user: Any, monkeypatch: Any
) -> None:
    game, anna, bela = duel(make_user)
    player, _ = mover(game, anna, bela)

    def broken(**kwargs: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("games.views.play.action_submit", broken)
    client.force_login(player)
    client.raise_request_exception = False
    answer = client.post(
        reverse("game_act", args=[game.pk]),
        {"action": engine_state(game).legal()[0], "seq": "0"},
    )
    assert answer.status_code == 500  # nothing was stored: not a success
    assert not Event.objects.filter(game=game).exists()
