"""The pages of one game: the game itself, its actions, its history and its exported record.

Thin: selectors read, presenters word and place, services write.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import DatabaseError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseForbidden,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from games import analysis, integrity, presence, presenters, ratelimit, selectors, visibility
from games.drawings import PageDrawings
from games.error_messages import service_error_text
from games.models import Game
from games.presenters.analysis import analysis_rows, analysis_summary
from games.ratelimit import too_many_actions
from games.services import (
    GameMovedOn,
    GameServiceError,
    NotYourSeat,
    action_submit,
    retried_move,
)

TEXT = "text/plain; charset=utf-8"

#: a game's pages show a player's own hand: neither a shared cache nor the browser's disk may
#: keep them (keltis_site.private_pages does so for every page of a logged-in player; this
#: covers the game's pages whoever asks)
private_page = cache_control(private=True, no_store=True)


@private_page
@require_GET
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    # the snapshot comes with the game: the page draws the position from it
    game = next(iter(selectors.GAME_WITH_SNAPSHOT.run(game_id)), None)
    if game is None or not visibility.may_watch(game, request.user):
        raise Http404
    page = selectors.game_page(game=game, user=request.user)
    integrity.freeze_if_unreplayable(page.unreplayable)
    response = render(request, "games/game.html", presenters.game_context(page))
    PageDrawings.store(request)  # what the page drew afresh, cached in one round trip
    return response


@require_POST
def game_act(request: HttpRequest, game_id: int) -> HttpResponse:
    """One action from the page's buttons; always answered by a redirect to the game (or an
    error status for a request no button of the page can make)."""
    if not request.user.is_authenticated:
        get_object_or_404(Game, pk=game_id)
        # back to the game after logging in, not to this POST-only address
        return redirect_to_login(reverse("game_detail", args=[game_id]))
    if not ratelimit.hit("action-user", str(request.user.pk)):
        return too_many_actions(request)
    if getattr(request.user, "is_bot", False):  # a bot account plays through the API only
        get_object_or_404(Game, pk=game_id)
        return HttpResponseForbidden(
            _("A bot account plays through the API only: nothing was changed."),
            content_type=TEXT,
        )
    action = request.POST.get("action", "").strip()
    raw_seq = request.POST.get("seq", "")
    if not action:
        return HttpResponseBadRequest(
            _("No action was sent: nothing was changed."), content_type=TEXT
        )
    try:
        seq = int(raw_seq)
    except ValueError:
        return HttpResponseBadRequest(
            _("The form lacks the game's move number (seq): nothing was changed."),
            content_type=TEXT,
        )
    try:
        # the seat is the one the player holds: action_submit reads the seats anyway
        result = action_submit(
            game_id=game_id, seat=None, action=action, expected_seq=seq, user=request.user
        )
    except Game.DoesNotExist:
        raise Http404 from None
    except NotYourSeat:
        return HttpResponseForbidden(_("You do not have a seat in this game."), content_type=TEXT)
    except (GameMovedOn, DatabaseError) as exc:
        # a retry of a move that was made (its answer lost), or a connection that broke after
        # the commit: the move stands, and the player is told so
        made = retried_move(
            game_id=game_id, user_id=request.user.pk, seq=seq, action=action,
            after_error=isinstance(exc, DatabaseError),
        )  # fmt: skip
        if made is not None:
            presence.mark_stepped(game_id, request.user.pk)
            messages.success(request, _("Your move was made."))
        elif isinstance(exc, GameServiceError):
            messages.error(request, service_error_text(exc))
        else:
            raise
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        # a step on the page: the player's next turn messages wait (notifications.quiet)
        presence.mark_stepped(game_id, request.user.pk)
        kind, seat = result.game.kind, result.event.seat
        names = selectors.seat_names(game=result.game, rows=result.seats)
        view = result.engine.view(seat)
        messages.success(
            request,
            presenters.result_message(
                kind, action, view, seat, names, result.before,
                automatic=[e.action for e in result.automatic],
            ),
        )
    return HttpResponseRedirect(reverse("game_detail", args=[game_id]), status=303)


@private_page
@require_GET
def game_history(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    if not visibility.may_watch(game, request.user):
        raise Http404
    page = selectors.game_history(game=game, step=request.GET.get("step"))
    integrity.freeze_if_unreplayable(page.unreplayable)
    context = presenters.history_context(page)
    # the analysis exists only for finished games (games.analysis refuses to make it before)
    mine = analysis.analysis_for(game=game, user=request.user)
    context["analysis"] = mine
    context["analysis_can_ask"] = mine is None and analysis.can_ask(game=game, user=request.user)
    context["analysis_rows"] = None
    if mine is not None and mine.done_at is not None:
        rows = analysis_rows(game.kind, mine.moves)
        context["analysis_rows"] = rows
        context["analysis_summary"] = analysis_summary(rows)
    return render(request, "games/history.html", context)


@require_POST
def game_analysis_request(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player of a finished game asks for the strong bot's look at their moves; a worker
    computes it once. Answered by a redirect to the history page."""
    history = reverse("game_history", args=[game_id]) + "#analysis"
    if not request.user.is_authenticated:
        get_object_or_404(Game, pk=game_id)
        return redirect_to_login(reverse("game_history", args=[game_id]))
    if not ratelimit.hit("action-user", str(request.user.pk)):
        return too_many_actions(request)
    try:
        analysis.analysis_request(game_id=game_id, user=request.user)
    except Game.DoesNotExist:
        raise Http404 from None
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(
            request,
            _(
                "The analysis was asked for: it shows here once the strong bot has looked at "
                "your moves (a minute or two)."
            ),
        )
    return HttpResponseRedirect(history, status=303)


@require_GET
def game_export(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    if not visibility.may_watch(game, request.user):
        raise Http404
    try:
        record = selectors.game_record(game=game)
    except selectors.RecordNotAvailable:
        return HttpResponseForbidden(
            _(
                "The record of a game can be downloaded once the game has finished: "
                "it shows every hand and the order of the deck."
            ),
            content_type=TEXT,
        )
    body = json.dumps(record, ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{game.kind}-{game.pk}.json"'
    return response
