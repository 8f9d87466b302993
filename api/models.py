"""Personal API tokens: a player's key for programs (bots, apps) that act in their name.

Only a hash of the token is stored; its first characters (``prefix``) stay readable so that
the settings page can tell the player's tokens apart. A token carries scopes: ``read`` (every
GET) and ``play`` (acting: moves, joining and leaving).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    READ = "read", _("read: see my games, ratings, leagues and tournaments")
    PLAY = "play", _("play: move, join and leave games, leagues and tournaments")


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=60)
    #: the token's first characters, shown to tell tokens apart (never enough to use it)
    prefix = models.CharField(max_length=16, db_index=True)
    #: sha256 of the whole token, hex: the token itself is shown once and never stored
    digest = models.CharField(max_length=64, unique=True)
    #: space-separated ``Scope`` values
    scopes = models.CharField(max_length=40, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user} · {self.name} ({self.prefix}…)"

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    def allows(self, scope: str) -> bool:
        return scope in self.scope_list

    @property
    def active(self) -> bool:
        return self.revoked_at is None
