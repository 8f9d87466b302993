"""Bot accounts: a player turns their account into a bot, for good.

A bot account plays only through the API (the game pages and emailed links refuse its moves)
and is shown as a bot wherever its name appears. It is not undone: opponents who played it
should keep knowing it was a program.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _


class BotAccountError(Exception):
    """A refused request, worded for the player."""


def account_make_bot(*, user: Any) -> Any:
    """Mark ``user`` as a bot account (irreversible)."""
    from accounts.models import EmailMode, User

    with transaction.atomic():
        row = User.objects.select_for_update().get(pk=user.pk)
        if row.is_bot:
            raise BotAccountError(_("This account is a bot account already."))
        row.is_bot = True
        # no turn emails: their links and replies would be moves off the API
        row.email_mode = EmailMode.NONE
        row.save(update_fields=["is_bot", "email_mode"])
    user.is_bot, user.email_mode = True, EmailMode.NONE
    return user


def is_bot_account(user: Any) -> bool:
    return bool(getattr(user, "is_bot", False))
