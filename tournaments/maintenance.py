"""Tournaments' share of games' operator commands: its part of a user's data export and the
demo league. games/maintenance.py calls these through hooks that apps.py registers, as games
never imports tournaments.
"""

from __future__ import annotations

from typing import Any

from accounts.models import User
from games.maintenance import DemoReport, iso
from games.models import GameKind

from .models import League, LeagueMember, Rating, RatingChange, TournamentGame, TournamentPlayer

DEMO_LEAGUE = "Demo league"



def user_data(user: User) -> dict[str, Any]:
    """The user's ratings, rating history, league memberships and tournament entries."""
    return {
        "ratings": [
            {
                "kind": r.kind,
                "rating": r.rating,
                "highest": r.highest,
                "games": r.games,
                "updated_at": iso(r.updated_at),
            }
            for r in Rating.objects.filter(user=user).order_by("kind")
        ],
        "rating_history": [
            {
                "kind": c.kind,
                "game": c.game_id,
                "before": c.before,
                "after": c.after,
                "place": c.place,
                "at": iso(c.created_at),
            }
            for c in RatingChange.objects.filter(user=user).order_by("created_at", "pk")
        ],
        "league_memberships": [
            {
                "league": m.league.name,
                "league_id": m.league_id,
                "active": m.active,
                "max_games": m.max_games,
                "joined_at": iso(m.joined_at),
            }
            for m in LeagueMember.objects.filter(user=user).select_related("league")
        ],
        "tournament_entries": [
            {
                "tournament": e.tournament.name,
                "tournament_id": e.tournament_id,
                "status": e.tournament.status,
                "seed": e.seed,
                "rating": e.rating,
                "eliminated": e.eliminated,
                "joined_at": iso(e.joined_at),
            }
            for e in TournamentPlayer.objects.filter(user=user).select_related("tournament")
        ],
        "tournament_byes": [
            {"round": t.round.number, "tournament_id": t.round.tournament_id}
            for t in TournamentGame.objects.filter(bye__user=user).select_related("round")
        ],
    }


def demo_league(users: list[User], report: DemoReport) -> None:
    """A board-game league all demo users belong to (made once; missing members added)."""
    league, created = League.objects.get_or_create(
        name=DEMO_LEAGUE, defaults={"kind": GameKind.BOARD, "min_players": 2, "max_players": 4}
    )
    members = 0
    for user in users:
        _, joined = LeagueMember.objects.get_or_create(league=league, user=user)
        members += joined
    report.notes.append(f"league created: {league.name if created else 'none (exists)'}")
    report.notes.append(f"league memberships created: {members}")
    report.others_created = report.others_created or created or members > 0
