"""Tournament pages: the list, a tournament (players, rounds, tables, standings), creating
one, signing up or withdrawing, and the organiser adding or removing bot entrants. A private
tournament (tournaments.private_tournaments) is 404 for whoever may not see it; its sign-up
link's page and its renewal are here too.

Views only route: reads come from ``rounds`` (the standings selector, the rounds with their
tables), checks from the form, writes from the ``rounds`` services; a refusal becomes a message.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.listings import game_url
from games.models import GameStatus
from keltis_site.pagination import paginate

from . import private_tournaments, rounds
from .forms_tournaments import BotAddForm, TournamentCreateForm
from .models import Tournament, TournamentGame, TournamentPlayer

Status = Tournament.Status
#: tournaments on one page of each section of the list
PAGE_SIZE = 20


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """Three sections (open for sign-up, running, finished), each paginated on its own
    (``?signup_page=``, ``?running_page=``, ``?finished_page=``)."""
    visible = private_tournaments.visible_tournaments(request.user)
    base = visible.annotate(player_count=Count("players")).order_by("signup_until", "pk")
    sections = {
        "signup": base.filter(status=Status.SIGNUP),
        "running": base.filter(status=Status.RUNNING),
        "finished": base.filter(status__in=[Status.FINISHED, Status.CANCELLED]).order_by(
            "-signup_until", "-pk"
        ),
    }
    return render(
        request,
        "tournaments/tournaments/list.html",
        {
            name: paginate(request, tournaments, per_page=PAGE_SIZE, param=f"{name}_page")
            for name, tournaments in sections.items()
        },
    )


@dataclass
class TableSeat:
    """A seat of a table's game, named by its entrant ("Strong bot 2" for a bot)."""

    name: str
    place: int | None
    score: int | None


@dataclass
class TableRow:
    """One table of a round, for the page: a game (seats in order) or a bye."""

    table: TournamentGame
    url: str | None
    seats: list[TableSeat]
    finished: bool
    status: str
    #: the entrant who had the bye
    bye: TournamentPlayer | None = None


def _table_rows(
    tables: list[TournamentGame], entrants: dict[int, TournamentPlayer]
) -> list[TableRow]:
    rows = []
    for table in tables:
        if table.game_id is None:
            rows.append(TableRow(table, None, [], True, _("Bye"), bye=entrants[table.bye_id]))
            continue
        game = table.game
        seats = sorted(game.seats.all(), key=lambda s: s.index)
        names = [entrants[e].name for e in table.entries] or [s.name for s in seats]
        rows.append(
            TableRow(
                table,
                game_url(game.pk),
                [TableSeat(n, s.place, s.score) for n, s in zip(names, seats, strict=True)],
                game.status == GameStatus.FINISHED,
                str(game.get_status_display()),
            )
        )
    return rows


def _reached_label(tournament: Tournament, row: rounds.Standing) -> str:
    if row.champion:
        return _("Champion")
    if row.reached == tournament.rounds:
        return _("Final")
    if row.reached == tournament.rounds - 1:
        return _("Semi-final")
    return _("Round %(n)s") % {"n": row.reached}


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(
        Tournament.objects.select_related("created_by"), pk=tournament_id
    )
    if not private_tournaments.may_view(tournament, request.user):
        raise Http404
    players = list(tournament.players.select_related("user").order_by("seed", "joined_at", "pk"))
    standings = rounds.tournament_standings(tournament)
    if tournament.format == Tournament.Format.ELIMINATION:
        for row in standings:  # extra attributes for the page
            row.champion = tournament.status == Status.FINISHED and not row.eliminated
            row.reached_label = _reached_label(tournament, row)
    viewer_id = request.user.pk if request.user.is_authenticated else None
    entrants = {p.pk: p for p in players}
    signup_open = rounds.signup_open(tournament)
    organising = rounds.may_organise(tournament, request.user)
    return render(
        request,
        "tournaments/tournaments/detail.html",
        {
            "tournament": tournament,
            "players": players,
            "standings": standings,
            "rounds": [
                (round_, _table_rows(tables, entrants))
                for round_, tables in reversed(rounds.rounds_with_tables(tournament))
            ],
            "rounds_planned": rounds.rounds_planned(tournament, len(players)),
            "signup_open": signup_open,
            "bot_form": BotAddForm() if signup_open and organising else None,
            # a private tournament's link, for its organiser to share while sign-up is open
            "private_link": (
                private_tournaments.join_url(tournament)
                if tournament.private and tournament.join_secret and signup_open and organising
                else ""
            ),
            "max_bots": rounds.MAX_BOTS,
            "signed_up": viewer_id is not None and any(p.user_id == viewer_id for p in players),
            "is_elimination": tournament.format == Tournament.Format.ELIMINATION,
            "now": timezone.now(),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def tournament_create(request: HttpRequest) -> HttpResponse:
    form = TournamentCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = rounds.tournament_create(creator=request.user, **form.create_kwargs())
        except rounds.TournamentError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, _("The tournament is open for sign-up. Sign up yourself if you play.")
            )
            return redirect("tournament_detail", tournament.pk)
    return render(request, "tournaments/tournaments/create.html", {"form": form})


def _visible_or_404(request: HttpRequest, tournament_id: int) -> Tournament:
    """The tournament, or 404 for an unknown one and for a private one the viewer may not see
    (its number says nothing to a stranger)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not private_tournaments.may_view(tournament, request.user):
        raise Http404
    return tournament


def _signup_action(request: HttpRequest, tournament_id: int, *, withdraw: bool) -> HttpResponse:
    url = reverse("tournament_detail", args=[tournament_id])
    if not request.user.is_authenticated:
        return redirect_to_login(url)
    tournament = _visible_or_404(request, tournament_id)
    service = rounds.tournament_withdraw if withdraw else rounds.tournament_signup
    try:
        service(tournament_id=tournament_id, user=request.user)
    except Tournament.DoesNotExist:
        raise Http404 from None
    except rounds.TournamentError as exc:
        messages.error(request, str(exc))
    else:
        if withdraw:
            messages.success(request, _("You withdrew from the tournament."))
            if not private_tournaments.may_view(tournament, request.user):
                return redirect("tournament_list")  # a private one is no longer theirs to see
        else:
            messages.success(
                request, _("You are signed up. The first round starts when sign-up closes.")
            )
    return redirect(url)


@require_POST
def tournament_signup(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _signup_action(request, tournament_id, withdraw=False)


@require_POST
def tournament_withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _signup_action(request, tournament_id, withdraw=True)


@require_POST
def tournament_bot_add(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The organiser (or staff) enters a bot of the chosen level."""
    url = reverse("tournament_detail", args=[tournament_id])
    if not request.user.is_authenticated:
        return redirect_to_login(url)
    _visible_or_404(request, tournament_id)
    form = BotAddForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["level"]))
        return redirect(url)
    try:
        entry = rounds.bot_add(
            tournament_id=tournament_id, user=request.user, level=form.cleaned_data["level"]
        )
    except Tournament.DoesNotExist:
        raise Http404 from None
    except rounds.TournamentError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("%(bot)s is entered.") % {"bot": entry.name})
    return redirect(url)


@require_POST
def tournament_bot_remove(request: HttpRequest, tournament_id: int, entry_id: int) -> HttpResponse:
    """The organiser (or staff) takes a bot entrant out again."""
    url = reverse("tournament_detail", args=[tournament_id])
    if not request.user.is_authenticated:
        return redirect_to_login(url)
    _visible_or_404(request, tournament_id)
    try:
        rounds.bot_remove(tournament_id=tournament_id, user=request.user, entry_id=entry_id)
    except Tournament.DoesNotExist:
        raise Http404 from None
    except rounds.TournamentError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The bot is out of the tournament."))
    return redirect(url)


# -- a private tournament's link ----------------------------------------------------------------
PRIVATE_JOIN = "tournaments/tournaments/private_join.html"


@never_cache
@require_http_methods(["GET", "POST"])
def tournament_private_join(request: HttpRequest, tournament_id: int, secret: str) -> HttpResponse:
    """A private tournament's sign-up link: GET shows it and a button, only the POST signs up.
    A forged or renewed link is 404 and changes nothing."""
    if not request.user.is_authenticated:
        # sign up or log in first, then back to this link
        return redirect_to_login(request.get_full_path())
    tournament = Tournament.objects.filter(pk=tournament_id).select_related("created_by").first()
    if tournament is None or not private_tournaments.link_matches(tournament, secret):
        refused = private_tournaments.link_not_valid_text()
        return render(request, PRIVATE_JOIN, {"refused": refused}, status=404)
    if tournament.players.filter(user_id=request.user.pk).exists():
        return redirect("tournament_detail", tournament.pk)
    if request.method == "POST":
        try:
            private_tournaments.signup_by_link(
                tournament_id=tournament.pk, secret=secret, user=request.user
            )
        except private_tournaments.LinkNotValid as exc:
            return render(request, PRIVATE_JOIN, {"refused": str(exc)}, status=404)
        except rounds.TournamentError as exc:
            return render(request, PRIVATE_JOIN, {"refused": str(exc)}, status=409)
        messages.success(
            request, _("You are signed up. The first round starts when sign-up closes.")
        )
        return redirect("tournament_detail", tournament.pk)
    context = {
        "tournament": tournament,
        "organiser": tournament.created_by.public_name if tournament.created_by else "",
        "entrants": tournament.players.count(),
        "open": rounds.signup_open(tournament),
    }
    return render(request, PRIVATE_JOIN, context)


@require_POST
def tournament_link_renew(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The organiser gives the private tournament a new link; the old one stops working."""
    url = reverse("tournament_detail", args=[tournament_id])
    if not request.user.is_authenticated:
        return redirect_to_login(url)
    _visible_or_404(request, tournament_id)
    try:
        private_tournaments.link_renew(tournament_id=tournament_id, user=request.user)
    except Tournament.DoesNotExist:
        raise Http404 from None
    except rounds.TournamentError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, _("The tournament has a new link: the old one no longer works.")
        )
    return redirect(url)
