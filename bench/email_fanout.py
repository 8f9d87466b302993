"""Email fan-out benchmark, run by hand (docs/benchmarks.md).

Many games' emails at once: each game's commit wakes the delivery (``notifications.relay``,
as a move's after-commit hook does), and Celery workers on a private Redis send them by the
shards' tasks to a counting SMTP server. ``--kind finished``: a league
season closes, its running 4-player games are decided (``game_finish_early``), each queues a
"game over" email for its four players. ``--kind turn``: as many 4-player games as emails,
``--turns`` turns in, each with the turn email of its player to move queued (one a game: the
sender skips a turn that moved on, so a game cannot give several). Prints the time until the
last email arrived against the target and checks each queued row was sent exactly once, to its
player. ``--reuse`` keeps the previous run's games and queues their rows again (the setup is
slow).
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
from bench.players import four_player_games, queue_again

TARGET_EMAILS = 10_000
#: seconds for ``TARGET_EMAILS`` of each ``--kind``; issue 30's goal for turn emails is 60
TARGET_SECONDS = {"finished": 120, "turn": 60}
#: emails a game of each ``--kind``
PER_GAME = {"finished": 4, "turn": 1}
#: issue 30's goal for the workers' CPU per email (it was 7.3 ms)
GOAL_CPU_MS = 2.0
BATCH = 25  # games per transaction in the setup, as a season close decides many in one
#: ``--tiny``: eight emails (two games' or eight), one worker (tests/bench/)
TINY = {"emails": 8, "workers": 1, "timeout": 60.0}


def fixture(args: argparse.Namespace, reuse: bool) -> tuple[list[int], list[int]] | None:
    """The games and their queued rows of ``args.kind`` (ids): the previous run's, queued again
    (None if they differ), or games made now; every other row counts as sent long ago (the
    turn emails before a season's close, those of the turns before the one on now)."""
    from notifications.models import Notification, NotificationKind

    if reuse:
        kinds = [NotificationKind.FINISHED, NotificationKind.TURN]
        if Notification.objects.exclude(kind__in=kinds).exists():
            return None
    else:
        finish = args.kind == "finished"
        four_player_games(
            args.emails // PER_GAME[args.kind], "fan", finish=finish,
            turns=0 if finish else args.turns, batch=BATCH,
        )  # fmt: skip
    ids = queue_again(args.kind)
    if len(ids) != args.emails:
        if reuse:
            return None
        raise RuntimeError(f"the setup queued {len(ids)} {args.kind} rows, not {args.emails}")
    games = Notification.objects.filter(pk__in=ids).values_list("game_id", flat=True)
    return sorted(set(games)), ids


def main(argv: list[str] | None = None) -> int:
    parser = command_line(
        __doc__,
        ("--emails", 10_000, "a multiple of 4 for --kind finished"),
        ("--kind", "finished", "game over or turn emails", {"choices": ["finished", "turn"]}),
        ("--turns", 1, "--kind turn: turns played before its email"),
        ("--workers", 2, "Celery worker processes (solo pool)"),
        ("--reuse", False, "keep the previous run's games"),
        ("--timeout", 900.0, "give up after (seconds)"),
        ("--pg", DEFAULT_PG, "PostgreSQL server (loopback)"),
        ("--database", "keltis_fanout", "the database to drop and create (keltis_NAME_fanout)"),
    )
    args = parse_args(parser, argv, TINY)
    if args.emails <= 0 or args.emails % PER_GAME[args.kind]:
        parser.error(f"--emails must be a positive multiple of {PER_GAME[args.kind]}")
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
        queued = fixture(args, reuse=True) if reuse else None
        if queued is None:
            if reuse:
                print("the previous fixture differs: building a new one")
                infra.recreate_database(args.pg, args.database)
                infra.manage(env, "migrate", "--noinput")
            games = args.emails // PER_GAME[args.kind]
            turns = "" if args.kind == "finished" else f", turns played: {args.turns}"
            print(f"setup: {games * 4} players in {games} games{turns} ...")
            queued = fixture(args, reuse=False)
        game_ids, row_ids = queued
        print(f"setup took {time.monotonic() - setup_start:.0f} s ({len(game_ids)} games)")
        for worker in workers:
            infra.wait_until(worker.ready, 60, f"worker {worker.name}")
        # the finished games' own tasks (ratings, standings) run before the clock starts
        infra.wait_until(
            lambda: redis.queue_length() == 0 and all(w.idle() for w in workers),
            args.timeout, "the workers to be idle", step=0.5,
        )  # fmt: skip

        from notifications.tasks import wake

        cpu_before = sum(w.cpu_seconds() for w in workers)
        start = time.monotonic()
        for game_id in game_ids:
            wake(game_id)  # what each game's after-commit hook does
        queueing = time.monotonic() - start
        with suppress(TimeoutError):  # reported below: fewer emails than expected arrived
            infra.wait_until(lambda: smtp.count >= args.emails, args.timeout, "every email", 0.05)
        elapsed = time.monotonic() - start
        cpu = sum(w.cpu_seconds() for w in workers) - cpu_before
        time.sleep(2)  # an email sent twice would arrive after the last one expected
        return report(args, smtp, workers, elapsed, queueing, start, len(game_ids), row_ids, cpu)


def report(
    args: argparse.Namespace, smtp: infra.SmtpCounter, workers: list[infra.CeleryWorker],
    elapsed: float, queued: float, start: float, games: int, row_ids: list[int], cpu: float,
) -> int:  # fmt: skip
    from django.db.models import Count

    from notifications.models import Notification

    rows = Notification.objects.filter(pk__in=row_ids)
    by_status = {r["status"]: r["n"] for r in rows.values("status").annotate(n=Count("pk"))}
    players = set(rows.values_list("user__email", flat=True))
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
    strangers = set(smtp.recipients) - players
    if strangers:
        problems.append(f"{len(strangers)} recipients have no queued row, e.g. {[*strangers][:3]}")
    if by_status.get("sent") != args.emails:
        problems.append(f"outbox rows by status: {by_status}")

    rate = arrived / elapsed
    target_seconds = TARGET_SECONDS[args.kind]
    target_rate = TARGET_EMAILS / target_seconds
    mark = "ok" if rate >= target_rate and not problems else "BELOW TARGET"
    print(f"\n{games} games, {args.workers} worker processes (solo pool); {args.kind} emails, "
          f"{PER_GAME[args.kind]} a game")  # fmt: skip
    print(
        f"waking the delivery of {games} games took {queued:.1f} s; first email after "
        f"{(smtp.first_at or start) - start:.1f} s"
    )
    print(
        f"{arrived} emails in {elapsed:.1f} s: {rate:.0f} emails/s (target: "
        f"{TARGET_EMAILS:,} in < {target_seconds} s, {target_rate:.0f} emails/s)  {mark}"
    )
    per_email = cpu / max(arrived, 1) * 1000
    tasks = [w.tasks_done("deliver_") for w in workers]
    print(
        f"workers' CPU: {cpu:.1f} s, {per_email:.1f} ms per email (goal: <= {GOAL_CPU_MS} ms, "
        f"{per_email / common.reference_median():.2f}x the reference loop); "
        f"deliver tasks per worker: {tasks}"
    )
    print(
        f"SMTP connections: {len(smtp.peers)} for {sum(tasks)} tasks of {args.workers} worker "
        f"processes (each keeps one open between its tasks); outbox: {by_status}"
    )
    who = "player" if args.kind == "finished" else "player to move"
    return verdict(problems, f"ok: every {who} got exactly one email (each row sent once)")


if __name__ == "__main__":
    sys.exit(main())
