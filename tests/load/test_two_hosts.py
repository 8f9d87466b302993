"""No per-host state: two web servers and two Celery workers, each as if on a machine of its own
(a VAR_DIR of its own, an empty folder nobody else sees), share only what production shares:
the database, one Redis (broker and cache), the settings. One browser's requests go to either
web server, as a load balancer may send them.

It fails when anything a host needs lives on another host: a session, CSRF token or message
kept by one web server, a cache of a host's own (a session logged out on A still taken by B,
rate limits counted per host, /healthz not seeing the workers' heartbeats), a task or an email
that two workers both handle, or a file written under the repository's var/ or a VAR_DIR.
bench/loadtest.py ``--web 2 --workers 2`` is the large version, run by hand.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import global_settings
from django.db import connection

from bench import infra
from bench.infra import CeleryWorker, PrivateRedis, SmtpCounter, WebServer, site_env, wait_until
from bench.players import Budget, Forms, Http, Stats, create_games, create_players
from games.models import Game, Seat
from notifications.models import Notification, NotificationStatus

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_worker,
    # the hosts are processes of their own: they need a database server to share (the test
    # database on SQLite lives in this process's memory)
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

REPO = Path(__file__).resolve().parents[2]
#: the loopback ports this test's services take (the range given to this part of the suite)
TEST_PORTS = range(7900, 8000)
PASSWORD = "two hosts pass phrase 9"
HEALTH_TOKEN = "two-hosts-health-token"
#: failed admin logins allowed per client IP and day, counted over both web servers together
ADMIN_LOGINS = 4


@dataclass
class Hosts:
    a: WebServer
    b: WebServer
    workers: list[CeleryWorker]
    redis: PrivateRedis
    smtp: SmtpCounter
    var_dirs: dict[str, Path]
    logs: list[Path]

    def finished(self, task: str) -> int:
        """How many times the workers together have run ``task`` (``app.tasks.name``)."""
        return sum(worker.tasks_done(f"{task}[") for worker in self.workers)

    def idle(self) -> bool:
        """Nothing queued, nothing in hand: with late acks a task stays in Redis's "unacked"
        hash until its worker is done with it."""
        return (
            self.redis.queue_length() == 0
            and self.redis.command("HLEN", "unacked") == b":0"
            and all(worker.idle() for worker in self.workers)
        )


def files_under(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file under ``folder``: (size, modification time)."""
    if not folder.is_dir():
        return {}
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file()
    }


@pytest.fixture
def hosts(
    transactional_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Hosts]:
    """Redis, a counting SMTP server (slow, so that sends overlap), two workers and two gunicorn
    web servers on the test database, each web server and worker with its own VAR_DIR."""
    from keltis_site.celery import app

    monkeypatch.setattr(infra, "_ports", TEST_PORTS)
    db = connection.settings_dict
    database_url = (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    with ExitStack() as stack:
        redis = PrivateRedis().start()
        stack.callback(redis.stop)
        smtp = SmtpCounter(delay=0.3).start()
        stack.callback(smtp.stop)
        a = WebServer({}, tmp_path / "web-a.log", workers=1)
        b = WebServer({}, tmp_path / "web-b.log", workers=1)
        env = site_env(
            database_url=database_url,
            broker_url=redis.url(0),
            smtp_port=smtp.port,
            site_url="http://keltis.example",  # the public address, the same on every host
            CACHE_URL=f"rediscache://127.0.0.1:{redis.port}/1",
            HEALTH_TOKEN=HEALTH_TOKEN,
            ADMIN_LOGIN_RATE_LIMIT=f"{ADMIN_LOGINS}/d",
        )
        var_dirs = {name: tmp_path / f"var-{name}" for name in ("a", "b", "w1", "w2")}
        for folder in var_dirs.values():
            folder.mkdir()

        def own(name: str) -> dict[str, str]:
            return {**env, "VAR_DIR": str(var_dirs[name])}

        infra.manage(own("a"), "collectstatic", "--noinput")  # DEBUG=False serves hashed names
        workers = [
            CeleryWorker(name, own(name), tmp_path / f"worker-{name}.log").start()
            for name in ("w1", "w2")
        ]
        for worker in workers:
            stack.callback(worker.stop)
        for server, name in ((a, "a"), (b, "b")):
            server.env = own(name)
            server.start()
            stack.callback(server.stop)
        for worker in workers:
            wait_until(worker.ready, 60, f"worker {worker.name}")
        # this process queues the tasks of what it creates on the same Redis
        monkeypatch.setenv("CELERY_BROKER_URL", redis.url(0))
        old = (app.conf.broker_url, app.conf.task_always_eager)
        app.conf.broker_url, app.conf.task_always_eager = redis.url(0), False
        app._after_fork()  # drop the pools built for the old broker URL (Celery's own reset)
        stack.callback(app._after_fork)
        stack.callback(setattr, app.conf, "task_always_eager", old[1])
        stack.callback(setattr, app.conf, "broker_url", old[0])
        logs = [a.log, b.log, *(worker.log for worker in workers)]
        yield Hosts(a, b, workers, redis, smtp, var_dirs, logs)


def health(server: WebServer) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.url}/healthz", headers={"Authorization": f"Bearer {HEALTH_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.load(answer)
    return result


def failed_admin_logins(browsers: list[Http], count: int) -> list[int]:
    """``count`` admin logins with a wrong password, the browsers taking turns; their
    statuses. Repeated once if a day's window of the limit began meanwhile."""
    for _ in range(2):
        day = int(time.time()) // 86400
        statuses = []
        for i in range(count):
            browser = browsers[i % len(browsers)]
            page = browser.get("/admin/login/", "admin login page")
            answer = browser.post(
                "/admin/login/",
                "admin login",
                {"csrfmiddlewaretoken": Forms.parse(page.body).csrf, "username": "nobody",
                 "password": "wrong", "next": "/admin/"},
            )
            statuses.append(answer.status)
        if int(time.time()) // 86400 == day:
            return statuses
        # the counters start again at midnight UTC: the first attempt proved nothing
    raise AssertionError("two day boundaries in one test")


def test_a_session_moves_emails_and_limits_hold_across_two_web_servers_and_two_workers(
    hosts: Hosts, settings: Any
) -> None:
    # the web servers check passwords with the site's own hashers, not the tests' fast one
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    repo_var_before = files_under(REPO / "var")
    stats, budget = Stats(), Budget(max_requests=500, max_seconds=120)
    users = create_players(2, "host", form_logins=2, password=PASSWORD)
    (game_id,) = create_games(users, [("keltis-cards", 2)], seed=3)
    game = Game.objects.get(pk=game_id)
    mover_seat = game.to_move
    mover = Seat.objects.select_related("user").get(game=game, index=mover_seat).user

    # one browser; a: its requests to web server A, b: to web server B
    a = Http(hosts.a.url, stats, budget)
    b = a.at(hosts.b.url)

    # logged in on B with the form A served (its CSRF cookie and token)
    form = Forms.parse(a.get("/accounts/login/", "login page").body)
    answer = b.post(
        "/accounts/login/",
        "login",
        {"csrfmiddlewaretoken": form.csrf, "login": mover.email, "password": PASSWORD},
    )
    assert answer.status == 302, answer.body[:500]

    # the whole turn: each action read off A's page, POSTed to B; A's page shows it done
    page = a.get(f"/games/{game_id}/", "game page")
    actions = Forms.parse(page.body).actions
    assert actions, "it is the mover's turn: the page on A offers actions"
    moves = 0
    while actions:
        action = actions[0]
        answer = b.post(
            action.url,
            "action",
            {"csrfmiddlewaretoken": action.csrf, "action": action.action,
             "seq": str(action.seq)},
        )
        assert answer.status == 303, answer.body[:500]
        moves += 1
        page = a.get(answer.location, "game page")
        shown = Forms.parse(page.body)
        assert [level for level, _ in shown.messages] == ["success"]  # B's message, on A
        actions = shown.actions
        assert all(f.seq > action.seq for f in actions)  # A's page is after the move
    game.refresh_from_db()
    # a card game's turn: play or discard, then draw (taken for the player when the deck is
    # the only pile: then one POST made both events)
    assert game.seq >= 2 and moves >= 1 and game.seq <= 2 * moves
    assert game.to_move != mover_seat

    # its turn email went to the next player once, though both workers were asked to send it
    # three more times (and the SMTP server was slow): each email is one worker's claim
    from games.tasks import sweep_deadlines, worker_heartbeat
    from notifications.tasks import deliver_game_notifications

    for _ in range(3):
        deliver_game_notifications.delay(game_id)
    worker_heartbeat.delay()
    sweep_deadlines.delay()
    # the three above, and the game's start (queued here) and the turn (queued by B) by their
    # shard's task (notifications.relay: one, or one each)
    wait_until(
        lambda: hosts.finished("notifications.tasks.deliver_game_notifications") >= 3
        and hosts.finished("notifications.tasks.deliver_shard") >= 1
        and hosts.finished("games.tasks.worker_heartbeat") >= 1
        and hosts.finished("games.tasks.sweep_deadlines") >= 1
        and hosts.idle(),
        30,
        "the workers to finish every task",
    )
    turn_emails = Notification.objects.filter(game_id=game_id)
    assert {n.status for n in turn_emails} == {NotificationStatus.SENT}
    next_player = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    assert turn_emails.filter(user=next_player).exists()
    assert sum(hosts.smtp.message_ids.values()) == turn_emails.count()
    assert set(hosts.smtp.message_ids.values()) == {1}
    assert hosts.smtp.recipients[next_player.email] == turn_emails.filter(user=next_player).count()

    # both web servers see the heartbeats a worker left in the shared cache
    assert [health(hosts.a)["status"], health(hosts.b)["status"]] == ["up", "up"]

    # the admin login's limit counts the attempts on both web servers together
    statuses = failed_admin_logins([a, b], ADMIN_LOGINS + 2)
    assert statuses == [200] * ADMIN_LOGINS + [429, 429]

    # logged out on A: the session's cookie (a copy, as a thief's) logs in on neither server
    stolen = dict(a.cookies)
    page = a.get("/games/mine/", "my games")
    answer = a.post(
        "/accounts/logout/", "logout", {"csrfmiddlewaretoken": Forms.parse(page.body).csrf}
    )
    assert answer.status == 302
    for server in (hosts.b, hosts.a):
        thief = Http(server.url, stats, budget, stolen)
        answer = thief.get("/games/mine/", "signed out")
        assert (answer.status, answer.location.split("?")[0]) == (302, "/accounts/login/")

    # nothing written to disk that another host would need: not one file in any VAR_DIR, and
    # nothing new under the repository's var/
    assert {name: sorted(files_under(d)) for name, d in hosts.var_dirs.items()} == {
        name: [] for name in hosts.var_dirs
    }
    assert files_under(REPO / "var") == repo_var_before
    for log in hosts.logs:
        assert "Traceback" not in log.read_text(), log
