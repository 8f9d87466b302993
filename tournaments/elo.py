"""Multiplayer Elo by pairwise decomposition, as Board Game Arena rates 2-4 player games.

A table of N players is rated as if every pair at it had played a duel: the better-placed
player of a pair scores 1, the other 0, and players on the same place score 0.5 each. Player
i's rating changes by ``K_i * (2 / N) * sum over j != i of (S_ij - E_ij)`` with the standard
expected score ``E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400))``. The factor ``2 / N`` keeps a
table of N players from moving ratings N - 1 times as far as a duel; for N = 2 it is 1, so a
2-player game is exactly standard Elo.

Pure Python on purpose: no Django import, so the rating rules are testable and reusable
(bench, scripts) without configured settings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["expected_score", "k_factor", "multiplayer_elo"]

#: Rating points for which the expected score of the stronger player is ten times the other's.
ELO_SCALE = 400.0


def expected_score(rating: float, opponent: float) -> float:
    """Expected score (win probability plus half the draw probability) of a duel."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / ELO_SCALE))


def _duel_score(place: int, other: int) -> float:
    """Score of a pairwise duel from two final places: lower place number is better."""
    if place < other:
        return 1.0
    if place > other:
        return 0.0
    return 0.5


def _k_values(k: float | Sequence[float], n: int) -> list[float]:
    """One K per player, validated: one number for all, or a sequence of length n."""
    if isinstance(k, (int, float)) and not isinstance(k, bool):
        values = [float(k)] * n
    elif isinstance(k, Sequence) and not isinstance(k, (str, bytes)):
        if len(k) != n:
            raise ValueError(f"k has {len(k)} values for {n} players: give one K per player")
        values = [float(v) for v in k]
    else:
        raise ValueError(f"k must be a number or a sequence of numbers, not {type(k).__name__}")
    for value in values:
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"every K must be a finite number > 0, got {value!r}")
    return values


def multiplayer_elo(
    ratings: Sequence[float], places: Sequence[int], k: float | Sequence[float]
) -> list[float]:
    """New ratings after one game: ``ratings[i]`` finished on ``places[i]`` (1 = first).

    Equal place numbers are ties; only the order of the places matters, so ``[1, 1, 3]`` and
    ``[1, 1, 2]`` rate alike. ``k`` is one K-factor for everybody or one per player (see
    :func:`k_factor`). Raises ``ValueError`` on malformed input instead of rating nonsense.
    """
    n = len(ratings)
    if len(places) != n:
        raise ValueError(f"{n} ratings but {len(places)} places: give one place per player")
    if n < 2:
        raise ValueError(f"a rated game needs at least 2 players, got {n}")
    for rating in ratings:
        if isinstance(rating, bool) or not isinstance(rating, (int, float)):
            raise ValueError(f"ratings must be numbers, got {rating!r}")
        if not math.isfinite(rating):
            raise ValueError(f"ratings must be finite, got {rating!r}")
    for place in places:
        if isinstance(place, bool) or not isinstance(place, int):
            raise ValueError(f"places must be whole numbers, got {place!r}")
        if place < 1:
            raise ValueError(f"places start at 1 (first), got {place}")
    ks = _k_values(k, n)

    weight = 2.0 / n
    new_ratings = []
    for i in range(n):
        surplus = sum(
            _duel_score(places[i], places[j]) - expected_score(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        new_ratings.append(ratings[i] + ks[i] * weight * surplus)
    return new_ratings


def k_factor(
    games_played: int,
    rating: float,
    highest_rating: float,
    *,
    provisional_games: int = 30,
    k_new: float = 40,
    k_regular: float = 20,
    k_top: float = 10,
    top_threshold: float = 2400,
) -> float:
    """K for a player's next rated game of one game type, on FIDE's pattern.

    ``k_new`` for the first ``provisional_games`` rated games (a new rating must move fast to
    find its level), then ``k_top`` once the rating has ever reached ``top_threshold`` (kept
    even if it falls back, so top ratings stay stable), else ``k_regular``. ``games_played``
    counts rated games finished before this one. The defaults are FIDE's (40 / 20 / 10, 30
    games, 2400); they are parameters so that settings can change them.
    """
    if isinstance(games_played, bool) or not isinstance(games_played, int) or games_played < 0:
        raise ValueError(f"games_played must be a whole number >= 0, got {games_played!r}")
    if games_played < provisional_games:
        return float(k_new)
    if max(rating, highest_rating) >= top_threshold:
        return float(k_top)
    return float(k_regular)
