"""The games admin: for looking; events, seats and snapshots never change through it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from games.engine import game_class
from games.models import Event, Game, Seat, Snapshot
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(make_user: Any) -> Game:
    """A running board game with one event."""
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    action = engine_state(game).legal()[0]
    action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=0)
    game.refresh_from_db()
    return game


@pytest.fixture
def admin_client(client: Client, make_user: Any) -> Client:
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def test_staff_with_the_view_permission_sees_the_event_list(
    client: Client, make_user: Any, game: Game
) -> None:
    staff = make_user("staff", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_event"))
    client.force_login(staff)
    event = Event.objects.get(game=game)

    listing = client.get(reverse("admin:games_event_changelist"))
    assert listing.status_code == 200
    assert event.action in listing.content.decode()
    detail = client.get(reverse("admin:games_event_change", args=[event.pk]))
    assert detail.status_code == 200
    assert 'type="submit" value="Save"' not in detail.content.decode()


def test_event_detail_shows_its_hash_chain(admin_client: Client, game: Game) -> None:
    event = Event.objects.get(game=game)
    page = admin_client.get(reverse("admin:games_event_change", args=[event.pk])).content.decode()
    assert event.prev_hash in page and event.hash in page


def test_game_detail_shows_whether_its_event_chain_is_intact(
    admin_client: Client, game: Game
) -> None:
    url = reverse("admin:games_game_change", args=[game.pk])
    assert "intact (1 event)" in admin_client.get(url).content.decode()
    setup = dict(game.setup)
    setup["deck"] = list(reversed(setup["deck"]))  # a changed deal breaks the first link
    Game.objects.filter(pk=game.pk).update(setup=setup)
    page = admin_client.get(url).content.decode()
    assert "intact" not in page
    assert f"game {game.pk} seq 1: broken link" in page


def test_events_cannot_be_added_changed_or_deleted(admin_client: Client, game: Game) -> None:
    event = Event.objects.get(game=game)
    before = (event.seq, event.seat, event.action)

    assert admin_client.get(reverse("admin:games_event_add")).status_code == 403
    add = admin_client.post(
        reverse("admin:games_event_add"),
        {"game": game.pk, "seq": 2, "seat": 0, "action": "x"},
    )
    assert add.status_code == 403
    change = admin_client.post(
        reverse("admin:games_event_change", args=[event.pk]),
        {"game": game.pk, "seq": 1, "seat": 1, "action": "forged"},
    )
    assert change.status_code == 403
    delete = admin_client.post(
        reverse("admin:games_event_delete", args=[event.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    bulk = admin_client.post(
        reverse("admin:games_event_changelist"),
        {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)

    event = Event.objects.get(pk=event.pk)
    assert (event.seq, event.seat, event.action) == before
    assert Event.objects.filter(game=game).count() == 1


def test_a_game_with_events_cannot_be_deleted(admin_client: Client, game: Game) -> None:
    response = admin_client.post(
        reverse("admin:games_game_delete", args=[game.pk]), {"post": "yes"}
    )
    assert response.status_code == 403
    assert Game.objects.filter(pk=game.pk).exists()


def test_games_are_not_added_through_the_admin(admin_client: Client) -> None:
    assert admin_client.get(reverse("admin:games_game_add")).status_code == 403


def test_game_admin_changes_only_the_pace(admin_client: Client, game: Game) -> None:
    url = reverse("admin:games_game_change", args=[game.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    response = admin_client.post(
        url,
        {
            "days_per_move": "7",
            "seq": "99",
            "status": "finished",
            "seats-TOTAL_FORMS": "2",
            "seats-INITIAL_FORMS": "2",
            "seats-MIN_NUM_FORMS": "0",
            "seats-MAX_NUM_FORMS": "0",
            "seats-0-id": str(game.seats.get(index=0).pk),
            "seats-0-game": str(game.pk),
            "seats-1-id": str(game.seats.get(index=1).pk),
            "seats-1-game": str(game.pk),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    after = Game.objects.get(pk=game.pk)
    assert after.days_per_move == 7
    assert (after.seq, after.status, after.to_move) == (game.seq, game.status, game.to_move)


def test_game_list_never_shows_the_hidden_deal(admin_client: Client, game: Game) -> None:
    page = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    hand = game.setup["hands"][0]
    assert str(game.pk) in page
    assert str(hand) not in page and "setup" not in page.lower()
    # the deal is a valid setup for the engine; it shows in the staff-only detail view
    game_class(game.kind).new(game.player_count, game.setup)
    snapshots = admin_client.get(reverse("admin:games_snapshot_changelist")).content.decode()
    assert str(hand) not in snapshots


@pytest.mark.parametrize("model", [Seat, Snapshot])
def test_seats_and_snapshots_are_view_only(admin_client: Client, game: Game, model: Any) -> None:
    obj = model.objects.filter(game=game).first()
    name = model._meta.model_name
    assert admin_client.get(reverse(f"admin:games_{name}_change", args=[obj.pk])).status_code == 200
    assert (
        admin_client.post(reverse(f"admin:games_{name}_change", args=[obj.pk]), {}).status_code
        == 403
    )
    assert (
        admin_client.post(
            reverse(f"admin:games_{name}_delete", args=[obj.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert admin_client.get(reverse(f"admin:games_{name}_add")).status_code == 403


def test_non_staff_users_cannot_open_the_admin(client: Client, make_user: Any, game: Game) -> None:
    client.force_login(make_user())
    for url in (reverse("admin:index"), reverse("admin:games_event_changelist")):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


def test_anonymous_visitors_cannot_open_the_admin(client: Client, game: Game) -> None:
    response = client.get(reverse("admin:games_game_changelist"))
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
