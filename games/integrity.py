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

from keltis_site.prepared import Prepared

from .after_response import call_after_response
from .event_chain import ROW_COLUMNS, ChainProblem, ChainRow, check_link, verify_game_chain
from .models import Event, Game, GameStatus

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


class ChainHeadBroken(LogNotReplayable):
    """The link an action was to extend is broken: the game's last stored event is missing or
    no longer hashes to the game's chain head. A ``LogNotReplayable`` (a log nobody can build
    on), so the action's ``frozen_on_bad_log`` freezes the game after the rollback and the
    caller gets ``GameFrozen``."""

    def __init__(self, game_id: int, problems: Sequence[ChainProblem]) -> None:
        self.problems = list(problems)
        Exception.__init__(self, chain_reason(self.problems))
        self.game_id = game_id
        self.seq = (problems[0].seq or 0) if problems else 0
        self.error = self

    @property
    def reason(self) -> str:
        return str(self)


#: the one read of the link check: the event the game's count names (read by the action under
#: the game's lock), by the unique index on (game, seq), compiled once (keltis_site.prepared).
#: A join on the game's count instead let PostgreSQL without statistics (a new database) walk
#: every event of the game on each action: 84 ms at the 440th move of a test's game.
_LAST_EVENT = Prepared(
    lambda game_id, seq: Event.objects.filter(game_id=game_id, seq=seq)
    .order_by()
    .values_list(*ROW_COLUMNS)
)


def check_head(game_id: int, seq: int, head: str) -> None:
    """Before an action links an event to ``head`` (the game's chain head, read with its count
    ``seq`` under the game's lock): the stored event ``seq`` must still hash to that head. One
    indexed row read (none before the first event) and one HMAC; ``ChainHeadBroken``
    otherwise. The rest of the chain is ``check_running_chains``'."""
    if seq == 0:
        found = None
    else:
        rows = _LAST_EVENT.rows(game_id, seq)
        found = ChainRow(*rows[0]) if rows else None
    problems = check_link(game_id, seq, head, found)
    if problems:
        raise ChainHeadBroken(game_id, problems)


def check_running_chains() -> dict[str, int]:
    """The periodic check (beat, ``games.tasks.verify_running_chains``): every running game's
    whole chain, one game at a time, locked while it is read (a move committing meanwhile
    cannot look like an extra event). The result goes on the game row for the admin
    (``chain_checked_at``, ``chain_intact``); a broken chain freezes the game, which tells
    staff once per freeze. Idempotent: a second run finds what the first found and changes
    nothing but the time checked."""
    counts = {"checked": 0, "broken": 0, "frozen": 0}
    running = Game.objects.filter(status=GameStatus.RUNNING).order_by("pk")
    for game_id in running.values_list("pk", flat=True).iterator():
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(of=("self",))
                .only("pk", "kind", "player_count", "options", "setup", "seq", "chain_head")
                .filter(pk=game_id)
                .first()
            )
            if game is None:
                continue
            problems = verify_game_chain(game)
            Game.objects.filter(pk=game_id).update(
                chain_checked_at=timezone.now(), chain_intact=not problems
            )
            if problems:
                counts["broken"] += 1
                counts["frozen"] += game_freeze(game_id=game_id, reason=chain_reason(problems))
        counts["checked"] += 1
    return counts


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
