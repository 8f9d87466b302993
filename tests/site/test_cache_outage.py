"""The cache's Redis stops while players play: nobody gets an error page.

Each test runs a real redis-server as the cache (tests/site/conftest.py) and stops it midway.
Sessions then come from the database, the rate limits count in the process (they still
limit), the heartbeats are not recorded, and /healthz tells staff that the cache is down.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import time_machine
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user
from django.test import Client
from django.urls import reverse

from accounts.models import User
from bench.infra import PrivateRedis
from games import tasks
from games.models import Event, Game
from games.services import game_create, game_join
from games.state import engine_state
from notifications import links

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase 42"
#: the start of a minute soon: the fixed-window counters start afresh there
MINUTE = (int(time.time()) // 60 + 1) * 60


def player(name: str, **fields: Any) -> User:
    """A player with a verified address, who can log in through the site's login form."""
    user = User.objects.create_user(
        username=name, email=f"{name}@example.test", password=PASSWORD, **fields
    )
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


def log_in(client: Client, user: User, password: str = PASSWORD) -> Any:
    return client.post(reverse("account_login"), {"login": user.email, "password": password})


def two_player_game(anna: User, bela: User) -> Game:
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game


def legal(game: Game) -> str:
    game.refresh_from_db()
    return engine_state(game).legal()[0]


def events(game: Game) -> int:
    return Event.objects.filter(game=game).count()


def session_keys(server: PrivateRedis) -> list[str]:
    client = redis.Redis(port=server.port)
    try:
        return sorted(key.decode() for key in client.keys("*") if b"sessions" in key)
    finally:
        client.close()


def test_a_logged_in_player_loads_pages_and_moves_while_the_cache_is_down(
    client: Client, redis_cache: PrivateRedis
) -> None:
    anna, bela = player("anna"), player("bela")
    game = two_player_game(anna, bela)
    assert log_in(client, anna).status_code == 302
    assert client.get(reverse("game_detail", args=[game.pk])).status_code == 200
    assert session_keys(redis_cache)  # the session was read from, and written to, Redis

    redis_cache.stop()

    for name, args in [
        ("home", []),
        ("lobby", []),
        ("my_games", []),
        ("game_detail", [game.pk]),
        ("game_history", [game.pk]),
        ("account_settings", []),
    ]:
        page = client.get(reverse(name, args=args))
        assert page.status_code == 200, name
        assert page.context["user"] == anna, name  # the session, from the database
    response = client.post(
        reverse("game_act", args=[game.pk]), {"action": legal(game), "seq": "0"}
    )
    assert response.status_code == 303
    assert events(game) == 1
    page = client.get(reverse("game_detail", args=[game.pk]))
    assert page.status_code == 200 and page.context["user"] == anna


def test_a_player_logs_in_and_out_while_the_cache_is_down(
    client: Client, redis_cache: PrivateRedis
) -> None:
    anna = player("anna")
    redis_cache.stop()

    assert client.get(reverse("account_login")).status_code == 200
    assert log_in(client, anna).status_code == 302
    assert get_user(client) == anna
    assert client.get(reverse("my_games")).status_code == 200

    assert client.post(reverse("account_logout")).status_code == 302
    assert not get_user(client).is_authenticated


def test_an_email_link_acts_while_the_cache_is_down(redis_cache: PrivateRedis) -> None:
    game = two_player_game(player("anna"), player("bela"))
    path = links.ActionLink(game.pk, 0, game.turn_seq, game.seq, legal(game)).path()
    redis_cache.stop()

    assert Client().get(path).status_code == 200  # the confirm page
    assert Client().post(path).status_code == 200
    assert events(game) == 1


def test_the_action_limit_still_counts_in_the_process_while_the_cache_is_down(
    client: Client, redis_cache: PrivateRedis, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.ACTION_RATE_LIMIT = "2/m"
    anna, bela = player("anna"), player("bela")
    game = two_player_game(anna, bela)
    client.force_login(anna)
    redis_cache.stop()
    with time_machine.travel(MINUTE, tick=False), caplog.at_level(logging.WARNING):
        for _ in range(2):  # refused moves count too
            response = client.post(
                reverse("game_act", args=[game.pk]), {"action": "draw deck", "seq": "0"}
            )
            assert response.status_code == 303
        response = client.post(
            reverse("game_act", args=[game.pk]), {"action": legal(game), "seq": "0"}
        )

    assert response.status_code == 429
    assert events(game) == 0
    [warning] = [r for r in caplog.records if r.name == "keltis_site.cache"]
    assert "rate limits count in this process" in warning.getMessage()


def test_the_admin_login_limit_still_counts_in_the_process_while_the_cache_is_down(
    redis_cache: PrivateRedis, settings: Any
) -> None:
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/m"
    player("root", is_staff=True, is_superuser=True)
    redis_cache.stop()
    client = Client()

    def admin_login(password: str) -> Any:
        return client.post(
            reverse("admin:login"),
            {"username": "root", "password": password, "next": "/admin/"},
            REMOTE_ADDR="203.0.113.7",
        )

    with time_machine.travel(MINUTE, tick=False):
        for _ in range(2):
            assert admin_login("wrong").status_code == 200  # the form again
        response = admin_login(PASSWORD)

    assert response.status_code == 429
    assert not get_user(client).is_authenticated


def test_failed_logins_are_still_limited_while_the_cache_is_down(
    client: Client, redis_cache: PrivateRedis, settings: Any
) -> None:
    anna = player("anna")
    redis_cache.stop()
    allowed = 5  # "5/5m/key" in ACCOUNT_RATE_LIMITS["login_failed"]
    assert "5/5m/key" in settings.ACCOUNT_RATE_LIMITS["login_failed"]
    for _ in range(allowed):
        response = log_in(client, anna, password="wrong guess")
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()

    response = log_in(client, anna)

    assert "Too many failed login attempts" in response.content.decode()
    assert not get_user(client).is_authenticated


def test_the_heartbeat_tasks_run_while_the_cache_is_down(redis_cache: PrivateRedis) -> None:
    redis_cache.stop()

    tasks.worker_heartbeat.delay()
    tasks.sweep_deadlines.delay()


def test_a_session_logged_out_during_the_outage_stays_logged_out_when_redis_returns(
    redis_cache: PrivateRedis,
) -> None:
    """Redis comes back with what it held: the session the player logged out of while it was
    away is still in it, and must not log anybody in again."""
    anna = player("anna")
    browser = Client()
    assert log_in(browser, anna).status_code == 302
    stolen = browser.cookies["sessionid"].value  # a copy of the cookie, kept by somebody else
    assert client_user(stolen) == anna  # read from Redis
    with time_machine.travel(MINUTE, tick=False) as traveller:
        redis_cache.stop(keep_data=True)
        assert browser.post(reverse("account_logout")).status_code == 302
        redis_cache.start()
        traveller.shift(60)  # Redis is tried again after a short pause

        assert not client_user(stolen).is_authenticated
        assert log_in(browser, anna).status_code == 302  # and logging in works again
        assert get_user(browser) == anna


def client_user(session_key: str) -> Any:
    """The user a request bearing this session cookie is served as."""
    client = Client()
    client.cookies["sessionid"] = session_key
    return client.get(reverse("home")).context["user"]


def test_healthz_tells_staff_the_cache_is_down_and_the_public_only_up(
    redis_cache: PrivateRedis, settings: Any, tmp_path: Path
) -> None:
    settings.CELERY_BROKER_URL = "filesystem://"  # the broker is not what this test is about
    settings.CELERY_FILESYSTEM_QUEUE = tmp_path
    tasks.worker_heartbeat.delay()
    tasks.sweep_deadlines.delay()
    staff = Client()
    staff.force_login(player("root", is_staff=True))
    assert staff.get(reverse("healthz")).json()["status"] == "up"

    redis_cache.stop()
    public = Client().get(reverse("healthz"))
    details = staff.get(reverse("healthz"))

    assert (public.status_code, public.json()) == (200, {"status": "up"})
    assert details.status_code == 200  # players can still play: the balancer keeps it
    body = details.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"].startswith("cache unreachable since ")
    assert "ConnectionError" in body["checks"]["cache"]
    assert body["checks"]["worker"].startswith("unknown: the cache is unreachable")
    assert body["checks"]["database"] == body["checks"]["broker"] == "ok"
