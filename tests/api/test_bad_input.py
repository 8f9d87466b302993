"""Bad input to the API gets its documented JSON error, never an HTML page or a 500: a body
nested past the JSON parser's recursion, a NUL in the address (PostgreSQL refuses it in a
query), a body over Django's upload limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.signals import got_request_exception
from django.test import Client

from api.errors import CODES
from games.models import Event
from games.services import game_create

pytestmark = pytest.mark.django_db


def raw_post(client: Client, path: str, body: bytes, secret_headers: dict[str, str]) -> Any:
    return client.generic(
        "POST", path, body, content_type="application/json", headers=secret_headers
    )


@pytest.fixture
def anna_game(make_user: Any, token_for: Any) -> tuple[Any, dict[str, str], Client]:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    headers = {"Authorization": f"Bearer {token_for(anna)}"}
    return game, headers, Client(raise_request_exception=False)


def assert_json_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json", response.content[:300]
    body = response.json()
    assert body["code"] == code and body["message"], body
    assert code in CODES


@pytest.mark.parametrize("depth", [100_000, 3_000])
def test_a_body_nested_past_the_parser_is_a_json_400(anna_game: Any, depth: int) -> None:
    game, headers, client = anna_game
    body = b"[" * depth + b"]" * depth
    response = raw_post(client, f"/api/v1/games/{game.pk}/actions/", body, headers)
    assert_json_error(response, 400, "bad_request")
    assert not Event.objects.filter(game=game, seat=0).exists()


def test_a_nested_object_in_a_field_is_a_json_400(anna_game: Any) -> None:
    game, headers, client = anna_game
    body = b'{"action": ' + b'{"a": ' * 3000 + b"1" + b"}" * 3000 + b', "seq": 0}'
    response = raw_post(client, f"/api/v1/games/{game.pk}/actions/", body, headers)
    assert response.status_code == 400 and response["Content-Type"] == "application/json"


def test_a_body_over_the_upload_limit_is_a_json_413(anna_game: Any, settings: Any) -> None:
    game, headers, client = anna_game
    body = b'{"action": "' + b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + b'", "seq": 0}'
    response = raw_post(client, f"/api/v1/games/{game.pk}/actions/", body, headers)
    assert_json_error(response, 413, "too_large")


def test_a_nul_in_a_username_is_a_json_404(anna_game: Any) -> None:
    """PostgreSQL refuses a NUL in a query (ValueError); SQLite finds nobody: both a 404."""
    _game, headers, client = anna_game
    response = client.get("/api/v1/players/%00/ratings/", headers=headers)
    assert_json_error(response, 404, "not_found")
    response = client.get("/api/v1/players/anna%00/ratings/", headers=headers)
    assert_json_error(response, 404, "not_found")


def test_a_body_over_the_limit_is_refused_in_the_players_language(
    make_user: Any, token_for: Any, settings: Any
) -> None:
    anna = make_user("anna", language="hu")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    body = b'{"action": "' + b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + b'", "seq": 0}'
    response = raw_post(
        Client(), f"/api/v1/games/{game.pk}/actions/", body,
        {"Authorization": f"Bearer {token_for(anna)}"},
    )  # fmt: skip
    assert response.json()["message"] == "A kérés túl nagy: semmi sem változott."


def test_a_bug_is_answered_as_a_json_500_and_still_reported(
    anna_game: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    game, headers, client = anna_game
    settings.DEBUG = False

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("api.selectors.game_answer", broken)
    reported: list[Any] = []

    def heard(sender: Any, **kwargs: Any) -> None:
        reported.append(kwargs["request"])

    got_request_exception.connect(heard, weak=False, dispatch_uid="test-api-500")
    try:
        response = client.get(f"/api/v1/games/{game.pk}/", headers=headers)
    finally:
        got_request_exception.disconnect(dispatch_uid="test-api-500")
    assert_json_error(response, 500, "server_error")
    assert reported  # error reports (and the test client) hear of it as of Django's 500


def test_every_error_code_is_listed_in_the_docs() -> None:
    """docs/api.md's table names every code a program may meet (``refused`` was missing)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    table = text[text.index("## Errors") : text.index("## The stream")]
    assert [code for code in CODES if f"`{code}`" not in table] == []
