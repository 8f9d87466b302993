"""The OpenAPI schema against the running site (schemathesis): requests made from the schema,
valid and not, with a real token, never get a 500, and every answer matches the schema
(status code, content type, body). Few examples per operation: a check, not a benchmark."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from api import tokens
from games.services import game_create

OPENAPI = SchemaGenerator().get_schema(request=None, public=True)
STREAM = "/api/v1/stream/"
full_schema = schemathesis.openapi.from_dict(OPENAPI)
#: the event stream's answer never ends (and it is served by the stream server, not the test's
#: WSGI server): its refusals are checked below, its events in test_stream.py
schema = full_schema.exclude(path=STREAM)

CHECKS = [
    not_a_server_error, status_code_conformance, content_type_conformance,
    response_schema_conformance,
]  # fmt: skip


@pytest.fixture
def caller(live_server: Any, make_user: Any, settings: Any) -> dict[str, Any]:
    """A player with a token of both scopes and a running game of theirs (id 1 or more)."""
    settings.API_READ_RATE_LIMIT = settings.API_PLAY_RATE_LIMIT = "100000/m"
    anna = make_user("anna")
    game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    secret = tokens.token_create(user=anna, name="schema", scopes=["read", "play"]).secret
    return {"url": live_server.url, "headers": {"Authorization": f"Bearer {secret}"}}


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(
    max_examples=8, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
def test_every_answer_matches_the_schema(case: Any, caller: dict[str, Any]) -> None:
    case.call_and_validate(base_url=caller["url"], headers=caller["headers"], checks=CHECKS)


def test_the_event_stream_is_described() -> None:
    """Clients generated from the schema know the stream: its two media types, its events
    (a oneOf on ``type``) with their fields, its JSON refusals."""
    operation = OPENAPI["paths"][STREAM]["get"]
    ok = operation["responses"]["200"]["content"]
    assert set(ok) == {"text/event-stream", "application/x-ndjson"}
    assert ok["application/x-ndjson"]["schema"] == {"$ref": "#/components/schemas/StreamEvent"}
    components = OPENAPI["components"]["schemas"]
    mapping = components["StreamEvent"]["discriminator"]["mapping"]
    assert set(mapping) == {"my_turn", "move", "game_start", "seated", "game_over", "message"}
    fields = {
        kind: set(components[ref.rsplit("/", 1)[1]]["properties"]) - {"id", "type"}
        for kind, ref in mapping.items()
    }
    assert fields == {
        "my_turn": {"game", "seq"}, "move": {"game", "seq", "to_move"}, "game_start": {"game"},
        "seated": {"game"}, "game_over": {"game", "seq"},
        "message": {
            "game", "message", "author", "author_username", "seq", "created_at", "text", "hidden",
        },
    }  # fmt: skip
    for code in ("401", "403", "429"):
        answer = operation["responses"][code]["content"]["application/json"]["schema"]
        assert answer == {"$ref": "#/components/schemas/Error"}
    assert {"bearerAuth": []} in operation["security"]


def test_the_stream_route_is_the_stream_not_its_schema_stub() -> None:
    from django.urls import resolve

    from api import stream

    assert resolve(STREAM).func is stream.events


@pytest.mark.django_db(transaction=True)
def test_the_streams_refusal_matches_the_schema(live_server: Any) -> None:
    """A bounded call of the stream: no token, its 401 (JSON, as the schema says)."""
    import requests

    response = requests.get(f"{live_server.url}{STREAM}", timeout=30)
    assert response.status_code == 401
    full_schema[STREAM]["GET"].validate_response(response)


def test_the_schema_is_generated_without_warnings(tmp_path: Any) -> None:
    from django.core.management import call_command

    target = tmp_path / "schema.yml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    text = target.read_text()
    assert "/api/v1/games/{game_id}/actions/" in text and "bearerAuth" in text
    assert "/api/v1/stream/" in text and "text/event-stream" in text


@pytest.mark.django_db
def test_the_schema_and_docs_pages_are_served(client: Any) -> None:
    assert client.get("/api/schema/?format=json").json()["info"]["title"] == "Keltis by mail API"
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"/static/drf_spectacular_sidecar/" in docs.content
    assert b"<script>" not in docs.content and b"<style>" not in docs.content  # the CSP
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and b"SwaggerUIBundle" in script.content
