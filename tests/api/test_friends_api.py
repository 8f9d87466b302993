"""Invitations and rematches through the API (friends.invitations, friends.rematches): listing,
inviting (at creation and to an open table), answering and withdrawing, offering, accepting and
declining a rematch; each refusal its JSON error with a listed code, nothing changed; every
path in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts import blocks
from api.errors import CODES
from friends.models import Invitation, InvitationStatus, Rematch, RematchStatus
from games.engine.bots import make_bot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_create_seated
from games.state import engine_state

pytestmark = pytest.mark.django_db


def assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    body = response.json()
    assert body["code"] == code and body["message"], body
    assert code in CODES


@pytest.fixture
def people(make_user: Any) -> tuple[Any, Any, Any]:
    return (
        make_user("anna", display_name="Anna"),
        make_user("bela", display_name="Béla"),
        make_user("cecil", display_name="Cecil"),
    )


def test_create_with_invitees_list_and_accept(people: Any, api_for: Any) -> None:
    anna, bela, _ = people
    created = api_for(anna).post(
        "/api/v1/games/",
        {"kind": "keltis", "players": 3, "invitees": ["Béla", "Friend@Example.org"]},
    )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert created.json()["status"] == "open"

    mine = api_for(anna).get("/api/v1/invitations/").json()
    assert mine["received"] == []
    assert {row["invitee"] for row in mine["sent"]} == {"Béla", "friend@example.org"}
    assert {row["game"] for row in mine["sent"]} == {game_id}

    theirs = api_for(bela).get("/api/v1/invitations/").json()
    (row,) = theirs["received"]
    assert row["inviter"] == "Anna" and row["invitee"] == "Béla" and row["status"] == "pending"
    assert row["league"] is None and row["expires_at"]
    accepted = api_for(bela).post(f"/api/v1/invitations/{row['id']}/accept/")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    assert Game.objects.get(pk=game_id).seats.filter(user=bela).exists()
    again = api_for(bela).post(f"/api/v1/invitations/{row['id']}/accept/")
    assert_error(again, 409, "invitation_closed")


def test_an_address_shows_only_to_its_inviter(people: Any, api_for: Any) -> None:
    anna, bela, _ = people
    game_id = api_for(anna).post("/api/v1/games/", {"kind": "keltis", "players": 2}).json()["id"]
    invited = api_for(anna).post(
        f"/api/v1/games/{game_id}/invitations/", {"invitee": "Someone@Example.org"}
    )
    assert invited.status_code == 201, invited.content
    assert invited.json()["invitee"] == "someone@example.org"
    assert invited.json()["inviter"] == "Anna" and invited.json()["game"] == game_id
    # Béla may not withdraw it, nor read the address in the refusal's answer
    refused = api_for(bela).post(f"/api/v1/invitations/{invited.json()['id']}/withdraw/")
    assert_error(refused, 400, "cannot_invite")
    assert "someone@" not in refused.content.decode()
    withdrawn = api_for(anna).post(f"/api/v1/invitations/{invited.json()['id']}/withdraw/")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert api_for(anna).get("/api/v1/invitations/").json()["sent"] == []


def test_decline_and_the_invitation_refusals(people: Any, api_for: Any) -> None:
    anna, bela, cecil = people
    game_id = api_for(anna).post("/api/v1/games/", {"kind": "keltis", "players": 3}).json()["id"]
    url = f"/api/v1/games/{game_id}/invitations/"
    assert_error(
        api_for(anna).post(url, {"invitee": "nobody-of-that-name"}), 400, "invitee_not_found"
    )
    assert_error(api_for(anna).post(url, {"invitee": "not an address@"}), 400, "address_not_valid")
    assert_error(api_for(anna).post(url, {"invitee": "Anna"}), 400, "cannot_invite")
    assert_error(api_for(bela).post(url, {"invitee": "Cecil"}), 400, "cannot_invite")
    assert_error(api_for(anna).post(url, {}), 400, "invalid")
    assert_error(
        api_for(anna).post("/api/v1/games/999999/invitations/", {"invitee": "Béla"}),
        404,
        "not_found",
    )
    assert not Invitation.objects.exists()

    row = api_for(anna).post(url, {"invitee": "Béla"}).json()
    assert_error(api_for(anna).post(url, {"invitee": "Béla"}), 400, "cannot_invite")
    assert_error(
        api_for(cecil).post(f"/api/v1/invitations/{row['id']}/accept/"), 403, "not_the_invitee"
    )
    assert_error(
        api_for(cecil).post("/api/v1/invitations/999999/accept/"), 404, "invitation_not_valid"
    )
    assert_error(api_for(cecil).post("/api/v1/invitations/999999/withdraw/"), 404, "not_found")
    declined = api_for(bela).post(f"/api/v1/invitations/{row['id']}/decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert Invitation.objects.get(pk=row["id"]).status == InvitationStatus.DECLINED
    assert_error(
        api_for(anna).post(f"/api/v1/invitations/{row['id']}/withdraw/"), 409, "invitation_closed"
    )
    # a read-only token lists but does not answer
    assert api_for(bela, play=False).get("/api/v1/invitations/").status_code == 200
    assert_error(api_for(bela, play=False).post(url, {"invitee": "Cecil"}), 403, "missing_scope")


def test_creating_with_a_refused_invitee_creates_nothing(people: Any, api_for: Any) -> None:
    anna, bela, _ = people
    blocks.block(blocker=bela, blocked=anna)
    body = {"kind": "keltis", "players": 2, "invitees": ["Béla"]}
    assert_error(api_for(anna).post("/api/v1/games/", body), 400, "cannot_invite")
    body = {"kind": "keltis", "players": 2, "invitees": ["x@example.org", "y@example.org"]}
    assert_error(api_for(anna).post("/api/v1/games/", body), 400, "too_many_invitees")
    assert not Game.objects.exists()


def test_the_daily_limit_of_addresses(people: Any, api_for: Any, settings: Any) -> None:
    anna = people[0]
    settings.INVITATIONS_TO_ADDRESSES_PER_DAY = 1
    body = {"kind": "keltis", "players": 2, "invitees": ["x@example.org"]}
    assert api_for(anna).post("/api/v1/games/", body).status_code == 201
    body["invitees"] = ["y@example.org"]
    assert_error(api_for(anna).post("/api/v1/games/", body), 429, "invitations_rate_limited")


def _finished(seats: list[Any]) -> Game:
    """A game of ``seats`` played to its end by random moves."""
    game = game_create_seated(kind="keltis-cards", seats=seats)
    bot = make_bot("random", 1)
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            return game
        engine = engine_state(game)
        action_submit(
            game_id=game.pk, seat=engine.to_move, action=bot.choose(engine), expected_seq=game.seq
        )


def test_rematch_offer_accept_and_the_game_read(people: Any, api_for: Any) -> None:
    anna, bela, cecil = people
    game = _finished([anna, bela])
    read = api_for(anna).get(f"/api/v1/games/{game.pk}/").json()
    assert read["rematch"]["status"] is None and read["rematch"]["may_offer"] is True
    url = f"/api/v1/games/{game.pk}/rematch/"
    offered = api_for(anna).post(url)
    assert offered.status_code == 200, offered.content
    assert offered.json()["status"] == "offered" and offered.json()["offered_by"] == "Anna"
    assert offered.json()["waiting"] == ["Béla"] and offered.json()["new_game"] is None
    seen = api_for(bela).get(f"/api/v1/games/{game.pk}/").json()["rematch"]
    assert seen["may_answer"] is True and seen["accepted"] == ["Anna"]
    assert_error(api_for(cecil).post(url), 403, "rematch_not_seated")
    accepted = api_for(bela).post(url).json()
    assert accepted["status"] == "started" and accepted["new_game"]
    new = Game.objects.get(pk=accepted["new_game"])
    assert [s.user for s in new.seats.order_by("index")] == [bela, anna]
    assert_error(api_for(bela).post(f"{url}decline/"), 409, "rematch_closed")
    running = api_for(anna).get(f"/api/v1/games/{new.pk}/").json()
    assert running["rematch"] is None


def test_rematch_decline_and_refusals(people: Any, api_for: Any) -> None:
    anna, bela, _ = people
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["easy"])
    url = f"/api/v1/games/{game.pk}/rematch/"
    assert_error(api_for(anna).post(url), 409, "rematch_not_possible")  # not over yet
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    finished = game_create_seated(kind="keltis", seats=[anna, bela])
    Game.objects.filter(pk=finished.pk).update(status=GameStatus.FINISHED)
    url = f"/api/v1/games/{finished.pk}/rematch/"
    assert_error(api_for(bela).post(f"{url}decline/"), 409, "rematch_not_offered")
    api_for(anna).post(url)
    declined = api_for(bela).post(f"{url}decline/")
    assert declined.status_code == 200 and declined.json()["declined_by"] == "Béla"
    assert Rematch.objects.get(game=finished).status == RematchStatus.DECLINED
    refused = api_for(anna).post(url)
    assert_error(refused, 409, "rematch_closed")
    assert "Béla" in refused.json()["message"]
    assert_error(api_for(anna).post("/api/v1/games/999999/rematch/"), 404, "not_found")


def test_every_path_is_in_the_schema() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in (
        "/api/v1/invitations/",
        "/api/v1/invitations/{invitation_id}/accept/",
        "/api/v1/invitations/{invitation_id}/decline/",
        "/api/v1/invitations/{invitation_id}/withdraw/",
        "/api/v1/games/{game_id}/invitations/",
        "/api/v1/games/{game_id}/rematch/",
        "/api/v1/games/{game_id}/rematch/decline/",
    ):
        assert path in schema["paths"], path
    components = schema["components"]["schemas"]
    assert "invitees" in components["GameCreateRequest"]["properties"]
    assert "rematch" in components["GameRead"]["properties"]
    assert set(components["Invitation"]["properties"]) == {
        "id", "game", "league", "inviter", "invitee", "status", "expires_at",
    }  # fmt: skip
