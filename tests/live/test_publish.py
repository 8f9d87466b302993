"""The publishing side of live pages: after each commit that a game's pages show (an action,
mid-turn ones too, a seat taken or given up, a start), one message goes to the stream servers,
over the embedded default's Unix socket or Redis pub/sub, and it holds no card."""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from games.engine.bots import RandomBot
from games.models import Game
from games.services import (
    GameServiceError,
    action_submit,
    engine_state,
    game_create,
    game_join,
    game_leave,
)
from live.messages import GameChange

pytestmark = pytest.mark.django_db

#: every key a pushed message may hold: where the game stands, never what anyone holds
PUBLIC_KEYS = {"game", "seq", "status", "to_move", "seats"}


@pytest.fixture
def inbox(settings: Any, tmp_path: Path) -> Iterator[socket.socket]:
    """The embedded default: a stream server's datagram socket, bound by the test."""
    path = tmp_path / "live.sock"
    settings.LIVE_PUBSUB_URL = f"unix://{path}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield sock
    sock.close()


def received(sock: socket.socket) -> list[GameChange]:
    changes = []
    sock.setblocking(False)
    try:
        while True:
            changes.append(GameChange.decode(sock.recv(65536)))
    except BlockingIOError:
        pass
    return changes


def test_a_start_and_every_action_publish_where_the_game_stands(
    inbox: socket.socket, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = make_user(), make_user()
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create(creator=anna, kind="keltis", player_count=2)
    assert received(inbox) == [
        GameChange(game=game.pk, seq=0, status="open", to_move=None, seats=1, users=(anna.pk,))
    ]
    with django_capture_on_commit_callbacks(execute=True):
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    [started] = received(inbox)
    assert (started.status, started.seq, started.to_move, started.seats) == (
        "running", 0, game.to_move, 2
    )
    assert set(started.users) == {anna.pk, bela.pk}
    bot, users = RandomBot(5), [anna, bela]
    for _ in range(6):  # mid-turn actions too: the board changed under the other player's eyes
        game.refresh_from_db()
        with django_capture_on_commit_callbacks(execute=True):
            action_submit(
                game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
                expected_seq=game.seq, user=users[game.to_move],
            )
        game.refresh_from_db()
        # one change per action stored (a step the site took for the player is one more)
        changes = received(inbox)
        assert 1 <= len(changes) <= 2
        change = changes[-1]
        assert (change.game, change.seq, change.to_move) == (game.pk, game.seq, game.to_move)


def test_a_refused_action_publishes_nothing(
    inbox: socket.socket, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(GameServiceError):
        action_submit(game_id=game.pk, seat=game.to_move, action="nonsense", user=None)
    assert received(inbox) == []


def test_leaving_an_open_game_publishes_the_seats_left(
    inbox: socket.socket, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3)
    game_join(game_id=game.pk, user=bela)
    received(inbox)
    with django_capture_on_commit_callbacks(execute=True):
        game_leave(game_id=game.pk, user=bela)
    [change] = received(inbox)
    assert (change.status, change.seats, change.users) == ("open", 1, (anna.pk,))


def test_what_a_browser_is_sent_names_no_card(
    inbox: socket.socket, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The public part of a message has only the game's public standing, whatever the hands."""
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis-cards", player_count=2)
    with django_capture_on_commit_callbacks(execute=True):
        game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    view = engine_state(game).snapshot()
    [change] = received(inbox)
    public = change.public()
    assert set(public) == PUBLIC_KEYS
    assert all(isinstance(v, int | str | type(None)) for v in public.values())
    assert "hand" not in json.dumps(public) and "hand" in json.dumps(view)


def test_no_stream_server_listening_loses_nothing_stored(
    settings: Any, tmp_path: Path, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.LIVE_PUBSUB_URL = f"unix://{tmp_path / 'nobody.sock'}"
    anna = make_user()
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create(creator=anna, kind="keltis", player_count=2)
    assert Game.objects.filter(pk=game.pk).exists()


def test_redis_pubsub_carries_the_message(
    settings: Any, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Production's transport (CI's Redis; a channel of this test's own)."""
    url = os.environ.get("LIVE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
    settings.LIVE_PUBSUB_URL = url
    settings.LIVE_CHANNEL = f"keltis:live:test:{uuid.uuid4().hex}"
    client = redis.Redis.from_url(url)
    pubsub = client.pubsub()
    pubsub.subscribe(settings.LIVE_CHANNEL)
    assert pubsub.get_message(timeout=2)["type"] == "subscribe"
    anna = make_user()
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create(creator=anna, kind="keltis", player_count=2)
    message = pubsub.get_message(timeout=2)
    pubsub.close()
    assert message is not None and message["type"] == "message"
    assert GameChange.decode(message["data"]).game == game.pk


def test_publishing_reuses_one_redis_connection(settings: Any) -> None:
    """A move's publish does not open a connection of its own: twenty publishes, one
    connection of this process's publisher (named in Redis's CLIENT LIST)."""
    from live import transport

    url = os.environ.get("LIVE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
    settings.LIVE_PUBSUB_URL = url
    settings.LIVE_CHANNEL = f"keltis:live:test:{uuid.uuid4().hex}"
    admin = redis.Redis.from_url(url)

    def publishers() -> set[int]:
        return {
            int(c["id"]) for c in admin.client_list() if c["name"] == transport.PUBLISHER_NAME
        }

    transport.publish(b"{}")
    before = publishers()
    for _ in range(20):
        transport.publish(b"{}")
    after = publishers()
    admin.close()
    assert len(before) >= 1 and after == before


def test_the_change_of_a_game_is_read_in_one_query(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    """It is read after every action: the seats with their game's columns, one query; a bot's
    seat counts among the seats and names no user."""
    from live.selectors import game_change

    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["random", "random"])
    game.refresh_from_db()
    with django_assert_num_queries(1):
        change = game_change(game.pk)
    assert change == GameChange(
        game=game.pk, seq=game.seq, status="running", to_move=game.to_move, seats=3,
        users=(anna.pk,),
    )  # fmt: skip
    assert game_change(999_999) is None


def test_an_action_publishes_the_position_it_wrote_without_reading_it_back(
    inbox: socket.socket, make_user: Any, monkeypatch: Any, django_assert_num_queries: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The action hands its hooks the position its transaction wrote: the message is the one
    a read after the commit gives, it is published without a query, and once per action
    (a step the site took for the player included)."""
    from games import services
    from live.publish import game_changed
    from live.selectors import game_change, written_change

    told: list[tuple[int, Any]] = []
    monkeypatch.setattr(services, "CHANGED_HOOKS", [lambda *args: told.append(args)])
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis-cards", player_count=2)
    game_join(game_id=game.pk, user=bela)
    bot, users = RandomBot(3), {0: anna, 1: bela}
    for _ in range(12):
        game.refresh_from_db()
        told.clear()
        with django_capture_on_commit_callbacks(execute=True):
            action_submit(
                game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
                expected_seq=game.seq, user=users[game.to_move],
            )  # fmt: skip
        [(game_id, position)] = told
        assert game_id == game.pk
        assert written_change(game_id, position) == game_change(game_id)
        received(inbox)
        with django_assert_num_queries(0):
            game_changed(game_id, position)
        assert received(inbox) == [game_change(game_id)]
