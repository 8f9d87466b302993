"""A player's public profile: the display name (never the email), games, results and ratings.

It lives in tournaments, not games, as it combines the two: games' listings and the ratings
computed from them (games never reads tournaments).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from accounts import blocks
from games import listings
from games.models import GameStatus

from . import rating_selectors


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(listings.players(), username=username)
    running, finished = listings.game_lists(
        user=player, viewer=request.user, statuses=[GameStatus.RUNNING, GameStatus.FINISHED]
    )
    return render(
        request,
        "tournaments/players/profile.html",
        {
            "player": player,
            "counts": listings.player_counts(user=player),
            "running_games": running,
            "finished_games": finished,
            # current rating, history and chart per game
            "ratings": rating_selectors.player_ratings(player),
            # the viewer's block button (None: their own page, or nobody logged in)
            "blocking": _blocking(request, player),
            "may_challenge": blocks.may_challenge(request.user, player),
        },
    )


def _blocking(request: HttpRequest, player: Any) -> bool | None:
    """Whether the viewer blocked ``player``; None where no button is shown."""
    viewer = request.user
    if not viewer.is_authenticated or viewer.pk == player.pk:
        return None
    return blocks.has_blocked(viewer.pk, player.pk)
