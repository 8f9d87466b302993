"""The API's event stream on a real stream server (uvicorn, the live pages' stack): my turn, a
move and a game over reach a token's stream with nothing hidden; a reconnect with
Last-Event-ID hears what happened meanwhile; NDJSON; keep-alives; no token, no stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tests.live.conftest import HttpStream, StreamServer, serve_stream, stop_stream

pytestmark = pytest.mark.django_db(transaction=True)

#: this room's ports
PORTS = range(8240, 8250)


@pytest.fixture
def stream_server(settings: Any, tmp_path: Path, live_server: Any) -> Iterator[StreamServer]:
    server = serve_stream(settings, tmp_path, ports=PORTS, redis_db=5, keepalive=1)
    yield server
    stop_stream(server)


class Stream(HttpStream):
    """A bare HTTP/1.1 client of /api/v1/stream/, reading events or NDJSON lines."""

    def __init__(self, server: StreamServer, token: str | None, headers: str = "") -> None:
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        super().__init__(server, "/api/v1/stream/", f"{auth}{headers}", timeout=10)

    def _dechunked(self, raw: bytes) -> str:
        lines = raw.decode().split("\r\n")
        return "\n".join(line for line in lines if not _is_chunk_size(line))

    def event(self, *, comments: bool = False) -> dict[str, Any]:
        """The next SSE event as {"event", "id", "data"} (a comment too when asked)."""
        while True:
            text = self._dechunked(self._until(b"\n\n"))
            fields: dict[str, Any] = {}
            for line in text.splitlines():
                if line.startswith(":") and comments:
                    return {"comment": line[1:].strip()}
                if ": " in line and not line.startswith(":"):
                    key, value = line.split(": ", 1)
                    fields[key] = value
            if "event" in fields:
                fields["data"] = json.loads(fields["data"])
                return fields

    def line(self) -> dict[str, Any]:
        """The next NDJSON object (keep-alive empty lines skipped)."""
        while True:
            text = self._dechunked(self._until(b"\n")).strip()
            if text.startswith("{"):
                return json.loads(text)



def _openapi_3_1(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as JSON Schema says it (a null type), for jsonschema."""
    if isinstance(node, list):
        return [_openapi_3_1(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _openapi_3_1(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") and "type" in node:
        out["type"] = [node["type"], "null"]
    return out


def assert_in_the_schema(events: list[dict[str, Any]]) -> None:
    """Each NDJSON line is a ``StreamEvent`` of the OpenAPI schema (a generated client's
    model of it), no field more or less than it says."""
    from drf_spectacular.generators import SchemaGenerator

    components = SchemaGenerator().get_schema(request=None, public=True)["components"]
    root = {"$ref": "#/components/schemas/StreamEvent", "components": _openapi_3_1(components)}
    for event in events:
        jsonschema.validate(event, root)
        ref = root["components"]["schemas"]["StreamEvent"]["discriminator"]["mapping"][
            event["type"]
        ]
        assert set(event) == set(root["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"])


def _is_chunk_size(line: str) -> bool:
    return bool(line) and all(c in "0123456789abcdefABCDEF" for c in line)


def _duel(make_user: Any) -> tuple[Game, list[Any]]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, [anna, bela]


def _turn(game: Game, users: list[Any], seed: int = 1) -> None:
    """The seat to move plays its whole turn."""
    game.refresh_from_db()
    seat = game.to_move
    while game.status == GameStatus.RUNNING and game.to_move == seat:
        action = RandomBot(seed).choose(engine_state(game))
        action_submit(
            game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=users[seat]
        )
        game.refresh_from_db()


def test_my_turn_and_the_moves_of_my_games_reach_my_stream(
    stream_server: StreamServer, make_user: Any, token_for: Any
) -> None:
    game, users = _duel(make_user)
    mover = game.to_move
    stream = Stream(stream_server, token_for(users[mover], play=False))
    assert stream.status == 200 and "text/event-stream" in stream.head
    first = stream.event()
    assert (first["event"], first["data"]) == ("my_turn", {"game": game.pk, "seq": 0})
    _turn(game, users)  # mine
    _turn(game, users)  # theirs: my turn again
    # mid-turn my action is still awaited (the draw): my_turn comes with every move of mine
    kinds = []
    event: dict[str, Any] = {}
    while event.get("data") != {"game": game.pk, "seq": game.seq}:
        event = stream.event()
        kinds.append(event["event"])
        assert set(event["data"]) <= {"game", "seq", "to_move"}  # nothing that names a card
    stream.close()
    assert kinds[0] == "move" and kinds[-1] == "my_turn"
    assert "move" in kinds[1:-1]  # the other seat's moves were heard too


def test_a_reconnect_with_the_last_event_id_hears_what_happened_meanwhile(
    stream_server: StreamServer, make_user: Any, token_for: Any
) -> None:
    game, users = _duel(make_user)
    waiting = users[1 - game.to_move]
    token = token_for(waiting, play=False)
    stream = Stream(stream_server, token)
    assert stream.event(comments=True) == {"comment": "ready"}
    _turn(game, users)
    heard = stream.event()
    stream.close()
    last_id = heard["id"]
    game.refresh_from_db()
    _turn(game, users)  # my turn, taken meanwhile by nobody: they wait for me again
    _turn(game, users)  # the other seat's turn after mine
    again = Stream(stream_server, token, headers=f"Last-Event-ID: {last_id}\r\n")
    caught = [again.event(), again.event()]
    again.close()
    assert [e["event"] for e in caught] == ["move", "my_turn"]
    assert int(caught[0]["id"]) > int(last_id)
    assert caught[1]["data"] == {"game": game.pk, "seq": game.seq}


def test_ndjson_keep_alives_and_a_game_over(
    stream_server: StreamServer, make_user: Any, token_for: Any
) -> None:
    anna = make_user("anna")
    token = token_for(anna)
    ndjson = "Accept: application/x-ndjson\r\n"
    stream = Stream(stream_server, token, headers=ndjson)
    assert "application/x-ndjson" in stream.head
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["random"])
    started = [stream.line(), stream.line()]
    stream.close()
    assert [(e["type"], e["game"]) for e in started] == [
        ("game_start", game.pk), ("my_turn", game.pk),
    ]  # fmt: skip
    assert_in_the_schema(started)
    game.refresh_from_db()
    bot = RandomBot(3)
    while game.status == GameStatus.RUNNING:  # while no stream is open (SQLite: one writer)
        engine = engine_state(game)
        action_submit(game_id=game.pk, seat=engine.to_move, action=bot.choose(engine),
                      expected_seq=game.seq)  # fmt: skip
        game.refresh_from_db()
    again = Stream(stream_server, token, headers=f"{ndjson}Last-Event-ID: {started[1]['id']}\r\n")
    caught = [again.line(), again.line()]
    again.close()
    assert caught[0]["type"] == "move"
    assert caught[1] == {"id": caught[1]["id"], "type": "game_over", "game": game.pk,
                         "seq": game.seq}  # fmt: skip
    assert_in_the_schema(caught)
    quiet = Stream(stream_server, token_for(make_user("bela")))
    assert quiet.event(comments=True) == {"comment": "ready"}
    assert quiet.event(comments=True) == {"comment": "keep-alive"}
    quiet.close()


def test_no_token_no_stream(stream_server: StreamServer, make_user: Any) -> None:
    for token in (None, "klt_not_a_token"):
        stream = Stream(stream_server, token)
        assert stream.status == 401
        assert '"invalid_token"' in stream._until(b"}").decode() + "}"
        stream.close()


def test_a_seat_taken_and_a_start_reach_my_stream(
    stream_server: StreamServer, make_user: Any, token_for: Any
) -> None:
    anna, bela, csilla = make_user("anna"), make_user("bela"), make_user("csilla")
    stream = Stream(stream_server, token_for(bela, play=False))
    assert stream.event(comments=True) == {"comment": "ready"}
    game = game_create(creator=anna, kind="keltis-cards", player_count=3)
    game_join(game_id=game.pk, user=bela)
    seated = stream.event()
    game_join(game_id=game.pk, user=csilla)
    started = stream.event()
    stream.close()
    assert (seated["event"], seated["data"]) == ("seated", {"game": game.pk})
    assert (started["event"], started["data"]) == ("game_start", {"game": game.pk})


def test_the_example_bot_reads_the_stream(
    stream_server: StreamServer, make_user: Any, token_for: Any
) -> None:
    import runpy

    bot = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "api_bot.py"))
    game, users = _duel(make_user)
    client = bot["Client"]("http://127.0.0.1:9", token_for(users[game.to_move]), stream_server.url)
    events = bot["events"](client, None)
    event_id, kind, data = next(events)
    events.close()
    assert (kind, data) == ("my_turn", {"game": game.pk, "seq": 0}) and int(event_id) > 0
