"""manage.py resign_event_chains [--game ID ...] [--unkeyed]: sign the event chains anew with
the first key of EVENT_CHAIN_KEYS, after a key rotation."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from games.event_chain import current_keys, events_writable, resign_game
from games.integrity import chain_reason, game_freeze
from games.models import Event, Game


class Command(BaseCommand):
    help = (
        "Re-sign every game's event hash chain (or those of --game) with the first key of "
        "EVENT_CHAIN_KEYS, so that an older key can be dropped. Only chains that verify under "
        "the configured keys are re-signed (a broken one would be laundered): those are "
        "frozen and listed, and the command exits with status 1. Games whose events are all "
        "signed with the first key already are passed by, so a run can be repeated."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", dest="games", type=int, action="append", metavar="ID",
            help="only this game (repeat for more)",
        )
        parser.add_argument(
            "--unkeyed", action="store_true",
            help="also accept plain SHA-256 hashes from before the keying (migration 0016): "
            "for a log restored from an older backup. Only with --game.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["unkeyed"] and not options["games"]:
            raise CommandError("--unkeyed needs --game: name the restored games")
        verify = current_keys(unkeyed=options["unkeyed"])
        sign = current_keys()
        games = Game.objects.order_by("pk")
        if options["games"]:
            games = games.filter(pk__in=options["games"])
        resigned = passed = 0
        broken: list[int] = []
        for game_id in games.values_list("pk", flat=True).iterator():
            with transaction.atomic():
                if not Event.objects.filter(game_id=game_id).exclude(
                    hash_key=sign.signing_id
                ).exists():
                    passed += 1
                    continue
                game = Game.objects.select_for_update(of=("self",)).get(pk=game_id)
                with events_writable(connection):
                    problems, count = resign_game(game, Event, verify, sign)
                if problems:
                    game_freeze(game_id=game_id, reason=chain_reason(problems))
                    broken.append(game_id)
                    self.stdout.write(self.style.ERROR(f"game {game_id}: not re-signed"))
                    for problem in problems:
                        self.stdout.write(self.style.ERROR(f"  {problem}"))
                else:
                    resigned += 1
                    self.stdout.write(f"game {game_id}: {count} event(s) re-signed")
        self.stdout.write(
            f"re-signed {resigned} game(s), {passed} signed with the first key already, "
            f"{len(broken)} with a broken chain"
        )
        if broken:
            ids = ", ".join(map(str, broken))
            raise CommandError(f"{len(broken)} game(s) with a broken event chain: {ids}")
