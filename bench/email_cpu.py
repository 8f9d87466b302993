"""One worker's CPU per email, run by hand: ``python bench/email_cpu.py [--games 100]
[--kind finished|turn] [--rounds 3] [--profile 30] [--database keltis_emailcpu_fanout]``.

bench/email_fanout.py measures the whole fan-out (Redis, Celery, two workers, a real SMTP
server); this one measures, in one process, what a worker spends on each email of a
``deliver_game_notifications`` task: the task is called directly for every game, its emails
written and serialised by Django's SMTP backend into a connection that discards them, and the
rows marked sent on PostgreSQL. ``--kind finished``: a 4-player game over, four emails a task
(the season close of email_fanout.py); ``--kind turn``: a 4-player game ``--turns`` turns
in, one turn email a task. The same rows are queued again for each round; the first round
(templates compiled, caches warmed) is left out of the figure. ``--profile N`` prints
cProfile's N most expensive functions (cumulative) over the measured rounds.
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

from bench.common import DEFAULT_PG, footer, header, parse_args, reference_line, reference_median
from bench.infra import manage, pg_url, recreate_database, site_env, use_env

SEATS = 4
KINDS = ("keltis", "keltis-cards")
TINY = {"games": 2, "rounds": 2, "turns": 2}


class _NullSmtp:
    """An SMTP connection that accepts every message and keeps none of it."""

    def __init__(self, host: str, port: int, **params: Any) -> None:
        self.sent = 0

    def sendmail(self, sender: str, recipients: list[str], message: bytes) -> dict[str, Any]:
        self.sent += 1
        return {}

    def noop(self) -> tuple[int, bytes]:
        return 250, b"OK"

    def quit(self) -> None:
        pass

    def close(self) -> None:
        pass


class _QueryCount:
    """A database execute wrapper that counts the statements."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


def _backend_class() -> type:
    from django.core.mail.backends.smtp import EmailBackend

    class NullSmtpBackend(EmailBackend):
        """Django's SMTP backend (it serialises every message) over ``_NullSmtp``."""

        @property
        def connection_class(self) -> type[_NullSmtp]:
            return _NullSmtp

    return NullSmtpBackend


def create_games(games: int, finish: bool, turns: int = 0) -> list[int]:
    """``games`` 4-player games of fresh players, started (and decided, with ``finish``; else
    ``turns`` turns played by a random bot) through the services with no task queued;
    returns their ids."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from games import services, state
    from games.models import Game

    users = User.objects.bulk_create(
        User(
            username=f"cpu{i:05d}", email=f"cpu{i:05d}@example.test",
            display_name=f"Cpu {i}", password=make_password(None),
        )
        for i in range(games * SEATS)
    )
    ids = []
    saved = list(services.AFTER_COMMIT_HOOKS)
    services.AFTER_COMMIT_HOOKS.clear()
    try:
        for g in range(games):
            with transaction.atomic():
                table = users[g * SEATS : (g + 1) * SEATS]
                game = services.game_create(creator=table[0], kind=KINDS[g % 2], player_count=SEATS)
                for user in table[1:]:
                    services.game_join(game_id=game.pk, user=user)
                if finish:
                    game = Game.objects.select_for_update().get(pk=game.pk)
                    services.game_finish_early(game, state.engine_state(game), timezone.now())
                else:
                    _play(game.pk, table, turns)
                ids.append(game.pk)
    finally:
        services.AFTER_COMMIT_HOOKS[:] = saved
    return ids


def _play(game_id: int, users: list[Any], turns: int) -> None:
    """``turns`` whole turns of random legal actions (a game in its middle: events to list
    under "since your last turn", cards drawn from piles)."""
    from games import services, state
    from games.engine.bots import RandomBot
    from games.models import Game, GameStatus

    bot = RandomBot(game_id)
    for _ in range(turns):
        game = Game.objects.get(pk=game_id)
        seat = game.to_move
        while game.status == GameStatus.RUNNING and game.to_move == seat:
            services.action_submit(
                game_id=game.pk, seat=seat, action=bot.choose(state.engine_state(game)),
                expected_seq=game.seq, user=users[seat],
            )  # fmt: skip
            game = Game.objects.get(pk=game_id)


def requeue(kind: str) -> list[int]:
    """Queue the ``kind`` rows again (all others sent); returns their ids."""
    from django.db.models import F
    from django.utils import timezone

    from notifications.models import Notification, NotificationKind, NotificationStatus

    Notification.objects.update(status=NotificationStatus.SENT)
    rows = Notification.objects.filter(kind=kind)
    if kind == NotificationKind.TURN:  # the turns on now: the earlier ones would be skipped
        rows = rows.filter(seq=F("game__turn_seq"), seat=F("game__to_move"))
    ids = list(rows.values_list("pk", flat=True))
    Notification.objects.filter(pk__in=ids).update(
        status=NotificationStatus.QUEUED, attempts=0, sent_at=None,
        next_attempt_at=timezone.now(), last_error="",
    )
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--kind", choices=["finished", "turn"], default="finished")
    parser.add_argument("--turns", type=int, default=12, help="turns played before a turn email")
    parser.add_argument("--rounds", type=int, default=3, help="the first is a warm-up")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions")
    parser.add_argument("--profile-out", default="", help="also write the profile to this file")
    parser.add_argument("--pg", default=DEFAULT_PG)
    parser.add_argument("--database", default="keltis_emailcpu_fanout")
    args = parse_args(parser, argv, TINY)
    started = time.perf_counter()
    print("\n".join(header("bench/email_cpu.py " + " ".join(argv or sys.argv[1:]))))
    try:
        return run(args)
    finally:
        print(reference_line())
        print("\n".join(footer(started)))


def run(args: argparse.Namespace) -> int:
    env = site_env(
        database_url=pg_url(args.pg, args.database), broker_url="memory://", smtp_port=25,
        site_url="http://127.0.0.1:8000",
    )
    recreate_database(args.pg, args.database)
    manage(env, "migrate", "--noinput")
    use_env(env)
    from django.conf import settings
    from django.db import connection

    from notifications.channels import email as email_channel
    from notifications.models import Notification, NotificationKind, NotificationStatus
    from notifications.tasks import deliver_game_notifications

    globals()["_NullSmtpBackend"] = _backend_class()
    settings.EMAIL_BACKEND = f"{__name__}._NullSmtpBackend"
    logging.getLogger().handlers[0].setStream(io.StringIO())  # the lines are written, not shown

    kind = NotificationKind.FINISHED if args.kind == "finished" else NotificationKind.TURN
    print(f"setup: {args.games} games ...", flush=True)
    game_ids = create_games(args.games, finish=args.kind == "finished", turns=args.turns)
    profile = cProfile.Profile(time.process_time) if args.profile else None
    per_round = []
    emails = 0
    for round_no in range(args.rounds):
        ids = requeue(kind)
        emails = len(ids)
        measured = round_no > 0
        if profile is not None and measured:
            profile.enable()
        queries = _QueryCount()
        with connection.execute_wrapper(queries):
            cpu = time.process_time()
            for game_id in game_ids:
                deliver_game_notifications(game_id)
            cpu = time.process_time() - cpu
        if profile is not None and measured:
            profile.disable()
        sent = Notification.objects.filter(pk__in=ids, status=NotificationStatus.SENT).count()
        if sent != emails:
            print(f"FAILED: {sent} of {emails} emails sent in round {round_no + 1}")
            return 1
        per_round.append(cpu / emails * 1000)
        print(f"round {round_no + 1}: {emails} emails, CPU {cpu:.2f} s, "
              f"{per_round[-1]:.2f} ms per email, {queries.count / emails:.1f} queries per email"
              + ("" if measured else " (warm-up)"))
    email_channel.close_kept()
    measured_rounds = per_round[1:] or per_round
    best = min(measured_rounds)
    print(f"\n{args.kind} emails, {emails // len(game_ids)} a task: best {best:.2f} ms CPU per "
          f"email ({best / reference_median():.2f}x the reference loop)")
    if profile is not None and args.profile_out:
        profile.dump_stats(args.profile_out)
    if profile is not None:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.profile)
        print(out.getvalue())
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
