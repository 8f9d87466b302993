"""Bot seats in tournaments and leagues (issue 17): bot entrants of a level the organiser
adds, paired and played like players, named by level, never rated; leagues that fill a
table the matchmaker cannot fill with bots of their level."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games.engine.bots import GreedyBot
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.services import action_submit
from games.state import engine_state
from tournaments import leagues, rounds
from tournaments.forms_leagues import LeagueCreateForm
from tournaments.forms_tournaments import BotAddForm
from tournaments.matchmaking import Candidate, match_tables, short_tables
from tournaments.models import (
    League,
    LeagueMember,
    Rating,
    RatingChange,
    Tournament,
    TournamentGame,
    TournamentPlayer,
)
from tournaments.rounds import TournamentError

pytestmark = pytest.mark.django_db

START = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
BEFORE = START - timedelta(hours=1)
AFTER = START + timedelta(minutes=1)
Format = Tournament.Format


def open_tournament(creator: User, **fields: Any) -> Tournament:
    values = {"name": "Bots welcome", "kind": "keltis-cards", "format": Format.SWISS,
              "table_size": 2, "rounds": 3, "round_days": 10, **fields}  # fmt: skip
    with time_machine.travel(START - timedelta(days=1), tick=False):
        return rounds.tournament_create(creator=creator, signup_until=START, **values)


def sign_up(tournament: Tournament, users: list[User]) -> None:
    with time_machine.travel(BEFORE, tick=False):
        for user in users:
            rounds.tournament_signup(tournament_id=tournament.pk, user=user)


def add_bots(tournament: Tournament, organiser: User, *levels: str) -> list[TournamentPlayer]:
    with time_machine.travel(BEFORE, tick=False):
        return [
            rounds.bot_add(tournament_id=tournament.pk, user=organiser, level=level)
            for level in levels
        ]


def entrant_names(tournament: Tournament) -> dict[int, str]:
    return {p.pk: p.name for p in tournament.players.select_related("user")}


# -- adding and removing bots ----------------------------------------------------------------------
def test_the_organiser_adds_bots_of_a_level_named_by_level_and_number(
    make_user: Callable[..., User],
) -> None:
    organiser, anna, bela = make_user(), make_user(), make_user()
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser, anna, bela])
    strong_1, easy_1, strong_2 = add_bots(tournament, organiser, "strong", "easy", "strong")
    assert [strong_1.name, easy_1.name, strong_2.name] == ["Strong bot 1", "Easy bot 1",
                                                           "Strong bot 2"]  # fmt: skip
    assert strong_1.user_id is None and strong_1.bot == "strong"
    with translation.override("de"):
        assert strong_2.name == "Starker Bot 2"
    with translation.override("hu"):
        assert easy_1.name == "Könnyű bot 1"
    # never more bots than people: three people, three bots
    with time_machine.travel(BEFORE, tick=False), pytest.raises(TournamentError, match="people"):
        rounds.bot_add(tournament_id=tournament.pk, user=organiser, level="normal")
    # removed, the numbers of the others stay; a new one takes the next number
    with time_machine.travel(BEFORE, tick=False):
        rounds.bot_remove(tournament_id=tournament.pk, user=organiser, entry_id=strong_1.pk)
    (strong_3,) = add_bots(tournament, organiser, "strong")
    assert strong_3.name == "Strong bot 3"
    assert sorted(entrant_names(tournament).values()) == sorted(
        [organiser.public_name, anna.public_name, bela.public_name, "Easy bot 1",
         "Strong bot 2", "Strong bot 3"]
    )  # fmt: skip


def test_only_the_organiser_or_staff_add_or_remove_bots_and_only_during_sign_up(
    make_user: Callable[..., User],
) -> None:
    organiser, anna, staff = make_user(), make_user(), make_user(is_staff=True)
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser, anna])
    with time_machine.travel(BEFORE, tick=False):
        with pytest.raises(TournamentError, match="organiser"):
            rounds.bot_add(tournament_id=tournament.pk, user=anna, level="easy")
        bot = rounds.bot_add(tournament_id=tournament.pk, user=staff, level="easy")
        with pytest.raises(TournamentError, match="organiser"):
            rounds.bot_remove(tournament_id=tournament.pk, user=anna, entry_id=bot.pk)
        with pytest.raises(TournamentError, match="level"):
            rounds.bot_add(tournament_id=tournament.pk, user=organiser, level="random")
        # a person's entry is no bot to remove
        person = tournament.players.get(user=anna)
        with pytest.raises(TournamentError, match="no such bot"):
            rounds.bot_remove(tournament_id=tournament.pk, user=organiser, entry_id=person.pk)
    with time_machine.travel(AFTER, tick=False):
        with pytest.raises(TournamentError, match="closed"):
            rounds.bot_add(tournament_id=tournament.pk, user=organiser, level="easy")
        with pytest.raises(TournamentError, match="closed"):
            rounds.bot_remove(tournament_id=tournament.pk, user=organiser, entry_id=bot.pk)
    assert tournament.players.filter(user__isnull=True).count() == 1


def test_at_most_max_bots(make_user: Callable[..., User], monkeypatch: Any) -> None:
    monkeypatch.setattr(rounds, "MAX_BOTS", 2)
    organiser = make_user()
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser, *[make_user() for _ in range(4)]])
    add_bots(tournament, organiser, "easy", "normal")
    with time_machine.travel(BEFORE, tick=False), pytest.raises(TournamentError, match="at most 2"):
        rounds.bot_add(tournament_id=tournament.pk, user=organiser, level="strong")


def test_bots_beyond_the_people_left_at_the_start_are_taken_out(
    make_user: Callable[..., User],
) -> None:
    organiser, anna, bela = make_user(), make_user(), make_user()
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser, anna, bela])
    easy, normal, _strong = add_bots(tournament, organiser, "easy", "normal", "strong")
    with time_machine.travel(BEFORE, tick=False):
        rounds.tournament_withdraw(tournament_id=tournament.pk, user=bela)
    with time_machine.travel(AFTER, tick=False):
        rounds.tournaments_advance(now=AFTER)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    bots = set(tournament.players.filter(user__isnull=True).values_list("pk", flat=True))
    assert bots == {easy.pk, normal.pk}  # the strong bot, entered last, is out
    assert sorted(p.seed for p in tournament.players.all()) == [1, 2, 3, 4]


def test_bots_alone_make_no_tournament(make_user: Callable[..., User]) -> None:
    organiser = make_user()
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser])
    add_bots(tournament, organiser, "easy")
    with time_machine.travel(AFTER, tick=False):
        rounds.tournaments_advance(now=AFTER)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED


def test_the_bot_add_form_refuses_a_level_that_is_none() -> None:
    for level in ("", "random", "greedy", "impossible"):
        form = BotAddForm({"level": level})
        assert not form.is_valid()
        assert form.errors["level"] == ["Choose the bot's level: easy, normal or strong."]
    assert BotAddForm({"level": "strong"}).is_valid()


def test_the_page_adds_and_removes_bots_for_the_organiser_only(
    client: Client, make_user: Callable[..., User]
) -> None:
    organiser, anna = make_user(), make_user()
    with time_machine.travel(timezone.now() - timedelta(days=1), tick=False):
        tournament = rounds.tournament_create(
            creator=organiser, name="Cup", kind="keltis", format=Format.SWISS,
            signup_until=timezone.now() + timedelta(days=2),
        )  # fmt: skip
    for user in (organiser, anna):
        rounds.tournament_signup(tournament_id=tournament.pk, user=user)
    detail = reverse("tournament_detail", args=[tournament.pk])
    add = reverse("tournament_bot_add", args=[tournament.pk])

    client.force_login(anna)
    assert "Add a bot" not in client.get(detail).content.decode()
    page = client.post(add, {"level": "strong"}, follow=True).content.decode()
    assert "Only the organiser may add or remove bots." in page
    assert not tournament.players.filter(user__isnull=True).exists()

    client.force_login(organiser)
    assert "Add a bot" in client.get(detail).content.decode()
    page = client.post(add, {"level": "nonsense"}, follow=True).content.decode()
    assert "Choose the bot&#x27;s level: easy, normal or strong." in page
    assert not tournament.players.filter(user__isnull=True).exists()
    page = client.post(add, {"level": "strong"}, follow=True).content.decode()
    assert "Strong bot 1 is entered." in page
    bot = tournament.players.get(user__isnull=True)
    assert "Strong bot 1" in client.get(detail).content.decode()
    # a GET changes nothing
    remove = reverse("tournament_bot_remove", args=[tournament.pk, bot.pk])
    assert client.get(remove).status_code == 405
    client.post(remove, follow=True)
    assert not tournament.players.filter(user__isnull=True).exists()


# -- playing with bots ---------------------------------------------------------------------------
def play_people_turn(game: Game, bot: GreedyBot) -> None:
    """The person to move plays their turn through ``action_submit`` (the bot only chooses)."""
    seat = Seat.objects.select_related("user").get(game=game, index=game.to_move)
    assert seat.user_id is not None, "a bot seat waits for a person"
    engine, seq = engine_state(game), game.seq
    while engine.to_move == seat.index and not engine.finished:
        done = action_submit(
            game_id=game.pk, seat=seat.index, action=bot.choose(engine), expected_seq=seq,
            user=seat.user,
        )  # fmt: skip
        engine, seq = done.engine, done.game.seq


def run_to_the_end(tournament: Tournament, capture: Any) -> None:
    """Sign-up closes; people play their turns, the bot worker (Celery eager) the bots'."""
    person = GreedyBot(seed=17)
    with time_machine.travel(AFTER, tick=False) as traveller:
        with capture(execute=True):
            rounds.tournaments_advance(now=AFTER)
        for _ in range(5_000):
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.FINISHED:
                return
            games = list(
                Game.objects.filter(
                    tournament_link__round__tournament=tournament, status=GameStatus.RUNNING
                ).order_by("pk")
            )
            assert games, "a round is stuck with no game running"
            for game in games:
                traveller.shift(timedelta(minutes=5))
                with capture(execute=True):
                    play_people_turn(game, person)
    pytest.fail("the tournament did not finish")


def test_a_round_robin_with_bot_entrants_is_played_to_the_end_by_people_and_bots(
    make_user: Callable[..., User], django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = make_user(), make_user()
    Rating.objects.create(user=anna, kind="keltis-cards", rating=1700.0)
    tournament = open_tournament(anna, format=Format.ROUND_ROBIN)
    sign_up(tournament, [anna, bela])
    easy, normal = add_bots(tournament, anna, "easy", "normal")
    run_to_the_end(tournament, django_capture_on_commit_callbacks)

    tournament.refresh_from_db()
    assert tournament.rounds == 3  # four entrants: everyone meets everyone once
    easy.refresh_from_db()
    normal.refresh_from_db()
    # seeded by the fixed rating of their level: anna 1700, normal 1500 (signed up after bela's
    # 1500), easy 1200
    assert (easy.rating, normal.rating) == (1200.0, 1500.0)
    assert [p.name for p in tournament.players.order_by("seed").select_related("user")] == [
        anna.public_name,
        bela.public_name,
        "Normal bot 1",
        "Easy bot 1",
    ]
    tables = list(
        TournamentGame.objects.filter(round__tournament=tournament).select_related("game")
    )
    assert len(tables) == 6 and all(t.game.status == GameStatus.FINISHED for t in tables)
    met = {frozenset(t.entries) for t in tables}
    assert len(met) == 6  # every pair once, the bots' game too
    for table in tables:
        seats = list(table.game.seats.order_by("index"))
        for entry, seat in zip(table.entries, seats, strict=True):
            if entry in (easy.pk, normal.pk):
                level = "easy" if entry == easy.pk else "normal"
                assert (seat.user_id, seat.bot) == (None, level)
                # the bot worker played the bot seats' moves
                assert (
                    Event.objects.filter(game=table.game, seat=seat.index)
                    .exclude(source=EventSource.BOT)
                    .count()
                    == 0
                )
        people = sum(1 for s in seats if s.user_id is not None)
        assert table.game.rated is (people >= 2)
    bots_game = next(t.game for t in tables if set(t.entries) == {easy.pk, normal.pk})
    assert bots_game.created_by_id is None
    assert Event.objects.filter(game=bots_game, source=EventSource.BOT).count() == bots_game.seq

    standings = rounds.tournament_standings(tournament)
    assert {row.name for row in standings} == {
        anna.public_name,
        bela.public_name,
        "Easy bot 1",
        "Normal bot 1",
    }
    assert all(row.games == 3 for row in standings)
    assert sum(row.points for row in standings) == 6  # one point a 2-player table
    # ratings: only the one game of the two people was rated
    changes = RatingChange.objects.filter(game__tournament_link__round__tournament=tournament)
    assert set(changes.values_list("user_id", flat=True)) == {anna.pk, bela.pk}
    assert changes.count() == 2

    client = Client()
    with translation.override("de"):
        page = client.get(
            reverse("tournament_detail", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="de"
        ).content.decode()
    assert "Leichter Bot 1" in page and "Normaler Bot 1" in page


def decide(game: Game, places: list[int]) -> None:
    """Finish the game with these places by seat and run the finished-game step."""
    for seat, place in zip(game.seats.order_by("index"), places, strict=True):
        Seat.objects.filter(pk=seat.pk).update(place=place, score=10 - place)
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.FINISHED, finished_at=timezone.now(), to_move=None, deadline=None
    )
    rounds.round_check_for_game(game_id=game.pk)


def test_a_swiss_bye_can_go_to_a_bot_and_counts_as_its_win(
    make_user: Callable[..., User],
) -> None:
    people = [make_user() for _ in range(3)]
    tournament = open_tournament(people[0], rounds=1)
    sign_up(tournament, people)
    easy, strong = add_bots(tournament, people[0], "easy", "strong")
    with time_machine.travel(AFTER, tick=False):
        rounds.tournaments_advance(now=AFTER)
    tables = list(TournamentGame.objects.filter(round__tournament=tournament).order_by("pk"))
    (bye,) = [t for t in tables if t.game_id is None]
    assert bye.bye_id == easy.pk  # the lowest seed (easy: 1200) has the bye
    # the strong bot (1800) sits at the best table, in a strong bot seat
    strong_table = next(t for t in tables if strong.pk in t.entries)
    seat = strong_table.game.seats.get(index=strong_table.entries.index(strong.pk))
    assert seat.bot == "strong" and seat.user_id is None
    with time_machine.travel(AFTER, tick=False):
        for table in tables:
            if table.game_id:
                decide(table.game, [1, 2])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    standings = {row.player.pk: row for row in rounds.tournament_standings(tournament)}
    assert (standings[easy.pk].points, standings[easy.pk].byes) == (1.0, 1)
    page = Client().get(reverse("tournament_detail", args=[tournament.pk])).content.decode()
    assert "Easy bot 1" in page and "Strong bot 1" in page


def test_an_elimination_bot_goes_through_when_it_wins(make_user: Callable[..., User]) -> None:
    anna, bela = make_user(), make_user()
    tournament = open_tournament(anna, format=Format.ELIMINATION)
    sign_up(tournament, [anna, bela])
    (strong,) = add_bots(tournament, anna, "strong")
    with time_machine.travel(AFTER, tick=False):
        rounds.tournaments_advance(now=AFTER)
    tournament.refresh_from_db()
    # three entrants: the strong bot (1800) is seed 1 with a bye; the people meet
    assert strong.pk == tournament.players.get(seed=1).pk
    (game_table,) = TournamentGame.objects.filter(round__number=1, game__isnull=False)
    with time_machine.travel(AFTER, tick=False):
        decide(game_table.game, [1, 2])
    winner = game_table.entries[0]
    (final,) = TournamentGame.objects.filter(round__tournament=tournament, round__number=2)
    assert final.entries == [strong.pk, winner]
    with time_machine.travel(AFTER, tick=False):
        decide(final.game, [1, 2])  # the bot wins the final
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    standings = rounds.tournament_standings(tournament)
    assert standings[0].player.pk == strong.pk and standings[0].name == "Strong bot 1"
    assert not standings[0].eliminated


# -- leagues ---------------------------------------------------------------------------------
def make_league(**fields: Any) -> League:
    values = {"name": "Thin league", "kind": "keltis-cards", "min_players": 2,
              "max_players": 4, **fields}  # fmt: skip
    return leagues.league_create(**values)


def waited() -> datetime:
    """A moment after the members joined by which they have waited for people long enough."""
    return timezone.now() + timedelta(minutes=settings.LEAGUE_BOT_WAIT_MINUTES + 1)


def test_short_tables_seat_the_members_a_pass_left_waiting() -> None:
    candidates = [Candidate(id="a", rating=1600, slots=3), Candidate(id="b", rating=1500, slots=1)]
    tables = match_tables(candidates, 3, 4)
    assert tables == []  # two members cannot fill a table of three
    assert short_tables(candidates, tables, 3) == [["a", "b"], ["a"], ["a"]]
    five = [Candidate(id=i, rating=1500 - i) for i in range(5)]
    tables = match_tables(five, 4, 4)
    assert short_tables(five, tables, 4) == [[4]]  # one table of four, one left
    assert short_tables(five, match_tables(five, 2, 4), 2) == []  # everyone seated


def test_a_thin_league_fills_its_tables_with_bots_of_its_level(
    make_user: Callable[..., User],
) -> None:
    league = make_league(bot_level="strong")
    anna = make_user()
    leagues.league_join(league_id=league.pk, user=anna, max_games=2)
    assert leagues.matchmaker_pass(now=timezone.now()) == 0  # she waits for people first
    assert leagues.matchmaker_pass(now=waited()) == 2
    games = list(Game.objects.filter(season_link__season__league=league))
    assert len(games) == 2
    for game in games:
        seats = list(game.seats.order_by("index"))
        assert sorted((s.user_id or 0, s.bot) for s in seats) == [(0, "strong"), (anna.pk, "")]
        assert game.status == GameStatus.RUNNING and game.rated is False  # one person
    # nothing more while she has her two games
    assert leagues.matchmaker_pass(now=waited()) == 0


def test_a_short_table_of_people_gets_bots_and_rates_the_people(
    make_user: Callable[..., User],
) -> None:
    league = make_league(bot_level="easy", min_players=3, max_players=4)
    anna, bela = make_user(), make_user()
    for user in (anna, bela):
        leagues.league_join(league_id=league.pk, user=user, max_games=1)
    assert leagues.matchmaker_pass(now=waited()) == 1
    game = Game.objects.get(season_link__season__league=league)
    assert game.player_count == 3 and game.rated is True
    assert sorted(game.seats.values_list("bot", flat=True)) == ["", "", "easy"]


def test_members_who_come_free_minutes_apart_meet_each_other_not_bots(
    make_user: Callable[..., User], settings: Any
) -> None:
    """A bot table waits LEAGUE_BOT_WAIT_MINUTES for people: since joining, and again after
    each game of the member's ends."""
    settings.LEAGUE_BOT_WAIT_MINUTES = 60
    league = make_league(bot_level="normal", min_players=2, max_players=2)
    anna, bela = make_user(), make_user()
    start = timezone.now()
    leagues.league_join(league_id=league.pk, user=anna, max_games=1)
    assert leagues.matchmaker_pass(now=start + timedelta(minutes=20)) == 0
    leagues.league_join(league_id=league.pk, user=bela, max_games=1)
    assert leagues.matchmaker_pass(now=start + timedelta(minutes=30)) == 1
    game = Game.objects.get(season_link__season__league=league)
    assert set(game.seats.values_list("user_id", "bot")) == {(anna.pk, ""), (bela.pk, "")}
    # the game ends; Anna waits for people again before a bot table
    ended = start + timedelta(hours=5)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED, finished_at=ended)
    LeagueMember.objects.filter(user=bela).update(active=False)
    assert leagues.matchmaker_pass(now=ended + timedelta(minutes=59)) == 0
    assert leagues.matchmaker_pass(now=ended + timedelta(minutes=61)) == 1
    bot_game = Game.objects.filter(season_link__season__league=league).exclude(pk=game.pk).get()
    assert set(bot_game.seats.values_list("user_id", "bot")) == {(anna.pk, ""), (None, "normal")}


def test_a_league_without_bots_keeps_its_members_waiting(make_user: Callable[..., User]) -> None:
    league = make_league()
    assert league.bot_level == ""
    leagues.league_join(league_id=league.pk, user=make_user())
    assert leagues.matchmaker_pass(now=timezone.now()) == 0


def test_league_standings_count_a_place_behind_a_bot(make_user: Callable[..., User]) -> None:
    league = make_league(bot_level="normal", min_players=2, max_players=2)
    anna = make_user()
    leagues.league_join(league_id=league.pk, user=anna, max_games=1)
    leagues.matchmaker_pass(now=waited())
    game = Game.objects.get(season_link__season__league=league)
    bot_seat = game.seats.get(user__isnull=True)
    Seat.objects.filter(pk=bot_seat.pk).update(place=1, score=20)
    Seat.objects.filter(game=game, user=anna).update(place=2, score=5)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    (row,) = leagues.standings(leagues.current_season(league))
    assert (row.user_id, row.points, row.games, row.wins) == (anna.pk, 0.0, 1, 0)


def test_the_league_form_takes_a_bot_level_and_refuses_a_bad_one() -> None:
    data = {"name": "Autumn", "kind": "keltis-cards", "min_players": "2", "max_players": "4",
            "days_per_move": "3", "bank_increment_hours": "0", "bank_cap_hours": "0",
            "season_days": "90"}  # fmt: skip
    form = LeagueCreateForm({**data, "bot_level": "random"})
    assert not form.is_valid()
    assert form.errors["bot_level"] == ["Choose the bots' level: none, easy, normal or strong."]
    form = LeagueCreateForm({**data, "bot_level": "normal"})
    assert form.is_valid(), form.errors
    league = leagues.league_create(**form.create_kwargs())
    assert league.bot_level == "normal"
    assert LeagueCreateForm(data).is_valid()  # no bots is the default
    with pytest.raises(leagues.LeagueError, match="bots' level"):
        leagues.league_create(name="X", kind="keltis", bot_level="greedy")


def test_the_league_page_says_what_fills_a_short_table(
    client: Client, make_user: Callable[..., User]
) -> None:
    league = make_league(bot_level="strong")
    url = reverse("league_detail", args=[league.pk])
    assert "short tables are filled with strong bots" in client.get(url).content.decode()
    LeagueMember.objects.all().delete()
    League.objects.filter(pk=league.pk).update(bot_level="")
    assert "short tables are filled" not in client.get(url).content.decode()


def test_the_admin_shows_bot_entrants_and_a_leagues_bot_level(
    client: Client, make_user: Callable[..., User]
) -> None:
    organiser = make_user()
    tournament = open_tournament(organiser)
    sign_up(tournament, [organiser, make_user()])
    add_bots(tournament, organiser, "strong")
    league = make_league(bot_level="easy")
    client.force_login(make_user(is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert page.status_code == 200 and "strong bot" in page.content.decode()
    page = client.get(reverse("admin:tournaments_league_change", args=[league.pk]))
    assert page.status_code == 200 and 'name="bot_level"' in page.content.decode()
