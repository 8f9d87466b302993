"""Rate limits per token (per player for session calls), on games.ratelimit's counter.

Reads and actions are counted apart: ``API_READ_RATE_LIMIT`` and ``API_PLAY_RATE_LIMIT``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import throttling
from rest_framework.request import Request

from games import ratelimit

from .models import ApiToken
from .permissions import needed_scope


def caller_key(request: Request) -> str:
    token = request.auth
    if isinstance(token, ApiToken):
        return f"token:{token.pk}"
    return f"user:{request.user.pk}"


class TokenRateThrottle(throttling.BaseThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return True  # refused by the permissions anyway
        scope = needed_scope(request)
        rate = settings.API_READ_RATE_LIMIT if scope == "read" else settings.API_PLAY_RATE_LIMIT
        self.rate = rate
        return ratelimit.hit(f"api-{scope}", caller_key(request), rate)

    def wait(self) -> float | None:
        return float(ratelimit.parse(self.rate)[1]) if getattr(self, "rate", None) else None
