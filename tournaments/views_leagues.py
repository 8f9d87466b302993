"""League pages: the list, a league with its standings, joining, leaving, settings, and the
organisers' (staff) create page.

Views only route: reads come from ``tournaments.leagues`` selectors, writes from its services;
a refusal of a service becomes a message.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import listings
from games.models import Game, GameStatus
from keltis_site.pagination import paginate

from . import leagues
from .forms_leagues import LeagueCreateForm
from .models import League, LeagueMember, Season


class MaxGamesForm(forms.Form):
    max_games = forms.IntegerField(
        label=gettext_lazy("League games at once"),
        min_value=leagues.MAX_GAMES_MIN,
        max_value=leagues.MAX_GAMES_MAX,
        initial=2,
    )


#: leagues on one page of the list
PAGE_SIZE = 20


@require_GET
def league_list(request: HttpRequest) -> HttpResponse:
    pager = paginate(request, leagues.active_leagues(), per_page=PAGE_SIZE)
    return render(
        request,
        "tournaments/leagues/list.html",
        {"pager": pager, "rows": leagues.league_rows(pager.items, viewer=request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def league_create(request: HttpRequest) -> HttpResponse:
    """Organisers (staff) open a league here instead of in the admin."""
    if not request.user.is_staff:
        raise PermissionDenied
    form = LeagueCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            league = leagues.league_create(**form.create_kwargs())
        except leagues.LeagueError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                _("The league %(league)s is open: players can join it now.") % {"league": league},
            )
            return _detail(league.pk)
    return render(request, "tournaments/leagues/create.html", {"form": form})


@require_GET
def league_detail(request: HttpRequest, league_id: int) -> HttpResponse:
    league = get_object_or_404(League, pk=league_id)
    seasons = list(league.seasons.order_by("-number"))
    wanted = request.GET.get("season", "")
    if wanted:
        season = next((s for s in seasons if str(s.number) == wanted), None)
        if season is None:
            raise Http404
    else:
        running = [s for s in seasons if s.status == Season.Status.RUNNING]
        season = running[0] if running else (seasons[0] if seasons else None)
    membership = None
    my_games: list[Game] = []
    rating = None
    if request.user.is_authenticated:
        membership = LeagueMember.objects.filter(
            league=league, user=request.user, active=True
        ).first()
        my_games = list(
            Game.objects.filter(
                season_link__season__league=league,
                seats__user=request.user,
                status=GameStatus.RUNNING,
            ).order_by("-started_at")
        )
        rating = leagues.rating_of(request.user.pk, league.kind)
    return render(
        request,
        "tournaments/leagues/detail.html",
        {
            "league": league,
            "band": leagues.band_label(league),
            "bots": leagues.bots_label(league),
            "season": season,
            "other_seasons": [s for s in seasons if s != season],
            "rows": leagues.standings(season) if season else [],
            "membership": membership,
            "rating": rating,
            "out_of_band": (
                membership is not None
                and rating is not None
                and not leagues.in_band(league, rating)
            ),
            "can_join": (
                league.active
                and membership is None
                and (rating is None or leagues.in_band(league, rating))
            ),
            "my_games": [(game, listings.game_url(game.pk)) for game in my_games],
            "form": MaxGamesForm(initial={"max_games": membership.max_games if membership else 2}),
        },
    )


def _detail(league_id: int) -> HttpResponse:
    return redirect("league_detail", league_id=league_id)


def _login(league_id: int) -> HttpResponse:
    # after logging in the player comes back to the league page, where the buttons are
    return redirect_to_login(reverse("league_detail", args=[league_id]))


def _max_games(request: HttpRequest) -> int | None:
    form = MaxGamesForm(request.POST)
    if form.is_valid():
        return form.cleaned_data["max_games"]
    messages.error(
        request,
        _("Choose between %(low)s and %(high)s games at once.")
        % {"low": leagues.MAX_GAMES_MIN, "high": leagues.MAX_GAMES_MAX},
    )
    return None


def _member_change(
    request: HttpRequest,
    league_id: int,
    change: Callable[[], LeagueMember],
    success: Callable[[LeagueMember], str],
) -> HttpResponse:
    """One change of membership: 404 for an unknown league, the league's refusal as an error
    message, else ``success`` worded for the member; back to the league page either way."""
    try:
        member = change()
    except League.DoesNotExist:
        raise Http404 from None
    except leagues.LeagueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, success(member))
    return _detail(league_id)


@require_POST
def league_join(request: HttpRequest, league_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _login(league_id)
    max_games = _max_games(request) if "max_games" in request.POST else 2
    if max_games is None:
        return _detail(league_id)
    return _member_change(
        request,
        league_id,
        lambda: leagues.league_join(league_id=league_id, user=request.user, max_games=max_games),
        lambda member: _("You joined %(league)s: the matchmaker seats you in your first games "
                         "shortly.") % {"league": member.league},
    )


@require_POST
def league_leave(request: HttpRequest, league_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _login(league_id)
    return _member_change(
        request,
        league_id,
        lambda: leagues.league_leave(league_id=league_id, user=request.user),
        lambda member: _("You left %(league)s. Your running league games go on to their end.")
        % {"league": member.league},
    )


@require_POST
def league_settings(request: HttpRequest, league_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _login(league_id)
    max_games = _max_games(request)
    if max_games is None:
        return _detail(league_id)
    return _member_change(
        request,
        league_id,
        lambda: leagues.league_set_max_games(
            league_id=league_id, user=request.user, max_games=max_games
        ),
        lambda member: ngettext(
            "You now play up to %(n)s game at once in this league.",
            "You now play up to %(n)s games at once in this league.",
            max_games,
        )
        % {"n": max_games},
    )
    try:
        leagues.league_set_max_games(league_id=league_id, user=request.user, max_games=max_games)
    except League.DoesNotExist:
        raise Http404 from None
    except leagues.LeagueError as exc:
        messages.error(request, str(exc))
        return _detail(league_id)
    messages.success(
        request,
        ngettext(
            "You now play up to %(n)s game at once in this league.",
            "You now play up to %(n)s games at once in this league.",
            max_games,
        )
        % {"n": max_games},
    )
    return _detail(league_id)
