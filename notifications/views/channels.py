"""The channels' part of the settings page: a channel's choice, "send me a test", the push
devices, and the service worker. Views only route: ``notifications.preferences`` decides."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from keltis_site import app_shell

from .. import preferences


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required: never anonymous
    return user


def _back() -> HttpResponse:
    return redirect("email_preferences")


@login_required
@require_POST
def channel_mode(request: HttpRequest, channel: str) -> HttpResponse:
    try:
        preferences.set_channel_mode(_user(request), channel, request.POST.get("mode", ""))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Your notification settings are saved."))
    return _back()


@login_required
@require_POST
def talk_mode(request: HttpRequest, channel: str) -> HttpResponse:
    """A channel's choice for table talk (the "Table talk" part of the settings page)."""
    try:
        preferences.set_message_mode(_user(request), channel, request.POST.get("mode", ""))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("Your notification settings are saved."))
    return _back()


@login_required
@require_POST
def always_notify(request: HttpRequest) -> HttpResponse:
    preferences.set_always_notify(_user(request), request.POST.get("always") == "on")
    messages.success(request, _("Your notification settings are saved."))
    return _back()


@login_required
@require_POST
def channel_test(request: HttpRequest, channel: str) -> HttpResponse:
    try:
        preferences.send_test(_user(request), channel)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The test is on its way."))
    return _back()


@login_required
@require_POST
def push_subscribe(request: HttpRequest) -> HttpResponse:
    """The settings page's script posts the browser's subscription here as JSON."""
    try:
        data = json.loads(request.body or b"null")
        preferences.push_subscribe(_user(request), data)
    except ValueError:
        return JsonResponse({"error": _("The browser sent no usable subscription.")}, status=400)
    except ValidationError as error:
        return JsonResponse({"error": " ".join(error.messages)}, status=400)
    return JsonResponse({"ok": True}, status=201)


@login_required
@require_POST
def push_remove(request: HttpRequest, subscription_id: int) -> HttpResponse:
    try:
        preferences.push_remove(_user(request), subscription_id)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("The device is removed."))
    return _back()


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root so that its scope is the whole site. It shows
    the push messages and keeps the offline page (what to keep: keltis_site.app_shell)."""
    response = HttpResponse(
        render_to_string("notifications/sw.js", app_shell.worker_context()),
        content_type="text/javascript; charset=utf-8",
    )
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
