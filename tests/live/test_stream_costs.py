"""What an open stream costs the stream server: no database connection (every read of every
stream shares the pool of LIVE_DB_THREADS connections), and a place in its visitor's limits,
given back when it ends however it ends; past the limits a clear 429."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

from live.limits import limits

from .conftest import StreamServer, serve_stream, stop_stream
from .test_stream import Stream, duel, move, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

STREAMS = 40


@pytest.fixture
def server(settings: Any, tmp_path: Path, monkeypatch: Any) -> Iterator[StreamServer]:
    # connections kept between reads, as in production (CONN_MAX_AGE 60): the tests' settings
    # (DEBUG) close each after its read, and a closed connection's server process stays in
    # pg_stat_activity for a moment while the next read opens another
    monkeypatch.setitem(connections.settings[DEFAULT_DB_ALIAS], "CONN_MAX_AGE", 60)
    started = serve_stream(settings, tmp_path)
    yield started
    stop_stream(started)


def database_connections() -> int:
    """Connections open to the test database from anywhere (PostgreSQL: the server's own
    count), or, on SQLite, this process's open files of the database file (one a connection):
    the stream server runs in this process."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            )
            return int(cursor.fetchone()[0])
    path = os.path.realpath(connection.settings_dict["NAME"])
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            count += os.readlink(fd) == path
        except OSError:
            continue
    return count


def wait_until(check: Any, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_open_streams_hold_no_database_connection(
    server: StreamServer, settings: Any, make_user: Any
) -> None:
    settings.LIVE_STREAMS_PER_ADDRESS = settings.LIVE_STREAM_OPENS_PER_MINUTE = 1000
    game, users = duel(make_user)
    before = database_connections()
    cookies = [session_cookie(user) for user in users]
    # visitors of the game's page, and its players (whose streams read their session)
    streams = [
        Stream(server, f"game={game.pk}", cookie=cookies[n % 2] if n < 10 else "")
        for n in range(STREAMS)
    ]
    assert {stream.status for stream in streams} == {200}
    for stream in streams:
        stream._until(b"retry:")  # each has read the database and streams
    during = database_connections()
    move(game, users)
    assert all(stream.event()["event"] == "change" for stream in streams)
    after = database_connections()
    for stream in streams:
        stream.close()
    assert during - before <= settings.LIVE_DB_THREADS, (before, during)
    assert after - before <= settings.LIVE_DB_THREADS, (before, after)


def test_streams_past_the_address_limit_are_refused_until_one_ends(
    server: StreamServer, settings: Any, make_user: Any
) -> None:
    settings.LIVE_STREAMS_PER_ADDRESS = 3
    game, _ = duel(make_user)
    held = [Stream(server, f"game={game.pk}") for _ in range(3)]
    assert [stream.status for stream in held] == [200, 200, 200]
    refused = Stream(server, f"game={game.pk}", headers="Accept-Language: hu\r\n")
    assert refused.status == 429
    assert "Retry-After: " in refused.head or "retry-after: " in refused.head
    refused.close()
    held.pop().close()
    assert wait_until(lambda: limits.by_address.get("127.0.0.1") == 2)
    again = Stream(server, f"game={game.pk}")
    assert again.status == 200
    again.close()
    for stream in held:
        stream.close()
    # every stream's place is given back, the unread ones' too
    assert wait_until(lambda: not limits.by_address)


def test_a_players_streams_past_the_user_limit_are_refused(
    server: StreamServer, settings: Any, make_user: Any
) -> None:
    settings.LIVE_STREAMS_PER_USER = 2
    game, users = duel(make_user)
    cookie = session_cookie(users[0])
    held = [Stream(server, f"game={game.pk}", cookie=cookie) for _ in range(2)]
    assert [stream.status for stream in held] == [200, 200]
    assert Stream(server, f"game={game.pk}", cookie=cookie).status == 429
    # the other player, and a visitor, on the same address still get theirs
    other = Stream(server, f"game={game.pk}", cookie=session_cookie(users[1]))
    visitor = Stream(server, f"game={game.pk}")
    assert (other.status, visitor.status) == (200, 200)
    for stream in [*held, other, visitor]:
        stream.close()
    assert wait_until(lambda: not limits.by_user and not limits.by_address)


def test_opening_streams_in_a_loop_is_refused_with_a_clear_answer(
    server: StreamServer, settings: Any, make_user: Any
) -> None:
    settings.LIVE_STREAM_OPENS_PER_MINUTE = 5
    game, _ = duel(make_user)
    for _ in range(5):
        stream = Stream(server, f"game={game.pk}")
        assert stream.status == 200
        stream.close()
    refused = Stream(server, f"game={game.pk}", headers="Accept-Language: pl\r\n")
    body = refused._until(b"\r\n0\r\n\r\n").decode()  # the chunked answer, whole
    refused.close()
    assert refused.status == 429
    assert "Too many" not in body  # in the visitor's language (Polish), not English
    assert body.strip(), "the refusal says why"


def test_the_pool_keeps_its_connections_few_when_many_open_at_once(
    server: StreamServer, settings: Any, make_user: Any
) -> None:
    """A burst of openings waits for the pool: never more connections than its threads."""
    import threading

    settings.LIVE_STREAMS_PER_ADDRESS = settings.LIVE_STREAM_OPENS_PER_MINUTE = 1000
    game, users = duel(make_user)
    cookie = session_cookie(users[0])
    before = database_connections()
    streams: list[Stream] = []
    peak = 0
    done = threading.Event()

    def watch() -> None:
        nonlocal peak
        try:
            while not done.is_set():
                peak = max(peak, database_connections())
                time.sleep(0.005)
        finally:
            connection.close()  # this thread's own

    watcher = threading.Thread(target=watch)
    watcher.start()
    openers = [
        threading.Thread(
            target=lambda: streams.append(Stream(server, f"game={game.pk}", cookie=cookie))
        )
        for _ in range(30)
    ]
    settings.LIVE_STREAMS_PER_USER = 1000
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join()
    done.set()
    watcher.join()
    assert len(streams) == 30 and {s.status for s in streams} == {200}
    for stream in streams:
        stream.close()
    # +1: the watcher's own connection (PostgreSQL counts it)
    assert peak - before <= settings.LIVE_DB_THREADS + 1, (before, peak)
