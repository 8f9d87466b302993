"""Freezing a game whose event log failed an integrity check.

A game is frozen when its hash chain is broken (``games.event_chain``: an event changed,
missing or added behind the game's back) or when its events do not replay (the engine refuses
one: a forged illegal event, or an engine change the log no longer fits). Playing on would
build on a record nobody can trust, so a frozen game takes no action from anyone (people,
links, bots, the deadline sweep) and its pages say so, until staff have repaired the log and
unfrozen it (``games.maintenance.game_unfreeze``, which checks the log again first).

Freezing is a protective reaction to what a check found, not a player's doing: it happens
wherever the problem shows (the chain check, ``rebuild_snapshots``, a replay for a page or an
action), even in a GET, and it is idempotent (a conditional update: the first detection
freezes, later ones change nothing). Staff learn of it once per freeze, after it committed:
an ERROR log line and, when ``settings.ADMINS`` names anyone, an email.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.conf import settings
from django.core.mail import mail_admins
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext

from .after_response import call_after_response
from .event_chain import ChainProblem
from .models import Game

log = logging.getLogger(__name__)

#: chain problems written into a freeze reason; the rest are counted (verify_event_chains
#: lists them all)
REASON_PROBLEMS = 20


class LogNotReplayable(Exception):
    """A game's stored events do not replay: the engine refused the event ``seq`` (0: the
    game's setup itself).

    Its text names the error's type and the engine's message id, never the message: that may
    name a card of a hand ("You do not hold r5"), and the text goes to logs, the admin and
    email. ``error`` keeps the whole error for a debugger."""

    def __init__(self, game_id: int, seq: int, error: BaseException) -> None:
        self.game_id = game_id
        self.seq = seq
        self.error = error
        code = getattr(error, "code", None)
        what = type(error).__name__ + (f" ({code})" if isinstance(code, str) else "")
        super().__init__(f"game {game_id} seq {seq}: the engine refused it: {what}")

    @property
    def reason(self) -> str:
        """The freeze reason this failure gives."""
        return f"the event log does not replay: {self}"


def chain_reason(problems: Sequence[ChainProblem]) -> str:
    """The freeze reason a broken chain gives: its problems, one a line."""
    lines = [f"the event chain is broken ({len(problems)} problem(s)):"]
    lines += [f"  {problem}" for problem in problems[:REASON_PROBLEMS]]
    if len(problems) > REASON_PROBLEMS:
        lines.append(f"  ... and {len(problems) - REASON_PROBLEMS} more")
    return "\n".join(lines)


def game_freeze(*, game_id: int, reason: str) -> bool:
    """Freeze the game unless it is frozen already; True when this call froze it. Staff are
    told once the freeze has committed (in a transaction that rolls back, nothing happened)."""
    frozen = Game.objects.filter(pk=game_id, frozen_at__isnull=True).update(
        frozen_at=timezone.now(), frozen_reason=reason
    )
    if frozen:
        transaction.on_commit(lambda: _tell_staff(game_id, reason))
    return bool(frozen)


def freeze_if_unreplayable(found: LogNotReplayable | None) -> None:
    """Freeze the game a page's replay found not to replay (``found``; None: nothing found)."""
    if found is not None:
        game_freeze(game_id=found.game_id, reason=found.reason)


def _tell_staff(game_id: int, reason: str) -> None:
    log.error("game frozen: its event log failed an integrity check",
              extra={"game_id": game_id, "reason": reason})
    if settings.ADMINS:
        # after the response in a web request: a slow mail server does not hold up the page
        call_after_response(_mail_admins, game_id, reason)


def _mail_admins(game_id: int, reason: str) -> None:
    """The email to ``settings.ADMINS``, in the site's language (staff have no profile
    language of their own here)."""
    with translation.override(settings.LANGUAGE_CODE):
        subject = gettext("Game %(id)s is frozen: its move record failed an integrity check") % {
            "id": game_id
        }
        body = gettext(
            "Nobody can act in game %(id)s until it is unfrozen. What the check found:\n\n"
            "%(reason)s\n\n"
            "Repair the event log, then unfreeze the game in the admin or with "
            "\"manage.py unfreeze_game %(id)s\": both check the log again first."
        ) % {"id": game_id, "reason": reason}
    mail_admins(subject, body, fail_silently=True)
