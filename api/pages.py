"""The settings page's API section (/accounts/api/): create a token (shown once), revoke one,
turn the account into a bot. Session pages with CSRF, as every page of the site."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from . import bot_accounts, tokens
from .models import Scope


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=60,
        help_text=gettext_lazy("What the token is for, e.g. 'my bot'."),
    )
    play = forms.BooleanField(
        label=gettext_lazy("Also let it play (move, join and leave) in my name"), required=False
    )


class BotForm(forms.Form):
    confirm = forms.BooleanField(
        label=gettext_lazy("I understand that this cannot be undone."), required=True
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def api_settings(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_secret = None
    if request.method == "POST" and form.is_valid():
        scopes = [Scope.READ, Scope.PLAY] if form.cleaned_data["play"] else [Scope.READ]
        try:
            made = tokens.token_create(
                user=request.user, name=form.cleaned_data["name"], scopes=scopes
            )
        except tokens.TokenError as exc:
            form.add_error(None, str(exc))
        else:
            new_secret = made.secret
            form = TokenForm()
    return render(
        request,
        "api/settings.html",
        {
            "form": form,
            "bot_form": BotForm(),
            "tokens": tokens.user_tokens(request.user),
            "new_secret": new_secret,
        },
    )


@login_required
@require_POST
def api_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        tokens.token_revoke(user=request.user, token_id=token_id)
    except tokens.TokenError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The token is revoked: programs using it are refused."))
    return redirect("api_settings")


@login_required
@require_POST
def api_make_bot(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Tick the box to confirm: nothing was changed."))
        return redirect("api_settings")
    try:
        bot_accounts.account_make_bot(user=request.user)
    except bot_accounts.BotAccountError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("This account is now a bot account: it plays through the API."))
    return redirect("api_settings")
