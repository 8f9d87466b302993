"""How allauth fits the site's user model: the display name is set at sign-up and is what
allauth shows; the username, which nobody types, is made from the display name."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import user_username
from django.conf import settings
from django.forms import BaseForm
from django.http import HttpRequest
from django.utils import translation

from accounts.emails import SiteEmails


def user_display(user: Any) -> str:
    """The name allauth writes in pages, messages and emails (ACCOUNT_USER_DISPLAY)."""
    return str(user.public_name)


class AccountAdapter(SiteEmails, DefaultAccountAdapter):
    def save_user(
        self, request: HttpRequest, user: Any, form: BaseForm, commit: bool = True
    ) -> Any:
        """Save a new user with the display name typed at sign-up (accounts.forms.SignupForm),
        and the language the sign-up page was shown in (the language menu's choice or the
        browser's), so that the verification email and every later one is in it."""
        display_name = form.cleaned_data.get("display_name")
        if display_name:
            user.display_name = display_name
        language = translation.get_language()
        if language in dict(settings.LANGUAGES):
            user.language = language
        return super().save_user(request, user, form, commit=commit)

    def populate_username(self, request: HttpRequest, user: Any) -> None:
        """Fill the username from the display name, unique, instead of allauth's default (the
        email's local part): User.public_name falls back to the username and must never show
        any part of an email address."""
        if not user_username(user):
            user_username(user, self.generate_unique_username([user.display_name, "player"]))
