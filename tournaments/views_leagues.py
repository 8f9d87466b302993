"""League pages: the list, a league with its standings, joining, leaving, settings, the create
page (staff, and verified players creating a club) and a club's organisers' actions (making a
member co-organiser, removing one, closing the club). A private club's pages are 404 for
whoever may not see it (``leagues.may_view``); inviting people to a club is the friends app's
page (``club_invite``), linked from the league page.

Views only route: reads come from ``tournaments.leagues`` selectors, writes from its services;
a refusal of a service becomes a message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
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

from . import clubs, leagues
from .forms_leagues import LeagueCreateForm, LeagueEditForm
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
    pager = paginate(request, leagues.active_leagues(viewer=request.user), per_page=PAGE_SIZE)
    return render(
        request,
        "tournaments/leagues/list.html",
        {
            "pager": pager,
            "rows": leagues.league_rows(pager.items, viewer=request.user),
            "may_create_club": clubs.is_verified(request.user),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def league_create(request: HttpRequest) -> HttpResponse:
    """Staff open a league here instead of in the admin; a verified player opens a club (a
    league they run, up to MAX_CLUBS_PER_PLAYER at once)."""
    if not clubs.is_verified(request.user):
        raise PermissionDenied
    form = LeagueCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            league = clubs.club_create(creator=request.user, **form.create_kwargs())
        except leagues.LeagueError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                _("The league %(league)s is open: players can join it now.") % {"league": league},
            )
            return _detail(league.pk)
    return render(
        request,
        "tournaments/leagues/create.html",
        {
            "form": form,
            "refusal": clubs.club_refusal(request.user),
            "club_limit": settings.MAX_CLUBS_PER_PLAYER,
            "running": clubs.clubs_running(request.user),
        },
    )


def _visible(request: HttpRequest, league_id: int) -> League:
    """The league, or 404 for an unknown one and for a private club the viewer may not see."""
    league = get_object_or_404(League, pk=league_id)
    if not leagues.may_view(request.user, league):
        raise Http404
    return league


@require_GET
def league_detail(request: HttpRequest, league_id: int) -> HttpResponse:
    league = _visible(request, league_id)
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
    organising = leagues.may_organise(request.user, league)
    organisers = clubs.organisers_of(league)
    organiser_ids = {u.pk for u in organisers}
    club_members = []
    if organising and (league.created_by_id is not None or league.private):
        club_members = [
            (member, member.user_id in organiser_ids)
            for member in league.members.filter(active=True)
            .select_related("user")
            .order_by("user__display_name", "user__username")
        ]
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
                and (not league.private or organising)
                and (rating is None or leagues.in_band(league, rating))
            ),
            "organising": organising,
            "organisers": organisers,
            "club_members": club_members,
            "is_creator": (
                request.user.is_authenticated and league.created_by_id == request.user.pk
            ),
            "may_close": league.active
            and request.user.is_authenticated
            and (request.user.is_staff or league.created_by_id == request.user.pk),
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
    _visible(request, league_id)
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


# -- a club's organisers ------------------------------------------------------------------------
def _person(request: HttpRequest) -> int | None:
    """The member a club action names (its ``user`` field), or None for a malformed one."""
    value = request.POST.get("user", "")
    return int(value) if value.isdigit() else None


def _club_action(
    request: HttpRequest,
    league_id: int,
    action: Callable[[Any], object],
    success: str,
) -> HttpResponse:
    """An organiser's action on a member of the club (404 for an unknown league, a league
    the viewer may not see or an unknown person); the refusal or ``success`` as a message."""
    if not request.user.is_authenticated:
        return _login(league_id)
    _visible(request, league_id)
    user_id = _person(request)
    if user_id is None:
        messages.error(request, _("Choose a member of the club."))
        return _detail(league_id)
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise Http404
    try:
        action(user)
    except leagues.LeagueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, success % {"name": user.public_name})
    return _detail(league_id)


@require_POST
def league_organiser_add(request: HttpRequest, league_id: int) -> HttpResponse:
    return _club_action(
        request,
        league_id,
        lambda user: clubs.organiser_add(league_id=league_id, by=request.user, user=user),
        _("%(name)s is now an organiser of this club."),
    )


@require_POST
def league_organiser_remove(request: HttpRequest, league_id: int) -> HttpResponse:
    return _club_action(
        request,
        league_id,
        lambda user: clubs.organiser_remove(league_id=league_id, by=request.user, user=user),
        _("%(name)s is no longer an organiser of this club."),
    )


@require_POST
def league_member_remove(request: HttpRequest, league_id: int) -> HttpResponse:
    return _club_action(
        request,
        league_id,
        lambda user: clubs.member_remove(league_id=league_id, by=request.user, user=user),
        _("%(name)s is no longer a member of this club."),
    )


@require_POST
def league_close(request: HttpRequest, league_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _login(league_id)
    league = _visible(request, league_id)
    try:
        clubs.league_close(league_id=league.pk, by=request.user)
    except leagues.LeagueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("%(league)s is closed: no new games; the running ones are played to their end.")
            % {"league": league},
        )
    return _detail(league_id)


@login_required
@require_http_methods(["GET", "POST"])
def league_edit(request: HttpRequest, league_id: int) -> HttpResponse:
    """A club's organisers (and staff) change its settings; the game stays the same."""
    league = _visible(request, league_id)
    if not leagues.may_organise(request.user, league):
        raise PermissionDenied
    initial = {field: getattr(league, field) for field in clubs.EDITABLE}
    form = LeagueEditForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            clubs.league_update(league_id=league.pk, by=request.user, **form.update_kwargs())
        except leagues.LeagueError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("The settings are saved: new games are played with them."))
            return _detail(league.pk)
    return render(request, "tournaments/leagues/edit.html", {"form": form, "league": league})
