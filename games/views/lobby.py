"""The lobby, creating a game, joining and leaving one, and a player's own games.

Views only route: reads come from ``games.listings``, checks from ``games.forms`` and writes
from ``games.services``; refusals of a service become messages.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import listings, services
from games.error_messages import service_error_text
from games.forms import INVITE, GameCreateForm
from games.models import Game, GameKind, GameStatus
from games.presenters.messages import joined_message
from games.services import GameServiceError, game_create, game_join, game_leave
from keltis_site.pagination import paginate

from .next_page import next_page


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """Open games, a page at a time and a few of each creator (``?by=<username>``: all of one
    player's), and the latest running games."""
    creator = None
    if "by" in request.GET:
        creator = get_object_or_404(listings.players(), username=request.GET["by"])
    pager = paginate(
        request, listings.lobby_open_games(creator=creator), per_page=listings.LOBBY_PAGE_SIZE
    )
    open_games, running_games = listings.lobby_rows(pager.items, viewer=request.user)
    return render(
        request,
        "games/lobby.html",
        {
            "creator": creator,
            "pager": pager,
            "open_games": open_games,
            "running_games": running_games,
            # live.js follows every open game (live/): the list changes as games open and fill
            "live_lobby": True,
        },
    )


def _create_initial(request: HttpRequest) -> dict[str, object]:
    """The create form's first choices from the address: ?kind= preselects the game (the rules
    pages link here); ?invite=<username> (a profile's or a finished table's "Challenge") makes
    a game of two with that player invited. Unknown values are ignored."""
    initial: dict[str, object] = {}
    if request.GET.get("kind") in GameKind.values:
        initial["kind"] = request.GET["kind"]
    username = request.GET.get("invite", "")
    if username and services.CREATE_WITH_INVITEES:
        player = listings.players().filter(username=username).first()
        if player is not None and player.pk != request.user.pk:
            initial.update(
                player_count=2, seat_1=INVITE, invitee_1=str(player.public_name)
            )
    return initial


def _create_game(request: HttpRequest, form: GameCreateForm) -> Game:
    """The game the form describes. With people invited it is made by the creator friends
    registered (``services.CREATE_WITH_INVITEES``), which resolves every name and address
    first and makes the game and its invitations together, or nothing: games may not import
    friends, the layer built on it, so it reaches that function through the hook."""
    invitees = form.invitees()
    if invitees:
        create_with_invitees = services.CREATE_WITH_INVITEES[-1]
        return create_with_invitees(
            creator=request.user, invitees=invitees, **form.game_create_kwargs()
        )
    return game_create(creator=request.user, **form.game_create_kwargs())


@login_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest) -> HttpResponse:
    form = GameCreateForm(request.POST or None, initial=_create_initial(request))
    if request.method == "POST" and form.is_valid():
        try:
            game = _create_game(request, form)
        except GameServiceError as exc:
            # an invitee refused (friends.invitations.InvitationError) is one too: nothing made
            form.add_error(None, service_error_text(exc))
        else:
            if form.invitees():  # its page shows who is invited and what they answered
                messages.success(request, _("Your invitations are on their way."))
                return redirect(listings.game_url(game.pk))
            if game.status == GameStatus.RUNNING:
                messages.success(request, _("Your game has started."))
                return redirect(listings.game_url(game.pk))
            if game.private:  # its page shows the link to share
                messages.success(
                    request, _("Your private table is ready: share its link with your players.")
                )
                return redirect(listings.game_url(game.pk))
            free = game.player_count - game.seats.count()
            messages.success(
                request,
                ngettext(
                    "Your game is open in the lobby and waits for %(n)s more player.",
                    "Your game is open in the lobby and waits for %(n)s more players.",
                    free,
                )
                % {"n": free},
            )
            return redirect("lobby")
    return render(request, "games/create.html", {"form": form})


@require_POST
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        # after logging in the player comes back to the lobby, where the button is
        return redirect_to_login(reverse("lobby"))
    try:
        game = game_join(game_id=game_id, user=request.user)
    except Game.DoesNotExist:
        raise Http404 from None
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
        return HttpResponseRedirect(next_page(request, reverse("lobby")))
    messages.success(request, joined_message(game))
    if game.status == GameStatus.RUNNING:
        return redirect(listings.game_url(game.pk))
    return HttpResponseRedirect(next_page(request, reverse("lobby")))


@require_POST
def leave(request: HttpRequest, game_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("lobby"))
    try:
        game = game_leave(game_id=game_id, user=request.user)
    except Game.DoesNotExist:
        raise Http404 from None
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
        return HttpResponseRedirect(next_page(request, reverse("lobby")))
    if game.status == GameStatus.CANCELLED:
        messages.success(request, _("%(game)s is cancelled.") % {"game": game})
    else:
        messages.success(request, _("You left %(game)s.") % {"game": game})
    return HttpResponseRedirect(next_page(request, reverse("lobby")))


@login_required
@require_GET
def my_games(request: HttpRequest) -> HttpResponse:
    running, waiting, finished = listings.user_game_lists(user=request.user)
    return render(
        request,
        "games/my_games.html",
        {"running_games": running, "open_games": waiting, "finished_games": finished},
    )
