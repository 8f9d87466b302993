"""allauth's emails (address verification, password reset) made like the site's game emails.

The same headers as the turn emails (keltis_site.mail_headers), a text and an HTML part from
the templates under templates/account/email/, the site's name (SITE_NAME) instead of the host
and port the request named, every link on the public address (SITE_URL), and the recipient's
language: the one saved on their account, or for an address without one the language of the
page the request came from (a new player's sign-up page language is saved on the account
before the verification email is written, so it is the same).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.core.mail import EmailMessage
from django.utils import translation

from accounts.models import User
from keltis_site import mail_headers, public_site


def recipient(email: str, context: dict[str, Any]) -> User | None:
    """The account the email goes to, if there is one."""
    user = context.get("user")
    if isinstance(user, User):
        return user
    return User.objects.filter(email__iexact=email).first()


def site_context(context: dict[str, Any], user: User | None) -> dict[str, Any]:
    """What the templates add to allauth's context: the site's name and address, the
    player's name, and allauth's links (``*_url``) moved onto the public address."""
    links = {
        key: public_site.on_site(value)
        for key, value in context.items()
        if key.endswith("_url") and isinstance(value, str)
    }
    return {
        **links,
        "site_name": public_site.name(),
        "site_url": public_site.absolute("/"),
        "user_name": user.public_name if user else "",
    }


class SiteEmails:
    """Mixed into the account adapter, before allauth's DefaultAccountAdapter."""

    def render_mail(
        self,
        template_prefix: str,
        email: str | list[str],
        context: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> EmailMessage:
        address = email if isinstance(email, str) else email[0]
        user = recipient(address, context)
        language = user.language if user and user.language else translation.get_language()
        kind = template_prefix.rsplit("/", 1)[-1]
        with translation.override(language):
            # a fresh id per email: each is an answer to one request, never retried as such
            own = mail_headers.automatic(f"account.{kind}.{uuid.uuid4().hex}")
            return super().render_mail(
                template_prefix,
                email,
                {**context, **site_context(context, user)},
                headers={**own, **(headers or {})},
            )
