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

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))

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


def test_the_schema_is_generated_without_warnings(tmp_path: Any) -> None:
    from django.core.management import call_command

    target = tmp_path / "schema.yml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    text = target.read_text()
    assert "/api/v1/games/{game_id}/actions/" in text and "bearerAuth" in text


@pytest.mark.django_db
def test_the_schema_and_docs_pages_are_served(client: Any) -> None:
    assert client.get("/api/schema/?format=json").json()["info"]["title"] == "Keltis by mail API"
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"/static/drf_spectacular_sidecar/" in docs.content
    assert b"<script>" not in docs.content and b"<style>" not in docs.content  # the CSP
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and b"SwaggerUIBundle" in script.content
