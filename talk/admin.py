"""The admin of table talk: staff read reported messages in their context, hide a message
(every page then shows "hidden by staff" in its place) and suspend an author from talk.

Messages are written only through ``talk.services.message_post``: the admin never adds one nor
changes its text; hiding goes through ``talk.services.message_hide`` so the game's open pages
hear of it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, F, Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from . import services
from .models import Message, Report, Suspension

#: how many messages before and after a reported one its report shows
CONTEXT = 3
#: the action "Suspend the author from talk for 7 days"
SUSPENSION_DAYS = 7


def _start(text: str) -> str:
    return Truncator(text.replace("\n", " ")).chars(60)


class HiddenFilter(admin.SimpleListFilter):
    title = _("hidden")
    parameter_name = "hidden"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("hidden by staff")), ("no", _("shown"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Message]) -> QuerySet[Message]:
        if self.value() == "yes":
            return queryset.filter(hidden_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(hidden_at__isnull=True)
        return queryset


class ReportedFilter(admin.SimpleListFilter):
    title = _("reports")
    parameter_name = "reported"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("open", _("with open reports")), ("any", _("reported at all"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Message]) -> QuerySet[Message]:
        if self.value() == "open":
            return queryset.filter(open_reports__gt=0)
        if self.value() == "any":
            return queryset.filter(reports__isnull=False).distinct()
        return queryset


def _suspend_authors(request: HttpRequest, users: set[Any]) -> None:
    until = timezone.now() + timedelta(days=SUSPENSION_DAYS)
    for user in users:
        services.suspend(
            user=user, until=until, reason=gettext("suspended by staff from the admin")
        )
    count = len(users)
    messages.success(
        request,
        ngettext(
            "%(count)d author suspended from table talk for %(days)d days.",
            "%(count)d authors suspended from table talk for %(days)d days.",
            count,
        )
        % {"count": count, "days": SUSPENSION_DAYS},
    )


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "author", "created_at", "text_start", "is_hidden", "reports_open")
    list_filter = (HiddenFilter, ReportedFilter, "via")
    list_select_related = ("author", "game")
    search_fields = ("text", "author__username", "author__display_name")
    raw_id_fields = ("game", "author", "hidden_by")
    readonly_fields = (
        "game",
        "author",
        "seq",
        "text",
        "created_at",
        "via",
        "hidden_at",
        "hidden_by",
    )
    actions = ("hide_messages", "suspend_authors")
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Message]:
        return (
            super()
            .get_queryset(request)
            .annotate(open_reports=Count("reports", filter=Q(reports__resolved_at__isnull=True)))
        )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("text"))
    def text_start(self, obj: Message) -> str:
        return _start(obj.text)

    @admin.display(description=_("hidden"), boolean=True)
    def is_hidden(self, obj: Message) -> bool:
        return obj.hidden

    @admin.display(description=_("open reports"), ordering="open_reports")
    def reports_open(self, obj: Message) -> int:
        return getattr(obj, "open_reports", 0)

    @admin.action(description=_("Hide"), permissions=["change"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[Message]) -> None:
        count = 0
        for pk in queryset.values_list("pk", flat=True):
            services.message_hide(message_id=pk, staff=request.user)
            count += 1
        messages.success(
            request,
            ngettext("%(count)d message hidden.", "%(count)d messages hidden.", count)
            % {"count": count},
        )

    @admin.action(description=_("Suspend the author from talk for 7 days"), permissions=["change"])
    def suspend_authors(self, request: HttpRequest, queryset: QuerySet[Message]) -> None:
        _suspend_authors(request, {message.author for message in queryset.select_related("author")})


class OpenFirst(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "open"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("open")), ("no", _("resolved"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Report]) -> QuerySet[Report]:
        if self.value() == "yes":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "no":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("id", "message_start", "game", "author", "reporter", "reason", "created_at",
                    "is_open")  # fmt: skip
    list_filter = (OpenFirst,)
    list_select_related = ("message", "message__author", "message__game", "reporter")
    readonly_fields = ("message", "reporter", "reason", "created_at", "resolved_at", "context")
    fields = readonly_fields
    actions = ("hide_reported", "resolve")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Report]:
        # open reports first, the newest first among them
        return (
            super()
            .get_queryset(request)
            .order_by(F("resolved_at").asc(nulls_first=True), "-created_at", "-pk")
        )

    def get_ordering(self, request: HttpRequest) -> list[Any]:
        return [F("resolved_at").asc(nulls_first=True), "-created_at", "-pk"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("message"))
    def message_start(self, obj: Report) -> str:
        return _start(obj.message.text)

    @admin.display(description=_("game"))
    def game(self, obj: Report) -> Any:
        return obj.message.game

    @admin.display(description=_("author"))
    def author(self, obj: Report) -> Any:
        return obj.message.author

    @admin.display(description=_("open"), boolean=True)
    def is_open(self, obj: Report) -> bool:
        return obj.resolved_at is None

    @admin.display(description=_("the talk around it"))
    def context(self, obj: Report) -> SafeString:
        """The reported message with the CONTEXT messages before and after it at its table,
        hidden ones too (staff see what was written), each escaped."""
        return context_html(obj.message)

    @admin.action(description=_("Hide the message"), permissions=["change"])
    def hide_reported(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        ids = set(queryset.values_list("message_id", flat=True))
        for message_id in ids:
            services.message_hide(message_id=message_id, staff=request.user)
        messages.success(
            request,
            ngettext("%(count)d message hidden.", "%(count)d messages hidden.", len(ids))
            % {"count": len(ids)},
        )

    @admin.action(description=_("Resolve"), permissions=["change"])
    def resolve(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        count = queryset.filter(resolved_at__isnull=True).update(resolved_at=timezone.now())
        messages.success(
            request,
            ngettext("%(count)d report resolved.", "%(count)d reports resolved.", count)
            % {"count": count},
        )


def context_around(message: Message) -> list[Message]:
    """The message with up to CONTEXT messages before and after it in its game, in order."""
    rows = Message.objects.filter(game_id=message.game_id).select_related("author")
    before = rows.filter(
        Q(created_at__lt=message.created_at) | Q(created_at=message.created_at, pk__lt=message.pk)
    ).order_by("-created_at", "-pk")[:CONTEXT]
    after = rows.filter(
        Q(created_at__gt=message.created_at) | Q(created_at=message.created_at, pk__gt=message.pk)
    ).order_by("created_at", "pk")[:CONTEXT]
    return [*reversed(list(before)), message, *after]


def context_html(message: Message) -> SafeString:
    rows = []
    for row in context_around(message):
        mark = "▶ " if row.pk == message.pk else ""
        hidden = f" [{gettext('hidden by staff')}]" if row.hidden else ""
        rows.append((mark, row.author.public_name, row.seq, hidden, row.text))
    items = format_html_join("", "<li>{}<strong>{}</strong> (#{}){}: {}</li>", rows)
    return format_html('<ol class="talk-context">{}</ol>', items)


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ("user", "until", "reason", "created_at", "is_active")
    raw_id_fields = ("user",)
    search_fields = ("user__username", "user__display_name")

    @admin.display(description=_("active"), boolean=True)
    def is_active(self, obj: Suspension) -> bool:
        return obj.active()
