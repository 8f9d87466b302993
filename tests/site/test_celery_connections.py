"""A worker keeps its database connection between tasks (keltis_site.celery): Celery's Django
fix-up closed it after every task, so each task paid a new PostgreSQL connection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from keltis_site.celery import app
from notifications.tasks import deliver_game_notifications

pytestmark = pytest.mark.django_db(transaction=True)  # autocommit, as in a worker


@pytest.fixture
def kept_connection(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A connection opened as a production worker's is (kept 60 s)."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()
    connection.ensure_connection()
    yield connection.connection
    connection.close()


def _task_ran(state: str, eager: bool = False) -> None:
    task = deliver_game_notifications
    task.push_request(is_eager=eager)
    try:
        signals.task_prerun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
        signals.task_postrun.send(
            sender=task, task_id="t", task=task, args=(), kwargs={}, retval=None, state=state
        )
    finally:
        task.pop_request()


def test_a_succeeded_task_leaves_the_connection_for_the_next(kept_connection: object) -> None:
    _task_ran("SUCCESS")
    assert connection.connection is kept_connection


def test_a_failed_task_closes_it(kept_connection: object) -> None:
    _task_ran("FAILURE")
    assert connection.connection is None
    connection.ensure_connection()  # the next task opens a new one
    assert connection.connection is not kept_connection


def test_an_old_connection_is_closed_after_its_task(kept_connection: object) -> None:
    connection.close_at = 0  # older than CONN_MAX_AGE
    _task_ran("SUCCESS")
    assert connection.connection is None


def test_an_eager_task_leaves_its_callers_connection(kept_connection: object) -> None:
    _task_ran("FAILURE", eager=True)
    assert connection.connection is kept_connection


def test_celerys_fixup_no_longer_closes_it_after_each_task(kept_connection: object) -> None:
    fixup = DjangoWorkerFixup(app)
    for _ in range(3):  # a task's prerun and postrun each
        fixup.close_database()
        fixup.close_database()
    assert connection.connection is kept_connection
