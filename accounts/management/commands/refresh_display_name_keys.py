"""manage.py refresh_display_name_keys: compute the display names' look-alike keys again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.services import display_name_keys_refresh


class Command(BaseCommand):
    help = (
        "Compute every player's display-name keys again with the installed ICU (run it after "
        "an upgrade of ICU or PyICU: the confusables data can change between Unicode "
        "versions). Names that now read like an older player's are numbered; each change is "
        "listed."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        renamed = display_name_keys_refresh()
        for change in renamed:
            self.stdout.write(f"{change.username}: {change.old!r} -> {change.new!r}")
        self.stdout.write(f"{len(renamed)} display name(s) changed")
