"""Log lines of game events, as written in production (JSON lines): every action, applied or
rejected, timeouts and email sends carry the game id."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.db import transaction

from games import tasks
from games.models import EventSource, Game
from games.services import ActionRejected, NotYourTurn, action_submit, game_create, game_join
from games.state import engine_state
from keltis_site.logging import JsonFormatter
from notifications import outbox
from notifications.models import Notification
from tests.games.test_deadlines import START, duel

pytestmark = pytest.mark.django_db

Lines = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def json_log() -> Iterator[Lines]:
    """The JSON lines the production formatter writes for the ``games`` loggers (and the
    ``notifications`` ones: the emails a move made due)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    loggers = [logging.getLogger("games"), logging.getLogger("notifications")]
    old_levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)

    def lines() -> list[dict[str, Any]]:
        return [json.loads(line) for line in stream.getvalue().splitlines()]

    yield lines
    for logger, old_level in zip(loggers, old_levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def with_message(lines: list[dict[str, Any]], message: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["message"] == message]


def running_game(make_user: Any) -> tuple[Game, Any, Any]:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, anna, bela


def test_an_applied_action_logs_one_json_line_with_the_game_id_after_commit(
    make_user: Any, json_log: Lines, django_capture_on_commit_callbacks: Any
) -> None:
    game, anna, _ = running_game(make_user)
    action = engine_state(game).legal()[0]

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
        assert with_message(json_log(), "action applied") == []  # not before the commit
    for callback in callbacks:
        callback()

    [line] = with_message(json_log(), "action applied")
    assert line["game_id"] == game.pk
    assert line["seq"] == 1
    assert line["seat"] == 0
    assert line["source"] == "player"
    assert line["action_kind"] == action.split()[0]
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["level"] == "INFO" and line["logger"] == "games.services"


def test_an_action_whose_transaction_rolls_back_logs_nothing(
    make_user: Any, json_log: Lines, django_capture_on_commit_callbacks: Any
) -> None:
    game, anna, _ = running_game(make_user)
    action = engine_state(game).legal()[0]

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        action_submit(game_id=game.pk, seat=0, action=action, expected_seq=0, user=anna)
        raise RuntimeError("the caller's transaction fails after the action")

    assert with_message(json_log(), "action applied") == []


def test_a_rejected_action_logs_the_game_id_and_the_error_code(
    make_user: Any, json_log: Lines
) -> None:
    game, _, bela = running_game(make_user)

    with pytest.raises(NotYourTurn):
        action_submit(game_id=game.pk, seat=1, action="pass", expected_seq=0, user=bela)

    [line] = with_message(json_log(), "action rejected")
    assert line["game_id"] == game.pk
    assert line["error"] == "not_your_turn"
    assert (line["seat"], line["expected_seq"], line["action_kind"]) == (1, 0, "pass")
    assert "duration_ms" in line


def test_an_illegal_action_logs_the_engine_error_too(make_user: Any, json_log: Lines) -> None:
    game, anna, _ = running_game(make_user)

    with pytest.raises(ActionRejected) as raised:
        action_submit(game_id=game.pk, seat=0, action="draw deck", expected_seq=0, user=anna)

    [line] = with_message(json_log(), "action rejected")
    assert (line["game_id"], line["error"]) == (game.pk, "illegal")
    assert line["engine_error"] == raised.value.engine_code
    assert line["action_kind"] == "draw"


def test_a_timeout_logs_its_game_id_and_the_bot_actions_are_logged_as_timeout(
    make_user: Any, json_log: Lines, django_capture_on_commit_callbacks: Any
) -> None:
    game, _, _ = duel(make_user, days_per_move=1)

    with (
        time_machine.travel(START + timedelta(days=1, minutes=1), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        tasks.sweep_deadlines()

    lines = json_log()
    [timeout] = with_message(lines, "timeout played")
    assert (timeout["game_id"], timeout["outcome"]) == (game.pk, "played")
    applied = with_message(lines, "action applied")
    assert applied and {line["source"] for line in applied} == {EventSource.TIMEOUT.value}
    assert {line["game_id"] for line in applied} == {game.pk}
    [summary] = with_message(lines, "deadline sweep done")
    assert summary["level"] == "INFO" and summary["counts"]["timeout_played"] == 1


def test_an_idle_sweep_logs_at_debug_only(json_log: Lines) -> None:
    tasks.sweep_deadlines()

    [summary] = with_message(json_log(), "deadline sweep done")
    assert summary["level"] == "DEBUG" and summary["counts"] == {}


def test_an_email_send_logs_its_game_id(make_user: Any, json_log: Lines) -> None:
    game, anna, _ = running_game(make_user)  # seat 0's turn email is queued, not yet sent
    row = Notification.objects.get(game=game, user=anna)

    assert outbox.deliver(row.pk) == "sent"

    [line] = with_message(json_log(), "email sent")
    assert (line["game_id"], line["seat"], line["kind"]) == (game.pk, 0, row.kind)
    assert line["notification_id"] == row.pk and line["outcome"] == "sent"


def test_a_failed_email_send_logs_its_game_id_and_the_error(
    make_user: Any, json_log: Lines, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, anna, _ = running_game(make_user)
    row = Notification.objects.get(game=game, user=anna)

    def refuse(notification: Notification, connection: Any = None, reads: Any = None) -> bool:
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr("notifications.emails.send_notification", refuse)

    assert outbox.deliver(row.pk) == "retry"

    [line] = [line for line in json_log() if line["message"].startswith("email failed")]
    assert line["level"] == "WARNING"
    assert (line["game_id"], line["outcome"]) == (game.pk, "retry")
    assert "ConnectionRefusedError: mail server down" in line["message"]
