"""Table talk through the API: listing (with ``?after=`` polling), posting with the play scope,
the refusals' codes, and the stream's ``message`` event (never to one who may not read the
game, never a blocked author's, a hidden one with empty text)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from accounts import blocks
from api import stream, tokens
from api.errors import CODES
from api.models import Scope
from games.models import Game
from games.services import game_create_seated
from live.messages import GameChange
from talk import services
from talk.models import Message, Suspension
from tests.api.conftest import ApiClient
from tests.api.test_stream import Stream, assert_in_the_schema
from tests.live.conftest import StreamServer, serve_stream, stop_stream


def api(user: Any, *, play: bool = True) -> ApiClient:
    scopes = [Scope.READ, Scope.PLAY] if play else [Scope.READ]
    return ApiClient(tokens.token_create(user=user, name="t", scopes=scopes).secret)


def duel(make_user: Any, *, private: bool = False) -> tuple[Game, Any, Any]:
    anna, bela = make_user("anna", display_name="Anna"), make_user("bela")
    return game_create_seated(kind="keltis", seats=[anna, bela], private=private), anna, bela


def url(game: Game) -> str:
    return f"/api/v1/games/{game.pk}/messages/"


@pytest.mark.django_db
def test_post_then_list_and_poll_after(make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    answer = api(anna).post(url(game), {"text": "Hello <b>you</b>"})
    assert answer.status_code == 201
    first = answer.json()
    assert first["text"] == "Hello <b>you</b>" and first["author"] == "Anna"
    assert first["author_username"] == "anna" and first["hidden"] is False
    assert Message.objects.get().via == "api"
    api(bela).post(url(game), {"text": "hi"})
    listed = api(bela, play=False).get(url(game)).json()
    assert [m["text"] for m in listed["messages"]] == ["Hello <b>you</b>", "hi"]
    assert listed["more"] is False and listed["may_write"] is True
    newer = api(bela).get(url(game) + f"?after={first['id']}").json()
    assert [m["text"] for m in newer["messages"]] == ["hi"]
    assert api(bela).get(url(game) + "?after=x").json()["code"] == "invalid"


@pytest.mark.django_db
def test_refusals_have_their_codes(make_user: Any, settings: Any) -> None:
    game, anna, bela = duel(make_user)
    watcher = make_user("watcher")
    answer = api(watcher).post(url(game), {"text": "hi"})
    assert (answer.status_code, answer.json()["code"]) == (403, "talk_not_a_player")
    listed = api(watcher).get(url(game)).json()  # a spectator of a public game reads
    assert listed["may_write"] is False
    answer = api(anna, play=False).post(url(game), {"text": "hi"})
    assert (answer.status_code, answer.json()["code"]) == (403, "missing_scope")
    answer = api(anna).post(url(game), {"text": "a\u202eb"})
    assert (answer.status_code, answer.json()["code"]) == (400, "talk_message_not_valid")
    assert api(anna).post(url(game), {}).json()["code"] == "invalid"
    settings.TALK_RATE_PER_MINUTE = "1/m"
    api(anna).post(url(game), {"text": "one"})
    answer = api(anna).post(url(game), {"text": "two"})
    assert (answer.status_code, answer.json()["code"]) == (429, "talk_rate_limited")
    Suspension.objects.create(user=bela, until=timezone.now() + timedelta(days=1))
    answer = api(bela).post(url(game), {"text": "hi"})
    assert (answer.status_code, answer.json()["code"]) == (403, "talk_suspended")
    Game.objects.filter(pk=game.pk).update(status="cancelled")
    answer = api(anna).post(url(game), {"text": "bye"})
    assert (answer.status_code, answer.json()["code"]) == (409, "talk_closed")
    for code in ("talk_not_a_player", "talk_closed", "talk_suspended", "talk_rate_limited",
                 "talk_message_not_valid", "talk_refused"):  # fmt: skip
        assert code in CODES


@pytest.mark.django_db
def test_a_private_games_talk_is_none_of_a_strangers_business(make_user: Any) -> None:
    game, anna, _bela = duel(make_user, private=True)
    services.message_post(game_id=game.pk, user=anna, text="secret")
    stranger = api(make_user("stranger"))
    assert stranger.get(url(game)).json()["code"] == "not_found"
    assert stranger.post(url(game), {"text": "hi"}).status_code == 404


@pytest.mark.django_db
def test_hidden_and_blocked_messages_in_the_list(make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    hidden = services.message_post(game_id=game.pk, user=anna, text="nasty")
    services.message_hide(message_id=hidden.pk, staff=make_user("staff", is_staff=True))
    [shown] = api(bela).get(url(game)).json()["messages"]
    assert (shown["text"], shown["hidden"]) == ("", True)
    blocks.block(blocker=bela, blocked=anna)
    assert api(bela).get(url(game)).json()["messages"] == []


def change_of(game: Game, message: Message) -> GameChange:
    return GameChange(
        game=game.pk, seq=game.seq, status=game.status, to_move=game.to_move, seats=2,
        users=(), message=message.pk,
    )  # fmt: skip


@pytest.mark.django_db
def test_the_streams_message_event_for_each_reader(make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    message = services.message_post(game_id=game.pk, user=anna, text="hello")
    change = change_of(game, message)
    [(kind, data)] = stream.describe(change, bela.pk, {})
    assert kind == "message"
    assert data["message"] == message.pk and data["game"] == game.pk
    assert (data["author"], data["text"], data["seq"], data["hidden"]) == (
        "Anna", "hello", message.seq, False,
    )  # fmt: skip
    assert stream.describe(change, anna.pk, {})  # the author hears it too
    services.message_hide(message_id=message.pk, staff=make_user("staff", is_staff=True))
    [(_kind, data)] = stream.describe(change, bela.pk, {})
    assert (data["text"], data["hidden"]) == ("", True)
    blocks.block(blocker=bela, blocked=anna)
    assert stream.describe(change, bela.pk, {}) == []
    services.mute(game_id=game.pk, user=anna)
    assert stream.describe(change, anna.pk, {}) == []


@pytest.mark.django_db
def test_no_message_event_for_one_who_may_not_read(make_user: Any) -> None:
    game, anna, _bela = duel(make_user, private=True)
    message = services.message_post(game_id=game.pk, user=anna, text="secret")
    stranger = make_user("stranger")
    assert stream.describe(change_of(game, message), stranger.pk, {}) == []


@pytest.mark.django_db
def test_a_reconnect_catches_up_with_the_messages(make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    before = int((timezone.now() - timedelta(seconds=5)).timestamp() * 1000)
    services.message_post(game_id=game.pk, user=anna, text="while you were away")
    _known, events = stream.opening(bela.pk, before)
    assert ("message", "while you were away") in [(k, d.get("text")) for k, d in events]


#: this room's ports (t1)
PORTS = range(8600, 8610)


@pytest.fixture
def stream_server(settings: Any, tmp_path: Path, live_server: Any) -> Iterator[StreamServer]:
    server = serve_stream(settings, tmp_path, ports=PORTS, redis_db=7, keepalive=1)
    yield server
    stop_stream(server)


@pytest.mark.django_db(transaction=True)
def test_a_message_reaches_the_other_players_stream(
    stream_server: StreamServer, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    listener_user, writer = (anna, bela) if game.to_move == 0 else (bela, anna)
    secret = tokens.token_create(user=listener_user, name="s", scopes=[Scope.READ]).secret
    listener = Stream(stream_server, secret, headers="Accept: application/x-ndjson\r\n")
    first = listener.line()  # a fresh stream starts with my turn
    assert (first["type"], first["game"]) == ("my_turn", game.pk)
    services.message_post(game_id=game.pk, user=writer, text="Good luck <3")
    line = listener.line()
    listener.close()
    assert line["type"] == "message" and line["text"] == "Good luck <3"
    assert line["author_username"] == writer.username and line["game"] == game.pk
    assert_in_the_schema([line])
