"""HTTP load test, run by hand (docs/benchmarks.md says what it checks).

The real site on loopback with production settings on a fresh PostgreSQL database, a private
Redis, W web servers and K Celery workers each with its own VAR_DIR, one beat and a counting SMTP
server; simulated players (bench/players.py) play every game to its end. Exit 1 on a failure.
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

from bench import infra
from bench import players as play
from bench.common import DEFAULT_PG, command_line, dated, parse_args, setup_django, verdict
from bench.infra import parse_ports, wait_until
from bench.measure import Reference, django_pg_settings, median, tree_cpu_ms

#: what beat may leave in its VAR_DIR: its own schedule (shelve may add a suffix)
BEAT_FILES = "celerybeat-schedule"
KINDS = ("keltis", "keltis-cards")
PASSWORD = "load test pass phrase 7"
HEALTH_TOKEN = "load-test-health-token"
TINY = {
    "players": 4, "games": 2, "leave": 8, "poll": 0.2, "double_every": 3, "form_logins": 1,
    "web_workers": 1, "max_seconds": 120.0, "heartbeats_now": True,
}  # fmt: skip


def tables(games: int) -> list[tuple[str, int]]:
    """Both kinds alternately, 2, 3 and 4 players in turn."""
    return [(KINDS[i % 2], 2 + (i // 2) % 3) for i in range(games)]


def drain_emails(timeout: float) -> dict[str, int]:
    """Wait until the worker has dealt with every queued email; the outbox by status."""
    from django.db.models import Count

    from notifications.models import Notification, NotificationStatus

    pending = Notification.objects.filter(
        status__in=(NotificationStatus.QUEUED, NotificationStatus.SENDING)
    )
    with suppress(TimeoutError):  # reported below: the rows left queued are counted
        wait_until(lambda: not pending.exists(), timeout, "the outbox to drain", step=0.5)
    rows = Notification.objects.values("status").annotate(n=Count("pk"))
    return {row["status"]: row["n"] for row in rows}


def health(url: str) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {HEALTH_TOKEN}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{url}/healthz", headers=auth),
                                    timeout=10) as answer:  # fmt: skip
            return json.load(answer)
    except urllib.error.HTTPError as error:  # 503 carries the report too
        return json.load(error)


def all_up(urls: list[str], timeout: float) -> dict[str, dict[str, Any]]:
    """Each web server's /healthz once all say "up", or when ``timeout`` ran out."""
    said: dict[str, dict[str, Any]] = {}

    def check() -> bool:
        said.update({url: health(url) for url in urls})
        return all(report.get("status") == "up" for report in said.values())

    with suppress(TimeoutError):
        wait_until(check, timeout, "every web server's /healthz to say up", step=2)
    return said


def main(argv: list[str] | None = None) -> int:
    parser = command_line(
        __doc__,
        ("--players", 12, "simulated players, each a thread and a session"),
        ("--games", 6, "games, both kinds, 2 to 4 players"),
        ("--web", 1, "web servers, each with its own VAR_DIR (as on its own machine)"),
        ("--workers", 1, "Celery workers, each with its own VAR_DIR"),
        ("--spread", "alternate", "with several web servers: each request of a player to the "
         "next one, or each player to one", {"choices": ("alternate", "stick")}),
        ("--web-workers", 2, "gunicorn processes per web server"),
        ("--poll", 2.0, "mean seconds between polls"),
        ("--double-every", 20, "every Nth POST of a player is sent twice at once"),
        ("--form-logins", 5, "players who log in with the login form (30/min/IP limit)"),
        ("--max-requests", 60_000, "the request cap"),
        ("--max-seconds", 900.0, "the time cap"),
        ("--seed", 2026, "seed of the games and the players"),
        ("--leave", 0, "actions left for the players in each game (0: all; the setup plays "
         "the rest)"),
        ("--heartbeats-now", False, "queue the deadline sweep and the worker heartbeat at "
         "once, not a minute later when beat does"),
        ("--pg", DEFAULT_PG, "PostgreSQL server (loopback)"),
        ("--database", "keltis_load", "the database to drop and create (keltis_NAME_load)"),
        ("--ports", None, "loopback ports for the services, e.g. 7900-7999 (default: any)",
         {"type": parse_ports}),
    )  # fmt: skip
    args = parse_args(parser, argv, TINY)
    if args.players < 4:
        parser.error("at least 4 players (a game has up to 4)")
    if args.web < 1 or args.workers < 1:
        parser.error("at least one web server and one worker")
    if args.ports is not None:
        infra.use_ports(args.ports)
    with dated("loadtest.py", argv, after=False):
        return run(args)


def run(args: argparse.Namespace) -> int:
    logs = Path(tempfile.mkdtemp(prefix="keltis-load-"))
    print(f"logs and VAR_DIRs in {logs}")
    with ExitStack() as stack:
        redis = stack.enter_context(infra.PrivateRedis())
        smtp = stack.enter_context(infra.SmtpCounter())
        webs = [infra.WebServer({}, logs / f"web{i}.log", args.web_workers)
                for i in range(1, args.web + 1)]  # fmt: skip
        env = infra.site_env(
            database_url=infra.recreate_database(args.pg, args.database),
            broker_url=redis.url(0),
            smtp_port=smtp.port,
            # one public address for every host: emails must not depend on the host
            site_url=webs[0].url,
            CACHE_URL=f"rediscache://127.0.0.1:{redis.port}/1",
            ACTION_RATE_LIMIT="100000/m",
            HEALTH_TOKEN=HEALTH_TOKEN,
            STATIC_ROOT=str(logs / "static"),
        )
        var_dirs: dict[str, Path] = {}

        def host_env(name: str) -> dict[str, str]:
            var_dirs[name] = logs / f"var-{name}"
            var_dirs[name].mkdir()
            return {**env, "VAR_DIR": str(var_dirs[name])}

        setup_django(host_env("bench"))  # this process too: it creates the players and the games
        infra.manage(env, "migrate", "--noinput")
        infra.manage(env, "collectstatic", "--noinput")  # DEBUG=False serves hashed names
        workers = [
            stack.enter_context(infra.CeleryWorker(f"load{i}", host_env(f"worker{i}"),
                                                   logs / f"worker{i}.log"))
            for i in range(1, args.workers + 1)
        ]  # fmt: skip
        beat = stack.enter_context(infra.CeleryBeat(host_env("beat"), logs / "beat.log"))
        for i, web in enumerate(webs, 1):
            web.env = host_env(f"web{i}")
            stack.enter_context(web)
        for worker in workers:
            wait_until(worker.ready, 60, f"the celery worker {worker.name}")
        wait_until(beat.ready, 60, "celery beat")

        print(django_pg_settings())
        reference = Reference()
        reference.measure()
        setup_start = time.monotonic()
        users = play.create_players(
            args.players, "load", form_logins=args.form_logins, password=PASSWORD
        )
        game_ids = play.create_games(users, tables(args.games), args.seed)
        played_before = None
        if args.leave:
            logging.disable(logging.INFO)  # the setup's "action applied" lines
            played_before = {g: play.advance(g, leave=args.leave, seed=g) for g in game_ids}
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
        mix = ", ".join(
            f"{n} x {k} {p}p" for (k, p), n in sorted(Counter(tables(args.games)).items())
        )
        print(
            f"{args.players} players, {len(game_ids)} games ({mix}); "
            f"setup {time.monotonic() - setup_start:.1f} s"
        )

        stats, ledger = play.Stats(), play.Ledger()
        budget = play.Budget(args.max_requests, args.max_seconds)
        urls = [web.url for web in webs]
        players = []
        for i, user in enumerate(users):
            if args.spread == "stick":
                http = play.Http(urls[i % len(urls)], stats, budget)
            else:
                http = play.Http(urls, stats, budget, first=i)
            if i >= args.form_logins:
                http.cookies.update(play.session_cookies(user))
            elif not http.log_in(user.email, PASSWORD):
                ledger.problem(f"{user.username}: the login form did not log in")
            players.append(play.SimulatedPlayer(
                user.username, http, ledger, seed=args.seed * 1000 + i, poll_seconds=args.poll,
                double_every=args.double_every,
            ))  # fmt: skip
        web_cpu = [tree_cpu_ms(web.pid) / 1000 for web in webs]
        worker_cpu = [worker.cpu_seconds() for worker in workers]
        stats.started = time.monotonic()
        play.run_players(players, stats)
        web_cpu = [tree_cpu_ms(w.pid) / 1000 - cpu for w, cpu in zip(webs, web_cpu, strict=True)]
        reference.measure()

        outbox = drain_emails(60)
        # every host sees the heartbeats; a session ended on one host (a copy of its cookie
        # kept, as a thief's) logs in on none
        healths = all_up(urls, 120)
        with suppress(play.OutOfBudget):  # reported below as "stopped early"
            for player in players:
                copy = play.Http(urls, stats, budget, player.http.cookies)
                if not player.http.log_out():
                    ledger.problem(f"{player.name}: the logout button did not log out")
                for _ in urls:  # the next server each time: every one of them
                    if not copy.signed_out():
                        ledger.problem(
                            f"{player.name}: the session's cookie still logs in after logging out"
                        )
        time.sleep(1)  # a doubled email would arrive after the last row was marked sent
        worker_cpu = [w.cpu_seconds() - cpu for w, cpu in zip(workers, worker_cpu, strict=True)]
        doubled = sorted(k for k, n in smtp.message_ids.items() if n > 1)
        unsent = {status: n for status, n in outbox.items() if status not in ("sent", "skipped")}
        files = {
            name: sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
            for name, folder in var_dirs.items()
        }
        problems = [*ledger.problems, *(f"unexpected answer: {u}" for u in stats.unexpected)]
        if budget.exhausted:
            problems.append(f"stopped early: {budget.exhausted}")
        problems += play.verify(ledger, game_ids, played_before=played_before)
        sent = outbox.get("sent", 0)
        checks = {
            f"emails received more than once: {doubled[:5]}": doubled,
            f"{smtp.count} emails arrived, {sent} rows sent": smtp.count != sent,
            f"emails not sent: {unsent}": unsent,
        }
        problems += [text for text, failed in checks.items() if failed]
        problems += [f"{url}/healthz: {r}" for url, r in healths.items() if r.get("status") != "up"]
        for name, written in files.items():
            if own := [f for f in written if not (name == "beat" and f.startswith(BEAT_FILES))]:
                problems.append(f"{name} wrote into its VAR_DIR: {own[:10]}")

        print()
        print("\n".join(stats.report()))
        print(f"statuses: {dict(sorted(stats.statuses().items()))}")
        per_request = sum(web_cpu) / len(stats.samples) * 1000
        print(
            f"web server CPU: {sum(web_cpu):.0f} s, {per_request:.1f} ms per request, all kinds "
            f"together (all processes; the machine has 2 cores); "
            f"{per_request / median(reference.loop_cpu):.2f}x the reference loop"
        )
        print("\n".join(reference.lines()) + "  (before and after the run)")
        if len(webs) > 1:
            served = stats.servers()
            each = zip(webs, web_cpu, strict=True)
            print("requests per web server: " + ", ".join(
                f"web{i} {served[play.Server.of(web.url).host]} ({cpu:.0f} s CPU)"
                for i, (web, cpu) in enumerate(each, 1)
            ))  # fmt: skip
        each = zip(workers, worker_cpu, strict=True)
        print("tasks per worker: " + ", ".join(
            f"{w.name} {w.tasks_done()} ({cpu:.0f} s CPU)" for w, cpu in each
        ))  # fmt: skip
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
            f"web{i} {healths[url].get('status')}" for i, url in enumerate(urls, 1)
        ))  # fmt: skip
        print("files written into the VAR_DIRs: " + ", ".join(
            f"{name} {written or 'none'}" for name, written in files.items()
        ))  # fmt: skip
        return verdict(
            problems, f"\nok: all {len(game_ids)} games ended; every accepted action is one event"
        )


if __name__ == "__main__":
    sys.exit(main())
