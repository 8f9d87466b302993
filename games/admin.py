"""The admin for games: for looking, not for playing.

Games are made and moved only through ``games.services``: the admin cannot add games or seats,
can change only a game's pace, and never touches events (append-only) or snapshots (a cache).
The hidden deal (``Game.setup``) never appears in a list; the detail view, staff-only like the
whole admin, shows it read-only, with the result of checking the game's event hash chain.
Games frozen after a failed integrity check (games.integrity) are listed by a filter, and
unfrozen by an action that checks their log again first. (The email outbox's admin is in
notifications.admin.)
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from .event_chain import verify_game_chain
from .integrity import chain_reason, game_freeze
from .maintenance import StillBroken, game_unfreeze
from .models import Event, Game, Seat, Snapshot


class ViewOnlyMixin:
    """Viewable by staff with the view (or change) permission; never added, changed, deleted."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("index", "user", "bot", "joined_at", "score", "place")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class FrozenFilter(admin.SimpleListFilter):
    """Frozen games first of all: each is a log someone must look at."""

    title = _("integrity")
    parameter_name = "frozen"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("frozen")), ("no", _("not frozen"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() == "yes":
            return queryset.filter(frozen_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(frozen_at__isnull=True)
        return queryset


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    #: chain_intact / chain_checked_at: what the periodic chain check (hourly, running games;
    #: games.integrity.check_running_chains) last found: a tick, a cross, or "unknown" (never);
    #: the detail view recomputes the chain itself (event_chain)
    list_display = (
        "id", "kind", "status", "frozen", "chain_intact", "chain_checked_at", "player_count",
        "days_per_move", "created_at", "seq",
    )  # fmt: skip
    list_filter = (FrozenFilter, "chain_intact", "kind", "status")
    actions = ("unfreeze",)
    list_select_related = ("created_by",)
    search_fields = ("=id", "created_by__username", "created_by__display_name")
    date_hierarchy = "created_at"
    inlines = (SeatInline,)
    fields = (
        "kind", "options", "player_count", "days_per_move", "status", "created_by",
        "created_at", "started_at", "finished_at", "seq", "to_move", "turn_started_at", "setup",
        "frozen_at", "frozen_reason", "chain_checked_at", "event_chain",
    )  # fmt: skip
    #: everything but the pace belongs to the services
    readonly_fields = tuple(f for f in fields if f != "days_per_move")

    @admin.display(description=_("frozen"), boolean=True)
    def frozen(self, obj: Game) -> bool:
        return obj.frozen

    @admin.display(description=_("event chain"))
    def event_chain(self, obj: Game) -> str | SafeString:
        """The chain recomputed from the stored events, on the detail view only (one game). A
        broken one freezes the game, as wherever else it is found."""
        problems = verify_game_chain(obj)
        if problems:
            game_freeze(game_id=obj.pk, reason=chain_reason(problems))
        if not problems:
            return ngettext(
                "intact (%(count)d event)", "intact (%(count)d events)", obj.seq
            ) % {"count": obj.seq}
        lines = [gettext("broken:"), *(str(problem) for problem in problems)]
        return format_html_join("", "<div>{}</div>", ((line,) for line in lines))

    @admin.action(
        description=_("Unfreeze the selected games (once their log checks out)"),
        permissions=["change"],
    )
    def unfreeze(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """Each game is checked again (its chain verifies, its events replay) before it goes
        on; one that fails stays frozen, and the message says why."""
        for game_id in queryset.order_by("pk").values_list("pk", flat=True):
            try:
                game_unfreeze(game_id=game_id)
            except StillBroken as exc:
                self.message_user(
                    request,
                    gettext("Game %(id)s stays frozen: %(why)s") % {"id": game_id, "why": exc},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request, gettext("Game %(id)s is unfrozen.") % {"id": game_id}, messages.SUCCESS
                )

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).defer("setup")  # loaded only where shown

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # games are created by games.services.game_create, with seats and a deal

    def save_model(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> None:
        # write the one editable field only: a move committed meanwhile keeps its seq and turn
        obj.save(update_fields=["days_per_move"])

    def has_delete_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        if obj is not None and obj.events.exists():
            return False  # a game with a history stays (Event.game is PROTECT as well)
        return super().has_delete_permission(request, obj)


@admin.register(Seat)
class SeatAdmin(ViewOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "game", "index", "user", "bot", "score", "place")
    list_filter = ("bot", "game__kind", "game__status")
    list_select_related = ("game", "user")
    search_fields = ("=game__id", "user__username", "user__display_name")


@admin.register(Event)
class EventAdmin(ViewOnlyMixin, admin.ModelAdmin):
    """The append-only log: viewable, never added, changed or deleted (a trigger refuses too)."""

    list_display = ("id", "game", "seq", "seat", "action", "created_at")
    #: the hash chain (games.event_chain), shown in the detail view
    readonly_fields = ("prev_hash", "hash")
    list_filter = ("game__kind",)
    list_select_related = ("game",)
    search_fields = ("=game__id", "action")
    ordering = ("-game_id", "seq")
    actions = None


@admin.register(Snapshot)
class SnapshotAdmin(ViewOnlyMixin, admin.ModelAdmin):
    """A cache of the engine state (rebuildable from the events): viewable only. The data holds
    the hands, so it appears only in the detail view."""

    list_display = ("game", "seq")
    list_select_related = ("game",)
    search_fields = ("=game__id",)
    actions = None

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).defer("data")  # loaded only where shown
