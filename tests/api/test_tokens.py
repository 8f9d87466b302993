"""Personal API tokens: made and revoked on the settings page and by the command, stored
hashed, shown once; a wrong, revoked or scope-less token, or another player's game, is refused
with nothing changed; token calls skip CSRF and session calls keep it; limits per token."""

from __future__ import annotations

import hashlib
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from api.models import ApiToken
from games.models import Event, Game
from games.services import game_create
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db


def _state(game: Game) -> tuple[int, int, str]:
    game.refresh_from_db()
    return game.seq, Event.objects.filter(game=game).count(), game.status


def _my_game(user: Any) -> Game:
    return game_create(creator=user, kind="keltis", player_count=2, bots=["greedy"])


def test_the_settings_page_makes_a_token_shown_once_and_stored_hashed(make_user: Any) -> None:
    anna = make_user("anna")
    page = Client()
    page.force_login(anna)
    assert reverse("api_settings") in page.get(reverse("account_settings")).content.decode()
    made = page.post(reverse("api_settings"), {"name": "my bot", "play": "on"})
    assert made.status_code == 200
    secret = re.search(r"klt_[\w-]+", made.content.decode()).group(0)
    token = ApiToken.objects.get(user=anna)
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret.startswith(token.prefix) and len(token.prefix) < len(secret) - 20
    assert token.scope_list == ["read", "play"]
    assert secret not in page.get(reverse("api_settings")).content.decode()  # once only
    assert ApiClient(secret).get("/api/v1/me/").json()["username"] == "anna"

    page.post(reverse("api_token_revoke", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None
    refused = ApiClient(secret).get("/api/v1/me/")
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_token"


def test_the_command_makes_lists_and_revokes_tokens(make_user: Any) -> None:
    make_user("anna")
    out = StringIO()
    call_command("api_token", "create", "anna", "--name", "cli", stdout=out)
    secret = out.getvalue().strip()
    assert ApiClient(secret).get("/api/v1/me/").json()["scopes"] == ["read"]
    token = ApiToken.objects.get()
    listing = StringIO()
    call_command("api_token", "list", "anna", stdout=listing)
    assert token.prefix in listing.getvalue() and secret not in listing.getvalue()
    call_command("api_token", "revoke", "anna", str(token.pk), stdout=StringIO())
    assert ApiClient(secret).get("/api/v1/me/").status_code == 401


@pytest.mark.parametrize(
    "header",
    ["Bearer klt_wrong", "Bearer nonsense", "Token abc", "Bearer"],
)
def test_a_wrong_token_is_refused_with_nothing_changed(make_user: Any, header: str) -> None:
    anna = make_user("anna")
    game = _my_game(anna)
    before = _state(game)
    client = Client()
    response = client.post(
        f"/api/v1/games/{game.pk}/actions/", {"action": "draw deck", "seq": game.seq},
        content_type="application/json", headers={"Authorization": header},
    )  # fmt: skip
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_token"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert _state(game) == before


def test_no_token_is_refused(make_user: Any) -> None:
    response = ApiClient(None).get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_revoked_token_is_refused_with_nothing_changed(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    api = api_for(anna)
    ApiToken.objects.update(revoked_at="2026-01-01T00:00:00Z")
    game = _my_game(anna)
    before = _state(game)
    legal = Game.objects.get(pk=game.pk)
    response = api.post(f"/api/v1/games/{game.pk}/actions/", {"action": "x", "seq": legal.seq})
    assert response.status_code == 401 and _state(game) == before


def test_a_read_token_may_read_but_not_play(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    api = api_for(anna, play=False)
    game = _my_game(anna)
    seen = api.get(f"/api/v1/games/{game.pk}/").json()
    before = _state(game)
    refused = api.post(
        f"/api/v1/games/{game.pk}/actions/", {"action": seen["legal"][0], "seq": seen["seq"]}
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "missing_scope"
    assert _state(game) == before
    assert api.post("/api/v1/games/", {"kind": "keltis", "players": 2}).status_code == 403
    assert Game.objects.count() == 1


def test_another_players_game_is_refused_with_nothing_changed(make_user: Any, api_for: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = _my_game(anna)
    mine = api_for(anna).get(f"/api/v1/games/{game.pk}/").json()
    before = _state(game)
    response = api_for(bela).post(
        f"/api/v1/games/{game.pk}/actions/", {"action": mine["legal"][0], "seq": mine["seq"]}
    )
    assert response.status_code == 403
    assert response.json()["code"] == "not_your_seat"
    assert _state(game) == before
    # bela sees it as a visitor: no hand, no legal actions
    seen = api_for(bela).get(f"/api/v1/games/{game.pk}/").json()
    assert seen["my_seat"] is None and seen["legal"] == []
    assert all(player["hand"] is None for player in seen["state"]["players"])


def test_token_calls_skip_csrf_and_session_calls_keep_it(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    body = {"kind": "keltis", "players": 2, "bots": ["greedy"]}
    assert api_for(anna).post("/api/v1/games/", body).status_code == 201  # no CSRF token
    session = Client(enforce_csrf_checks=True)
    session.force_login(anna)
    refused = session.post("/api/v1/games/", body, content_type="application/json")
    assert refused.status_code == 403
    assert Game.objects.count() == 1
    assert session.get("/api/v1/me/").status_code == 200  # reading needs no CSRF token


def test_calls_are_limited_per_token(make_user: Any, token_for: Any, settings: Any) -> None:
    settings.API_READ_RATE_LIMIT = "3/m"
    anna = make_user("anna")
    first, second = ApiClient(token_for(anna)), ApiClient(token_for(anna))
    assert [first.get("/api/v1/me/").status_code for _ in range(3)] == [200] * 3
    limited = first.get("/api/v1/me/")
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    assert second.get("/api/v1/me/").status_code == 200  # each token counts on its own


def test_refusals_are_in_the_players_language(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna", language="de")
    game = _my_game(anna)
    api = api_for(anna)
    seen = api.get(f"/api/v1/games/{game.pk}/").json()
    stale = api.post(
        f"/api/v1/games/{game.pk}/actions/", {"action": seen["legal"][0], "seq": seen["seq"] + 5}
    )
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_sequence"
    assert "nichts" in stale.json()["message"].lower()
    illegal = api.post(f"/api/v1/games/{game.pk}/actions/", {"action": "draw deck", "seq": 0})
    assert illegal.status_code == 400
    assert illegal.json()["code"] == "illegal_action" and illegal.json()["engine_code"]


def test_a_players_export_lists_their_tokens_never_a_secret(
    make_user: Any, token_for: Any, tmp_path: Any
) -> None:
    import json

    anna = make_user("anna")
    secret = token_for(anna, name="my bot")
    token_for(make_user("bela"), name="not hers")
    target = tmp_path / "anna.json"
    call_command("export_user_data", "anna@example.test", "--output", str(target))
    text = target.read_text()
    data = json.loads(text)
    assert [t["name"] for t in data["api_tokens"]] == ["my bot"]
    assert data["api_tokens"][0]["scopes"] == ["read", "play"]
    assert secret not in text and ApiToken.objects.get(user=anna).digest not in text
    assert data["bot_account"] is False


def test_staff_see_tokens_in_the_admin_without_their_hash(make_user: Any, token_for: Any) -> None:
    anna = make_user("anna")
    token_for(anna, name="my bot")
    staff = make_user("staff", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    listing = admin.get("/admin/api/apitoken/")
    assert listing.status_code == 200
    assert "my bot" in listing.content.decode()
    assert ApiToken.objects.get().digest not in listing.content.decode()
