"""HTTP load test, run by hand: ``python bench/loadtest.py [--players N] [--games M]
[--web W] [--workers K] [--leave N] [--tiny]``.

Starts the real site on 127.0.0.1 (gunicorn when installed, else Django's threaded runserver)
with production settings, on a fresh PostgreSQL database (``keltis_load``), a private Redis,
Celery workers, one Celery beat and an SMTP server that counts. With ``--web W --workers K`` it
starts W web servers and K workers as if each ran on a machine of its own: each has its own
VAR_DIR (an empty folder of its own for the files the embedded default would keep on disk),
and they share only what production shares: the database, Redis (broker and cache), the
SECRET_KEY, SITE_URL and the mail server. Creates N players and M games (both kinds, 2-4
players), then N simulated players (bench/players.py) play every game to its end through the
pages, each in its own thread with its own session; with several web servers each player's
requests go to them in turn (``--spread alternate``, one request each) or each player keeps
to one (``--spread stick``); some double-submit on purpose, the two tabs on two servers. Stops
by itself at a request cap or a time cap.

Checks: no unexpected status (5xx, 4xx, ...); every double submission had one winner and one
"your move was made"; every accepted POST is exactly one event, events are contiguous, replay gives
the snapshot; every game ended; every turn email sent arrived once and none is left unsent;
afterwards every web server's /healthz says "up" (it sees the heartbeats the workers and the
sweep left), and once a player has logged out the session's old cookie logs in on no web
server; no process wrote a file into its VAR_DIR (beat's schedule file aside, its own). Prints
requests/s and latency (median, p95) per kind of request, requests per web server and tasks
per worker. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import parse_args
from bench.infra import (
    CeleryBeat,
    CeleryWorker,
    PrivateRedis,
    SmtpCounter,
    WebServer,
    manage,
    parse_ports,
    pg_url,
    process_tree_cpu,
    recreate_database,
    site_env,
    use_env,
    use_ports,
    wait_until,
)
from bench.measure import Reference, django_pg_settings, footer, header, median
from bench.players import (
    Budget,
    Http,
    Ledger,
    OutOfBudget,
    Server,
    SimulatedPlayer,
    Stats,
    advance,
    create_games,
    create_players,
    run_players,
    session_cookies,
    verify,
)

DATABASE = "keltis_load"
#: what beat may leave in its VAR_DIR: its own schedule (shelve may add a suffix)
BEAT_FILES = "celerybeat-schedule"
KINDS = ("keltis", "keltis-cards")
PASSWORD = "load test pass phrase 7"
HEALTH_TOKEN = "load-test-health-token"
#: ``--tiny`` (tests/bench/): two games with a few actions left each, quick polls, one web
#: process, and the heartbeats beat would queue in its first minute queued at once
TINY = {
    "players": 4, "games": 2, "leave": 8, "poll": 0.2, "double_every": 3, "form_logins": 1,
    "web_workers": 1, "max_seconds": 120.0, "heartbeats_now": True,
}  # fmt: skip


def tables(games: int) -> list[tuple[str, int]]:
    """Both kinds alternately, 2, 3 and 4 players in turn: every mix appears by 6 games."""
    return [(KINDS[i % 2], 2 + (i // 2) % 3) for i in range(games)]


def drain_emails(timeout: float) -> dict[str, int]:
    """Wait until the worker has dealt with every queued email; the outbox by status."""
    from django.db.models import Count

    from notifications.models import Notification, NotificationStatus

    pending = (NotificationStatus.QUEUED, NotificationStatus.SENDING)
    with suppress(TimeoutError):  # reported below: the rows left queued are counted
        wait_until(
            lambda: not Notification.objects.filter(status__in=pending).exists(), timeout,
            "the outbox to drain", step=0.5,
        )
    rows = Notification.objects.values("status").annotate(n=Count("pk"))
    return {row["status"]: row["n"] for row in rows}


def health(url: str) -> dict[str, Any]:
    """What GET /healthz tells a bearer of HEALTH_TOKEN: the status and every check."""
    request = urllib.request.Request(
        f"{url}/healthz", headers={"Authorization": f"Bearer {HEALTH_TOKEN}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            result: dict[str, Any] = json.load(answer)
    except urllib.error.HTTPError as error:  # 503 carries the report too
        result = json.load(error)
    return result


def all_up(urls: list[str], timeout: float) -> dict[str, dict[str, Any]]:
    """Each web server's /healthz once every one says "up" (the heartbeats of worker and
    sweep are in the shared cache), or what they said when ``timeout`` ran out: beat queues
    its first deadline sweep a minute after it starts."""
    said: dict[str, dict[str, Any]] = {}

    def check() -> bool:
        said.update({url: health(url) for url in urls})
        return all(report.get("status") == "up" for report in said.values())

    with suppress(TimeoutError):
        wait_until(check, timeout, "every web server's /healthz to say up", step=2)
    return said


def written_files(folder: Path) -> list[str]:
    """Every file under ``folder``, relative to it."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--web", type=int, default=1,
                        help="web servers, each with its own VAR_DIR (as on its own machine)")
    parser.add_argument("--workers", type=int, default=1,
                        help="Celery workers, each with its own VAR_DIR")
    parser.add_argument("--spread", choices=("alternate", "stick"), default="alternate",
                        help="with several web servers: each request of a player to the next "
                        "server, or each player to one server")
    parser.add_argument("--web-workers", type=int, default=2,
                        help="gunicorn processes per web server")
    parser.add_argument("--poll", type=float, default=2.0, help="mean seconds between polls")
    parser.add_argument("--double-every", type=int, default=20,
                        help="every Nth POST of a player is sent twice at once")
    parser.add_argument("--form-logins", type=int, default=5,
                        help="players who log in with the login form (30/min/IP limit)")
    parser.add_argument("--max-requests", type=int, default=60_000)
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--leave", type=int, default=0,
                        help="play each game on the server side until about this many actions "
                        "are left for the players (0: they play it all)")
    parser.add_argument("--heartbeats-now", action="store_true",
                        help="queue the deadline sweep and the worker heartbeat at once, not "
                        "only when beat does (a minute after it starts)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432",
                        help="PostgreSQL server (loopback)")
    parser.add_argument("--database", default=DATABASE,
                        help="the database to drop and create (keltis_load or keltis_NAME_load)")
    parser.add_argument("--ports", type=parse_ports, default=None,
                        help="loopback ports for the services started, e.g. 7900-7999 "
                        "(default: any free one)")
    args = parse_args(parser, argv, TINY)
    if args.players < 4:
        parser.error("at least 4 players (a game has up to 4)")
    if args.web < 1 or args.workers < 1:
        parser.error("at least one web server and one worker")
    if args.ports is not None:
        use_ports(args.ports)

    started = time.perf_counter()
    print("\n".join(header("bench/loadtest.py " + " ".join(argv or sys.argv[1:]))))
    logs = Path(tempfile.mkdtemp(prefix="keltis-load-"))
    print(f"logs and VAR_DIRs in {logs}")
    with ExitStack() as stack:
        redis = PrivateRedis().start()
        stack.callback(redis.stop)
        smtp = SmtpCounter().start()
        stack.callback(smtp.stop)
        recreate_database(args.pg, args.database)
        webs = [WebServer({}, logs / f"web{i + 1}.log", args.web_workers)
                for i in range(args.web)]
        env = site_env(
            database_url=pg_url(args.pg, args.database), broker_url=redis.url(0),
            smtp_port=smtp.port,
            # one public address for every host (a load balancer's): links in emails and
            # their Message-IDs must not depend on the host that made them
            site_url=webs[0].url,
            # shared by web processes and workers, as in production
            CACHE_URL=f"rediscache://127.0.0.1:{redis.port}/1",
            # a simulated player acts far faster than the 60 a minute allowed a person
            ACTION_RATE_LIMIT="100000/m",
            HEALTH_TOKEN=HEALTH_TOKEN,
            # DEBUG off serves the collected files: collected here, not into the checkout
            STATIC_ROOT=str(logs / "static"),
        )
        var_dirs: dict[str, Path] = {}

        def host_env(name: str) -> dict[str, str]:
            """``env`` with a VAR_DIR of the host's own: an empty folder nobody else sees."""
            var_dirs[name] = logs / f"var-{name}"
            var_dirs[name].mkdir()
            return {**env, "VAR_DIR": str(var_dirs[name])}

        use_env(host_env("bench"))  # this process too: it creates the players and the games
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")  # DEBUG=False serves hashed names
        workers = [
            CeleryWorker(f"load{i + 1}", host_env(f"worker{i + 1}"),
                         logs / f"worker{i + 1}.log").start()
            for i in range(args.workers)
        ]
        for worker in workers:
            stack.callback(worker.stop)
        beat = CeleryBeat(host_env("beat"), logs / "beat.log").start()
        stack.callback(beat.stop)
        for i, web in enumerate(webs):
            web.env = host_env(f"web{i + 1}")
            web.start()
            stack.callback(web.stop)
        for worker in workers:
            wait_until(worker.ready, 60, f"the celery worker {worker.name}")
        wait_until(beat.ready, 60, "celery beat")

        print(django_pg_settings())
        # the reference workload (bench/measure.py) before and after the players' run: the
        # web servers' CPU per request is compared with it
        reference = Reference()
        reference.measure()
        setup_start = time.monotonic()
        users = create_players(
            args.players, "load", form_logins=args.form_logins, password=PASSWORD
        )
        game_ids = create_games(users, tables(args.games), args.seed)
        played_before = None
        if args.leave:
            logging.disable(logging.INFO)  # the setup's "action applied" lines
            played_before = {gid: advance(gid, leave=args.leave, seed=gid) for gid in game_ids}
            logging.disable(logging.NOTSET)
        if args.heartbeats_now:
            from games.tasks import sweep_deadlines, worker_heartbeat

            worker_heartbeat.delay()
            sweep_deadlines.delay()
        print(
            f"{args.web} web server(s): {webs[0].description}; {args.workers} Celery "
            f"worker(s) (solo pool); 1 beat; each with its own VAR_DIR"
        )
        if args.web > 1:
            print(f"players' requests: {args.spread}")
        mix = Counter(tables(args.games))
        print(
            f"{args.players} players, {len(game_ids)} games "
            f"({', '.join(f'{n} x {k} {p}p' for (k, p), n in sorted(mix.items()))}); "
            f"setup {time.monotonic() - setup_start:.1f} s"
        )

        stats = Stats()
        budget = Budget(args.max_requests, args.max_seconds)
        ledger = Ledger()
        urls = [web.url for web in webs]
        players = []
        for i, user in enumerate(users):
            if args.spread == "stick":
                http = Http(urls[i % len(urls)], stats, budget)
            else:
                http = Http(urls, stats, budget, first=i)
            if i < args.form_logins:
                if not http.log_in(user.email, PASSWORD):
                    ledger.problem(f"{user.username}: the login form did not log in")
            else:
                http.cookies.update(session_cookies(user))
            players.append(
                SimulatedPlayer(
                    user.username, http, ledger, seed=args.seed * 1000 + i,
                    poll_seconds=args.poll, double_every=args.double_every,
                )
            )
        web_cpu = [process_tree_cpu(web.pid) for web in webs]
        worker_cpu = [worker.cpu_seconds() for worker in workers]
        stats.started = time.monotonic()
        run_players(players, stats)
        web_cpu = [process_tree_cpu(web.pid) - cpu for web, cpu in zip(webs, web_cpu, strict=True)]
        reference.measure()

        outbox = drain_emails(60)
        # every host sees the heartbeats the workers left, and a session ended on one host is
        # ended on all: its old cookie (a copy, as a thief's) logs in nowhere any more, which
        # a host that kept the session in a cache of its own would still accept
        healths = all_up(urls, 120)
        with suppress(OutOfBudget):  # reported below as "stopped early"
            for player in players:
                copy = Http(urls, stats, budget, player.http.cookies)
                if not player.http.log_out():
                    ledger.problem(f"{player.name}: the logout button did not log out")
                for _ in urls:  # the next server each time: every one of them
                    if not copy.signed_out():
                        ledger.problem(f"{player.name}: the session's cookie still logs in "
                                       "after logging out")
        time.sleep(1)  # a doubled email would arrive after the last row was marked sent
        worker_cpu = [w.cpu_seconds() - cpu for w, cpu in zip(workers, worker_cpu, strict=True)]
        problems = list(ledger.problems) + [f"unexpected answer: {u}" for u in stats.unexpected]
        if budget.exhausted:
            problems.append(f"stopped early: {budget.exhausted}")
        problems += verify(ledger, game_ids, played_before=played_before)
        doubled = {k: n for k, n in smtp.message_ids.items() if n > 1}
        if doubled:
            problems.append(f"emails received more than once: {sorted(doubled)[:5]}")
        if smtp.count != outbox.get("sent", 0):
            problems.append(f"{smtp.count} emails arrived, {outbox.get('sent', 0)} rows sent")
        unsent = {status: n for status, n in outbox.items() if status not in ("sent", "skipped")}
        if unsent:
            problems.append(f"emails not sent: {unsent}")
        for url, report in healths.items():
            if report.get("status") != "up":
                problems.append(f"{url}/healthz: {report}")
        files = {name: written_files(folder) for name, folder in var_dirs.items()}
        for name, written in files.items():
            own = [f for f in written if not (name == "beat" and f.startswith(BEAT_FILES))]
            if own:
                problems.append(f"{name} wrote into its VAR_DIR: {own[:10]}")

        print()
        print("\n".join(stats.report()))
        print(f"statuses: {dict(sorted(stats.statuses().items()))}")
        total_cpu = sum(web_cpu)
        per_request = total_cpu / len(stats.samples) * 1000
        print(
            f"web server CPU: {total_cpu:.0f} s, {per_request:.1f} ms per request, all kinds "
            f"together (all processes; the machine has 2 cores); "
            f"{per_request / median(reference.loop_cpu):.2f}x the reference loop"
        )
        print("\n".join(reference.lines()) + "  (before and after the run)")
        if len(webs) > 1:
            served = stats.servers()
            print("requests per web server: " + ", ".join(
                f"web{i + 1} {served[Server.of(web.url).host]} ({cpu:.0f} s CPU)"
                for i, (web, cpu) in enumerate(zip(webs, web_cpu, strict=True))
            ))
        print("tasks per worker: " + ", ".join(
            f"{w.name} {w.tasks_done()} ({cpu:.0f} s CPU)"
            for w, cpu in zip(workers, worker_cpu, strict=True)
        ))
        won = sum(1 for _, _, r in ledger.doubles if sorted(r) == ["made", "won"])
        print(
            f"actions accepted: {len(ledger.accepted)}; double submissions: "
            f"{len(ledger.doubles)}, of which {won} had one winner and one 'your move was made'"
        )
        print(
            f"emails: outbox {outbox}, {smtp.count} arrived at the SMTP server, "
            f"{len(smtp.message_ids)} distinct Message-IDs"
        )
        print("/healthz: " + ", ".join(
            f"web{i + 1} {healths[url].get('status')}" for i, url in enumerate(urls)
        ))
        print("files written into the VAR_DIRs: " + ", ".join(
            f"{name} {written or 'none'}" for name, written in files.items()
        ))
        print("\n".join(footer(started)))
        if problems:
            print(f"\nFAILED: {len(problems)} problems")
            for problem in problems[:40]:
                print(f"  {problem}")
            return 1
        print(f"\nok: all {len(game_ids)} games ended; every accepted action is one event")
        return 0


if __name__ == "__main__":
    sys.exit(main())
