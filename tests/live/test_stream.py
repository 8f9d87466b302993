"""The event stream on a real stream server: a move reaches a player's open stream with only
the game's public standing; a stream opened with an old state id catches up at once; a visitor
may follow a game, and the lobby's open games; a visitor with neither gets nothing to listen
to."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from games.engine.bots import RandomBot
from games.models import Game
from games.services import action_submit, engine_state, game_create, game_join

from .conftest import HttpStream, StreamServer

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC_KEYS = {"game", "seq", "status", "to_move", "seats"}


class Stream(HttpStream):
    """A bare HTTP/1.1 client of /live/events/ (what EventSource sends), reading events."""

    def __init__(
        self, server: StreamServer, query: str, cookie: str = "", headers: str = ""
    ) -> None:
        super().__init__(
            server,
            f"/live/events/?{query}",
            f"Accept: text/event-stream\r\nCookie: {cookie}\r\n{headers}",
            timeout=5,
        )

    def event(self) -> dict[str, str]:
        """The next event (chunk framing stripped: each chunk holds whole events)."""
        while True:
            lines = [
                line for line in self._until(b"\n\n").decode().splitlines()
                if ":" in line and not line.startswith(":")
            ]
            fields = dict(line.split(": ", 1) for line in lines if ": " in line)
            fields = {k.split("\r\n")[-1]: v for k, v in fields.items()}
            if "event" in fields:
                return fields



def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


def duel(make_user: Any, kind: str = "keltis-cards") -> tuple[Game, list[Any]]:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, [anna, bela]


def move(game: Game, users: list[Any], seed: int = 1) -> None:
    game.refresh_from_db()
    action_submit(
        game_id=game.pk, seat=game.to_move, action=RandomBot(seed).choose(engine_state(game)),
        expected_seq=game.seq, user=users[game.to_move],
    )
    game.refresh_from_db()


def test_a_move_reaches_the_other_players_stream_with_nothing_hidden(
    stream_server: StreamServer, make_user: Any
) -> None:
    game, users = duel(make_user)
    waiting = users[1 - game.to_move]
    stream = Stream(stream_server, f"game={game.pk}", cookie=session_cookie(waiting))
    assert stream.status == 200 and "text/event-stream" in stream.head
    move(game, users)
    event = stream.event()
    stream.close()
    assert event["event"] == "change"
    data = json.loads(event["data"])
    assert set(data) == PUBLIC_KEYS
    assert (data["game"], data["seq"], data["to_move"]) == (game.pk, game.seq, game.to_move)
    # numbers and a status word only: nothing that could name a card
    assert all(isinstance(v, int) or v in ("running", "finished") for v in data.values())


def test_a_stream_opened_with_an_old_state_catches_up_at_once(
    stream_server: StreamServer, make_user: Any
) -> None:
    game, users = duel(make_user)
    first = Stream(stream_server, f"game={game.pk}")
    move(game, users)
    seen = first.event()["id"]
    first.close()
    move(game, users, seed=2)  # while no stream was open
    again = Stream(stream_server, f"game={game.pk}", headers=f"Last-Event-ID: {seen}\r\n")
    event = again.event()
    again.close()
    assert event["id"] != seen
    current = Stream(stream_server, f"game={game.pk}&since={event['id']}")
    move(game, users, seed=3)
    assert json.loads(current.event()["data"])["seq"] == game.seq  # no catch-up: it was current
    current.close()


def test_a_players_own_stream_hears_their_games_without_a_game_page(
    stream_server: StreamServer, make_user: Any
) -> None:
    game, users = duel(make_user)
    other, _ = duel(make_user)
    stream = Stream(stream_server, "", cookie=session_cookie(users[0]))
    move(other, [seat.user for seat in other.seats.order_by("index")])
    move(game, users)
    data = json.loads(stream.event()["data"])
    stream.close()
    assert data["game"] == game.pk  # not the game they have no seat in


def test_nothing_to_hear_for_a_visitor_without_a_game(stream_server: StreamServer) -> None:
    stream = Stream(stream_server, "")
    assert stream.status == 204
    stream.close()
    assert Stream(stream_server, "game=999999").status == 404


def test_a_player_with_the_game_page_open_is_present_at_it(
    stream_server: StreamServer, make_user: Any
) -> None:
    """The stream marks its player present at its game (notifications.quiet holds their turn
    messages meanwhile); a visitor's stream, or a player's stream without a game, marks none."""
    from games import presence

    game, users = duel(make_user)
    anna, bela = users
    other = Stream(stream_server, "", cookie=session_cookie(bela))
    stream = Stream(stream_server, f"game={game.pk}", cookie=session_cookie(anna))
    stream._until(b"\n\n")  # the stream's first line: it has marked its player by now
    assert presence.is_present(game.pk, anna.pk)
    assert not presence.is_present(game.pk, bela.pk)
    stream.close()
    other.close()


def test_a_lobby_stream_hears_games_open_fill_and_start_but_no_running_games_moves(
    stream_server: StreamServer, make_user: Any
) -> None:
    running, users = duel(make_user)
    anna, bela, cleo = make_user(), make_user(), make_user()
    early = game_create(creator=cleo, kind="keltis", player_count=2)  # open before the stream
    stream = Stream(stream_server, "lobby=1")  # a visitor's lobby
    assert stream.status == 200
    move(running, users)  # not the lobby's business: nothing sent
    fresh = game_create(creator=anna, kind="keltis", player_count=3)
    game_join(game_id=fresh.pk, user=bela)
    game_join(game_id=early.pk, user=anna)  # it was open when the stream began: it starts
    seen = [json.loads(stream.event()["data"]) for _ in range(3)]
    assert [(d["game"], d["status"], d["seats"]) for d in seen] == [
        (fresh.pk, "open", 1),
        (fresh.pk, "open", 2),
        (early.pk, "running", 2),
    ]
    early.refresh_from_db()
    move(early, [cleo, anna])  # no longer open: its moves are not the lobby's either
    game_join(game_id=fresh.pk, user=cleo)  # the table is full: it leaves the list
    last = json.loads(stream.event()["data"])
    stream.close()
    assert (last["game"], last["status"], last["seats"]) == (fresh.pk, "running", 3)
