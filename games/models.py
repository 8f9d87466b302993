"""Games stored as append-only event logs, with a cached engine snapshot.

The setup is stored in explicit record form (never re-derived from a seed), each action as an
``Event`` row that is never updated or deleted, and ``Snapshot`` holds the engine state after
``seq`` events so that a page or a move need not replay the whole game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, router
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from keltis_site.prepared import PreparedInsert

from . import event_chain


class GameKind(models.TextChoices):
    """The engine's game names."""

    BOARD = "keltis", _("Keltis")
    CARDS = "keltis-cards", _("Keltis: the card game")


#: each kind's name, translated when read
_KIND_NAMES = dict(GameKind.choices)


class GameStatus(models.TextChoices):
    OPEN = "open", _("waiting for players")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    CANCELLED = "cancelled", _("cancelled")


class BotKind(models.TextChoices):
    """A bot seat's engine bot (games.engine.bots.make_bot). The levels a player chooses are
    easy, normal and strong; ``random`` and ``greedy`` (the normal bot's engine name) stay for
    the games and tools that already use them."""

    EASY = "easy", _("easy bot")
    NORMAL = "normal", _("normal bot")
    STRONG = "strong", _("strong bot")
    RANDOM = "random", _("random bot")
    GREEDY = "greedy", _("greedy bot")


#: the bot levels a player may choose for a seat, weakest first
BOT_LEVELS = (BotKind.EASY, BotKind.NORMAL, BotKind.STRONG)


DAYS_PER_MOVE_CHOICES = [(d, d) for d in (1, 2, 3, 5, 7, 14)]


class Game(models.Model):
    kind = models.CharField(_("game"), max_length=20, choices=GameKind.choices)
    options = models.JSONField(_("options"), default=dict, blank=True)
    player_count = models.PositiveSmallIntegerField(
        _("players"), validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    days_per_move = models.PositiveSmallIntegerField(
        _("days per move"), choices=DAYS_PER_MOVE_CHOICES, default=3
    )
    status = models.CharField(
        max_length=10, choices=GameStatus.choices, default=GameStatus.OPEN, db_index=True
    )
    #: the explicit record setup (hands, deck, removed, tiles): hidden while the game runs
    setup = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_games",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: how many events the game has; the next event gets seq + 1
    seq = models.PositiveIntegerField(default=0)
    #: seat index whose action is awaited (None unless running); indexed for "my turn" lists
    to_move = models.PositiveSmallIntegerField(null=True, blank=True, db_index=True)
    #: when the seat to move last got the turn (start of its clock)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    #: the number of events when the current turn began: email links are bound to it
    turn_seq = models.PositiveIntegerField(default=0)
    #: time bank (Fischer): grows by the increment per move up to the cap; 0 = no bank
    bank_increment_hours = models.PositiveSmallIntegerField(
        _("time bank per move (hours)"), default=0
    )
    bank_cap_hours = models.PositiveSmallIntegerField(_("time bank cap (hours)"), default=0)
    #: when the seat to move times out; the deadline sweep reads this indexed column only
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    #: how often a turn's deadline has been moved in this game (a vacation, an unfreeze), and
    #: when it last was: the calendar feed's SEQUENCE and LAST-MODIFIED count such moves
    deadline_moves = models.PositiveIntegerField(default=0)
    deadline_moved_at = models.DateTimeField(null=True, blank=True)
    #: when the next reminder to the seat to move is due (None: no reminder left this turn)
    reminder_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: consecutive timeouts after which a seat is retired
    max_timeouts = models.PositiveSmallIntegerField(default=3)
    #: counts for ratings when two people or more play it (games.rated: the people at a table
    #: with bots are rated against each other)
    rated = models.BooleanField(default=False)
    #: the hash of the last event ("" before the first): the head of the event chain
    #: (games.event_chain), so an action links its event without reading the one before
    chain_head = models.CharField(max_length=64, blank=True, default="", editable=False)
    #: set when the event log failed an integrity check (a broken hash chain, or events the
    #: engine refuses to replay): nobody acts until staff unfreeze it (games.integrity). Apart
    #: from ``status``, which keeps saying how far the game got, so unfreezing restores it as
    #: it was and the lists, ratings and rounds that read the status need not know of freezing
    frozen_at = models.DateTimeField(_("frozen at"), null=True, blank=True, editable=False)
    #: what the check found, for staff (never shown to players)
    frozen_reason = models.TextField(_("why it is frozen"), blank=True, editable=False)
    #: the periodic check of the whole chain (integrity.check_running_chains): when it last ran
    #: for this game, and whether it found the chain intact (None: never checked)
    chain_checked_at = models.DateTimeField(
        _("chain checked at"), null=True, blank=True, editable=False
    )
    chain_intact = models.BooleanField(_("chain intact"), null=True, editable=False)
    #: a private table (games.private_tables): not in the lobby or other people's lists,
    #: joined only by its secret link, watched only by its players
    private = models.BooleanField(_("private table"), default=False)
    #: the secret of a private table's join link ("" when none); renewed by its creator
    join_secret = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(player_count__gte=2, player_count__lte=4), name="game_player_count"
            ),
        ]
        indexes = [
            # the bot sweep (every minute) looks for running games whose seat to move has no
            # deadline (a bot or a retired seat): without this it reads every game there is
            models.Index(
                fields=["id"],
                name="game_waiting_for_bots",
                condition=Q(status="running", to_move__isnull=False, deadline__isnull=True),
            ),
            # the lobby's latest started games (listings.recent_running_games): without it
            # every running game is read and sorted (40 ms at 50,000 of them)
            models.Index(
                F("started_at").desc(),
                F("id").desc(),
                name="game_running_latest",
                condition=Q(status="running"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"

    def get_kind_display(self) -> str:
        """The game's name in the active language, as Django's own method gives it: that one
        builds a dict of every choice at each call (7 us; the lobby names 30 games, every
        page and email title one)."""
        return str(_KIND_NAMES.get(self.kind, self.kind))

    @property
    def frozen(self) -> bool:
        return self.frozen_at is not None

    def record_players(self) -> list[str]:
        return [seat.name for seat in self.seats.all()]


class Seat(models.Model):
    """A place at the table: a person or a bot, in seating (turn) order."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    bot = models.CharField(max_length=10, choices=BotKind.choices, blank=True)
    joined_at = models.DateTimeField(default=timezone.now)
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    #: unused time bank, in seconds
    bank_seconds = models.PositiveIntegerField(default=0)
    #: timeouts in a row (a move by the player resets it)
    timeouts = models.PositiveSmallIntegerField(default=0)
    #: retired after too many timeouts: its pieces stay, it no longer acts, it ranks last
    retired = models.BooleanField(default=False)

    class Meta:
        ordering = ["game_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=Q(user__isnull=False), name="seat_unique_user"
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot="")) | (Q(user__isnull=True) & ~Q(bot="")),
                name="seat_person_or_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} seat {self.index}: {self.name}"

    @property
    def name(self) -> str:
        if self.user_id is None:
            return str(BotKind(self.bot).label)
        return self.user.public_name

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)

    @property
    def acts_automatically(self) -> bool:
        """A bot seat, or a seat retired after too many timeouts: no person chooses its moves."""
        return bool(self.bot) or self.retired


class EventSource(models.TextChoices):
    PLAYER = "player", _("player")
    BOT = "bot", _("bot")
    TIMEOUT = "timeout", _("timeout")
    RETIRED = "retired", _("retired seat")


class AppendOnlyError(Exception):
    """Raised on any attempt to change or delete a stored event."""


class EventQuerySet(models.QuerySet["Event"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("events are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("events are append-only")

    def bulk_create(self, objs: Iterable[Event], *args: Any, **kwargs: Any) -> list[Event]:
        """Insert events linked into their games' chains: each links to the event before it in
        the batch, or else to the stored one (bulk_create bypasses ``Event.save``)."""
        if kwargs.get("update_conflicts"):
            raise AppendOnlyError("events are append-only")
        objs = list(objs)
        linked: dict[tuple[int, int], str] = {}
        for event in sorted(objs, key=lambda e: (e.game_id, e.seq)):
            event.link(prev_hash=linked.get((event.game_id, event.seq - 1)), using=self.db)
            linked[(event.game_id, event.seq)] = event.hash
        return super().bulk_create(objs, *args, **kwargs)


class Event(models.Model):
    """One action of one game: append-only (the model and a database trigger refuse changes)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.CharField(max_length=40)
    created_at = models.DateTimeField(default=timezone.now)
    #: who chose the action: the player, a bot seat, the timeout policy, or a retired seat
    source = models.CharField(max_length=10, choices=EventSource.choices, default="player")
    #: the hash chain (games.event_chain): the hash of the event before (the game's genesis
    #: hash for seq 1) and of this event; both are set by ``link`` on insert, never by hand
    prev_hash = models.CharField(_("previous hash"), max_length=64, editable=False)
    hash = models.CharField(_("hash"), max_length=64, editable=False)
    #: the id of the server key ``hash`` is an HMAC under (event_chain.key_id); "" for a plain
    #: SHA-256 hash from before the keying (none is left after migration 0016's re-sign)
    hash_key = models.CharField(_("hash key"), max_length=8, blank=True, default="", editable=False)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.seq}: seat {self.seat} {self.action}"

    def save(self, *args: Any, prev_hash: str | None = None, **kwargs: Any) -> None:
        """Insert only, always linked into the game's chain: no creator can forget the hashes.
        ``prev_hash``: the hash of event ``seq - 1`` when the caller holds it (the game row's
        chain head, read under the game's lock); else it is read."""
        if not self._state.adding:
            raise AppendOnlyError("events are append-only")
        self.link(prev_hash=prev_hash, using=kwargs.get("using"))
        if args or kwargs.keys() - {"using"} or self.pk is not None:
            super().save(*args, **kwargs)
        else:  # the plain insert of every action: its SQL written once (keltis_site.prepared)
            db = kwargs.get("using") or router.db_for_write(Event, instance=self)
            _EVENT_INSERT.run(self, using=db)

    def link(self, prev_hash: str | None = None, using: str | None = None) -> None:
        """Set ``prev_hash`` and ``hash``: linked to ``prev_hash`` when given, else to the stored
        event ``seq - 1`` (the game's genesis for seq 1). A missing predecessor is refused, so
        the log stays gapless. Whatever the caller put in the two fields is overwritten."""
        if self.seq < 1:
            raise ValueError(f"an event's seq starts at 1, not {self.seq}")
        if prev_hash is None:
            if self.seq == 1:
                prev_hash = event_chain.genesis_hash(self.game)
            else:
                db = using or router.db_for_write(Event, instance=self)
                prev_hash = (
                    Event.objects.using(db)
                    .filter(game_id=self.game_id, seq=self.seq - 1)
                    .values_list("hash", flat=True)
                    .first()
                )
                if prev_hash is None:
                    raise AppendOnlyError(
                        f"game {self.game_id} has no event {self.seq - 1} before event {self.seq}"
                    )
        self.prev_hash = prev_hash
        self.hash_key, self.hash = event_chain.current_keys().sign(
            game_id=self.game_id,
            seq=self.seq,
            seat=self.seat,
            action=self.action,
            source=self.source,
            created_at=self.created_at,
            prev_hash=prev_hash,
        )

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("events are append-only")


#: Event.save's insert (every action's), compiled once per database
_EVENT_INSERT = PreparedInsert(Event)


class Snapshot(models.Model):
    """The engine state after ``seq`` events: a cache, always rebuildable from the events."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="snapshot"
    )
    seq = models.PositiveIntegerField()
    data = models.JSONField()

    def __str__(self) -> str:
        return f"{self.game} at {self.seq}"


class MoveAnalysis(models.Model):
    """The strong bot's look back at one player's moves of a finished game: for each move with
    a choice, what it would have played and how much it thought the move played cost.

    Asked for by a player of the game (one row per seat), computed once by a worker
    (games.analysis), shown only once the game has ended.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="analyses")
    seat = models.PositiveSmallIntegerField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    requested_at = models.DateTimeField(default=timezone.now)
    #: set when the worker has stored ``moves``; until then the analysis is pending
    done_at = models.DateTimeField(null=True, blank=True)
    #: one entry per move with a choice: {"seq", "played", "best", "cost"} (cost in points)
    moves = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="analysis_unique_seat"),
        ]

    def __str__(self) -> str:
        return f"analysis of {self.game} seat {self.seat}"
