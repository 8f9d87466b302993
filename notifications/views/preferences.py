"""The player's notification settings and vacations: one page of small forms (the channels'
own are ``notifications.views.channels``).

Views only route: ``accounts.services`` saves the email setting, ``accounts.vacations`` holds
the rules of vacations (allowance, overlaps, no past days); their refusals become form errors.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts import vacations
from accounts.forms import EmailPreferencesForm, VacationForm
from accounts.models import User
from accounts.services import update_email_preferences

from .. import preferences as channel_preferences
from ..channels import push
from ..models import ChannelMode, MessageMode


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required: never anonymous
    return user


def _page(
    request: HttpRequest,
    *,
    preferences_form: EmailPreferencesForm | None = None,
    vacation_form: VacationForm | None = None,
    status: int = 200,
) -> HttpResponse:
    user = _user(request)
    now = timezone.now()
    year = vacations.local_today(user, now).year
    rows = []
    for vacation in vacations.vacations_ahead(user=user, now=now):
        first, last = vacations.local_days(user, vacation.starts_at, vacation.ends_at)
        rows.append(
            {"id": vacation.pk, "first": first, "last": last, "removable": vacation.starts_at > now}
        )
    context: dict[str, Any] = {
        "preferences_form": preferences_form
        or EmailPreferencesForm(
            initial={"email_mode": user.email_mode, "digest_hour": user.digest_hour}
        ),
        "vacation_form": vacation_form or VacationForm(),
        "vacations": rows,
        "allowance": vacations.allowance(),
        "year": year,
        "days_left": vacations.days_left(user, year),
        "time_zone": user.time_zone,
        "channels": channel_preferences.channel_rows(user),
        "channel_modes": ChannelMode.choices,
        "always_notify": user.always_notify,
        "quiet_minutes": settings.NOTIFICATION_QUIET_MINUTES,
        "push_available": push.available(),
        "push_key": push.public_key() if push.available() else "",
        "push_devices": channel_preferences.push_devices(user),
        "talk_channels": channel_preferences.talk_rows(user),
        "message_modes": MessageMode.choices,
    }
    # games/email_preferences.html with the table talk part after it
    return render(request, "notifications/email_preferences.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def email_preferences(request: HttpRequest) -> HttpResponse:
    """GET: the page. POST: save how turn emails come (every turn, a digest, none)."""
    if request.method != "POST":
        return _page(request)
    form = EmailPreferencesForm(request.POST)
    if form.is_valid():
        try:
            update_email_preferences(_user(request), **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Your email preferences are saved."))
            return redirect("email_preferences")
    return _page(request, preferences_form=form, status=400)


@login_required
@require_POST
def vacation_add(request: HttpRequest) -> HttpResponse:
    form = VacationForm(request.POST)
    if form.is_valid():
        try:
            vacations.vacation_create(user=_user(request), **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Your vacation is declared: your clocks stop then."))
            return redirect("email_preferences")
    return _page(request, vacation_form=form, status=400)


@login_required
@require_POST
def vacation_remove(request: HttpRequest, vacation_id: int) -> HttpResponse:
    try:
        vacations.vacation_delete(user=_user(request), vacation_id=vacation_id)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The vacation is removed."))
    return redirect("email_preferences")
