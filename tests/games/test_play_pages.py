"""The pages of one game: the game page, its action form, the history with replay, the export."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs

import pytest
from django.db import connection
from django.shortcuts import resolve_url
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import presenters, selectors
from games.engine import read_record, replay
from games.engine.base import SPECTATOR
from games.engine.bots import RandomBot
from games.engine.cli import main as engine_cli
from games.models import Event, Game, GameStatus
from games.services import action_submit, game_create, game_join, only_step
from games.state import engine_replay, engine_state
from games.templatetags.card_chips import card_chip

pytestmark = pytest.mark.django_db

KINDS = ["keltis", "keltis-cards"]


# -- helpers ------------------------------------------------------------------------------------
def two_player_game(make_user: Any, kind: str = "keltis") -> tuple[Game, Any, Any]:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def play(game: Game, users: list[Any], actions: int | None = None, seed: int = 1) -> Game:
    """Submit random legal actions through the service (all of them, or until the game has
    ``actions`` events: one more when the last one is followed by the only step left)."""
    bot = RandomBot(seed)
    while True:
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING or (actions is not None and game.seq >= actions):
            break
        seat = game.to_move
        action_submit(
            game_id=game.pk, seat=seat, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[seat],
        )
    game.refresh_from_db()
    return game


def cards_markup(cards: list[str]) -> str:
    """How a run of cards is drawn on the pages (the chip the hand uses)."""
    return "".join(card_chip(presenters.chip(card)) for card in cards)


def hand_section(html: str, seat: int) -> str | None:
    match = re.search(rf'<div class="hand" data-hand-seat="{seat}">(.*?)</div>', html, re.S)
    return match.group(1) if match else None


def detail_url(game: Game) -> str:
    return reverse("game_detail", args=[game.pk])


def act_url(game: Game) -> str:
    return reverse("game_act", args=[game.pk])


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# -- the game page ------------------------------------------------------------------------------
def test_url_names_and_paths() -> None:
    assert reverse("game_detail", args=[7]) == "/games/7/"
    assert reverse("game_act", args=[7]) == "/games/7/act/"
    assert reverse("game_history", args=[7]) == "/games/7/history/"
    assert reverse("game_export", args=[7]) == "/games/7/record.json"


@pytest.mark.parametrize("kind", KINDS)
def test_page_renders_for_anonymous_and_seated(client: Any, make_user: Any, kind: str) -> None:
    game, anna, _ = two_player_game(make_user, kind)
    page = client.get(detail_url(game))
    assert page.status_code == 200
    html = page.content.decode()
    assert ("<svg class=\"board-svg\"" in html) == (kind == "keltis")
    assert ('class="cards-table"' in html) == (kind == "keltis-cards")
    assert "data-hand-seat" not in html  # anonymous: no hand at all
    assert 'name="action"' not in html
    client.force_login(anna)
    html = client.get(detail_url(game)).content.decode()
    assert "Your hand" in html and 'data-hand-seat="0"' in html
    assert "Your turn" in html


@pytest.mark.parametrize("kind", KINDS)
def test_every_legal_action_is_one_button(client: Any, make_user: Any, kind: str) -> None:
    game, anna, _ = two_player_game(make_user, kind)
    client.force_login(anna)
    html = client.get(detail_url(game)).content.decode()
    legal = engine_state(game).legal()
    buttons = re.findall(r'name="action" value="([^"]*)"', html)
    assert sorted(buttons) == sorted(legal)
    seqs = set(re.findall(r'name="seq" value="([^"]*)"', html))
    assert seqs == {"0"}
    assert html.count("csrfmiddlewaretoken") >= len(legal)


@pytest.mark.parametrize("kind", KINDS)
def test_other_hands_and_the_deck_never_appear(client: Any, make_user: Any, kind: str) -> None:
    game, anna, bela = two_player_game(make_user, kind)
    game = play(game, [anna, bela], actions=9)  # a few piles and columns on the table
    everything = engine_state(game).view(None)
    hands = [p["hand"] for p in everything["players"]]
    deck_next = everything["deck"][:5]
    for seat, user in enumerate([anna, bela]):
        client.force_login(user)
        html = client.get(detail_url(game)).content.decode()
        other = 1 - seat
        # the own hand is there, in its section (so the checks below look at real markup)
        assert hand_section(html, seat) is not None
        assert cards_markup(hands[seat]) in hand_section(html, seat)
        # no hand section of the other seat, and its hand nowhere, in any spelling
        assert hand_section(html, other) is None
        assert f'data-hand-seat="{other}"' not in html
        assert cards_markup(hands[other]) not in html
        assert " ".join(hands[other]) not in html
        assert json.dumps(hands[other]) not in html
        # nor the order of the deck
        assert cards_markup(deck_next) not in html
        assert " ".join(deck_next) not in html
        assert '"hand":' not in html and '"deck":' not in html
    client.logout()
    html = client.get(detail_url(game)).content.decode()
    for hand in hands:
        assert cards_markup(hand) not in html


def test_page_uses_the_seat_view_never_everything(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    stranger = make_user()
    page = selectors.game_page(game=game, user=anna)
    assert page.view == engine_state(game).view(0)
    assert page.view["players"][1]["hand"] is None
    assert selectors.game_page(game=game, user=stranger).view == engine_state(game).view(SPECTATOR)
    assert selectors.game_page(game=game, user=bela).legal == []  # not bela's turn


def test_open_game_page_waits_for_players(client: Any, make_user: Any) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3)
    page = client.get(detail_url(game))
    assert page.status_code == 200
    assert "has not started" in page.content.decode()


def test_missing_game_is_404(client: Any, db: None) -> None:
    assert client.get("/games/999999/").status_code == 404
    assert client.get("/games/999999/history/").status_code == 404
    assert client.get("/games/999999/record.json").status_code == 404


# -- acting -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_legal_post_stores_one_event_and_redirects_with_a_message(
    client: Any, make_user: Any, kind: str
) -> None:
    game, anna, _ = two_player_game(make_user, kind)
    action = engine_state(game).legal()[0]
    after = engine_state(game)
    after.apply(action, player=0)
    client.force_login(anna)
    response = client.post(act_url(game), {"action": action, "seq": "0"})
    assert response.status_code == 303
    assert response["Location"] == detail_url(game)
    only = only_step(after)  # the card game's discard leaves only the deck: drawn at once
    stored = list(Event.objects.filter(game=game).values_list("seq", "seat", "action"))
    assert stored == [(1, 0, action)] + ([(2, 0, only)] if only else [])
    page = client.get(response["Location"])
    [message] = messages_of(page)
    assert message.startswith("You ")
    if only:
        assert "You drew from the deck: the only step left, taken for you." in message
        assert "It is now " in message and "'s turn." in message
    else:
        assert "draw" in message.lower()  # what comes next: the draw


def test_a_post_reads_the_game_and_the_seats_only_in_the_action(
    client: Any, make_user: Any
) -> None:
    """The view reads nothing of the game itself: the action finds the player's seat among the
    seats it reads under the game's lock, and the message's names come from those too."""
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    action = engine_state(game).legal()[0]

    with CaptureQueriesContext(connection) as queries:
        response = client.post(act_url(game), {"action": action, "seq": "0"})

    assert response.status_code == 303
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert sum('FROM "games_game"' in q for q in reads) == 1  # the action's, FOR UPDATE
    assert sum('FROM "games_seat"' in q for q in reads) == 1
    assert not any('FROM "django_session"' in q for q in reads)  # from the cache
    assert Event.objects.get(game=game).seat == 0


def test_a_post_to_a_missing_game_is_404(client: Any, make_user: Any) -> None:
    client.force_login(make_user())
    assert client.post("/games/999999/act/", {"action": "draw deck", "seq": "0"}).status_code == 404


def test_board_message_says_where_the_figure_went(client: Any, make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    action = next(a for a in engine_state(game).legal() if a.endswith(" big"))
    colour = presenters.COLOUR_LABELS[action.split()[1][0]]
    client.force_login(anna)
    response = client.post(act_url(game), {"action": action, "seq": "0"}, follow=True)
    [message] = messages_of(response)
    assert f"Your {colour} figure is now on stone 1 (worth -4)." in message


def takes_a_wishing_stone(game: Game, seat: int, action: str) -> bool:
    engine = engine_state(game)  # a fresh copy, from the snapshot
    before = engine.view(seat)["players"][seat]["wishing_stones"]
    engine.apply(action, player=seat)
    return engine.view(seat)["players"][seat]["wishing_stones"] > before


def test_board_message_names_the_wishing_stone_won(client: Any, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    users, bot = [anna, bela], RandomBot(3)
    while True:
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING, "no move reached a wishing stone"
        seat, engine = game.to_move, engine_state(game)
        winning = [a for a in engine.legal() if takes_a_wishing_stone(game, seat, a)]
        if winning:
            break
        action_submit(
            game_id=game.pk, seat=seat, action=bot.choose(engine), expected_seq=game.seq,
            user=users[seat],
        )
    held = engine.view(seat)["players"][seat]["wishing_stones"] + 1
    client.force_login(users[seat])
    response = client.post(
        act_url(game), {"action": winning[0], "seq": str(game.seq)}, follow=True
    )
    [message] = messages_of(response)
    stones = "wishing stone" if held == 1 else "wishing stones"
    assert f"You took the wishing stone there: you now hold {held} {stones}." in message


def test_stale_seq_says_the_game_moved_on_and_stores_nothing(
    client: Any, make_user: Any
) -> None:
    game, anna, _ = two_player_game(make_user)
    action = engine_state(game).legal()[0]
    client.force_login(anna)
    client.post(act_url(game), {"action": action, "seq": "0"}, follow=True)
    response = client.post(act_url(game), {"action": "draw deck", "seq": "0"}, follow=True)
    assert response.redirect_chain == [(detail_url(game), 303)]
    [message] = messages_of(response)
    assert message == "The game has moved on since this page was shown: nothing was changed."
    assert Event.objects.filter(game=game).count() == 1


def test_illegal_action_shows_the_engine_message(client: Any, make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    response = client.post(act_url(game), {"action": "draw deck", "seq": "0"}, follow=True)
    [message] = messages_of(response)
    assert message == "You must first play a card (lay it or discard it)."
    assert not Event.objects.filter(game=game).exists()


def test_not_your_turn(client: Any, make_user: Any) -> None:
    game, _, bela = two_player_game(make_user)
    client.force_login(bela)
    response = client.post(act_url(game), {"action": "draw deck", "seq": "0"}, follow=True)
    assert messages_of(response) == ["It is not your turn."]
    assert not Event.objects.filter(game=game).exists()


def test_a_non_player_gets_403(client: Any, make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    client.force_login(make_user())
    action = engine_state(game).legal()[0]
    response = client.post(act_url(game), {"action": action, "seq": "0"})
    assert response.status_code == 403
    assert not Event.objects.filter(game=game).exists()


def test_anonymous_post_goes_to_login(client: Any, make_user: Any, settings: Any) -> None:
    game, _, _ = two_player_game(make_user)
    action = engine_state(game).legal()[0]
    response = client.post(act_url(game), {"action": action, "seq": "0"})
    assert response.status_code == 302
    login, _, query = response["Location"].partition("?")
    assert login == resolve_url(settings.LOGIN_URL)
    assert parse_qs(query) == {"next": [detail_url(game)]}  # back to the game, not to /act/
    assert not Event.objects.filter(game=game).exists()


def test_act_is_post_only(client: Any, make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    assert client.get(act_url(game)).status_code == 405


@pytest.mark.parametrize(
    "data",
    [
        {"action": "draw deck"},
        {"action": "draw deck", "seq": ""},
        {"action": "draw deck", "seq": "one"},
        {"action": "draw deck", "seq": "1.5"},
        {"seq": "0"},
        {"action": "   ", "seq": "0"},
    ],
)
def test_malformed_post_is_400_and_changes_nothing(
    client: Any, make_user: Any, data: dict[str, str]
) -> None:
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    response = client.post(act_url(game), data)
    assert response.status_code == 400
    assert b"nothing was changed" in response.content
    assert not Event.objects.filter(game=game).exists()


def test_bots_answer_after_the_post(
    client: Any, make_user: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    client.force_login(anna)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(2):  # play, then draw: then the bot's whole turn follows
            game.refresh_from_db()
            action = engine_state(game).legal()[0]
            client.post(act_url(game), {"action": action, "seq": str(game.seq)})
    game.refresh_from_db()
    assert game.to_move == 0 and game.seq >= 4
    html = client.get(detail_url(game)).content.decode()
    assert "greedy bot" in html and "Latest moves" in html


def test_finished_game_shows_scores_places_and_winners(client: Any, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    game = play(game, [anna, bela])
    assert game.status == GameStatus.FINISHED
    html = client.get(detail_url(game)).content.decode()
    assert "The game is over." in html and "Final scores" in html
    engine = engine_state(game)
    for seat in game.seats.all():
        assert seat.score == engine.scores()[seat.index]
        assert f"<td>{seat.place}</td><td>{seat.name}" in html
    assert "winner" in html
    assert reverse("game_export", args=[game.pk]) in html


# -- history ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_history_lists_every_event_in_order(client: Any, make_user: Any, kind: str) -> None:
    game, anna, bela = two_player_game(make_user, kind)
    game = play(game, [anna, bela], actions=12)
    html = client.get(reverse("game_history", args=[game.pk])).content.decode()
    rows = [int(n) for n in re.findall(r'<tr id="move-(\d+)"', html)]
    assert rows == list(range(1, game.seq + 1)) and game.seq >= 12
    assert anna.public_name in html and bela.public_name in html
    assert "@example.test" not in html  # names, never email addresses
    first = Event.objects.get(game=game, seq=1)
    assert presenters.event_text(kind, first.action, anna.public_name) in html


def test_history_steps_through_the_positions(client: Any, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    game = play(game, [anna, bela], actions=10)
    last = game.seq
    url = reverse("game_history", args=[game.pk])
    for step in (0, 1, 5, last):
        page = selectors.game_history(game=game, step=str(step))
        assert page.step == step
        assert page.view == engine_replay(game, upto=step).view(SPECTATOR)
        response = client.get(url, {"step": step})
        assert response.status_code == 200
        assert response.context["step"] == step
    html = client.get(url, {"step": 0}).content.decode()
    assert "The start of the game" in html and 'id="step-prev"' not in html
    html = client.get(url, {"step": 5}).content.decode()
    assert f"After move 5 of {last}" in html
    assert 'id="step-prev" rel="prev" href="?step=4"' in html
    assert 'id="step-next" rel="next" href="?step=6"' in html
    assert 'src="/static/games/replay.js"' in html
    # out of range and nonsense are clamped, never an error
    for asked, shown in (("99", last), ("-3", 0), ("abc", last), ("", last)):
        response = client.get(url, {"step": asked})
        assert response.status_code == 200 and response.context["step"] == shown
    assert client.get(url).context["step"] == last  # 10 moves, or 11 with a step taken for one


def test_history_of_a_running_game_shows_no_hand(client: Any, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user, "keltis-cards")
    game = play(game, [anna, bela], actions=6)
    hands = [p["hand"] for p in engine_state(game).view(None)["players"]]
    client.force_login(anna)  # even a player sees only the public position here
    for step in ("0", "3", "6"):
        html = client.get(reverse("game_history", args=[game.pk]), {"step": step}).content
        html = html.decode()
        assert "data-hand-seat" not in html
        for hand in hands:
            assert cards_markup(hand) not in html


def test_history_of_a_finished_game_shows_the_hands(client: Any, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    game = play(game, [anna, bela])
    html = client.get(reverse("game_history", args=[game.pk]), {"step": 20}).content.decode()
    replayed = engine_replay(game, upto=20).view(None)
    for seat in (0, 1):
        assert cards_markup(replayed["players"][seat]["hand"]) in hand_section(html, seat)


# -- export -------------------------------------------------------------------------------------
def test_export_of_a_finished_game_replays_to_the_same_scores(
    client: Any, make_user: Any, tmp_path: Any, capsys: Any
) -> None:
    game, anna, bela = two_player_game(make_user, "keltis-cards")
    game = play(game, [anna, bela], seed=3)
    response = client.get(reverse("game_export", args=[game.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"] == (
        f'attachment; filename="keltis-cards-{game.pk}.json"'
    )
    data = json.loads(response.content)
    assert data["format"] == 1 and data["game"] == "keltis-cards"
    assert data["players"] == [anna.public_name, bela.public_name]
    assert data["setup"] == game.setup and data["options"] == game.options
    assert len(data["actions"]) == game.seq
    scores = [s.score for s in game.seats.order_by("index")]
    assert replay(read_record(data)).scores() == scores
    # and the command line of records.md says the same
    path = tmp_path / "record.json"
    path.write_bytes(response.content)
    assert engine_cli(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["finished"] and out["scores"] == scores


def test_export_of_a_running_game_is_refused(client: Any, make_user: Any) -> None:
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    response = client.get(reverse("game_export", args=[game.pk]))
    assert response.status_code == 403
    assert b"once the game has finished" in response.content
    assert json.dumps(game.setup["deck"][:3])[1:-1].encode() not in response.content
