"""A game whose event log fails an integrity check is frozen: a broken hash chain (found by
``verify_event_chains``, ``rebuild_snapshots`` or the admin) or events the engine refuses to
replay (found by a page, an action, a timeout or ``rebuild_snapshots``). Nobody acts in a frozen
game, its pages and "my games" say so, staff are told, rebuilding never adopts a broken log,
and staff unfreeze a game only once its log is sound again."""

from __future__ import annotations

import io
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games import tasks, timeouts
from games.bot_play import bot_to_move, bots_play, games_waiting_for_bots
from games.engine.bots import RandomBot
from games.integrity import game_freeze
from games.maintenance import StillBroken, game_unfreeze, rebuild_snapshots, verify_event_chains
from games.models import Event, Game, GameStatus, Snapshot
from games.services import GameFrozen, action_submit, game_create, game_join
from games.state import engine_replay, engine_state
from notifications import links
from notifications.digest import waiting_games
from notifications.emails import send_notification
from notifications.models import Notification, NotificationKind
from tests.games.tampering import forge_event, set_action
from tournaments.leagues import league_join, matchmaker_pass, seasons_close_due
from tournaments.models import League, Season

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOTICE = (
    "This game is frozen: its move record failed an integrity check; the staff have been told."
)
FROZEN_ERROR = (
    "This game is frozen until the staff have checked its move record: nothing was changed."
)
#: actions the engine refuses in any position: a card that does not exist, a pile that does not
#: exist (the pages must still word it), nothing at all
ILLEGAL = ["play x99", "draw nowhere", ""]


# -- helpers ------------------------------------------------------------------------------------
def duel(make_user: Any, moves: int = 4, kind: str = "keltis") -> tuple[Game, User, User]:
    """A running game of two people (created at START) after ``moves`` legal actions (the
    ones the site takes for a player, the only step left, counted too)."""
    anna, bela = make_user(), make_user()
    with time_machine.travel(START, tick=False):
        game = game_create(creator=anna, kind=kind, player_count=2)
        game_join(game_id=game.pk, user=bela)
        while game.seq < moves:
            move(game)
            game.refresh_from_db()
    game.refresh_from_db()
    return game, anna, bela


def move(game: Game) -> None:
    """One legal action by whoever is to move."""
    game.refresh_from_db()
    action = engine_state(game).legal()[0]
    action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)


def play_turn(game: Game) -> None:
    """The seat to move plays its whole turn."""
    game.refresh_from_db()
    seat = game.to_move
    while game.status == GameStatus.RUNNING and game.to_move == seat:
        move(game)
        game.refresh_from_db()


def frozen(game: Game) -> bool:
    game.refresh_from_db()
    return game.frozen_at is not None


def html(response: Any) -> str:
    return response.content.decode()


def run(command: str, *args: str) -> tuple[str, str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


# -- a broken chain, found by the check, freezes the game and tells staff -----------------------
def test_verify_freezes_a_tampered_game_and_tells_staff_once(
    make_user: Any, settings: Any, caplog: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ADMINS = [("Staff", "staff@example.test")]
    game, _, _ = duel(make_user)
    intact, _, _ = duel(make_user)
    set_action(game, 2, "forged")

    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        report = verify_event_chains()

    assert report.frozen == [game.pk]
    assert frozen(game) and not frozen(intact)
    assert f"game {game.pk} seq 2: hash mismatch" in game.frozen_reason
    [line] = [r for r in caplog.records if r.name == "games.integrity"]
    assert line.levelno == logging.ERROR and line.game_id == game.pk
    [email] = mail.outbox
    assert email.to == ["staff@example.test"]
    assert f"Game {game.pk} is frozen" in email.subject
    assert f"game {game.pk} seq 2: hash mismatch" in email.body

    caplog.clear()
    with django_capture_on_commit_callbacks(execute=True):
        out, _, error = run("verify_event_chains")
    assert error is not None and f"game {game.pk} is frozen already" in out
    assert len(mail.outbox) == 1 and not caplog.records  # told once per freeze


def test_staff_see_frozen_games_in_the_admin(client: Client, make_user: Any) -> None:
    game, _, _ = duel(make_user)
    intact, _, _ = duel(make_user)
    set_action(game, 2, "forged")
    verify_event_chains()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))

    listing = html(client.get(reverse("admin:games_game_changelist"), {"frozen": "yes"}))
    assert f'href="/admin/games/game/{game.pk}/change/' in listing
    assert f'href="/admin/games/game/{intact.pk}/change/' not in listing
    detail = html(client.get(reverse("admin:games_game_change", args=[game.pk])))
    assert "the event chain is broken" in detail


def test_the_admins_own_chain_check_freezes_a_broken_game(
    client: Client, make_user: Any
) -> None:
    game, _, _ = duel(make_user)
    set_action(game, 3, "forged")
    client.force_login(make_user("root", is_staff=True, is_superuser=True))

    assert client.get(reverse("admin:games_game_change", args=[game.pk])).status_code == 200
    assert frozen(game)


# -- a frozen game: no action, a notice for its players ------------------------------------------
def test_a_frozen_game_refuses_every_action_in_the_players_language(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    game_freeze(game_id=game.pk, reason="test")
    action = engine_state(game).legal()[0]

    with pytest.raises(GameFrozen) as refused:
        action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)
    assert str(refused.value) == FROZEN_ERROR
    with translation.override("de"):
        assert str(refused.value) not in (FROZEN_ERROR, "")
    assert Event.objects.filter(game=game).count() == game.seq == 4


def test_the_game_page_says_the_game_is_frozen_and_offers_no_move(
    client: Client, make_user: Any
) -> None:
    game, anna, bela = duel(make_user)
    player = anna if game.to_move == 0 else bela
    client.force_login(player)
    url = reverse("game_detail", args=[game.pk])
    assert 'name="action"' in html(client.get(url))  # the player's turn: buttons

    game_freeze(game_id=game.pk, reason="test")
    page = html(client.get(url))
    assert NOTICE in page
    assert 'name="action"' not in page
    assert "Your deadline" not in page

    action = engine_state(game).legal()[0]
    answer = client.post(
        reverse("game_act", args=[game.pk]), {"action": action, "seq": game.seq}, follow=True
    )
    assert FROZEN_ERROR in html(answer)
    assert Event.objects.filter(game=game).count() == 4
    assert NOTICE in html(client.get(reverse("game_history", args=[game.pk])))


def test_my_games_shows_the_notice_and_no_turn(client: Client, make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    player = anna if game.to_move == 0 else bela
    client.force_login(player)
    assert "badge--turn" in html(client.get(reverse("my_games")))

    game_freeze(game_id=game.pk, reason="test")
    page = html(client.get(reverse("my_games")))
    assert NOTICE in page
    assert "badge--turn" not in page
    assert "Your deadline" not in page


def test_an_emailed_link_of_a_frozen_game_does_not_act(client: Client, make_user: Any) -> None:
    game, _, _ = duel(make_user)
    action = engine_state(game).legal()[0]
    path = links.ActionLink(game.pk, game.to_move, game.turn_seq, game.seq, action).path()
    with time_machine.travel(START + timedelta(hours=1), tick=False):  # before the deadline
        assert "Confirm" in html(client.get(path))
        game_freeze(game_id=game.pk, reason="test")

        shown = client.get(path)
        assert shown.status_code == 409 and NOTICE in html(shown)
        assert "Confirm" not in html(shown)
        assert client.post(path).status_code == 409
    assert Event.objects.filter(game=game).count() == 4


# -- a forged illegal event: clean pages, and the game freezes -----------------------------------
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
@pytest.mark.parametrize("action", ILLEGAL)
@pytest.mark.parametrize("count_it", [True, False], ids=["chain-intact", "chain-broken"])
def test_a_forged_illegal_event_gives_clean_pages_and_freezes_the_game(
    client: Client, make_user: Any, kind: str, action: str, count_it: bool
) -> None:
    """``count_it``: the forger also moved the game's count and chain head on, so the chain
    verifies and only the replay tells (the page replays, the snapshot being behind); else the
    chain is broken and the snapshot still current."""
    game, anna, _ = duel(make_user, kind=kind)
    forge_event(game, action, count_it=count_it)
    client.force_login(anna)

    page = client.get(reverse("game_detail", args=[game.pk]))
    history = client.get(reverse("game_history", args=[game.pk]))
    assert page.status_code == history.status_code == 200
    assert frozen(game)
    assert "does not replay" in game.frozen_reason
    for answer in (history, client.get(reverse("game_detail", args=[game.pk]))):
        assert NOTICE in html(answer)
        assert 'name="action"' not in html(answer)
    assert "4 / 4" in html(history)  # the replay stops before the forged event


def test_the_freeze_reason_names_no_card_of_a_hand(
    make_user: Any, caplog: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The engine's words for a refused event may name a card ("You do not hold g7"): the
    reason, which goes to the log, the admin and email, keeps only its message id."""
    game, _, _ = duel(make_user)
    while not any(a.startswith("discard") for a in engine_state(game).legal()):
        move(game)  # on to a seat that is to lay or discard a card
        game.refresh_from_db()
    hands = [p["hand"] for p in engine_state(game).view(None)["players"]]
    hidden = next(c for c in hands[1 - game.to_move] if c not in hands[game.to_move])
    forge_event(game, f"discard {hidden}")  # a card of the other player's hand only

    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        rebuild_snapshots()
    assert frozen(game) and "card_not_in_hand" in game.frozen_reason
    assert hidden not in game.frozen_reason
    for record in caplog.records:
        assert hidden not in record.getMessage() + str(record.__dict__)


def test_a_history_step_past_a_forged_event_shows_the_last_sound_position(
    client: Client, make_user: Any
) -> None:
    game, _, _ = duel(make_user)
    forge_event(game, "play x99")
    answer = client.get(reverse("game_history", args=[game.pk]), {"step": "5"})
    assert answer.status_code == 200
    assert "4 / 4" in html(answer) and NOTICE in html(answer)


def test_an_action_on_a_log_that_does_not_replay_freezes_the_game(
    make_user: Any, caplog: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game, _, _ = duel(make_user)
    forge_event(game, "play x99")  # the snapshot is one event behind: the action replays

    with (
        caplog.at_level(logging.ERROR),
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(GameFrozen),
    ):
        action_submit(game_id=game.pk, seat=game.to_move, action="done", expected_seq=5)
    assert frozen(game) and "seq 5" in game.frozen_reason
    assert Event.objects.filter(game=game).count() == 5  # nothing added to the forged log
    assert any(r.name == "games.integrity" and r.game_id == game.pk for r in caplog.records)


def test_a_game_over_email_of_a_log_that_does_not_replay_is_not_sent(make_user: Any) -> None:
    game, _, _ = duel(make_user, moves=0, kind="keltis-cards")
    bot = RandomBot(7)
    for _ in range(5000):  # a random game ends; legal()[0] may draw and discard for ever
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        action = bot.choose(engine_state(game))
        action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)
    assert game.status == GameStatus.FINISHED
    forge_event(game, "play x99")
    game_over = Notification.objects.filter(game=game, kind=NotificationKind.FINISHED).first()

    assert game_over is not None
    assert send_notification(game_over) is False  # no result to announce, and no error
    assert mail.outbox == []


# -- rebuilding never adopts a broken log --------------------------------------------------------
def _change_last_move(game: Game) -> str:
    """Store another legal action in place of the last one: a log that still replays, to a
    different position."""
    before = engine_replay(game, upto=game.seq - 1)
    stored = Event.objects.get(game=game, seq=game.seq).action
    other = next(a for a in before.legal() if a != stored)
    set_action(game, game.seq, other)
    return other


def test_rebuild_refuses_a_broken_chain_and_keeps_the_snapshot(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    intact, _, _ = duel(make_user)
    snapshot = Snapshot.objects.get(game=game).data
    _change_last_move(game)

    out, err, error = run("rebuild_snapshots")
    assert error is not None and "1 game(s) with a broken event chain not rebuilt" in str(error)
    assert f"game {game.pk}: event chain broken, snapshot left as it was" in err
    assert f"game {game.pk} seq 4: hash mismatch" in err
    assert "rebuilt 1 snapshot(s), 0 differed" in out  # the intact game
    assert Snapshot.objects.get(game=game).data == snapshot
    assert frozen(game) and not frozen(intact)


def test_rebuild_freezes_a_game_whose_log_does_not_replay(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    snapshot = Snapshot.objects.get(game=game)
    forge_event(game, "play x99")  # the chain verifies: only the replay fails

    report = rebuild_snapshots()
    assert list(report.failed) == [game.pk] and not report.refused
    assert Snapshot.objects.get(game=game).data == snapshot.data
    assert frozen(game) and "seq 5" in game.frozen_reason


# -- the sweeps and the bots pass a frozen game by ----------------------------------------------
def test_the_deadline_sweep_passes_a_frozen_game_by(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    other, _, _ = duel(make_user)
    game_freeze(game_id=game.pk, reason="test")

    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        counts = tasks.sweep_deadlines()
        assert counts == {"reminder_sent": 1, "timeout_played": 1}  # the other game only
        # and a game frozen after the sweep listed it is passed by under its lock
        assert timeouts.timeout_apply(game_id=game.pk) == "frozen"
        assert timeouts.reminder_send(game_id=game.pk) == "none"
        assert timeouts.play_out(game_id=game.pk) == 0
    game.refresh_from_db()
    other.refresh_from_db()
    assert game.seq == 4 and other.seq > 4
    assert game.seats.get(index=game.to_move).timeouts == 0


def test_the_daily_digest_lists_no_frozen_game(make_user: Any) -> None:
    game, anna, bela = duel(make_user)
    player = (anna, bela)[game.to_move]
    assert waiting_games(user=player) == [game]
    game_freeze(game_id=game.pk, reason="test")
    assert waiting_games(user=player) == []


def test_a_timeout_on_a_log_that_does_not_replay_freezes_it_and_the_sweep_goes_on(
    make_user: Any,
) -> None:
    game, _, _ = duel(make_user)  # its deadline comes first
    other, _, _ = duel(make_user)
    forge_event(game, "play x99")

    with time_machine.travel(other.deadline + timedelta(minutes=1), tick=False):
        counts = tasks.sweep_deadlines()
    assert counts["timeout_frozen"] == 1 and counts["timeout_played"] == 1
    assert frozen(game)
    game.refresh_from_db()
    assert game.seq == 5 and game.seats.get(index=game.to_move).timeouts == 0
    other.refresh_from_db()
    assert other.seq > 4


def test_the_bots_do_not_play_a_frozen_game(make_user: Any) -> None:
    games = []
    for _ in range(2):
        game = game_create(creator=make_user(), kind="keltis", player_count=2, bots=["greedy"])
        play_turn(game)  # the bot's wake-up runs after commit: never in these tests
        games.append(game)
    game, other = games
    game_freeze(game_id=game.pk, reason="test")

    assert bot_to_move(other.pk) and not bot_to_move(game.pk)
    waiting = games_waiting_for_bots()
    assert other.pk in waiting and game.pk not in waiting
    seq = Game.objects.get(pk=game.pk).seq
    assert bots_play(game_id=game.pk) == 0
    assert Game.objects.get(pk=game.pk).seq == seq
    assert bots_play(game_id=other.pk) > 0


def test_the_bots_freeze_a_game_whose_log_does_not_replay(make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=2, bots=["greedy"])
    play_turn(game)
    forge_event(game, "play x99")  # the bot to move must replay the log

    assert bots_play(game_id=game.pk) == 0
    assert frozen(game)


def test_a_seasons_end_leaves_a_frozen_game_as_it_is(make_user: Any) -> None:
    league = League.objects.create(
        name="League", kind="keltis-cards", min_players=2, max_players=2, season_days=30
    )
    for _ in range(4):
        league_join(league_id=league.pk, user=make_user(), max_games=1)
    assert matchmaker_pass(now=timezone.now()) == 2
    season = Season.objects.get(league=league)
    game, other = Game.objects.filter(season_link__season=season).order_by("pk")
    game_freeze(game_id=game.pk, reason="test")

    assert seasons_close_due(now=season.ends_at + timedelta(minutes=5)) == 1
    game.refresh_from_db()
    other.refresh_from_db()
    assert game.status == GameStatus.RUNNING and game.frozen_at is not None
    assert other.status == GameStatus.FINISHED  # decided on its current scores


# -- unfreezing: only a sound log ---------------------------------------------------------------
def test_staff_unfreeze_only_once_the_chain_verifies_again(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    stored = Event.objects.get(game=game, seq=2).action
    set_action(game, 2, "forged")
    verify_event_chains()
    assert frozen(game)

    with pytest.raises(StillBroken, match="hash mismatch"):
        game_unfreeze(game_id=game.pk)
    _, err, error = run("unfreeze_game", str(game.pk))
    assert error is not None and f"game {game.pk} stays frozen" in err
    assert frozen(game)

    set_action(game, 2, stored)  # the log repaired
    later = START + timedelta(days=10)
    with time_machine.travel(later, tick=False):
        out, _, error = run("unfreeze_game", str(game.pk))
    assert error is None and f"game {game.pk} unfrozen" in out
    assert not frozen(game) and game.frozen_reason == ""
    assert game.deadline == later + timedelta(days=game.days_per_move)  # a fresh clock
    assert game.deadline_moves == 1  # a newer revision of the calendar's event
    move(game)  # and the game goes on
    assert Game.objects.get(pk=game.pk).seq == 5


def test_unfreezing_refuses_a_log_that_still_does_not_replay(make_user: Any) -> None:
    game, _, _ = duel(make_user)
    forge_event(game, "play x99")
    rebuild_snapshots()
    assert frozen(game)
    with pytest.raises(StillBroken, match="does not replay"):
        game_unfreeze(game_id=game.pk)
    assert frozen(game)


def test_the_admin_action_unfreezes_a_repaired_game(client: Client, make_user: Any) -> None:
    game, _, _ = duel(make_user)
    broken, _, _ = duel(make_user)
    set_action(broken, 1, "forged")
    game_freeze(game_id=game.pk, reason="a false alarm")
    verify_event_chains()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))

    answer = client.post(
        reverse("admin:games_game_changelist"),
        {"action": "unfreeze", "_selected_action": [game.pk, broken.pk]},
        follow=True,
    )
    assert f"Game {game.pk} is unfrozen." in html(answer)
    assert f"Game {broken.pk} stays frozen" in html(answer)
    assert not frozen(game) and frozen(broken)
