"""Email fan-out benchmark, run by hand (docs/benchmarks.md).

A league season closes: its running 4-player games are decided (``game_finish_early``), each
queues a "game over" email for its four players, sent by one ``deliver_game_notifications``
task per game through Celery workers on a private Redis to a counting SMTP server. Prints the
time until the last email arrived against the target and checks every player got exactly one.
``--reuse`` keeps the previous run's games and queues their rows again (the setup is slow).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack, suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, infra
from bench.common import DEFAULT_PG, command_line, dated, parse_args, verdict
from bench.players import four_player_games, requeue

TARGET_EMAILS, TARGET_SECONDS = 10_000, 120
#: issue 30's goal for the workers' CPU per email (it was 7.3 ms)
GOAL_CPU_MS = 2.0
BATCH = 25  # games per transaction in the setup, as a season close decides many in one
#: ``--tiny``: two games, one worker (tests/bench/)
TINY = {"emails": 8, "workers": 1, "timeout": 60.0}


def fixture(emails: int, reuse: bool) -> list[int] | None:
    """The games whose "game over" rows are queued: the previous run's, queued again (None
    if it differs), or ``emails / 4`` games decided now (their first turn emails went out
    when they started, long before the season closed)."""
    from django.utils import timezone

    from games.models import Game
    from notifications.models import Notification, NotificationKind, NotificationStatus

    rows = Notification.objects.filter(kind=NotificationKind.FINISHED)
    if reuse:
        others = Notification.objects.exclude(
            kind__in=[NotificationKind.FINISHED, NotificationKind.TURN]
        )
        if rows.count() != emails or others.exists():
            return None
        requeue(rows)
        return list(Game.objects.order_by("pk").values_list("pk", flat=True))
    game_ids = four_player_games(emails // 4, "fan", finish=True, batch=BATCH)
    Notification.objects.filter(kind=NotificationKind.TURN).update(
        status=NotificationStatus.SENT, sent_at=timezone.now()
    )
    return game_ids


def main(argv: list[str] | None = None) -> int:
    parser = command_line(
        __doc__,
        ("--emails", 10_000, "a multiple of 4"),
        ("--workers", 2, "Celery worker processes (solo pool)"),
        ("--reuse", False, "keep the previous run's games"),
        ("--timeout", 900.0, "give up after (seconds)"),
        ("--pg", DEFAULT_PG, "PostgreSQL server (loopback)"),
        ("--database", "keltis_fanout", "the database to drop and create (keltis_NAME_fanout)"),
    )
    args = parse_args(parser, argv, TINY)
    if args.emails <= 0 or args.emails % 4:
        parser.error("--emails must be a positive multiple of 4")
    with dated("email_fanout.py", argv):
        return run(args)


def run(args: argparse.Namespace) -> int:
    logs = Path(tempfile.mkdtemp(prefix="keltis-fanout-"))
    print(f"logs in {logs}")
    with ExitStack() as stack:
        redis = stack.enter_context(infra.PrivateRedis())
        smtp = stack.enter_context(infra.SmtpCounter())
        reuse = args.reuse and common.database_exists(args.pg, args.database)
        if not reuse:
            infra.recreate_database(args.pg, args.database)
        env = infra.site_env(
            database_url=infra.pg_url(args.pg, args.database), broker_url=redis.url(0),
            smtp_port=smtp.port, site_url="http://127.0.0.1:8000", CACHE_URL=redis.url(1),
        )  # fmt: skip
        infra.manage(env, "migrate", "--noinput")
        workers = [
            stack.enter_context(infra.CeleryWorker(f"fanout{i}", env, logs / f"worker{i}.log"))
            for i in range(1, args.workers + 1)
        ]
        common.setup_django(env)

        setup_start = time.monotonic()
        game_ids = fixture(args.emails, reuse=True) if reuse else None
        if game_ids is None:
            if reuse:
                print("the previous fixture differs: building a new one")
                infra.recreate_database(args.pg, args.database)
                infra.manage(env, "migrate", "--noinput")
            print(f"setup: {args.emails} players in {args.emails // 4} games ...")
            game_ids = fixture(args.emails, reuse=False)
        print(f"setup took {time.monotonic() - setup_start:.0f} s ({len(game_ids)} games)")
        for worker in workers:
            infra.wait_until(worker.ready, 60, f"worker {worker.name}")
        # the finished games' own tasks (ratings, standings) run before the clock starts
        infra.wait_until(
            lambda: redis.queue_length() == 0 and all(w.idle() for w in workers),
            args.timeout, "the workers to be idle", step=0.5,
        )  # fmt: skip

        from notifications.tasks import deliver_game_notifications

        cpu_before = sum(w.cpu_seconds() for w in workers)
        start = time.monotonic()
        for game_id in game_ids:
            deliver_game_notifications.delay(game_id)
        queued = time.monotonic() - start
        with suppress(TimeoutError):  # reported below: fewer emails than expected arrived
            infra.wait_until(lambda: smtp.count >= args.emails, args.timeout, "every email", 0.05)
        elapsed = time.monotonic() - start
        cpu = sum(w.cpu_seconds() for w in workers) - cpu_before
        time.sleep(2)  # an email sent twice would arrive after the last one expected
        return report(args, smtp, workers, elapsed, queued, start, len(game_ids), cpu)


def report(
    args: argparse.Namespace, smtp: infra.SmtpCounter, workers: list[infra.CeleryWorker],
    elapsed: float, queued: float, start: float, games: int, cpu: float,
) -> int:  # fmt: skip
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
    target_rate = TARGET_EMAILS / TARGET_SECONDS
    mark = "ok" if rate >= target_rate and not problems else "BELOW TARGET"
    print(f"\n{games} games, {args.workers} worker processes (solo pool)")
    print(
        f"queueing {games} tasks took {queued:.1f} s; first email after "
        f"{(smtp.first_at or start) - start:.1f} s"
    )
    print(
        f"{arrived} emails in {elapsed:.1f} s: {rate:.0f} emails/s (target: "
        f"{TARGET_EMAILS:,} in < {TARGET_SECONDS} s, {target_rate:.0f} emails/s)  {mark}"
    )
    per_email = cpu / max(arrived, 1) * 1000
    tasks = [w.tasks_done("deliver_game") for w in workers]
    print(
        f"workers' CPU: {cpu:.1f} s, {per_email:.1f} ms per email (goal: <= {GOAL_CPU_MS} ms, "
        f"{per_email / common.reference_median():.2f}x the reference loop); "
        f"deliver tasks per worker: {tasks}"
    )
    print(
        f"SMTP connections: {len(smtp.peers)} for {sum(tasks)} tasks of {args.workers} worker "
        f"processes (each keeps one open between its tasks); outbox: {by_status}"
    )
    return verdict(problems, "ok: every player got exactly one email")


if __name__ == "__main__":
    sys.exit(main())
