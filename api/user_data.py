"""The API's part of a user's data export (``manage.py export_user_data``): their tokens as
the settings page lists them (never a token itself: only its hash is kept, and not exported)."""

from __future__ import annotations

from typing import Any

from games.maintenance import iso

from .models import ApiToken


def user_data(user: Any) -> dict[str, Any]:
    return {
        "api_tokens": [
            {
                "name": t.name,
                "prefix": t.prefix,
                "scopes": t.scope_list,
                "created_at": iso(t.created_at),
                "last_used_at": iso(t.last_used_at),
                "revoked_at": iso(t.revoked_at),
            }
            for t in ApiToken.objects.filter(user=user).order_by("created_at", "pk")
        ],
        "bot_account": bool(getattr(user, "is_bot", False)),
    }
