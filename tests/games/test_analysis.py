"""Post-game analysis: asked for by a player of a finished game (POST), computed once by the
worker at a small fixed budget, stored, and shown on the history page only after the end."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import analysis, bot_play
from games.engine.bots import GreedyBot
from games.engine.search import Budget
from games.models import Event, Game, GameStatus, MoveAnalysis
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db

TINY = Budget(playouts=1, seconds=None, candidates=2, horizon=1, min_worlds=1)


@pytest.fixture(autouse=True)
def tiny_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "ANALYSIS_BUDGET", TINY)


def two_people(make_user: Any, kind: str = "keltis") -> tuple[Game, Any, Any]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def play_to_end(game: Game, people: list[Any]) -> Game:
    """Both people play the greedy bot's moves through the one action path."""
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            return game
        engine = engine_state(game)
        seat = engine.to_move
        action = GreedyBot(game.seq).choose(engine)
        action_submit(game_id=game.pk, seat=seat, action=action, user=people[seat])


def ask(client: Client, user: Any, game: Game, capture: Any) -> Any:
    client.force_login(user)
    with capture(execute=True):
        return client.post(reverse("game_analysis", args=[game.pk]))


def test_a_player_of_a_finished_game_gets_the_analysis_of_their_moves(
    client: Client, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game, anna, bela = two_people(make_user)
    play_to_end(game, [anna, bela])

    history = client.get(reverse("game_history", args=[game.pk]))
    assert "Analyse my moves" not in history.content.decode()  # nobody logged in
    client.force_login(anna)
    assert (
        "Analyse my moves" in client.get(reverse("game_history", args=[game.pk])).content.decode()
    )
    assert not MoveAnalysis.objects.exists()  # a GET changes nothing

    response = ask(client, anna, game, django_capture_on_commit_callbacks)
    assert response.status_code == 303
    stored = MoveAnalysis.objects.get()
    assert stored.seat == 0 and stored.done_at is not None  # the (eager) worker computed it
    anna_moves = {
        seq: action
        for seq, action in Event.objects.filter(game=game, seat=0).values_list("seq", "action")
    }
    assert stored.moves
    for move in stored.moves:
        assert anna_moves[move["seq"]] == move["played"]
        assert move["cost"] >= 0
    page = client.get(reverse("game_history", args=[game.pk])).content.decode()
    assert "Your moves, seen by the strong bot" in page
    assert "The strong bot would play" in page

    # bela asks for his own: another row, for seat 1
    ask(client, bela, game, django_capture_on_commit_callbacks)
    assert sorted(MoveAnalysis.objects.values_list("seat", flat=True)) == [0, 1]


def test_the_analysis_is_computed_once(
    client: Client,
    make_user: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    game, anna, bela = two_people(make_user, kind="keltis-cards")
    play_to_end(game, [anna, bela])
    runs: list[int] = []
    real = analysis.analyse_moves

    def counting(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse_moves", counting)
    ask(client, anna, game, django_capture_on_commit_callbacks)
    ask(client, anna, game, django_capture_on_commit_callbacks)  # asked twice: queued once
    stored = MoveAnalysis.objects.get()
    assert runs == [1]
    moves = stored.moves
    assert analysis.analysis_compute(analysis_id=stored.pk) is False  # the task run again
    stored.refresh_from_db()
    assert runs == [1] and stored.moves == moves


def test_the_analysis_is_the_same_whenever_it_is_computed(make_user: Any) -> None:
    game, anna, bela = two_people(make_user)
    play_to_end(game, [anna, bela])
    assert analysis.analyse_moves(game, 1) == analysis.analyse_moves(game, 1)


def test_no_analysis_while_the_game_runs(
    client: Client, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game, anna, _bela = two_people(make_user)
    response = ask(client, anna, game, django_capture_on_commit_callbacks)
    assert response.status_code == 303
    assert not MoveAnalysis.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert "A game can be analysed once it has ended." in page
    assert "Analyse my moves" not in page


def test_only_a_player_of_the_game_may_ask(
    client: Client, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game, anna, bela = two_people(make_user)
    play_to_end(game, [anna, bela])
    cili = make_user("cili")
    client.force_login(cili)
    assert (
        "Analyse my moves"
        not in client.get(reverse("game_history", args=[game.pk])).content.decode()
    )
    response = ask(client, cili, game, django_capture_on_commit_callbacks)
    assert not MoveAnalysis.objects.exists()
    assert "Only a player of this game" in client.get(response["Location"]).content.decode()


def test_asking_needs_a_login_and_a_post(client: Client, make_user: Any) -> None:
    game, anna, _bela = two_people(make_user)
    url = reverse("game_analysis", args=[game.pk])
    assert client.post(url).status_code == 302  # to the login page
    client.force_login(anna)
    assert client.get(url).status_code == 405
    assert client.post(reverse("game_analysis", args=[99_999])).status_code == 404
    assert not MoveAnalysis.objects.exists()


def test_the_page_says_when_the_analysis_is_pending(client: Client, make_user: Any) -> None:
    game, anna, bela = two_people(make_user)
    play_to_end(game, [anna, bela])
    MoveAnalysis.objects.create(game=game, seat=0, requested_by=anna)
    client.force_login(anna)
    page = client.get(reverse("game_history", args=[game.pk])).content.decode()
    assert "The strong bot is looking at your moves" in page


def test_only_the_players_own_choices_are_analysed(make_user: Any) -> None:
    """A practice game against a bot: the bot seat's moves are not the player's choices."""
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["normal"])
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        if game.to_move == 0:
            action = GreedyBot(game.seq).choose(engine_state(game))
            action_submit(game_id=game.pk, seat=0, action=action, user=anna)
        else:
            bot_play.bots_play(game_id=game.pk)
    assert analysis.analyse_moves(game, 1) == []
    assert analysis.analyse_moves(game, 0)
