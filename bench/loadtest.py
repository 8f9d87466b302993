"""HTTP load test, run by hand: ``python bench/loadtest.py [--players N] [--games M]``.

Starts the real site on 127.0.0.1 (gunicorn when installed, else Django's threaded runserver)
with production settings, on a fresh PostgreSQL database ``keltis_load``, a private Redis, one
Celery worker and an SMTP server that counts. Creates N players and M games (both kinds, 2-4
players), then N simulated players (bench/players.py) play every game to its end through the
pages, each in its own thread with its own session; some double-submit on purpose. Stops by
itself at a request cap or a time cap.

Checks: no unexpected status (5xx, 4xx, ...); every double submission had one winner and one
"game moved on"; every accepted POST is exactly one event, events are contiguous, replay gives
the snapshot; every game ended; every turn email sent arrived once. Prints requests/s and
latency (median, p95) per kind of request. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack, suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.infra import (
    CeleryWorker,
    PrivateRedis,
    SmtpCounter,
    WebServer,
    manage,
    pg_url,
    process_tree_cpu,
    recreate_database,
    site_env,
    use_env,
    wait_until,
)
from bench.players import (
    Budget,
    Http,
    Ledger,
    SimulatedPlayer,
    Stats,
    create_games,
    create_players,
    run_players,
    session_cookies,
    verify,
)

DATABASE = "keltis_load"
KINDS = ("keltis", "keltis-cards")
PASSWORD = "load test pass phrase 7"


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--poll", type=float, default=2.0, help="mean seconds between polls")
    parser.add_argument("--double-every", type=int, default=20,
                        help="every Nth POST of a player is sent twice at once")
    parser.add_argument("--form-logins", type=int, default=5,
                        help="players who log in with the login form (30/min/IP limit)")
    parser.add_argument("--max-requests", type=int, default=60_000)
    parser.add_argument("--max-seconds", type=float, default=900)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432",
                        help="PostgreSQL server (loopback); the database is keltis_load")
    args = parser.parse_args()
    if args.players < 4:
        parser.error("at least 4 players (a game has up to 4)")

    logs = Path(tempfile.mkdtemp(prefix="keltis-load-"))
    print(f"logs in {logs}")
    with ExitStack() as stack:
        redis = PrivateRedis().start()
        stack.callback(redis.stop)
        smtp = SmtpCounter().start()
        stack.callback(smtp.stop)
        recreate_database(args.pg, DATABASE)
        web = WebServer({}, logs / "web.log", args.web_workers)
        env = site_env(
            database_url=pg_url(args.pg, DATABASE), broker_url=redis.url(0),
            smtp_port=smtp.port, site_url=web.url,
            # shared by web processes and workers, as in production
            CACHE_URL=redis.url(1),
            # a simulated player acts far faster than the 60 a minute allowed a person
            ACTION_RATE_LIMIT="100000/m",
        )
        web.env = env
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")  # DEBUG=False serves hashed names
        worker = CeleryWorker("load", env, logs / "worker.log").start()
        stack.callback(worker.stop)
        web.start()
        stack.callback(web.stop)
        wait_until(worker.ready, 60, "the celery worker")
        use_env(env)

        setup_start = time.monotonic()
        users = create_players(
            args.players, "load", form_logins=args.form_logins, password=PASSWORD
        )
        game_ids = create_games(users, tables(args.games), args.seed)
        print(f"server: {web.description}")
        mix = Counter(tables(args.games))
        print(
            f"{args.players} players, {len(game_ids)} games "
            f"({', '.join(f'{n} x {k} {p}p' for (k, p), n in sorted(mix.items()))}); "
            f"setup {time.monotonic() - setup_start:.1f} s"
        )

        stats = Stats()
        budget = Budget(args.max_requests, args.max_seconds)
        ledger = Ledger()
        players = []
        for i, user in enumerate(users):
            http = Http(web.url, stats, budget)
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
        web_cpu = process_tree_cpu(web.pid)
        stats.started = time.monotonic()
        run_players(players, stats)
        web_cpu = process_tree_cpu(web.pid) - web_cpu

        outbox = drain_emails(60)
        time.sleep(1)  # a doubled email would arrive after the last row was marked sent
        problems = list(ledger.problems) + [f"unexpected answer: {u}" for u in stats.unexpected]
        if budget.exhausted:
            problems.append(f"stopped early: {budget.exhausted}")
        problems += verify(ledger, game_ids)
        doubled = {k: n for k, n in smtp.message_ids.items() if n > 1}
        if doubled:
            problems.append(f"emails received more than once: {sorted(doubled)[:5]}")
        if smtp.count != outbox.get("sent", 0):
            problems.append(f"{smtp.count} emails arrived, {outbox.get('sent', 0)} rows sent")

        print()
        print("\n".join(stats.report()))
        print(f"statuses: {dict(sorted(stats.statuses().items()))}")
        print(
            f"web server CPU: {web_cpu:.0f} s, {web_cpu / len(stats.samples) * 1000:.0f} ms "
            f"per request (all processes; the machine has 2 cores)"
        )
        won = sum(1 for _, _, r in ledger.doubles if sorted(r) == ["moved on", "won"])
        print(
            f"actions accepted: {len(ledger.accepted)}; double submissions: "
            f"{len(ledger.doubles)}, of which {won} had exactly one winner and one 'moved on'"
        )
        print(f"emails: outbox {outbox}, {smtp.count} arrived at the SMTP server")
        if problems:
            print(f"\nFAILED: {len(problems)} problems")
            for problem in problems[:40]:
                print(f"  {problem}")
            return 1
        print(f"\nok: all {len(game_ids)} games ended; every accepted action is one event")
        return 0


if __name__ == "__main__":
    sys.exit(main())
