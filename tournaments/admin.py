"""The admin of ratings, leagues and tournaments. Staff create leagues here.

League games are created by the matchmaker (tournaments.leagues) only: seasons and their game
links are shown for looking, members can be edited (limit, active).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from games.engine import RecordError, game_class

from .leagues import league_settings_errors
from .models import (
    League,
    LeagueMember,
    Round,
    Season,
    SeasonGame,
    Tournament,
    TournamentGame,
    TournamentPlayer,
)


# -- leagues ------------------------------------------------------------------------------------
class LeagueForm(forms.ModelForm):
    class Meta:
        model = League
        fields = (
            "name", "kind", "min_players", "max_players", "days_per_move",
            "bank_increment_hours", "bank_cap_hours", "options", "rating_min", "rating_max",
            "season_days", "bot_level", "active", "created_at",
        )  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        # the same rules as the organisers' form and leagues.league_create
        for field, message in league_settings_errors(data).items():
            self.add_error(field, message)
        return data


class SeasonInline(admin.TabularInline):
    model = Season
    fields = ("number", "starts_at", "ends_at", "status")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    form = LeagueForm
    list_display = (
        "name", "kind", "min_players", "max_players", "days_per_move", "rating_min",
        "rating_max", "season_days", "bot_level", "active",
    )  # fmt: skip
    list_filter = ("kind", "active")
    search_fields = ("name",)
    inlines = (SeasonInline,)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons are opened by the matchmaker and closed by ``seasons_close_due``; staff may move
    a running season's end."""

    list_display = ("league", "number", "starts_at", "ends_at", "status")
    list_filter = ("status", "league")
    list_select_related = ("league",)
    readonly_fields = ("league", "number", "starts_at", "status")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(LeagueMember)
class LeagueMemberAdmin(admin.ModelAdmin):
    list_display = ("user", "league", "max_games", "active", "joined_at")
    list_filter = ("active", "league")
    list_select_related = ("user", "league")
    search_fields = ("user__username", "user__display_name", "league__name")
    raw_id_fields = ("user",)


@admin.register(SeasonGame)
class SeasonGameAdmin(admin.ModelAdmin):
    list_display = ("game", "season")
    list_filter = ("season__league",)
    list_select_related = ("game", "season", "season__league")
    search_fields = ("=game__id",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# -- tournaments --------------------------------------------------------------------------------
class TournamentForm(forms.ModelForm):
    """The same rules as ``rounds.tournament_create``; pairing, seeds and rounds are the
    advancer's (tournaments.rounds) once sign-up closes."""

    class Meta:
        model = Tournament
        fields = (
            "name", "kind", "format", "table_size", "rounds", "signup_until", "round_days",
            "days_per_move", "bank_increment_hours", "bank_cap_hours", "options", "created_by",
        )  # fmt: skip

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        fmt, size = data.get("format"), data.get("table_size")
        if fmt and size and fmt != Tournament.Format.SWISS and size != 2:
            self.add_error("table_size", "Round robin and elimination games have 2 players.")
        if fmt == Tournament.Format.SWISS and not data.get("rounds"):
            self.add_error("rounds", "A Swiss tournament needs at least one round.")
        increment, cap = data.get("bank_increment_hours"), data.get("bank_cap_hours")
        if increment is not None and cap is not None and cap < increment:
            self.add_error("bank_cap_hours", "The time bank's cap must be at least its increment.")
        if data.get("kind"):
            try:  # game_create would refuse them when the round is paired
                data["options"] = game_class(data["kind"]).check_options(data.get("options") or {})
            except RecordError as exc:
                self.add_error("options", str(exc))
        return data


class TournamentPlayerInline(admin.TabularInline):
    model = TournamentPlayer
    #: bots are entered on the tournament's page (rounds.bot_add), which numbers them
    fields = ("user", "bot", "bot_number", "seed", "rating", "eliminated", "joined_at")
    raw_id_fields = ("user",)
    extra = 0

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # seeds and start ratings are recorded at the start; after it the field is fixed
        if obj is not None and obj.status != Tournament.Status.SIGNUP:
            return self.fields
        return ("bot", "bot_number", "seed", "rating", "eliminated")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or obj.status == Tournament.Status.SIGNUP

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or obj.status == Tournament.Status.SIGNUP


class RoundInline(admin.TabularInline):
    model = Round
    fields = ("number", "started_at", "deadline", "finished_at")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Staff create and correct tournaments; once running, only the name and the days of a
    round (for rounds still to come) can change. The status is the advancer's; the one action
    cancels (games already running go on as ordinary rated games)."""

    form = TournamentForm
    list_display = (
        "name", "kind", "format", "table_size", "rounds", "signup_until", "status",
        "created_by",
    )  # fmt: skip
    list_filter = ("status", "format", "kind")
    list_select_related = ("created_by",)
    search_fields = ("name", "created_by__username")
    date_hierarchy = "signup_until"
    raw_id_fields = ("created_by",)
    inlines = (TournamentPlayerInline, RoundInline)
    actions = ("cancel",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is not None and obj.status != Tournament.Status.SIGNUP:
            return (
                "status", "kind", "format", "table_size", "rounds", "signup_until",
                "days_per_move", "bank_increment_hours", "bank_cap_hours", "options",
                "created_by",
            )  # fmt: skip
        return ("status",)

    @admin.action(description="Cancel the selected tournaments (not finished ones)")
    def cancel(self, request: HttpRequest, queryset: Any) -> None:
        done = queryset.filter(
            status__in=[Tournament.Status.SIGNUP, Tournament.Status.RUNNING]
        ).update(status=Tournament.Status.CANCELLED)
        self.message_user(request, f"{done} tournament(s) cancelled.")


class TournamentGameInline(admin.TabularInline):
    model = TournamentGame
    fields = ("game", "entries", "bye")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """Rounds are paired by ``tournaments.rounds``; staff may move the deadline of a round
    that is still running (its games are decided by their scores when it passes)."""

    list_display = ("tournament", "number", "started_at", "deadline", "finished_at")
    list_filter = ("tournament__status",)
    list_select_related = ("tournament",)
    search_fields = ("tournament__name",)
    inlines = (TournamentGameInline,)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fixed = ("tournament", "number", "started_at", "finished_at")
        return (*fixed, "deadline") if obj is not None and obj.finished_at else fixed

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
