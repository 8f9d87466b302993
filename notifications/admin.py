"""The outbox's admin: staff see the messages given up for good, and queue them again."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import outbox
from .models import Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """The outbox of every channel: staff see the messages given up for good (status
    "failed") with their last error, and queue them again once the cause is mended. Rows are
    never edited, added or deleted here: a row's key is what keeps a message from being sent
    twice."""

    list_display = (
        "id", "kind", "channel", "user", "game", "status", "attempts", "created_at", "failed_at",
        "error",
    )  # fmt: skip
    list_filter = ("status", "channel", "kind", "failed_at")
    list_select_related = ("user", "game")
    search_fields = ("=game__id", "user__username", "user__email", "key")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    readonly_fields = tuple(f.name for f in Notification._meta.fields)
    actions = ("requeue",)

    @admin.display(description=_("last error"))
    def error(self, obj: Notification) -> str:
        return Truncator(obj.last_error).chars(120)

    @admin.action(description=_("Queue the selected failed emails again"), permissions=["change"])
    def requeue(self, request: HttpRequest, queryset: Any) -> None:
        count = outbox.requeue(queryset.values_list("pk", flat=True))
        message = gettext("Failed emails queued again: %(count)d.") % {"count": count}
        self.message_user(request, message)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False
