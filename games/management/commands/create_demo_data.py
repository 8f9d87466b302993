"""manage.py create_demo_data [--players N]: demo users, bot games and what other apps add for
them (tournaments: a league), idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.maintenance import DEMO_PASSWORD, create_demo_data


class Command(BaseCommand):
    help = (
        "Create demo users demo1..N (no emails sent to them), a demo league and games with bots "
        "at various stages. Running it again creates only what is missing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=6, help="demo users (default 6)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = create_demo_data(players=options["players"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        out = self.stdout
        out.write(f"users created: {len(report.users)}" + (
            f" ({', '.join(report.users)})" if report.users else ""
        ))
        for note in report.notes:
            out.write(note)
        out.write(f"games created: {len(report.games)}")
        for game_id, owner, status, moves in report.games:
            out.write(f"  game {game_id}: {owner}, {status}, {moves} actions")
        if report.password_set:
            out.write(self.style.WARNING(f"demo password: {DEMO_PASSWORD}"))
        if not (report.users or report.others_created or report.games):
            out.write("nothing new: the demo data exists already")
