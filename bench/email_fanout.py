"""Email fan-out benchmark, run by hand: ``python bench/email_fanout.py [--emails 10000]
[--database keltis_fanout] [--tiny]``.

The scenario: a league season closes and its running 4-player games are decided by their
current scores (``game_finish_early``, the season close's own call): each queues a "game over"
email for its four players in the outbox (``outbox.game_finished``), 10,000 emails to 10,000
players. Sending is queued the way every committed action queues it: one
``deliver_game_notifications`` task per game. Two Celery worker processes (solo pool) on a
private Redis take them and send through SMTP to a counting aiosmtpd server on loopback; the
database is a fresh PostgreSQL ``keltis_fanout`` (``--database``).

Prints the time from queueing the first task until the last email arrived, emails/s against
the target (all 10,000 within 2 minutes), and checks that every player got exactly one email
(per recipient and per Message-ID, which is derived from the outbox row's unique key).
``--reuse`` keeps the previous run's games and puts their "game over" rows back in the queue,
which skips the slow setup (about a minute per 1,000 games on a busy 2-core machine).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack, suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import footer, header, parse_args, reference_line, reference_median
from bench.infra import (
    CeleryWorker,
    PrivateRedis,
    SmtpCounter,
    database_exists,
    manage,
    pg_url,
    recreate_database,
    site_env,
    use_env,
    wait_until,
)

DATABASE = "keltis_fanout"
KINDS = ("keltis", "keltis-cards")
SEATS = 4
TARGET_EMAILS, TARGET_SECONDS = 10_000, 120
#: issue 30's goal for the workers' CPU per email (it was 7.3 ms)
GOAL_CPU_MS = 2.0
BATCH = 25  # games per transaction in the setup, as a season close decides many in one
#: ``--tiny``: two games, one worker (tests/bench/)
TINY = {"emails": 8, "workers": 1, "timeout": 60.0}


def create_fixture(emails: int) -> list[int]:
    """``emails`` players at ``emails / 4`` games, started and then decided through the
    services, with no task queued meanwhile; returns the game ids."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from games import services, state
    from games.models import Game
    from notifications.models import Notification, NotificationKind, NotificationStatus

    users = User.objects.bulk_create(
        User(
            username=f"fan{i:05d}", email=f"fan{i:05d}@example.test",
            display_name=f"Fan {i}", password=make_password(None),
        )
        for i in range(emails)
    )
    game_ids: list[int] = []
    saved = list(services.AFTER_COMMIT_HOOKS)
    services.AFTER_COMMIT_HOOKS.clear()  # the sending is queued below, timed
    try:
        for first in range(0, emails // SEATS, BATCH):
            with transaction.atomic():
                for g in range(first, min(first + BATCH, emails // SEATS)):
                    table = users[g * SEATS : (g + 1) * SEATS]
                    game = services.game_create(
                        creator=table[0], kind=KINDS[g % 2], player_count=SEATS
                    )
                    for user in table[1:]:
                        services.game_join(game_id=game.pk, user=user)
                    game = Game.objects.select_for_update().get(pk=game.pk)
                    services.game_finish_early(game, state.engine_state(game), timezone.now())
                    game_ids.append(game.pk)
            if len(game_ids) % 500 == 0:
                print(f"  {len(game_ids)} games", flush=True)
    finally:
        services.AFTER_COMMIT_HOOKS[:] = saved
    # each game's first turn email went out when it started, long before the season closed
    Notification.objects.filter(kind=NotificationKind.TURN).update(
        status=NotificationStatus.SENT, sent_at=timezone.now()
    )
    return game_ids


def reuse_fixture(emails: int) -> list[int] | None:
    """The previous run's games, their "game over" rows queued again; None if it differs."""
    from django.utils import timezone

    from games.models import Game
    from notifications.models import Notification, NotificationKind, NotificationStatus

    rows = Notification.objects.filter(kind=NotificationKind.FINISHED)
    if rows.count() != emails or Notification.objects.exclude(
        kind__in=[NotificationKind.FINISHED, NotificationKind.TURN]
    ).exists():
        return None
    rows.update(
        status=NotificationStatus.QUEUED, attempts=0, sent_at=None,
        next_attempt_at=timezone.now(), last_error="",
    )
    return list(Game.objects.order_by("pk").values_list("pk", flat=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emails", type=int, default=10_000, help="a multiple of 4")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="pool processes per worker (1: solo pool, the worker itself)")
    parser.add_argument("--reuse", action="store_true", help="keep the previous run's games")
    parser.add_argument("--timeout", type=float, default=900, help="give up after (seconds)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432",
                        help="PostgreSQL server (loopback)")
    parser.add_argument("--database", default=DATABASE,
                        help="the database to drop and create (keltis_fanout or "
                        "keltis_NAME_fanout)")
    args = parse_args(parser, argv, TINY)
    if args.emails <= 0 or args.emails % SEATS:
        parser.error("--emails must be a positive multiple of 4")
    started = time.perf_counter()
    print("\n".join(header("bench/email_fanout.py " + " ".join(argv or sys.argv[1:]))))
    try:
        return run(args)
    finally:
        print(reference_line())
        print("\n".join(footer(started)))


def run(args: argparse.Namespace) -> int:

    logs = Path(tempfile.mkdtemp(prefix="keltis-fanout-"))
    print(f"logs in {logs}")
    with ExitStack() as stack:
        redis = PrivateRedis().start()
        stack.callback(redis.stop)
        smtp = SmtpCounter().start()
        stack.callback(smtp.stop)
        env = site_env(
            database_url=pg_url(args.pg, args.database), broker_url=redis.url(0),
            smtp_port=smtp.port, site_url="http://127.0.0.1:8000", CACHE_URL=redis.url(1),
        )
        reuse = args.reuse and database_exists(args.pg, args.database)
        if not reuse:
            recreate_database(args.pg, args.database)
        manage(env, "migrate", "--noinput")
        workers = [
            CeleryWorker(
                f"fanout{i + 1}", env, logs / f"worker{i + 1}.log", args.concurrency
            ).start()
            for i in range(args.workers)
        ]
        for worker in workers:
            stack.callback(worker.stop)
        use_env(env)

        setup_start = time.monotonic()
        game_ids = reuse_fixture(args.emails) if reuse else None
        if game_ids is None:
            if reuse:
                print("the previous fixture differs: building a new one")
                recreate_database(args.pg, args.database)
                manage(env, "migrate", "--noinput")
            print(f"setup: {args.emails} players in {args.emails // SEATS} games ...")
            game_ids = create_fixture(args.emails)
        print(f"setup took {time.monotonic() - setup_start:.0f} s ({len(game_ids)} games)")
        for worker in workers:
            wait_until(worker.ready, 60, f"worker {worker.name}")
        # the finished games' own tasks (ratings, standings) run before the clock starts
        wait_until(
            lambda: redis.queue_length() == 0 and all(w.idle() for w in workers),
            args.timeout, "the workers to be idle", step=0.5,
        )

        from notifications.tasks import deliver_game_notifications

        cpu_before = [w.cpu_seconds() for w in workers]
        start = time.monotonic()
        for game_id in game_ids:
            deliver_game_notifications.delay(game_id)
        queued = time.monotonic() - start
        with suppress(TimeoutError):  # reported below: fewer emails than expected arrived
            wait_until(lambda: smtp.count >= args.emails, args.timeout, "every email", 0.05)
        elapsed = time.monotonic() - start
        cpu = sum(w.cpu_seconds() for w in workers) - sum(cpu_before)
        time.sleep(2)  # an email sent twice would arrive after the last one expected
        return report(args, smtp, workers, elapsed, queued, start, len(game_ids), cpu)


def report(
    args: argparse.Namespace, smtp: SmtpCounter, workers: list[CeleryWorker], elapsed: float,
    queued: float, start: float, games: int, cpu: float,
) -> int:
    from django.db.models import Count

    from notifications.models import Notification, NotificationKind

    rows = Notification.objects.filter(kind=NotificationKind.FINISHED)
    by_status = {r["status"]: r["n"] for r in rows.values("status").annotate(n=Count("pk"))}
    arrived = smtp.count
    problems = []
    doubled = [r for r, n in smtp.recipients.items() if n > 1]
    if doubled:
        problems.append(f"{len(doubled)} players got more than one email, e.g. {doubled[:3]}")
    doubled_ids = [m for m, n in smtp.message_ids.items() if n > 1]
    if doubled_ids:
        problems.append(f"{len(doubled_ids)} Message-IDs arrived twice, e.g. {doubled_ids[:3]}")
    if arrived != args.emails or len(smtp.recipients) != args.emails:
        problems.append(
            f"{arrived} emails to {len(smtp.recipients)} players arrived, {args.emails} expected"
        )
    if by_status.get("sent") != args.emails:
        problems.append(f"outbox rows by status: {by_status}")

    rate = arrived / elapsed
    first = (smtp.first_at or start) - start
    target_rate = TARGET_EMAILS / TARGET_SECONDS
    mark = "ok" if rate >= target_rate and not problems else "BELOW TARGET"
    pool = "solo pool" if args.concurrency == 1 else f"prefork pool of {args.concurrency}"
    print(f"\n{games} games, {args.workers} worker processes ({pool})")
    print(f"queueing {games} tasks took {queued:.1f} s; first email after {first:.1f} s")
    print(
        f"{arrived} emails in {elapsed:.1f} s: {rate:.0f} emails/s (target: "
        f"{TARGET_EMAILS:,} in < {TARGET_SECONDS} s, {target_rate:.0f} emails/s)  {mark}"
    )
    per_email = cpu / max(arrived, 1) * 1000
    tasks = [w.tasks_done("deliver_game") for w in workers]
    print(
        f"workers' CPU: {cpu:.1f} s, {per_email:.1f} ms per email (goal: <= {GOAL_CPU_MS} ms, "
        f"{per_email / reference_median():.2f}x the reference loop); "
        f"deliver tasks per worker: {tasks}"
    )
    print(
        f"SMTP connections: {len(smtp.peers)} for {sum(tasks)} tasks of {args.workers} worker "
        f"processes (each keeps one open between its tasks); outbox: {by_status}"
    )
    if problems:
        print(f"\nFAILED: {len(problems)} problems")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print("ok: every player got exactly one email")
    return 0


if __name__ == "__main__":
    sys.exit(main())
