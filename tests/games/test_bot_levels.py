"""Bot levels on the site: chosen per seat, named by level, given only their seat's view; the
timeout policy keeps the normal bot whatever the table's levels."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import bot_play, timeouts
from games.engine import bots as engine_bots
from games.engine.bots import GreedyBot
from games.forms import SEAT_CHOICES
from games.models import BotKind, Event, EventSource, GameStatus, Seat
from games.services import action_submit, game_create
from games.state import engine_state
from tests.engine.circling_bot import PileBot

pytestmark = pytest.mark.django_db


def test_the_create_form_offers_the_three_levels() -> None:
    assert [value for value, _label in SEAT_CHOICES] == ["", "easy", "normal", "strong"]


@pytest.mark.parametrize(
    ("level", "english", "german"),
    [("easy", "easy bot", "leichter Bot"), ("normal", "normal bot", "normaler Bot"),
     ("strong", "strong bot", "starker Bot")],
)  # fmt: skip
def test_a_bot_seat_is_named_by_its_level(
    make_user: Any, level: str, english: str, german: str
) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=2, bots=[level])
    seat = Seat.objects.get(game=game, index=1)
    assert seat.name == english
    with translation.override("de"):
        assert seat.name == german


def test_the_game_page_names_the_strong_bot(client: Client, make_user: Any) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis-cards", player_count=2, bots=["strong"])
    client.force_login(anna)
    assert "strong bot" in client.get(reverse("game_detail", args=[game.pk])).content.decode()


class RecordingBot:
    """Stands in for the engine's bots: remembers what it was given, plays like greedy."""

    given: ClassVar[list[Any]] = []

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, game: Any) -> str:
        RecordingBot.given.append(game)
        return GreedyBot(self.seed).choose(game)

    def choose_view(self, view: dict[str, Any]) -> str:
        RecordingBot.given.append(view)
        return GreedyBot(self.seed).choose_view(view)


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    kinds: list[tuple[str, Any]] = []
    RecordingBot.given = []

    def make(kind: str, seed: int | None = None) -> RecordingBot:
        kinds.append((kind, seed))
        return RecordingBot(seed)

    monkeypatch.setattr(bot_play, "make_bot", make)
    monkeypatch.setattr(timeouts, "make_bot", make)
    return kinds


def hides_others(view: Any, seat: int) -> bool:
    """A records.md ``--as seat`` answer: the own hand only, no deck, no removed cards."""
    state = view["state"]
    hands = [p["hand"] for p in state["players"]]
    return (
        isinstance(view, dict)
        and state["viewer"] == seat
        and hands[seat] is not None
        and all(hand is None for i, hand in enumerate(hands) if i != seat)
        and "deck" not in state
        and "removed" not in state
    )


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_the_bot_worker_gives_a_bot_only_its_seats_view(
    make_user: Any, recording: list[tuple[str, Any]], level: str
) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=[level, "easy"])
    game.refresh_from_db()
    while game.to_move == 0:  # anna's turn, then the bots'
        action = engine_state(game).legal()[0]
        action_submit(game_id=game.pk, seat=0, action=action, user=anna)
        game.refresh_from_db()
    bot_play.bots_play(game_id=game.pk)
    assert [kind for kind, _seed in recording][:1] == [level]
    assert RecordingBot.given
    seats = Event.objects.filter(game=game, source=EventSource.BOT).values_list("seat", flat=True)
    assert set(seats) == {1, 2}
    for given in RecordingBot.given:
        assert isinstance(given, dict), "a bot was handed the whole game"
        assert given["state"]["viewer"] in (1, 2)
        assert hides_others(given, given["state"]["viewer"])


def test_timeouts_play_the_normal_bot_from_the_seats_view(
    make_user: Any, recording: list[tuple[str, Any]]
) -> None:
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis-cards", player_count=2, bots=["strong"])
    game.refresh_from_db()
    seat = Seat.objects.get(game=game, index=0)
    timeouts._play_turn(game, seat, EventSource.TIMEOUT)
    assert recording and {kind for kind, _seed in recording} == {"normal"}
    assert timeouts.TIMEOUT_BOT == BotKind.NORMAL
    assert all(hides_others(view, 0) for view in RecordingBot.given)
    assert Event.objects.filter(game=game, source=EventSource.TIMEOUT).exists()


def test_a_strong_bot_table_plays_on_with_the_real_bots(make_user: Any) -> None:
    """No stand-in: the strong bot's search runs in the worker and its actions are stored."""
    anna = make_user("anna")
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["strong"])
    game.refresh_from_db()
    while game.to_move == 0 and game.status == GameStatus.RUNNING:
        action_submit(game_id=game.pk, seat=0, action=engine_state(game).legal()[0], user=anna)
        game.refresh_from_db()
    bot_play.bots_play(game_id=game.pk)
    game.refresh_from_db()
    assert Event.objects.filter(game=game, seat=1, source=EventSource.BOT).exists()
    assert game.to_move == 0 or game.status == GameStatus.FINISHED


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_table_of_bots_gone_round_in_circles_ends(
    make_user: Any, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The bot worker's seats (a bot and a retired person here: nobody left to end it) draw
    from the deck once the game has run PROGRESS_AFTER events, so the game finishes."""
    monkeypatch.setattr(bot_play, "make_bot", lambda kind, seed=None: PileBot(seed))
    monkeypatch.setattr(engine_bots, "PROGRESS_AFTER", 60)
    game = game_create(creator=make_user("anna"), kind=kind, player_count=2, bots=["normal"])
    Seat.objects.filter(game=game, index=0).update(retired=True)
    bot_play.bots_play(game_id=game.pk)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    assert game.seq > 60
    late = Event.objects.filter(game=game, seq__gt=61).values_list("action", flat=True)
    assert "draw deck" in set(late)
