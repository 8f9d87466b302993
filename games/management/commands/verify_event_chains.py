"""manage.py verify_event_chains [--game ID ...]: check the event logs' hash chains."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.maintenance import verify_event_chains


class Command(BaseCommand):
    help = (
        "Recompute every game's event hash chain from its stored events and report each game "
        "whose log was changed: a missing seq, an event whose content differs from its hash, a "
        "broken link, or a stored event count that differs from the game's. A game with a broken "
        "chain is frozen (no one acts in it until unfreeze_game). Exits with status 1 when any "
        "chain is broken."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", dest="games", type=int, action="append", metavar="ID",
            help="check only this game (repeat for more)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = verify_event_chains(options["games"])
        for game_id, problems in report.broken.items():
            self.stdout.write(self.style.ERROR(f"game {game_id}: {len(problems)} problem(s)"))
            for problem in problems:
                self.stdout.write(self.style.ERROR(f"  {problem}"))
            state = "frozen now" if game_id in report.frozen else "frozen already"
            self.stdout.write(self.style.ERROR(f"  game {game_id} is {state}"))
        self.stdout.write(
            f"checked {report.checked} game(s), {len(report.broken)} with a broken chain"
        )
        if report.unknown:
            raise CommandError(f"no game with id {', '.join(map(str, report.unknown))}")
        if report.broken:
            ids = ", ".join(map(str, report.broken))
            raise CommandError(f"{len(report.broken)} game(s) with a broken event chain: {ids}")
