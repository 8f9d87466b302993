"""Staff's view of invitations (and their emails), refused addresses and rematches.

The labels are for staff, in English, as the inbound mail's outcomes are. Invitations are not
added here (the service checks who may be invited); a failed email can be queued again.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.text import Truncator

from .models import Invitation, MailStatus, OptOut, Rematch


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = (
        "id", "target", "inviter", "invitee_label", "status", "mail_status", "mail_attempts",
        "created_at", "expires_at", "error",
    )  # fmt: skip
    list_filter = ("status", "mail_status", "created_at")
    list_select_related = ("game", "league", "inviter", "invitee")
    search_fields = ("email", "invitee__email", "inviter__email", "=game__id", "invitee__username")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    raw_id_fields = ("game", "league", "inviter", "invitee", "accepted_by")
    exclude = ("secret",)  # the link's secret is the invitee's, not staff's to copy
    readonly_fields = (
        "created_at", "answered_at", "mail_attempts", "mail_claimed_at", "mail_sent_at",
        "mail_error",
    )  # fmt: skip
    actions = ("requeue_mail",)

    @admin.display(description="target")
    def target(self, obj: Invitation) -> str:
        return f"game {obj.game_id}" if obj.game_id else f"league {obj.league}"

    @admin.display(description="invitee")
    def invitee_label(self, obj: Invitation) -> str:
        return obj.invitee_name()

    @admin.display(description="mail error")
    def error(self, obj: Invitation) -> str:
        return Truncator(obj.mail_error).chars(80)

    @admin.action(description="Queue the selected failed invitation emails again")
    def requeue_mail(self, request: HttpRequest, queryset: Any) -> None:
        count = queryset.filter(mail_status=MailStatus.FAILED).update(
            mail_status=MailStatus.QUEUED, mail_next_at=timezone.now(), mail_attempts=0
        )
        self.message_user(request, f"Invitation emails queued again: {count}.")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(OptOut)
class OptOutAdmin(admin.ModelAdmin):
    """Deleting a row lets the address be invited again (say, a bounce that was a mistake)."""

    list_display = ("email", "reason", "created_at")
    list_filter = ("reason",)
    search_fields = ("email",)
    ordering = ("-created_at",)


@admin.register(Rematch)
class RematchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "offered_by", "status", "offered_at", "new_game")
    list_filter = ("status",)
    list_select_related = ("game", "offered_by", "new_game")
    search_fields = ("=game__id", "offered_by__username")
    raw_id_fields = ("game", "offered_by", "declined_by", "new_game", "accepted")
    ordering = ("-offered_at",)
