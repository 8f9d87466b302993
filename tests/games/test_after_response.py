"""Follow-up work after the response: queued while a request is served, run when its response
is closed, run at once elsewhere, and never able to turn a stored move into an error."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.urls import reverse

from games import services
from games.after_response import call_after_response
from games.engine.bots import RandomBot
from games.models import Event, Game
from games.services import game_create, game_join
from games.state import engine_state


def test_outside_a_request_the_call_runs_at_once() -> None:
    calls: list[int] = []
    call_after_response(calls.append, 1)
    assert calls == [1]


@pytest.fixture
def no_connection_handling() -> Iterator[None]:
    """These tests send the request signals without a request: Django's own receivers, which
    close a database connection an earlier test left open, would touch the database, which
    pytest-django forbids outside database tests (on SQLite the connection stays open
    between tests). Only the signal receivers of after_response are under test."""
    from django.db import close_old_connections

    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.mark.usefixtures("no_connection_handling")
def test_in_a_request_the_call_waits_for_the_response_to_close() -> None:
    calls: list[int] = []
    request_started.send(sender=None, environ={})
    try:
        call_after_response(calls.append, 1)
        call_after_response(calls.append, 2)
        assert calls == []
    finally:
        request_finished.send(sender=None)
    assert calls == [1, 2]
    call_after_response(calls.append, 3)  # the request is over: at once again
    assert calls == [1, 2, 3]


@pytest.mark.usefixtures("no_connection_handling")
def test_a_failing_call_is_logged_and_the_next_still_runs(caplog: Any) -> None:
    calls: list[str] = []

    def broker_down() -> None:
        raise ConnectionRefusedError("broker down")

    request_started.send(sender=None, environ={})
    call_after_response(broker_down)
    call_after_response(calls.append, "after")
    with caplog.at_level(logging.ERROR, logger="games.after_response"):
        request_finished.send(sender=None)
    assert calls == ["after"]
    assert "broker_down" in caplog.text and "broker down" in caplog.text


@pytest.mark.usefixtures("no_connection_handling")
def test_calls_left_by_a_response_that_never_closed_run_at_the_next_request() -> None:
    calls: list[int] = []
    request_started.send(sender=None, environ={})
    call_after_response(calls.append, 1)
    request_started.send(sender=None, environ={})  # no request_finished in between
    assert calls == [1]
    request_finished.send(sender=None)


@pytest.fixture
def recorded_hooks() -> Iterator[list[tuple[str, int]]]:
    """The after-commit and finished hooks replaced by recorders (one raising, like a broker
    that is down), restored afterwards."""
    seen: list[tuple[str, int]] = []

    def after_action(game_id: int, seq: int, automatic_next: bool | None) -> None:
        seen.append(("after_action", seq))
        raise ConnectionRefusedError("broker down")

    saved = list(services.AFTER_COMMIT_HOOKS)
    services.AFTER_COMMIT_HOOKS[:] = [after_action]
    try:
        yield seen
    finally:
        services.AFTER_COMMIT_HOOKS[:] = saved


@pytest.mark.django_db(transaction=True)
def test_a_move_posted_on_the_page_runs_its_hooks_once_and_a_failing_one_breaks_nothing(
    client: Any, make_user: Any, recorded_hooks: list[tuple[str, int]]
) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    recorded_hooks.clear()  # the start's own call
    client.force_login(anna)
    bot = RandomBot(3)
    while True:  # anna plays her whole turn from the page: the last action passes it
        game.refresh_from_db()
        if game.to_move != 0:
            break
        form = {"action": bot.choose(engine_state(game)), "seq": game.seq}
        response = client.post(reverse("game_act", args=[game.pk]), form)
        assert response.status_code == 303
    game.refresh_from_db()
    assert Event.objects.filter(game=game).count() == game.seq
    # one call, for the action that passed the turn, after its commit
    assert recorded_hooks == [("after_action", game.seq)]
    assert Game.objects.get(pk=game.pk).to_move == 1
