"""The headers every email of the site carries, game emails and account emails alike."""

from __future__ import annotations

import re

from django.conf import settings
from django.utils import translation

from keltis_site import public_site


def message_id(key: str) -> str:
    """A Message-ID on the site's domain made from ``key``: the same key gives the same id,
    so a retried send is one email to a client that de-duplicates, and one game's emails
    share a thread (References)."""
    local = re.sub(r"[^A-Za-z0-9.-]", ".", key)
    return f"<{local}@{public_site.domain()}>"


def automatic(key: str, *, unsubscribe_url: str | None = None) -> dict[str, str]:
    """The headers of an email the site sends on its own, in the active language.

    ``unsubscribe_url`` (game emails) adds RFC 8058's one-click unsubscribe; account emails
    (verification, password) have none: nobody may opt out of the answer to their request."""
    headers = {"Message-ID": message_id(key)}
    if unsubscribe_url:
        # RFC 8058: mail clients show an unsubscribe button that POSTs without a page
        headers["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    # RFC 3834: no vacation auto-replies to a robot
    headers["Auto-Submitted"] = "auto-generated"
    headers["X-Auto-Response-Suppress"] = "All"
    # RFC 3282: the language the email is written in (the recipient's: callers activate it)
    headers["Content-Language"] = translation.get_language() or settings.LANGUAGE_CODE
    return headers
