"""manage.py rebuild_snapshots [--game ID ...]: recompute snapshots from the event logs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.maintenance import rebuild_snapshots


class Command(BaseCommand):
    help = (
        "Recompute every started game's snapshot from its event log and report the games whose "
        "stored snapshot differed (a bug, or a change of the engine code). A game whose event "
        "chain is broken keeps its snapshot and is frozen, as is one whose log does not replay; "
        "either makes the command exit with status 1."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", dest="games", type=int, action="append", metavar="ID",
            help="rebuild only this game (repeat for more)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = rebuild_snapshots(options["games"])
        self.stdout.write(f"rebuilt {report.rebuilt} snapshot(s), {len(report.differed)} differed")
        for game_id, why in report.differed.items():
            self.stdout.write(self.style.WARNING(f"game {game_id}: stored snapshot {why}"))
        for game_id, problems in report.refused.items():
            self.stderr.write(
                self.style.ERROR(
                    f"game {game_id}: event chain broken, snapshot left as it was, game frozen"
                )
            )
            for problem in problems:
                self.stderr.write(self.style.ERROR(f"  {problem}"))
        for game_id, error in report.failed.items():
            self.stderr.write(self.style.ERROR(f"game {game_id}: replay failed: {error}"))
        if report.refused or report.failed:
            raise CommandError(
                f"{len(report.refused)} game(s) with a broken event chain not rebuilt, "
                f"{len(report.failed)} game(s) could not be replayed"
            )
