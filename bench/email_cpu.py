"""One worker's CPU per email, run by hand (docs/benchmarks.md).

A worker's CPU per email, in one process: each shard's task (``deliver_shard``, as a burst of
moves wakes them) or, ``--path game``, the older task for every game
(``deliver_game_notifications``); the emails serialised by Django's SMTP backend into a
connection that discards them, the rows marked sent on PostgreSQL. The first round is a
warm-up; ``--profile N``: cProfile's top N.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import DEFAULT_PG, cli, dated, reference_median, setup_django
from bench.infra import manage, recreate_database, site_env
from bench.measure import count_queries
from bench.players import four_player_games, queue_again

TINY = {"games": 2, "rounds": 2, "turns": 2}


class _NullSmtp:
    """An SMTP connection that keeps no message."""

    def __init__(self, host: str, port: int, **params: Any) -> None:
        pass

    def sendmail(self, sender: str, recipients: list[str], message: bytes) -> dict[str, Any]:
        return {}

    def noop(self) -> tuple[int, bytes]:
        return 250, b"OK"

    def quit(self) -> None:
        pass

    close = quit


def main(argv: list[str] | None = None) -> int:
    args = cli(
        __doc__, argv, TINY,
        ("--games", 100, "4-player games"),
        ("--kind", "finished", "game over or turn emails", {"choices": ["finished", "turn"]}),
        ("--turns", 12, "turns played before a turn email"),
        ("--rounds", 3, "the first is a warm-up"),
        ("--path", "shard", "the task that sends", {"choices": ["shard", "game"]}),
        ("--profile", 0, "print the N costliest functions"),
        ("--pg", DEFAULT_PG, "PostgreSQL server (loopback)"),
        ("--database", "keltis_emailcpu_fanout", "the database to drop and create"),
    )  # fmt: skip
    with dated("email_cpu.py", argv):
        return run(args)


def run(args: argparse.Namespace) -> int:
    env = site_env(
        database_url=recreate_database(args.pg, args.database), broker_url="memory://",
        smtp_port=25, site_url="http://127.0.0.1:8000",
    )  # fmt: skip
    manage(env, "migrate", "--noinput")
    setup_django(env)
    from django.conf import settings
    from django.core.mail.backends.smtp import EmailBackend

    from notifications import outbox, relay
    from notifications.channels import email as email_channel
    from notifications.models import Notification, NotificationKind, NotificationStatus
    from notifications.tasks import deliver_game_notifications

    class NullSmtpBackend(EmailBackend):
        connection_class = _NullSmtp

    globals()["NullSmtpBackend"] = NullSmtpBackend  # importable by the setting's path
    settings.EMAIL_BACKEND = f"{__name__}.NullSmtpBackend"
    logging.getLogger().handlers[0].setStream(io.StringIO())  # the lines are written, not shown

    kind = NotificationKind(args.kind)
    print(f"setup: {args.games} games ...", flush=True)
    game_ids = four_player_games(
        args.games, "cpu", finish=args.kind == "finished", turns=args.turns
    )
    profile = cProfile.Profile(time.process_time) if args.profile else None
    per_round = []
    emails = tasks = 0
    for round_no in range(args.rounds):
        ids = queue_again(kind)
        emails = len(ids)
        measured = round_no > 0
        if profile is not None and measured:
            profile.enable()
        with count_queries() as queries:
            cpu = time.process_time()
            if args.path == "game":
                for game_id in game_ids:
                    deliver_game_notifications(game_id)
                tasks = len(game_ids)
            else:  # as notifications.tasks.deliver_shard: SHARD_TASK_ROWS rows, then a new task
                tasks = 0
                for shard in range(relay.SHARDS):
                    more = 1
                    while more:
                        relay.taken(shard)
                        more = outbox.deliver_shard(shard, relay.SHARDS).pop("more", 0)
                        tasks += 1
            cpu = time.process_time() - cpu
        if profile is not None and measured:
            profile.disable()
        sent = Notification.objects.filter(pk__in=ids, status=NotificationStatus.SENT).count()
        if sent != emails:
            print(f"FAILED: {sent} of {emails} emails sent in round {round_no + 1}")
            return 1
        per_round.append(cpu / emails * 1000)
        print(f"round {round_no + 1}: {emails} emails, CPU {cpu:.2f} s, "
              f"{per_round[-1]:.2f} ms per email, {queries[0] / emails:.1f} queries per email"
              + ("" if measured else " (warm-up)"))  # fmt: skip
    email_channel.close_kept()
    best = min(per_round[1:] or per_round)
    print(f"\n{args.kind} emails, {emails / tasks:.0f} a task: best {best:.2f} ms CPU per "
          f"email ({best / reference_median():.2f}x the reference loop)")  # fmt: skip
    if profile is not None:
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.profile)
            print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
