"""Ratings, leagues and tournaments.

Ratings are per player per game (board and card game rated apart) with one history row per
rated game, unique per (player, game), which is what makes rating a game idempotent. League
seasons and tournament rounds own their games through link rows, so the games themselves stay
the same for every way they were started.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import BOT_LEVELS, DAYS_PER_MOVE_CHOICES, BotKind, Game, GameKind

START_RATING = 1500.0

#: a bot level as a choice of leagues and tournaments ("" for a league: no bots)
BOT_LEVEL_CHOICES = [(level.value, level.label) for level in BOT_LEVELS]


class Rating(models.Model):
    """A player's current rating in one game."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=20, choices=GameKind.choices)
    rating = models.FloatField(default=START_RATING)
    highest = models.FloatField(default=START_RATING)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="rating_unique_user_kind"),
        ]
        indexes = [models.Index(fields=["kind", "-rating"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.user} {self.kind}: {self.rating:.0f}"


class RatingChange(models.Model):
    """One rated game's effect on one player: before, after. Unique per (player, game)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    kind = models.CharField(max_length=20, choices=GameKind.choices)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    k = models.FloatField()
    place = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="rating_change_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.before:.0f} -> {self.after:.0f} ({self.game})"


class TimeControl(models.Model):
    """What the games of a league or tournament are played with."""

    kind = models.CharField(_("game"), max_length=20, choices=GameKind.choices)
    days_per_move = models.PositiveSmallIntegerField(
        _("days per move"), choices=DAYS_PER_MOVE_CHOICES, default=3
    )
    bank_increment_hours = models.PositiveSmallIntegerField(default=0)
    bank_cap_hours = models.PositiveSmallIntegerField(default=0)
    options = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True


class League(TimeControl):
    name = models.CharField(_("name"), max_length=80)
    min_players = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    max_players = models.PositiveSmallIntegerField(
        default=4, validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    #: a rating band (None: open)
    rating_min = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(null=True, blank=True)
    season_days = models.PositiveSmallIntegerField(default=90)
    #: a table the matchmaker cannot fill with members is filled with bots of this level
    #: ("": members wait for members)
    bot_level = models.CharField(
        _("bots at short tables"), max_length=10, choices=BOT_LEVEL_CHOICES, blank=True,
        default="",
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    #: a club's league (tournaments.clubs): not listed; its page, standings and games only for
    #: its members, organisers and staff; joined by invitation only
    private = models.BooleanField(_("private club"), default=False)
    #: the player who created a club (None: a league staff opened before clubs existed)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_leagues",
    )  # fmt: skip
    #: who runs a club: its creator and the co-organisers they named (staff run every league)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_leagues", blank=True
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(min_players__lte=F("max_players")), name="league_table_range"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Season(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)

    class Meta:
        ordering = ["league_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.league} season {self.number}"


class LeagueMember(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_memberships"
    )
    #: how many league games at once the player wants
    max_games = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    active = models.BooleanField(default=True)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["league", "user"], name="league_member_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.league}"


class SeasonGame(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="season_link")

    def __str__(self) -> str:
        return f"{self.season}: {self.game}"


class Tournament(TimeControl):
    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss")
        ROUND_ROBIN = "round_robin", _("round robin")
        ELIMINATION = "elimination", _("single elimination")

    class Status(models.TextChoices):
        SIGNUP = "signup", _("open for sign-up")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    name = models.CharField(_("name"), max_length=80)
    format = models.CharField(max_length=12, choices=Format.choices, default=Format.SWISS)
    #: players per table (2 for round robin and elimination; 2-4 for Swiss)
    table_size = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(2), MaxValueValidator(4)]
    )
    #: rounds of a Swiss tournament (round robin and elimination derive theirs)
    rounds = models.PositiveSmallIntegerField(default=5)
    signup_until = models.DateTimeField(db_index=True)
    #: a round's games that have not finished this many days after it started end by timeout
    round_days = models.PositiveSmallIntegerField(default=30)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.SIGNUP, db_index=True
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_tournaments",
    )
    created_at = models.DateTimeField(default=timezone.now)
    #: a private tournament (tournaments.private_tournaments): not listed; its page, standings
    #: and API reads for its entrants, organiser and staff only; signed up for by its link
    private = models.BooleanField(_("private tournament"), default=False)
    #: the secret of a private tournament's sign-up link ("" when none); its organiser renews it
    join_secret = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-signup_until"]

    def __str__(self) -> str:
        return self.name


class TournamentPlayer(models.Model):
    """An entrant: a person, or a bot of a level the organiser entered ("Strong bot 2")."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="tournament_entries",
    )
    bot = models.CharField(max_length=10, choices=BOT_LEVEL_CHOICES, blank=True, default="")
    #: a bot entrant's number among the tournament's bots of its level (its name says it)
    bot_number = models.PositiveSmallIntegerField(null=True, blank=True)
    #: rating when the tournament started: seeding and the last tie-break
    rating = models.FloatField(null=True, blank=True)
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    eliminated = models.BooleanField(default=False)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["tournament_id", "seed", "joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_entry_once"),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot=""))
                | (Q(user__isnull=True) & ~Q(bot="") & Q(bot_number__isnull=False)),
                name="tournament_entry_person_or_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} in {self.tournament}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)

    @property
    def name(self) -> str:
        """The person's public name, or the bot's level and number in the active language."""
        if self.user_id is None:
            return bot_entrant_name(self.bot, self.bot_number or 0)
        return self.user.public_name


def bot_entrant_name(level: str, number: int) -> str:
    """A bot entrant's name, "Strong bot 2", in the active language."""
    names = {
        BotKind.EASY: _("Easy bot %(n)s"),
        BotKind.NORMAL: _("Normal bot %(n)s"),
        BotKind.STRONG: _("Strong bot %(n)s"),
    }
    return str(names[BotKind(level)]) % {"n": number}


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    #: unfinished games are ended by the timeout policy after this
    deadline = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class TournamentGame(models.Model):
    """A table of a round: its game, or a bye (one entrant, no game)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="tournament_link"
    )
    bye = models.ForeignKey(
        TournamentPlayer, null=True, blank=True, on_delete=models.CASCADE, related_name="byes"
    )
    #: the entrants (TournamentPlayer ids) of the game in seat order: a game's seats say which
    #: person sat where, but not which of two bots of one level
    entries = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(game__isnull=False) | Q(bye__isnull=False), name="table_game_or_bye"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round}: {self.game or 'bye'}"
