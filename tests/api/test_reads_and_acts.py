"""The API's reads and acts over the site's own selectors and services: my games (my turn
first), one game in records.md's view format, a finished game's record, ratings, leagues and
tournaments with their standings; acting, creating, joining and leaving."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.engine.bots import make_bot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tournaments.leagues import league_create
from tournaments.models import LeagueMember, Rating, TournamentPlayer
from tournaments.rounds import tournament_create

pytestmark = pytest.mark.django_db


def _play_out(game: Game) -> None:
    bot = make_bot("random", 1)
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            return
        engine = engine_state(game)
        action_submit(
            game_id=game.pk, seat=engine.to_move, action=bot.choose(engine), expected_seq=game.seq
        )


def test_my_games_list_my_turn_first_with_the_time_left(make_user: Any, api_for: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    waiting = game_create(creator=bela, kind="keltis", player_count=2)
    game_join(game_id=waiting.pk, user=anna)  # bela moves first there
    mine = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    open_game = game_create(creator=anna, kind="keltis-cards", player_count=3)
    games = api_for(anna).get("/api/v1/games/").json()
    assert [g["id"] for g in games["running"]] == [mine.pk, waiting.pk]
    first = games["running"][0]
    assert first["my_turn"] and first["my_seat"] == 0 and first["seconds_left"] > 0
    assert first["time_left"]
    assert not games["running"][1]["my_turn"]
    assert [g["id"] for g in games["open"]] == [open_game.pk]
    assert api_for(anna).get("/api/v1/me/").json()["my_turn_games"] == 1


def test_one_game_in_the_records_view_format(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    seen = api_for(anna).get(f"/api/v1/games/{game.pk}/").json()
    engine = engine_state(Game.objects.get(pk=game.pk))
    assert seen["game"] == "keltis" and seen["finished"] is False
    assert seen["to_move"] == 0 and seen["seq"] == 0
    assert seen["legal"] == engine.legal()
    assert seen["state"] == engine.view(0)
    assert seen["scores"] == engine.scores() and seen["winners"] == []
    assert seen["players"][1]["is_bot"] is True


def test_acting_returns_the_game_after_it(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    api = api_for(anna)
    seen = api.get(f"/api/v1/games/{game.pk}/").json()
    discard = next(a for a in seen["legal"] if a.startswith("discard"))
    done = api.post(f"/api/v1/games/{game.pk}/actions/", {"action": discard, "seq": 0})
    assert done.status_code == 200
    assert done.json()["applied"][0] == discard
    assert done.json()["game"]["seq"] == Game.objects.get(pk=game.pk).seq >= 1
    not_mine = api.post(f"/api/v1/games/{game.pk}/actions/", {"action": "x", "seq": "a"})
    assert not_mine.status_code == 400 and not_mine.json()["code"] == "invalid"


def test_a_finished_games_record_and_not_a_running_ones(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    api = api_for(anna)
    refused = api.get(f"/api/v1/games/{game.pk}/record/")
    assert refused.status_code == 403 and refused.json()["code"] == "record_not_available"
    _play_out(game)
    record = api.get(f"/api/v1/games/{game.pk}/record/").json()
    assert record["format"] == 1 and record["game"] == "keltis"
    assert len(record["actions"]) == Game.objects.get(pk=game.pk).seq
    assert api.get("/api/v1/games/999/record/").json()["code"] == "not_found"


def test_create_join_and_leave_games(make_user: Any, api_for: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    made = api_for(anna).post("/api/v1/games/", {"kind": "keltis-cards", "players": 3})
    assert made.status_code == 201 and made.json()["status"] == "open"
    game_id = made.json()["id"]
    assert [g["id"] for g in api_for(bela).get("/api/v1/games/open/").json()] == [game_id]
    joined = api_for(bela).post(f"/api/v1/games/{game_id}/join/")
    assert joined.status_code == 200 and joined.json()["my_seat"] == 1
    again = api_for(bela).post(f"/api/v1/games/{game_id}/join/")
    assert again.status_code == 409 and again.json()["code"] == "cannot_join"
    left = api_for(bela).post(f"/api/v1/games/{game_id}/leave/")
    assert left.status_code == 200 and left.json()["my_seat"] is None
    bad = api_for(anna).post("/api/v1/games/", {"kind": "chess", "players": 9})
    assert bad.status_code == 400 and set(bad.json()["fields"]) == {"kind", "players"}


def test_create_a_game_with_a_time_bank(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    api = api_for(anna)
    made = api.post(
        "/api/v1/games/",
        {"kind": "keltis", "players": 2, "bank_increment_hours": 12, "bank_cap_hours": 48},
    )
    assert made.status_code == 201
    assert (made.json()["bank_increment_hours"], made.json()["bank_cap_hours"]) == (12, 48)
    game = Game.objects.get(pk=made.json()["id"])
    assert (game.bank_increment_hours, game.bank_cap_hours) == (12, 48)
    listed = api.get("/api/v1/games/").json()["open"][0]
    assert (listed["bank_increment_hours"], listed["bank_cap_hours"]) == (12, 48)
    # the cap alone defaults to the increment; no bank at all is the default
    only_increment = api.post(
        "/api/v1/games/", {"kind": "keltis", "players": 2, "bank_increment_hours": 6}
    ).json()
    assert (only_increment["bank_increment_hours"], only_increment["bank_cap_hours"]) == (6, 6)
    plain = api.post("/api/v1/games/", {"kind": "keltis", "players": 2}).json()
    assert (plain["bank_increment_hours"], plain["bank_cap_hours"]) == (0, 0)


def test_a_bad_time_bank_is_refused_and_creates_nothing(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    api = api_for(anna)
    before = Game.objects.count()
    small_cap = api.post(
        "/api/v1/games/",
        {"kind": "keltis", "players": 2, "bank_increment_hours": 24, "bank_cap_hours": 12},
    )
    assert small_cap.status_code == 400 and set(small_cap.json()["fields"]) == {"bank_cap_hours"}
    too_much = api.post(
        "/api/v1/games/",
        {"kind": "keltis", "players": 2, "bank_increment_hours": 500, "bank_cap_hours": -1},
    )
    assert too_much.status_code == 400
    assert set(too_much.json()["fields"]) == {"bank_increment_hours", "bank_cap_hours"}
    assert Game.objects.count() == before


def test_ratings_and_leaderboards(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    Rating.objects.create(user=anna, kind="keltis", rating=1612, highest=1650, games=3)
    board = api_for(anna).get("/api/v1/leaderboards/keltis/").json()
    assert board == [
        {
            "rank": 1, "username": "anna", "name": "anna", "is_bot": False, "rating": 1612.0,
            "highest": 1650.0, "games": 3, "provisional": True,
        }
    ]  # fmt: skip
    ratings = api_for(anna).get("/api/v1/players/anna/ratings/").json()["ratings"]
    assert [(r["kind"], r["rating"]) for r in ratings] == [("keltis", 1612.0)]
    assert api_for(anna).get("/api/v1/leaderboards/chess/").status_code == 404


def test_join_and_leave_a_league(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    league = league_create(name="Tuesday", kind="keltis")
    api = api_for(anna)
    assert [lg["name"] for lg in api.get("/api/v1/leagues/").json()] == ["Tuesday"]
    joined = api.post(f"/api/v1/leagues/{league.pk}/join/", {"max_games": 3})
    assert joined.status_code == 200 and joined.json()["member"] is True
    assert LeagueMember.objects.get(league=league, user=anna).max_games == 3
    twice = api.post(f"/api/v1/leagues/{league.pk}/join/")
    assert twice.status_code == 409 and twice.json()["code"] == "league_refused"
    left = api.post(f"/api/v1/leagues/{league.pk}/leave/")
    assert left.json()["member"] is False
    assert api.get(f"/api/v1/leagues/{league.pk}/").json()["standings"] == []


def test_sign_up_and_withdraw_from_a_tournament(make_user: Any, api_for: Any) -> None:
    anna = make_user("anna")
    tournament = tournament_create(
        creator=anna, name="Winter cup", kind="keltis", format="swiss",
        signup_until=timezone.now() + timedelta(days=2),
    )  # fmt: skip
    api = api_for(anna)
    assert api.get("/api/v1/tournaments/").json()[0]["signed_up"] is False
    joined = api.post(f"/api/v1/tournaments/{tournament.pk}/join/")
    assert joined.status_code == 200 and joined.json()["signed_up"] is True
    assert TournamentPlayer.objects.filter(tournament=tournament, user=anna).exists()
    assert api.post(f"/api/v1/tournaments/{tournament.pk}/join/").status_code == 409
    left = api.post(f"/api/v1/tournaments/{tournament.pk}/leave/")
    assert left.json()["signed_up"] is False
    assert api.get(f"/api/v1/tournaments/{tournament.pk}/").json()["standings"] == []


def test_a_game_whose_log_does_not_replay_is_frozen_not_an_error(
    make_user: Any, api_for: Any
) -> None:
    from games.models import Snapshot
    from tests.games.tampering import set_action

    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    api = api_for(anna)
    seen = api.get(f"/api/v1/games/{game.pk}/").json()
    api.post(f"/api/v1/games/{game.pk}/actions/", {"action": seen["legal"][0], "seq": 0})
    set_action(game, 1, "play r99")  # a log the engine refuses
    Snapshot.objects.filter(game=game).delete()  # so the page must replay it
    answer = api.get(f"/api/v1/games/{game.pk}/")
    assert answer.status_code == 200
    assert answer.json()["frozen"] is True and answer.json()["legal"] == []
    assert answer.json()["state"] is None
    game.refresh_from_db()
    assert game.frozen
    refused = api.post(f"/api/v1/games/{game.pk}/actions/", {"action": "draw deck", "seq": 1})
    assert refused.status_code == 409 and refused.json()["code"] == "frozen"
