"""How allauth fits the site's user model: the display name is set at sign-up and is what
allauth shows; the username, which nobody types, is made from the display name."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import user_username
from allauth.core import context as allauth_context
from allauth.core.internal.ratelimit import get_ip
from anyascii import anyascii
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.forms import BaseForm
from django.http import HttpRequest
from django.utils import translation

from accounts.emails import SiteEmails
from games.after_response import call_after_response

#: the session's invited address: the holder of an invitation's link (friends) chose to sign
#: up, and the link reached them at this address, so signing up with it needs no second proof
INVITED_EMAIL_SESSION_KEY = "invited_email"


def user_display(user: Any) -> str:
    """The name allauth writes in pages, messages and emails (ACCOUNT_USER_DISPLAY)."""
    return str(user.public_name)


class AccountAdapter(SiteEmails, DefaultAccountAdapter):
    def save_user(
        self, request: HttpRequest, user: Any, form: BaseForm, commit: bool = True
    ) -> Any:
        """Save a new user with the display name typed at sign-up (accounts.forms.SignupForm),
        the browser's time zone (the form checked it; UTC without JavaScript), and the
        language the sign-up page was shown in (the language menu's choice or the browser's),
        so that the verification email and every later one is in it."""
        display_name = form.cleaned_data.get("display_name")
        if display_name:
            user.display_name = display_name
        user.time_zone = form.cleaned_data.get("time_zone") or "UTC"
        language = translation.get_language()
        if language in dict(settings.LANGUAGES):
            user.language = language
        return super().save_user(request, user, form, commit=commit)

    def is_email_verified(self, request: HttpRequest, email: str) -> bool:
        """An address is verified at sign-up when the session opened an invitation's link sent
        to it (``INVITED_EMAIL_SESSION_KEY``): the player signs in at once and lands at the
        table. allauth's own ``stash_verified_email`` is not used: it would make the invited
        address the account's even when the player signs up with another one."""
        invited = request.session.get(INVITED_EMAIL_SESSION_KEY) if request else None
        if invited and str(invited).lower() == email.lower():
            return True
        return super().is_email_verified(request, email)

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """Render an account email now (in the request's language, with its links), send it once
        the response is out. Sign-up with a registered address mails its owner, with a new one
        mails a verification link: sending either in the request would make its answer as slow
        as the mail server, and the two could differ (accounts.forms.SignupForm.try_save
        evens out the rest). A failed send is logged (games.after_response); the player can
        ask for the email again."""
        request = allauth_context.request
        message = self.render_mail(
            template_prefix,
            email,
            {"request": request, "email": email, "current_site": get_current_site(request)}
            | context,
        )
        call_after_response(message.send)

    def populate_username(self, request: HttpRequest, user: Any) -> None:
        """Fill the username from the display name, unique, instead of allauth's default (the
        email's local part): User.public_name falls back to the username and must never show
        any part of an email address. The name is transliterated to ASCII first (anyascii:
        "Иван Петров" gives "ivan_petrov", "Łukasz" "lukasz"), as allauth's own fold keeps
        only what decomposes to Latin letters: a Cyrillic, Greek or Chinese name made "player",
        "player9", and that is what profile links and the API show. Then allauth's rules
        (letters, digits and @.+-_, lower case, a suffix when taken) as before; existing
        usernames never change."""
        if not user_username(user):
            name = user.display_name or ""
            user_username(
                user, self.generate_unique_username([anyascii(name), name, "player"])
            )

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        """The "key" of the failed-login limit (ACCOUNT_RATE_LIMITS["login_failed"]): the login
        AND the client address, where allauth counts per login alone. Then a stranger's wrong
        guesses lock only the stranger out of that account, never its owner on another
        address, while one address still gets few guesses per account and the limit "per ip"
        stops it from spraying many accounts. allauth's maintainer points to this method for
        this (django-allauth issue 3584); allauth also clears this key after a password reset,
        for the address that reset it. The address is allauth's own (get_ip: the proxies of
        ALLAUTH_TRUSTED_PROXY_COUNT, IPv6 cut to its /64 network like the per-ip limits)."""
        login = super()._get_login_attempts_cache_key(request, **credentials)
        return f"{login}:{get_ip(request)}"
