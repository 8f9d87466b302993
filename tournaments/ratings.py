"""Rating finished games: the write side of ratings (the pages read ``rating_selectors``).

``rate_game`` is idempotent and safe to run concurrently: it locks the game row, and a game
that already has rating changes is skipped (the unique (player, game) row backs that up), so
the after-finish task, the periodic catch-up and a retried task rate each game exactly once.
The maths is :mod:`tournaments.elo`; this module only reads the table and writes the result.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.models import Game, GameStatus
from games.rated import MIN_PEOPLE, rated_status
from games.selectors import people_who_moved

from .elo import k_factor, multiplayer_elo
from .models import START_RATING, Rating, RatingChange

__all__ = ["k_for", "rate_game", "unrated_finished_games"]

log = logging.getLogger(__name__)

def k_for(rating: Rating) -> float:
    """K for this player's next rated game, from the ELO_* settings."""
    return k_factor(
        rating.games,
        rating.rating,
        rating.highest,
        provisional_games=settings.ELO_PROVISIONAL_GAMES,
        k_new=settings.ELO_K_NEW,
        k_regular=settings.ELO_K_REGULAR,
        k_top=settings.ELO_K_TOP,
        top_threshold=settings.ELO_TOP_THRESHOLD,
    )


def _unrated() -> QuerySet[Game]:
    return Game.objects.filter(status=GameStatus.FINISHED, rated=True).exclude(
        Exists(RatingChange.objects.filter(game=OuterRef("pk")))
    )


def unrated_finished_games(limit: int = 500) -> list[int]:
    """Ids of finished rated games that are still to be rated, oldest first (one query).

    Games that can never be rated (fewer than two people ever moved) are left out, so that they
    do not fill every batch of the periodic catch-up for ever.
    """
    movers = (
        people_who_moved(OuterRef("pk"))
        .order_by()
        .values("game")
        .annotate(n=Count("pk"))
        .values("n")
    )
    games = (
        _unrated()
        .annotate(movers=Coalesce(Subquery(movers), 0))
        .filter(movers__gte=MIN_PEOPLE)
        .order_by("finished_at", "pk")
    )
    return list(games.values_list("pk", flat=True)[:limit])


def rate_game(*, game_id: int) -> bool:
    """Rate one finished game; True if it was rated now, False if skipped.

    Skipped: a game that is missing, not finished, already rated, or unrated by
    ``games.rated.rated_status`` (fewer than two people at the table or who made a move of
    their own, or made unrated). Only people seats are rated: at a table with bots the people
    are rated against each other, by the order of the places stored when the game finished
    (retired seats already rank last there); pairwise Elo needs no more than that order.
    Ratings, their history rows and the counters change in one transaction.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.FINISHED or not game.rated:
            return False
        if RatingChange.objects.filter(game=game).exists():
            return False
        seats = list(game.seats.filter(user__isnull=False).order_by("index"))
        status = rated_status(
            people=len(seats),
            bots=game.player_count - len(seats),
            marked_rated=game.rated,
            movers=people_who_moved(game).count(),
        )
        if not status.rated:
            return False
        if any(seat.place is None for seat in seats):
            log.warning("game %s finished without places: not rated", game_id)
            return False

        # Missing rows at the start rating, then every row locked; both in user order, so two
        # games sharing players (rated at once by two workers) wait for each other, no deadlock.
        user_ids = sorted(seat.user_id for seat in seats)
        Rating.objects.bulk_create(
            [
                Rating(user_id=uid, kind=game.kind, rating=START_RATING, highest=START_RATING)
                for uid in user_ids
            ],
            ignore_conflicts=True,
        )
        ratings = {
            r.user_id: r
            for r in Rating.objects.select_for_update()
            .filter(kind=game.kind, user_id__in=user_ids)
            .order_by("user_id")
        }

        rows = [ratings[seat.user_id] for seat in seats]
        before = [r.rating for r in rows]
        ks = [k_for(r) for r in rows]
        after = multiplayer_elo(before, [seat.place for seat in seats], ks)

        now = timezone.now()
        changes = []
        for seat, row, old, new, k in zip(seats, rows, before, after, ks, strict=True):
            row.rating = new
            row.highest = max(row.highest, new)
            row.games += 1
            row.updated_at = now
            changes.append(
                RatingChange(
                    user_id=seat.user_id,
                    kind=game.kind,
                    game=game,
                    before=old,
                    after=new,
                    k=k,
                    place=seat.place,
                    created_at=now,
                )
            )
        Rating.objects.bulk_update(rows, ["rating", "highest", "games", "updated_at"])
        RatingChange.objects.bulk_create(changes)
    return True
