"""Fixtures of the API tests: players with tokens, and a client that sends a token."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from django.core.signals import request_started
from django.db import OperationalError, connection
from django.test import Client

from api import tokens
from api.models import Scope
from games import after_response


class ApiClient:
    """Django's test client with ``Authorization: Bearer`` on every call, JSON bodies."""

    def __init__(self, secret: str | None) -> None:
        self.client = Client(enforce_csrf_checks=True)
        self.headers = {"Authorization": f"Bearer {secret}"} if secret else {}

    def get(self, path: str, **extra: Any) -> Any:
        return self.client.get(path, headers={**self.headers, **extra})

    def post(self, path: str, data: Any = None, **extra: Any) -> Any:
        return self.client.post(
            path,
            data=data or {},
            content_type="application/json",
            headers={**self.headers, **extra},
        )


@pytest.fixture
def token_for() -> Callable[..., str]:
    def make(user: Any, *, play: bool = True, name: str = "test") -> str:
        scopes = [Scope.READ, Scope.PLAY] if play else [Scope.READ]
        return tokens.token_create(user=user, name=name, scopes=scopes).secret

    return make


@pytest.fixture
def api_for(token_for: Callable[..., str]) -> Callable[..., ApiClient]:
    def make(user: Any, *, play: bool = True) -> ApiClient:
        return ApiClient(token_for(user, play=play))

    return make


T = TypeVar("T")


@pytest.fixture(autouse=True)
def _after_response_at_once_on_sqlite() -> Iterator[None]:
    """On SQLite, a live server's follow-up work (games.after_response: the eager tasks) runs
    before the response instead of after it. Otherwise it overlaps the client's next request,
    and the in-memory test database's shared cache refuses one of the two ("cannot open
    savepoint", "table is locked"): a 500 that production's SQLite file, with its busy
    timeout, never gives."""
    if connection.vendor != "sqlite":
        yield
        return
    request_started.disconnect(dispatch_uid=after_response.STARTED_UID)
    try:
        yield
    finally:
        request_started.connect(
            after_response._request_started, dispatch_uid=after_response.STARTED_UID
        )


def while_locked(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``, tried again while SQLite says a table is locked. A live
    or stream server thread reads and writes the same in-memory test database (after a
    response: the eager tasks; after a published move: the stream's reads), and its shared
    cache locks a table meanwhile (SQLITE_LOCKED, which no busy timeout waits for). A refused
    write changed nothing, so it may be tried again; PostgreSQL never needs this."""
    for attempt in range(100):
        try:
            return call(*args, **kwargs)
        except OperationalError as exc:
            if "locked" not in str(exc) or attempt == 99:
                raise
            time.sleep(0.02)  # the other thread's statement to end, not a result to wait for
    raise AssertionError("unreachable")
