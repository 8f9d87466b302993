"""Account pages of our own; sign-up, login, email and password pages are allauth's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

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
                messages.success(request, _("Your settings are saved."))
                return redirect("account_settings")
    else:
        form = SettingsForm(
            initial={
                "display_name": user.display_name,
                "time_zone": user.time_zone,
                "language": user.language,
            }
        )
    return render(request, "accounts/settings.html", {"form": form})
