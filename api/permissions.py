"""Scopes: a token acts only within what it was given (read: GETs; play: actions).

A logged-in browser session (no token) may do everything its player may."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import permissions
from rest_framework.request import Request

from .models import ApiToken, Scope


def needed_scope(request: Request) -> str:
    return Scope.READ if request.method in permissions.SAFE_METHODS else Scope.PLAY


class TokenScope(permissions.BasePermission):
    message = _("This API token lacks the scope this call needs.")
    code = "missing_scope"

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        token = request.auth
        if isinstance(token, ApiToken):
            return token.allows(needed_scope(request))
        return True
