"""Shared pytest fixtures; pytest-django reads its settings from pyproject.toml."""

from __future__ import annotations

import itertools
import random
import types
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

_user_numbers = itertools.count(1)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Tests create many users: a fast hasher keeps the suite quick (never in production)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def celery_eager(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run queued tasks in-process, as the embedded default does, even when CI names a broker.

    Tests marked ``real_worker`` keep the broker: they start a real Celery worker themselves.
    """
    from keltis_site.celery import app

    if request.node.get_closest_marker("real_worker"):
        yield
        return
    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = old


@pytest.fixture(autouse=True)
def _seeded_deals(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The games a test creates are dealt from a generator seeded by the test's name: a test
    meets the same deals on every run, so a failure that depends on the cards (a bonus space
    after the first lay, say) fails every time rather than once in two hundred runs. Tests
    must still not assume a particular deal; they may seed their own (``seeded`` fixtures)."""
    deals = random.Random(zlib.crc32(request.node.nodeid.encode()))
    monkeypatch.setattr("games.services.secrets", types.SimpleNamespace(randbits=deals.getrandbits))


@pytest.fixture(autouse=True)
def _fresh_cache(settings: Any) -> None:
    """Each test gets an empty in-process cache: allauth keeps its rate-limit counters in the
    cache, so counts must not carry over between tests (and a CACHE_URL naming a real Redis
    must not be touched by the tests)."""
    from django.core.cache import cache

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "tests",
        }
    }
    cache.clear()


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the site's default language: a page a player of another language
    opens activates theirs in this thread (the middleware), and it must not carry over into
    the next test's texts."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """A factory of players: ``make_user()`` or ``make_user("anna", time_zone=...)``; the
    email is ``<name>@example.test`` and the password "a long pass phrase". Test folders
    that need more (a display name, a rating) override it."""
    from accounts.models import User

    def make(name: str | None = None, **fields: Any) -> User:
        name = name or f"player{next(_user_numbers)}"
        return User.objects.create_user(
            username=name, email=f"{name}@example.test", password="a long pass phrase", **fields
        )

    return make


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """On SQLite the tests use a database file, as the embedded default does, not Django's
    in-memory test database. That one is shared between threads through SQLite's shared
    cache, which locks whole tables: a live or stream server thread reading while the test
    wrote failed at once with "table is locked" (SQLITE_LOCKED, which no busy timeout waits
    for), a failure production's file never gives. A file in WAL mode lets readers read
    while a writer writes, and a writer wait its turn."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        folder = tmp_path_factory.mktemp("database")
        database.setdefault("TEST", {})["NAME"] = str(folder / "test.sqlite3")
