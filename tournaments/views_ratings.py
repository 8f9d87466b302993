"""Rating pages: the public leaderboard of each game."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from games.models import GameKind

from . import rating_selectors

LEADERBOARD_SIZE = 100


@require_GET
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    """/ratings/: the board game's leaderboard."""
    return redirect("leaderboard", kind=GameKind.BOARD.value)


@require_GET
def leaderboard(request: HttpRequest, kind: str) -> HttpResponse:
    if kind not in GameKind.values:
        raise Http404("No such game.")
    return render(
        request,
        "tournaments/ratings/leaderboard.html",
        {
            "kind": kind,
            "kind_label": GameKind(kind).label,
            "kinds": [{"kind": k, "label": label} for k, label in GameKind.choices],
            "rows": rating_selectors.leaderboard(kind, limit=LEADERBOARD_SIZE),
            "limit": LEADERBOARD_SIZE,
            "provisional_games": settings.ELO_PROVISIONAL_GAMES,
        },
    )
