"""Django's Redis cache, made to keep the site serving while Redis is away.

Production's cache (CACHE_URL=rediscache://...) holds the cached sessions, the rate-limit
counters (allauth's and games.ratelimit's) and the heartbeats /healthz reads. Django's
RedisCache raises Redis's errors from every call; Django 5.2's cached_db sessions catch only two
of them (load's read, save's write; not load's write-back, ``exists`` or ``delete``), and
allauth's and our rate limits none. With Redis down every page of a logged-in player, every move,
login and email link answered 500. With this backend, while Redis is away:

- reads miss and writes are dropped: sessions come from the database (cached_db writes every
  session through to it anyway), and heartbeats go unrecorded (/healthz says the cache is down);
- the keys of dropped writes are remembered and deleted first thing when Redis answers again,
  so nothing changed meanwhile is read stale afterwards: a session logged out while Redis was
  away stays logged out even when Redis comes back with its data;
- rate-limit counters (keys starting with one of COUNT_LOCALLY) count in this process's memory:
  every limit still holds, per process (so with N processes up to N times the limit), rather
  than being lifted or refusing everybody. The admin login, where guessing is cheapest, keeps
  its limit this way and stays open to staff, who may need it most during an outage;
- after a failure Redis is left alone for RETRY_AFTER seconds: a Redis that does not answer
  costs one timeout (socket_timeout, DEFAULT_SOCKET_TIMEOUT unless CACHE_URL says otherwise)
  per process per interval, not one per call.

Each process logs a WARNING when it finds Redis away and an INFO line when it finds it back.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis import exceptions

log = logging.getLogger(__name__)

#: seconds Redis is left alone after a failed call, before it is tried again
RETRY_AFTER = 10.0
#: seconds a connect or a reply may take (CACHE_URL's ?socket_timeout= and
#: ?socket_connect_timeout= override it); Redis answers in well under a millisecond
DEFAULT_SOCKET_TIMEOUT = 1.0
#: keys of dropped writes remembered per process; past it some entries may stay stale until
#: they expire (and a WARNING says so)
MAX_LOST_KEYS = 50_000
#: prefixes of the rate-limit counters: games.ratelimit's and allauth's (with its locks)
COUNT_LOCALLY = ("ratelimit:", "allauth:rl:")
#: the errors that mean Redis cannot serve (not a bad call): unreachable, too slow, failed
#: over to a read-only replica, out of memory
UNAVAILABLE = (
    exceptions.ConnectionError,
    exceptions.TimeoutError,
    exceptions.ReadOnlyError,
    exceptions.OutOfMemoryError,
)

_T = TypeVar("_T")


class Standby:
    """What one process knows of one Redis address being away, shared by the cache objects of
    all its threads (Django makes one per thread)."""

    def __init__(self, location: str) -> None:
        self.lock = threading.Lock()
        self.down_since: float | None = None  # time.time() of the first failure; None: up
        self.last_failure = 0.0
        self.error = ""
        self.lost: set[str] = set()  # keys of writes and deletes dropped while away
        self.lost_overflowed = False
        # the rate-limit counters while Redis is away (LocMemCache locks each call)
        self.counters = LocMemCache(
            f"{__name__}:{location}:{id(self)}", {"OPTIONS": {"MAX_ENTRIES": 50_000}}
        )

    def resting(self, now: float) -> bool:
        """True while Redis is left alone after a failure."""
        return self.down_since is not None and 0 <= now - self.last_failure < RETRY_AFTER

    def remember(self, keys: Iterable[str]) -> None:
        with self.lock:
            for key in keys:
                if len(self.lost) >= MAX_LOST_KEYS:
                    if not self.lost_overflowed:
                        log.warning(
                            "cache unreachable: more than %d entries written meanwhile; some"
                            " may be read stale once Redis is back, until they expire",
                            MAX_LOST_KEYS,
                        )
                    self.lost_overflowed = True
                    return
                self.lost.add(key)


_standbys: dict[str, Standby] = {}
_standbys_lock = threading.Lock()


def _standby_for(location: str) -> Standby:
    with _standbys_lock:
        if location not in _standbys:
            _standbys[location] = Standby(location)
        return _standbys[location]


def _miss(value: _T) -> Callable[[], _T]:
    return lambda: value


def _not_found() -> Any:
    raise ValueError("Key not found: the cache is unreachable.")  # what incr says of a miss


class KeptClientRedisCacheClient(RedisCacheClient):
    """Django's client of Redis, keeping one ``redis.Redis`` per server: Django makes a new one
    for every call, and its constructor (a table of 170 reply callbacks) cost about a tenth of
    a millisecond each time, two or three times a request (the session, the rate limit). The
    object holds no connection of its own (its server's pool does) and is thread-safe; Django
    makes a cache object, and so this client, per thread anyway."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._kept.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._kept[index] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    """Django's RedisCache whose calls never fail for Redis being away (see the module)."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        options = {
            "socket_connect_timeout": DEFAULT_SOCKET_TIMEOUT,
            "socket_timeout": DEFAULT_SOCKET_TIMEOUT,
            **(params.get("OPTIONS") or {}),
        }
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = KeptClientRedisCacheClient
        self._standby = _standby_for(",".join(self._servers))

    def unavailable(self) -> str | None:
        """Why this process treats Redis as away (since when, the last error), or None."""
        standby = self._standby
        since = standby.down_since
        if since is None:
            return None
        started = datetime.datetime.fromtimestamp(since, tz=datetime.UTC)
        return f"unreachable since {started:%Y-%m-%d %H:%M:%S} UTC ({standby.error})"

    # -- the one place Redis is called --------------------------------------------------------
    def _call(
        self, remote: Callable[[], _T], fallback: Callable[[], _T], lost: Iterable[str] = ()
    ) -> _T:
        """``remote()`` on Redis; while Redis is away ``fallback()``, remembering the keys of
        a write that is dropped (``lost``)."""
        standby = self._standby
        if standby.resting(time.time()):
            standby.remember(lost)
            return fallback()
        dropped: set[str] | None = None
        try:
            if standby.down_since is not None:
                dropped = self._delete_lost_keys()
            result = remote()
        except UNAVAILABLE as exc:
            self._went_away(exc)
            standby.remember(lost)
            return fallback()
        if dropped is not None:
            self._came_back(dropped)
        return result

    def _delete_lost_keys(self) -> set[str]:
        """Delete, on Redis that answers again, what was written while it was away."""
        with self._standby.lock:
            lost = set(self._standby.lost)
        keys = list(lost)
        client = self._cache.get_client(None, write=True)
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start : start + 1000])
        return lost

    def _went_away(self, exc: Exception) -> None:
        standby = self._standby
        with standby.lock:
            now = time.time()
            first = standby.down_since is None
            if first:
                standby.down_since = now
            standby.last_failure = now
            standby.error = f"{exc.__class__.__name__}: {exc}"
        if first:
            log.warning(
                "cache unreachable (%s): sessions are read from the database, rate limits"
                " count in this process only, heartbeats are not recorded; Redis is tried"
                " again every %d s",
                standby.error,
                RETRY_AFTER,
            )

    def _came_back(self, dropped: set[str]) -> None:
        standby = self._standby
        with standby.lock:
            if standby.down_since is None:
                return  # another thread saw it first
            away = time.time() - standby.down_since
            standby.down_since = None
            standby.lost -= dropped
            standby.lost_overflowed = False
        log.info(
            "cache reachable again after %d s; %d entries written meanwhile were deleted",
            away,
            len(dropped),
        )

    def _one(
        self,
        name: str,
        key: Any,
        *args: Any,
        version: int | None,
        miss: Callable[[], Any],
        write: bool = False,
    ) -> Any:
        """The cache method ``name`` of one key: on Redis; while it is away on this process's
        counters for a rate-limit key, else ``miss()``."""
        remote = partial(getattr(super(), name), key, *args, version=version)
        if isinstance(key, str) and key.startswith(COUNT_LOCALLY):
            local = partial(getattr(self._standby.counters, name), key, *args, version=version)
            return self._call(remote, local)
        lost = [self.make_key(key, version=version)] if write else []
        return self._call(remote, miss, lost)

    def _split(self, keys: Iterable[Any]) -> tuple[list[Any], list[Any]]:
        """(rate-limit keys, the others)."""
        counters, others = [], []
        for key in keys:
            is_counter = isinstance(key, str) and key.startswith(COUNT_LOCALLY)
            (counters if is_counter else others).append(key)
        return counters, others

    # -- Django's cache API -------------------------------------------------------------------
    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._one("get", key, default, version=version, miss=_miss(default))

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        # "stored", as a dropped set is silent: a lock taken with add (allauth's) must not
        # wait for a Redis that is away
        return bool(
            self._one("add", key, value, timeout, version=version, miss=_miss(True), write=True)
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        self._one("set", key, value, timeout, version=version, miss=_miss(None), write=True)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return bool(
            self._one("touch", key, timeout, version=version, miss=_miss(False), write=True)
        )

    def delete(self, key: Any, version: int | None = None) -> bool:
        return bool(self._one("delete", key, version=version, miss=_miss(False), write=True))

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return bool(self._one("has_key", key, version=version, miss=_miss(False)))

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        result: int = self._one("incr", key, delta, version=version, miss=_not_found, write=True)
        return result

    def count(self, key: str, timeout: int, version: int | None = None) -> int:
        """Add one to the counter ``key`` (created at 0 with ``timeout`` seconds to live when
        missing) and return it: one round trip (SET NX EX and INCR in one MULTI), where
        ``add`` then ``incr`` take three (Django's incr asks EXISTS first). A rate-limit key
        counts in this process while Redis is away."""
        made = self.make_key(key, version=version)

        def remote() -> int:
            pipe = self._cache.get_client(made, write=True).pipeline(transaction=True)
            pipe.set(made, 0, ex=timeout, nx=True)
            pipe.incr(made)
            return int(pipe.execute()[1])

        def local() -> int:
            counters = self._standby.counters
            counters.add(key, 0, timeout, version=version)
            return int(counters.incr(key, version=version))

        if key.startswith(COUNT_LOCALLY):
            return self._call(remote, local)
        return self._call(remote, _not_found, [made])

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        counters, others = self._split(keys)
        found: dict[Any, Any] = {}
        if counters:
            found |= self._call(
                partial(super().get_many, counters, version=version),
                partial(self._standby.counters.get_many, counters, version=version),
            )
        if others:
            found |= self._call(partial(super().get_many, others, version=version), _miss({}))
        return found

    def set_many(
        self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[Any]:
        counters, others = self._split(data)
        failed: list[Any] = []
        if counters:
            part = {key: data[key] for key in counters}
            failed += self._call(
                partial(super().set_many, part, timeout, version=version),
                partial(self._standby.counters.set_many, part, timeout, version=version),
            )
        if others:
            part = {key: data[key] for key in others}
            failed += self._call(
                partial(super().set_many, part, timeout, version=version),
                _miss(others),
                [self.make_key(key, version=version) for key in others],
            )
        return failed

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        counters, others = self._split(keys)
        if counters:
            self._call(
                partial(super().delete_many, counters, version=version),
                partial(self._standby.counters.delete_many, counters, version=version),
            )
        if others:
            self._call(
                partial(super().delete_many, others, version=version),
                _miss(None),
                [self.make_key(key, version=version) for key in others],
            )

    def clear(self) -> bool:
        self._standby.counters.clear()
        return bool(self._call(super().clear, _miss(False)))
