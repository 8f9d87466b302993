"""``Authorization: Bearer <token>``: a personal API token authenticates the call.

A call with a token is exempt from CSRF (no browser sends the header by itself, so no other
site can make a browser send it); a call without one falls back to the session, which keeps
Django's CSRF check (DRF's SessionAuthentication enforces it on unsafe methods).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .tokens import token_find

KEYWORD = "Bearer"


def bearer_secret(header: str) -> str | None:
    """The token of an ``Authorization`` header value, or None when it names no Bearer token."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != KEYWORD.lower():
        return None
    return parts[1]


class BearerTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        secret = bearer_secret(header)
        if secret is None:
            raise exceptions.AuthenticationFailed(
                _("The Authorization header must be 'Bearer <token>'.")
            )
        token = token_find(secret)
        if token is None:
            raise exceptions.AuthenticationFailed(_("This API token is not valid or was revoked."))
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return f'{KEYWORD} realm="api"'


class SessionAuthentication(authentication.SessionAuthentication):
    """The site's own session (a logged-in browser trying the API), CSRF checked as DRF does."""


class BearerScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "A personal API token"}


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.SessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
