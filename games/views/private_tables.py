"""A private table's link: the page it opens (GET shows the table and a button; only the POST
joins), and its renewal by the table's creator."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import listings, private_tables
from games.error_messages import service_error_text
from games.models import Game, GameStatus
from games.presenters.messages import joined_message
from games.services import GameServiceError


@never_cache
@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, game_id: int, secret: str) -> HttpResponse:
    if not request.user.is_authenticated:
        # sign up or log in first, then back to this link
        return redirect_to_login(request.get_full_path())
    game = Game.objects.filter(pk=game_id).select_related("created_by").first()
    valid = game is not None and game.private and private_tables.link_matches(game, secret)
    if not valid:
        context = {"refused": private_tables.LinkNotValid.default_message}
        return render(request, "games/private_join.html", context, status=404)
    assert game is not None
    if game.seats.filter(user_id=request.user.pk).exists():
        return redirect(listings.game_url(game.pk))
    if request.method == "POST":
        try:
            game = private_tables.join_by_link(game_id=game_id, secret=secret, user=request.user)
        except (Game.DoesNotExist, GameServiceError) as exc:
            text = service_error_text(exc) if isinstance(exc, GameServiceError) else ""
            return render(request, "games/private_join.html", {"refused": text}, status=409)
        messages.success(request, joined_message(game))
        return redirect(listings.game_url(game.pk))
    context = {
        "game": game,
        "creator": game.created_by.display_name if game.created_by else "",
        "seated": game.seats.count(),
        "open": game.status == GameStatus.OPEN,
    }
    return render(request, "games/private_join.html", context)


@require_POST
def renew(request: HttpRequest, game_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("game_detail", args=[game_id]))
    try:
        private_tables.link_renew(game_id=game_id, user=request.user)
    except Game.DoesNotExist:
        raise Http404 from None
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("The table has a new link: the old one no longer works."))
    return HttpResponseRedirect(reverse("game_detail", args=[game_id]), status=303)
