"""What one player may have created of tournaments: so many open for sign-up at once, and so
many in any 24 hours (a tournament nobody joins is cancelled when its sign-up ends and stays in
the public list, so the first limit alone would let one account fill that list over time).

Counted in the database under the creator's row lock, as games' are (games.creation_limits);
staff are not limited.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils.translation import ngettext

from games.creation_limits import is_limited, lock_creator

from .models import Tournament

WINDOW = timedelta(hours=24)


def tournament_refusal(creator: Any, now: datetime) -> str | None:
    """Why ``creator`` may not create a tournament now, worded for them, or None if they may.

    Call inside the creating transaction: it locks the creator's row first."""
    if not is_limited(creator):
        return None
    lock_creator(creator)
    mine = Tournament.objects.filter(created_by=creator)
    limit = settings.MAX_SIGNUP_TOURNAMENTS_PER_PLAYER
    if mine.filter(status=Tournament.Status.SIGNUP).count() >= limit:
        return ngettext(
            "You may have at most %(n)s tournament open for sign-up: create the next one when "
            "its sign-up has closed.",
            "You may have at most %(n)s tournaments open for sign-up: create the next one when "
            "the sign-up of one of them has closed.",
            limit,
        ) % {"n": limit}
    limit = settings.MAX_TOURNAMENTS_PER_PLAYER_PER_DAY
    if mine.filter(created_at__gt=now - WINDOW).count() >= limit:
        return ngettext(
            "You may create at most %(n)s tournament in 24 hours: please try again later.",
            "You may create at most %(n)s tournaments in 24 hours: please try again later.",
            limit,
        ) % {"n": limit}
    return None
