"""Reading ratings: the leaderboard, a player's history and current ratings (no writes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from games.models import GameKind

from .models import START_RATING, Rating, RatingChange
from .rating_chart import RatingChart, rating_chart

__all__ = [
    "LeaderboardRow",
    "PlayerRating",
    "current_ratings",
    "history_chart",
    "is_provisional",
    "leaderboard",
    "player_ratings",
    "rating_history",
]


def is_provisional(games: int) -> bool:
    """A rating from fewer than ELO_PROVISIONAL_GAMES rated games is still finding its level."""
    return games < settings.ELO_PROVISIONAL_GAMES


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user: Any
    username: str
    name: str
    rating: float
    highest: float
    games: int
    provisional: bool

    @property
    def rounded(self) -> int:
        return round(self.rating)


def leaderboard(kind: str, *, limit: int = 100) -> list[LeaderboardRow]:
    """The best ``limit`` active players of one game, highest rating first (one query).
    Provisional players are listed and marked; equal ratings share a rank (1, 1, 3)."""
    ratings = (
        Rating.objects.filter(kind=kind, games__gt=0, user__is_active=True)
        .select_related("user")
        .order_by("-rating", "-games", "user_id")[:limit]
    )
    rows: list[LeaderboardRow] = []
    for position, r in enumerate(ratings, start=1):
        rank = rows[-1].rank if rows and rows[-1].rating == r.rating else position
        rows.append(
            LeaderboardRow(
                rank=rank,
                user=r.user,
                username=r.user.username,
                name=r.user.public_name,
                rating=r.rating,
                highest=r.highest,
                games=r.games,
                provisional=is_provisional(r.games),
            )
        )
    return rows


def rating_history(user: Any, kind: str) -> list[RatingChange]:
    """The user's rated games of one game, in the order they were rated (each row's ``before``
    is the previous row's ``after``)."""
    return list(
        RatingChange.objects.filter(user=user, kind=kind)
        .select_related("game")
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True)
class PlayerRating:
    kind: str
    label: str
    rating: float
    highest: float
    games: int
    provisional: bool
    history: list[RatingChange]
    #: the history as a line chart (None without history rows)
    chart: RatingChart | None

    @property
    def rounded(self) -> int:
        return round(self.rating)


def history_chart(history: list[RatingChange]) -> RatingChart | None:
    """The chart of a history: the rating before the first game, then after each game."""
    if not history:
        return None
    return rating_chart(
        [history[0].before, *(c.after for c in history)],
        [None, *(c.game_id for c in history)],
    )


def player_ratings(user: Any) -> list[PlayerRating]:
    """A profile's ratings: one per game the user has rated games of, in GameKind order, each
    with its history and chart (two queries)."""
    rows = {r.kind: r for r in Rating.objects.filter(user=user, games__gt=0)}
    histories: dict[str, list[RatingChange]] = {kind: [] for kind in rows}
    for change in (
        RatingChange.objects.filter(user=user, kind__in=list(rows))
        .select_related("game")
        .order_by("created_at", "pk")
    ):
        histories[change.kind].append(change)
    return [
        PlayerRating(
            kind=kind,
            label=str(label),
            rating=rows[kind].rating,
            highest=rows[kind].highest,
            games=rows[kind].games,
            provisional=is_provisional(rows[kind].games),
            history=histories[kind],
            chart=history_chart(histories[kind]),
        )
        for kind, label in GameKind.choices
        if kind in rows
    ]


def current_ratings(user_ids: Iterable[int], kind: str) -> dict[int, float]:
    """Each user's current rating in one game; START_RATING for users not rated yet (one
    query; for seeding and matchmaking)."""
    ids = list(user_ids)
    found = dict(Rating.objects.filter(kind=kind, user_id__in=ids).values_list("user_id", "rating"))
    return {uid: found.get(uid, START_RATING) for uid in ids}
