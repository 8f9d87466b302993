"""manage.py unfreeze_game ID [ID ...]: let repaired frozen games go on."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.maintenance import StillBroken, game_unfreeze
from games.models import Game


class Command(BaseCommand):
    help = (
        "Unfreeze games whose event log failed an integrity check, once it is sound again: "
        "each game's hash chain must verify and its events must replay, or it stays frozen. "
        "The seat to move gets a fresh clock. Exits with status 1 when any game stays frozen."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("games", type=int, nargs="+", metavar="ID", help="a frozen game")

    def handle(self, *args: Any, **options: Any) -> None:
        refused = []
        for game_id in options["games"]:
            try:
                game_unfreeze(game_id=game_id)
            except Game.DoesNotExist:
                refused.append(game_id)
                self.stderr.write(self.style.ERROR(f"game {game_id}: no such game"))
            except StillBroken as exc:
                refused.append(game_id)
                self.stderr.write(self.style.ERROR(f"game {game_id} stays frozen: {exc}"))
            else:
                self.stdout.write(f"game {game_id} unfrozen")
        if refused:
            raise CommandError(f"not unfrozen: {', '.join(map(str, refused))}")
