"""The table talk's actions on the game page: write, report, mute. Each is a POST answered by
a redirect back to the game's talk panel (``#talk``); a refusal is a flash message in the
player's language, and nothing changes."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.error_messages import service_error_text
from games.models import Game

from . import rules, services
from .models import Message, Via
from .templatetags.talk_tags import draft_key

#: the most of a refused text kept for its box (a page's box holds TALK_MAX_LENGTH)
DRAFT_KEPT = 4000


def _back(game_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("game_detail", args=[game_id]) + "#talk", status=303)


def _readable_game(request: HttpRequest, game_id: int) -> Game:
    """The game, if the visitor may read its talk (else 404, as its page answers)."""
    game = get_object_or_404(Game, pk=game_id)
    if not rules.may_read(game, request.user):
        raise Http404
    return game


@require_POST
def talk_post(request: HttpRequest, game_id: int) -> HttpResponse:
    """Post the box's text to the table; a refused text comes back to the box."""
    if not request.user.is_authenticated:
        get_object_or_404(Game, pk=game_id)
        return redirect_to_login(reverse("game_detail", args=[game_id]))
    game = _readable_game(request, game_id)
    text = request.POST.get("text", "")
    try:
        services.message_post(game_id=game.pk, user=request.user, text=text, via=Via.PAGE)
    except services.TalkError as exc:
        messages.error(request, service_error_text(exc))
        request.session[draft_key(game.pk)] = text[:DRAFT_KEPT]
    return _back(game.pk)


@require_POST
def talk_report(request: HttpRequest, message_id: int) -> HttpResponse:
    """Ask staff to look at a message (with an optional reason)."""
    message = get_object_or_404(Message.objects.select_related("game"), pk=message_id)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("game_detail", args=[message.game_id]))
    _readable_game(request, message.game_id)
    try:
        services.report(
            message_id=message.pk, user=request.user, reason=request.POST.get("reason", "").strip()
        )
    except services.TalkError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("Thank you: staff will look at this message."))
    return _back(message.game_id)


@require_POST
def talk_mute(request: HttpRequest, game_id: int) -> HttpResponse:
    """Fold the table's talk away for oneself (``muted=1``) or unfold it (``muted=0``)."""
    if not request.user.is_authenticated:
        get_object_or_404(Game, pk=game_id)
        return redirect_to_login(reverse("game_detail", args=[game_id]))
    game = _readable_game(request, game_id)
    services.mute(game_id=game.pk, user=request.user, muted=request.POST.get("muted") != "0")
    return _back(game.pk)
