"""Making, finding and revoking API tokens (the only writes of ApiToken)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import ApiToken, Scope

#: every token starts with this, so a leaked one is recognisable (secret scanners, logs)
TOKEN_PREFIX = "klt_"
#: characters of the token kept readable in ``ApiToken.prefix``
SHOWN = len(TOKEN_PREFIX) + 6
#: last_used_at is written at most this often per token (not on every call)
LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_ACTIVE_TOKENS = 20


class TokenError(Exception):
    """A refused request about tokens, worded for the player."""


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    #: the whole token: shown to the player once, never stored
    secret: str


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, user: Any, name: str, scopes: list[str]) -> NewToken:
    """A new token for ``user`` with ``scopes`` (read is always included)."""
    name = (name or "").strip()
    if not name or len(name) > 60:
        raise TokenError(_("A token needs a name of at most 60 characters."))
    unknown = set(scopes) - set(Scope.values)
    if unknown:
        raise TokenError(_("Unknown scope."))
    chosen = [s for s in Scope.values if s in {Scope.READ, *scopes}]
    with transaction.atomic():
        if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE_TOKENS:
            raise TokenError(
                _("You have %(n)s active tokens: revoke one first.") % {"n": MAX_ACTIVE_TOKENS}
            )
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(
            user=user,
            name=name,
            prefix=secret[:SHOWN],
            digest=digest_of(secret),
            scopes=" ".join(chosen),
        )
    return NewToken(token=token, secret=secret)


def token_revoke(*, user: Any, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens (revoking twice changes nothing)."""
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        raise TokenError(_("There is no such token."))
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_find(secret: str) -> ApiToken | None:
    """The active token whose secret this is, with its user; None for any other string."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 100:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def user_tokens(user: Any) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=user))
