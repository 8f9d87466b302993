"""manage.py export_user_data USERNAME_OR_EMAIL [--output FILE]: a user's data as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from games.maintenance import export_user_data, find_user


class Command(BaseCommand):
    help = (
        "Write everything the site holds about one user as JSON (no password hash, no other "
        "player's email address, no hidden cards)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user", metavar="USERNAME_OR_EMAIL")
        parser.add_argument("--output", "-o", metavar="FILE", help="write here, not to stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            user = find_user(options["user"])
        except User.DoesNotExist as exc:
            raise CommandError(str(exc)) from None
        text = json.dumps(export_user_data(user), indent=2, ensure_ascii=False) + "\n"
        if options["output"]:
            Path(options["output"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"wrote {options['output']}")
        else:
            self.stdout.write(text, ending="")
