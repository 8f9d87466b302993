"""A finished game's rematch buttons (friends.rematches): each a POST answered by a redirect
back to the game's page, with what happened as a message."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.error_messages import service_error_text
from games.models import Game
from games.services import GameServiceError

from .. import rematches
from ..models import Rematch, RematchStatus


def _answer(
    request: HttpRequest, game_id: int, act: Callable[..., Rematch], done: Callable[[Rematch], str]
) -> HttpResponse:
    page = reverse("game_detail", args=[game_id])
    if not request.user.is_authenticated:
        return redirect_to_login(page)  # back to the game, not to this POST-only address
    try:
        rematch = act(game_id=game_id, user=request.user)
    except Game.DoesNotExist:
        raise Http404 from None
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, done(rematch))
    return HttpResponseRedirect(page, status=303)


def _said_yes(rematch: Rematch) -> str:
    if rematch.status == RematchStatus.STARTED:
        return _("Everyone accepted: the rematch has started.")
    return _("You accepted the rematch: it starts once every player has accepted.")


@require_POST
def offer(request: HttpRequest, game_id: int) -> HttpResponse:
    return _answer(request, game_id, rematches.rematch_offer, _said_yes)


@require_POST
def accept(request: HttpRequest, game_id: int) -> HttpResponse:
    return _answer(request, game_id, rematches.rematch_accept, _said_yes)


@require_POST
def decline(request: HttpRequest, game_id: int) -> HttpResponse:
    return _answer(
        request, game_id, rematches.rematch_decline, lambda _r: _("You declined the rematch.")
    )
