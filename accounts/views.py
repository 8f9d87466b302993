"""Account pages of our own; sign-up, login, email and password pages are allauth's."""

from __future__ import annotations

import contextlib
from typing import Any

from allauth.account.views import SignupView as AllauthSignupView
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_http_methods, require_POST

from accounts import blocks, services
from accounts.display_names import SIMILAR_NAME, NameTaken
from accounts.forms import SettingsForm
from accounts.models import User
from accounts.services import update_profile


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    """The player's display name, time zone and language."""
    user = request.user
    assert isinstance(user, User)  # login_required: never anonymous
    if request.method == "POST":
        form = SettingsForm(request.POST)
        if form.is_valid():
            try:
                update_profile(user, **form.cleaned_data)
            except ValidationError as error:
                form.add_error(None, error)
            else:
                translation.activate(user.language)  # the confirmation in the new language
                messages.success(request, _("Your settings are saved."))
                return redirect("account_settings")
    else:
        form = SettingsForm(
            initial={
                "display_name": user.display_name,
                "time_zone": user.time_zone,
                "language": user.language,
                "talk_in_records": user.talk_in_records,
            }
        )
    context = {"form": form, "blocked": blocks.blocked_by(user)}
    return render(request, "accounts/settings.html", context)


@login_required
@require_POST
def block_player(request: HttpRequest, username: str) -> HttpResponse:
    """Block (``action=block``) or unblock another player, from their profile or the settings
    page; back to where the form was."""
    user = request.user
    assert isinstance(user, User)
    other = get_object_or_404(User, username=username, is_active=True)
    if other.pk == user.pk:
        messages.error(request, _("You cannot block yourself."))
    elif request.POST.get("action") == "block":
        blocks.block(blocker=user, blocked=other)
        messages.success(
            request,
            _("You blocked %(name)s: no invitations or messages from them, and no table with them.")
            % {"name": other.public_name},
        )
    else:
        blocks.unblock(blocker=user, blocked=other)
        messages.success(request, _("You unblocked %(name)s.") % {"name": other.public_name})
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("player_profile", args=[other.username])
    return redirect(back)


class SignupView(AllauthSignupView):
    """allauth's sign-up page. A name that another sign-up took since the form was checked
    (accounts.forms.SignupForm.try_save) gets the form back with the same error as a name
    found taken, not an error page."""

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            return super().form_valid(form)
        except NameTaken:
            form.add_error("display_name", ValidationError(SIMILAR_NAME, code="similar"))
            return self.form_invalid(form)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The language menu: Django's set_language (cookie, redirect back to a safe ``next``),
    and for a logged-in player the choice is saved on the profile too, so that their emails
    follow it whichever device they chose it on."""
    response = i18n.set_language(request)
    language = request.POST.get(i18n.LANGUAGE_QUERY_PARAMETER, "")
    user = request.user
    if isinstance(user, User) and user.is_authenticated:
        # an unknown language: Django's view has ignored it, and the profile keeps its own
        with contextlib.suppress(ValidationError):
            services.set_language(user, language)
    return response
