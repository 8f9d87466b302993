"""The player's calendar address and chat webhook: the secret ICS feed and one settings page.

Views only route: ``channels.calendar`` and ``channels.webhook`` hold the rules.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST, require_safe

from accounts.models import User
from games import ratelimit
from notifications.channels import calendar, chat, netguard, webhook
from notifications.channels.messages import test_message
from notifications.feed_models import WebhookFormat

#: "send me a test" presses per player (each is one request to the player's address)
TEST_RATE = "5/m"
#: how long a calendar, or a cache between, may keep the feed before asking again
FEED_MAX_AGE = 300


class WebhookForm(forms.Form):
    url = forms.URLField(
        label=gettext_lazy("Webhook address"),
        max_length=500,
        assume_scheme="https",
        help_text=gettext_lazy("The address your chat service gave you for incoming webhooks."),
    )
    format = forms.ChoiceField(
        label=gettext_lazy("Message format"),
        choices=WebhookFormat.choices,
        widget=forms.RadioSelect,
    )


def refusal_message(code: str) -> str:
    """Why an address is refused, in the player's words."""
    return {
        "scheme": _("Use an address that starts with https:// (or http://)."),
        "port": _("Use the standard port, or a port above 1023."),
        "host": _("This address has no usable host name."),
        "private": _(
            "This address leads to a private or local network; only public addresses are allowed."
        ),
        "unresolvable": _("The host name of this address was not found."),
    }.get(code, _("This address cannot be used."))


def failure_message(failure: webhook.WebhookFailure) -> str:
    """Why a test was not delivered, in the player's words."""
    if failure.code == "refused":
        return _("The test was not sent: this address is not allowed.")
    if failure.code == "redirect":
        return _("The test was not delivered: the address answered with a redirect (not followed).")
    if failure.code == "unresolvable":
        return _("The test was not delivered: the host name was not found.")
    if failure.code == "no_answer":
        return _("The test was not delivered: no answer in time.")
    return _("The test was not delivered: the address answered with an error (%(detail)s).") % {
        "detail": failure.detail[:80]
    }


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required: never anonymous
    return user


@require_safe
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The secret ICS feed; a forged or retired token is 404, like any unknown page. Reads only."""
    feed = calendar.feed_by_token(token)
    if feed is None:
        raise Http404()
    body = calendar.feed_ics(feed.user)
    etag = calendar.feed_etag(body)
    response = get_conditional_response(request, etag=etag)
    if response is None:
        response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="keltis.ics"'
    response["ETag"] = etag
    # the address is the secret: no shared cache keeps it, no search engine lists it
    patch_cache_control(response, private=True, max_age=FEED_MAX_AGE)
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response


def settings_context(user: User, form: WebhookForm | None = None) -> dict[str, Any]:
    """What ``notifications/_feeds_settings.html`` needs: any settings page including it
    passes this in its context."""
    feed = calendar.feed_of(user)
    destination = webhook.destination_of(user)
    if form is None:
        initial: dict[str, Any] = {"format": WebhookFormat.DISCORD}
        if destination is not None:
            initial = {"url": destination.url, "format": destination.format}
        form = WebhookForm(initial=initial)
    return {
        "calendar_url": calendar.feed_url(feed) if feed else None,
        "calendar_webcal": calendar.webcal_url(feed) if feed else None,
        "webhook": destination,
        "webhook_form": form,
        "signature_header": webhook.SIGNATURE_HEADER,
        "timestamp_header": webhook.TIMESTAMP_HEADER,
    }


def _page(
    request: HttpRequest, *, form: WebhookForm | None = None, status: int = 200
) -> HttpResponse:
    context = settings_context(_user(request), form)
    return render(request, "notifications/feeds_settings.html", context, status=status)


@login_required
@require_GET
def feeds_settings(request: HttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_POST
def calendar_new_address(request: HttpRequest) -> HttpResponse:
    """Make the calendar address, or a new one: the old one then answers 404."""
    user = _user(request)
    existed = calendar.feed_of(user) is not None
    calendar.feed_regenerate(user)
    if existed:
        messages.success(
            request, _("Your calendar has a new address; the old one no longer works.")
        )
    else:
        messages.success(request, _("Your calendar address is ready: add it to your calendar."))
    return redirect("feeds_settings")


@login_required
@require_POST
def calendar_remove(request: HttpRequest) -> HttpResponse:
    calendar.feed_disable(_user(request))
    messages.success(request, _("Your calendar address is removed; it no longer works."))
    return redirect("feeds_settings")


@login_required
@require_POST
def webhook_save(request: HttpRequest) -> HttpResponse:
    form = WebhookForm(request.POST)
    if form.is_valid():
        try:
            webhook.destination_save(
                _user(request), url=form.cleaned_data["url"], fmt=form.cleaned_data["format"]
            )
        except netguard.DestinationRefused as refused:
            form.add_error("url", refusal_message(refused.code))
        else:
            messages.success(request, _("Your webhook is saved."))
            return redirect("feeds_settings")
    return _page(request, form=form, status=400)


@login_required
@require_POST
def webhook_test(request: HttpRequest) -> HttpResponse:
    """Send a test now and say how it went (the player waits for at most the send's limit)."""
    user = _user(request)
    destination = webhook.destination_of(user)
    if destination is None:
        messages.error(request, _("Set a webhook address first."))
        return redirect("feeds_settings")
    if not ratelimit.hit("webhook_test", str(user.pk), TEST_RATE):
        messages.error(request, _("Too many tests: wait a minute and try again."))
        return redirect("feeds_settings")
    try:
        webhook.send_webhook(destination, chat.event_of(test_message(user), "test"))
    except webhook.WebhookFailure as failure:
        messages.error(request, failure_message(failure))
    else:
        messages.success(request, _("The test was delivered."))
    return redirect("feeds_settings")


@login_required
@require_POST
def webhook_new_secret(request: HttpRequest) -> HttpResponse:
    webhook.destination_new_secret(_user(request))
    messages.success(request, _("Your webhook has a new signing secret."))
    return redirect("feeds_settings")


@login_required
@require_POST
def webhook_remove(request: HttpRequest) -> HttpResponse:
    webhook.destination_remove(_user(request))
    messages.success(request, _("Your webhook is removed."))
    return redirect("feeds_settings")
