"""The operator commands: rebuild snapshots, export a user's data, create demo data."""

from __future__ import annotations

import io
import json
import random
from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from accounts.models import EmailMode, User, Vacation
from games.maintenance import DEMO_PASSWORD, _advance
from games.models import Event, Game, GameStatus, Seat, Snapshot
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tournaments.models import League, LeagueMember, Rating

pytestmark = pytest.mark.django_db


def run(*args: Any, **options: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def play(game: Game, user: Any, moves: int) -> Game:
    """``moves`` legal actions, by whoever is to move (the test plays both people)."""
    for _ in range(moves):
        game.refresh_from_db()
        seat = Seat.objects.get(game=game, index=game.to_move)
        action = engine_state(game).legal()[0]
        action_submit(game_id=game.pk, seat=seat.index, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return game


def two_people(make_user: Any, kind: str = "keltis") -> tuple[Game, User, User]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


# -- rebuild_snapshots --------------------------------------------------------------------------
def test_rebuild_with_current_snapshots_reports_no_difference(make_user: Any) -> None:
    game, anna, _ = two_people(make_user)
    play(game, anna, 4)
    out = run("rebuild_snapshots")
    assert "rebuilt 1 snapshot(s), 0 differed" in out


def test_rebuild_restores_a_deleted_and_a_corrupted_snapshot(make_user: Any) -> None:
    game, anna, _ = two_people(make_user)
    game = play(game, anna, 5)
    good = Snapshot.objects.get(game=game).data
    other = game_create(creator=make_user("cleo"), kind="keltis-cards", player_count=2,
                        bots=["random"])
    intact = game_create(creator=make_user("dora"), kind="keltis", player_count=2,
                         bots=["greedy"])
    Snapshot.objects.filter(game=game).delete()
    Snapshot.objects.filter(game=other).update(seq=0, data={"broken": True})
    out = run("rebuild_snapshots")
    assert "rebuilt 3 snapshot(s), 2 differed" in out
    assert f"game {game.pk}: stored snapshot missing" in out
    assert f"game {other.pk}: stored snapshot state differs" in out
    assert f"game {intact.pk}:" not in out
    snap = Snapshot.objects.get(game=game)
    assert snap.seq == 5 and snap.data == good
    assert Snapshot.objects.get(game=other).data != {"broken": True}
    # the game goes on from the rebuilt snapshot
    play(game, anna, 1)
    assert "0 differed" in run("rebuild_snapshots")


def test_rebuild_only_the_named_games(make_user: Any) -> None:
    first = game_create(creator=make_user(), kind="keltis", player_count=2, bots=["random"])
    second = game_create(creator=make_user(), kind="keltis", player_count=2, bots=["random"])
    Snapshot.objects.all().delete()
    out = run("rebuild_snapshots", "--game", str(second.pk))
    assert "rebuilt 1 snapshot(s), 1 differed" in out
    assert not Snapshot.objects.filter(game=first).exists()
    assert Snapshot.objects.filter(game=second).exists()


def test_rebuild_skips_games_that_never_started(make_user: Any) -> None:
    game_create(creator=make_user(), kind="keltis", player_count=3)
    assert "rebuilt 0 snapshot(s), 0 differed" in run("rebuild_snapshots")


# -- export_user_data ---------------------------------------------------------------------------
def test_export_holds_the_users_data_and_nothing_of_others(make_user: Any, tmp_path: Any) -> None:
    game, anna, bela = two_people(make_user)
    game = play(game, anna, 6)
    anna.display_name = "Anna A"
    anna.save()
    EmailAddress.objects.create(user=anna, email=anna.email, verified=True, primary=True)
    EmailAddress.objects.create(user=bela, email=bela.email, verified=True, primary=True)
    now = timezone.now()
    Vacation.objects.create(user=anna, starts_at=now, ends_at=now + timedelta(days=3))
    Rating.objects.create(user=anna, kind="keltis", rating=1520)
    league = League.objects.create(name="Autumn league", kind="keltis")
    LeagueMember.objects.create(league=league, user=anna)

    target = tmp_path / "anna.json"
    run("export_user_data", "anna@example.test", "--output", str(target))
    text = target.read_text()
    data = json.loads(text)
    assert data["profile"]["username"] == "anna"
    assert data["profile"]["email"] == "anna@example.test"
    assert "password" not in data["profile"] and anna.password not in text
    assert [a["email"] for a in data["email_addresses"]] == ["anna@example.test"]
    assert data["notification_preferences"]["email_mode"] == anna.email_mode
    assert len(data["vacations"]) == 1
    assert data["ratings"][0]["rating"] == 1520
    assert data["league_memberships"][0]["league"] == "Autumn league"
    [exported] = data["games"]
    assert exported["id"] == game.pk and exported["your_seat"] == 0
    assert [s["name"] for s in exported["seats"]] == ["Anna A", "bela"]
    own = list(Event.objects.filter(game=game, seat=0).values_list("action", flat=True))
    assert [a["action"] for a in exported["your_actions"]] == own
    # nothing of another player: no email address, no setup, no hand
    assert "bela@example.test" not in text
    assert "setup" not in text and "hands" not in text
    for card in game.setup["hands"][1]:
        assert json.dumps(card) not in json.dumps(exported)


def test_export_to_stdout_by_username_and_unknown_user(make_user: Any) -> None:
    make_user("cleo")
    data = json.loads(run("export_user_data", "cleo"))
    assert data["profile"]["username"] == "cleo" and data["games"] == []
    with pytest.raises(CommandError):
        run("export_user_data", "nobody@example.test")


def test_export_lists_finished_results(make_user: Any) -> None:
    user = make_user("dora")
    game = game_create(creator=user, kind="keltis-cards", player_count=2, bots=["random"])
    game = _advance(game, user, None, random.Random(1))
    assert game.status == GameStatus.FINISHED
    data = json.loads(run("export_user_data", "dora"))
    result = data["games"][0]["your_result"]
    seat = Seat.objects.get(game=game, user=user)
    assert result == {"score": seat.score, "place": seat.place}


# -- create_demo_data ---------------------------------------------------------------------------
def test_demo_data_creates_users_league_and_games_once() -> None:
    out = run("create_demo_data", "--players", "3")
    assert f"demo password: {DEMO_PASSWORD}" in out
    users = User.objects.filter(username__startswith="demo").order_by("username")
    assert [u.username for u in users] == ["demo1", "demo2", "demo3"]
    for user in users:
        assert user.email_mode == EmailMode.NONE
        assert user.check_password(DEMO_PASSWORD)
        assert EmailAddress.objects.filter(
            user=user, email=user.email, verified=True, primary=True
        ).exists()
    league = League.objects.get(name="Demo league")
    assert league.members.count() == 3
    games = Game.objects.filter(created_by__in=users)
    statuses = {g.status for g in games}
    assert statuses == {GameStatus.RUNNING, GameStatus.FINISHED}
    assert len({g.seq for g in games}) > 2  # various stages
    for game in games:
        assert game.seats.filter(user__isnull=False).count() == 1
        if game.status == GameStatus.RUNNING:  # waiting for its person, not for a bot
            assert game.seats.get(index=game.to_move).user is not None
    counts = (User.objects.count(), League.objects.count(), LeagueMember.objects.count(),
              Game.objects.count(), Event.objects.count(), EmailAddress.objects.count())

    again = run("create_demo_data", "--players", "3")
    assert "nothing new" in again and "demo password" not in again
    assert counts == (User.objects.count(), League.objects.count(),
                      LeagueMember.objects.count(), Game.objects.count(),
                      Event.objects.count(), EmailAddress.objects.count())
    assert "0 differed" in run("rebuild_snapshots")
    # the demo's events (people's and bots') are linked like any others
    assert f"checked {games.count()} game(s), 0 with a broken chain" in run("verify_event_chains")


def test_demo_data_adds_only_the_missing_players() -> None:
    run("create_demo_data", "--players", "1")
    games = Game.objects.count()
    out = run("create_demo_data", "--players", "2")
    assert "users created: 1 (demo2)" in out
    assert User.objects.filter(username__startswith="demo").count() == 2
    assert Game.objects.count() == 2 * games
