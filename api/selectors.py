"""What the API answers, built from the site's own reads (games.selectors and listings,
tournaments' selectors): plain dicts in the shape of api.serializers, nothing decided here that
the pages decide elsewhere. Hidden cards: a game is read through ``games.selectors.game_page``,
which gives a seated player their own view and anyone else the public one."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from friends.invitations import pending_for
from friends.models import Invitation, InvitationStatus
from friends.rematches import rematch_state
from games import listings, selectors
from games.models import Game, GameStatus
from live.selectors import turn_count
from tournaments import leagues, private_tournaments, rounds
from tournaments.models import League, Season, Tournament
from tournaments.rating_selectors import LeaderboardRow, player_ratings

from .models import ApiToken


def ratings_of(user: Any) -> list[dict[str, Any]]:
    return [
        {
            "kind": r.kind,
            "rating": r.rating,
            "highest": r.highest,
            "games": r.games,
            "provisional": r.provisional,
        }
        for r in player_ratings(user)
    ]


def me(user: Any, token: ApiToken | None) -> dict[str, Any]:
    return {
        "id": user.pk,
        "username": user.username,
        "name": user.public_name,
        "language": user.language,
        "time_zone": user.time_zone,
        "is_bot": bool(user.is_bot),
        "scopes": token.scope_list if token is not None else ["read", "play"],
        "my_turn_games": turn_count(user_id=user.pk),
        "ratings": ratings_of(user),
    }


def _seconds_left(deadline: Any) -> int | None:
    if deadline is None:
        return None
    return max(0, int((deadline - timezone.now()).total_seconds()))


def _player(seat: Any) -> dict[str, Any]:
    return {
        "seat": seat.index,
        "name": seat.name,
        "username": seat.username,
        "is_bot": bool(seat.is_bot or seat.bot_account),
        "score": seat.score,
        "place": seat.place,
    }


def _pace(game: Game) -> dict[str, Any]:
    """The game's clock and whether it is rated: the same in a list row and in a game."""
    return {
        "days_per_move": game.days_per_move,
        "bank_increment_hours": game.bank_increment_hours,
        "bank_cap_hours": game.bank_cap_hours,
        "rated": game.rated,
    }


def game_row(row: listings.GameRow) -> dict[str, Any]:
    game = row.game
    return {
        "id": game.pk,
        "kind": game.kind,
        "status": game.status,
        "player_count": game.player_count,
        "players": [_player(p) for p in row.players],
        "my_seat": row.viewer_seat.index if row.viewer_seat else None,
        "my_turn": row.is_subject_turn,
        "to_move": row.to_move.index if row.to_move else None,
        "deadline": row.deadline,
        "time_left": row.time_left,
        "seconds_left": _seconds_left(row.deadline),
        **_pace(game),
        "frozen": game.frozen,
    }


def my_games(user: Any) -> dict[str, list[dict[str, Any]]]:
    """Running (my turn first, least time left first), open, and the latest finished."""
    lists = zip(("running", "open", "finished"), listings.user_game_lists(user=user), strict=True)
    return {name: [game_row(r) for r in rows] for name, rows in lists}


def open_games(user: Any, limit: int = 50) -> list[dict[str, Any]]:
    games = listings.lobby_open_games()[:limit]
    return [game_row(r) for r in listings.open_game_rows(games, viewer=user)]


def game_detail(game: Game, user: Any) -> dict[str, Any]:
    """One game as ``user`` may see it (``game_answer`` of its page)."""
    return game_answer(selectors.game_page(game=game, user=user, with_rated=False))


def game_answer(page: selectors.GamePage) -> dict[str, Any]:
    """A game page as the API answers it: records.md's view format, with the standing around
    it. ``legal`` and a deadline only matter on my turn; ``seq`` is what an action must send."""
    game = page.game
    running = game.status == GameStatus.RUNNING and not game.frozen
    deadline = game.deadline if running else None
    my_turn = running and page.viewer_seat is not None and page.to_move == page.viewer_seat
    return {
        "id": game.pk,
        "kind": game.kind,
        "game": game.kind,
        "status": game.status,
        "player_count": game.player_count,
        "players": [_player(s) for s in page.seats],
        "my_seat": page.viewer_seat,
        "my_turn": my_turn,
        "to_move": page.to_move if running else None,
        "deadline": deadline,
        "time_left": listings.time_left_text(deadline, timezone.now()),
        "seconds_left": _seconds_left(deadline),
        **_pace(game),
        "frozen": page.frozen,
        "finished": page.finished,
        "seq": game.seq,
        "scores": page.scores,
        "winners": page.winners,
        "legal": page.legal,
        "phase": page.phase,
        "state": page.view,
    }


def leaderboard(rows: list[LeaderboardRow]) -> list[dict[str, Any]]:
    return [
        {
            "rank": r.rank,
            "username": r.username,
            "name": r.name,
            "is_bot": bool(r.user.is_bot),
            "rating": r.rating,
            "highest": r.highest,
            "games": r.games,
            "provisional": r.provisional,
        }
        for r in rows
    ]


def _season(season: Season | None) -> dict[str, Any] | None:
    if season is None:
        return None
    return {
        "number": season.number,
        "status": season.status,
        "starts_at": season.starts_at,
        "ends_at": season.ends_at,
    }


def league_list(user: Any) -> list[dict[str, Any]]:
    rows = leagues.league_rows(leagues.active_leagues(viewer=user), viewer=user)
    return [_league(row) for row in rows]


def _league(row: leagues.LeagueRow) -> dict[str, Any]:
    league = row.league
    return {
        "id": league.pk,
        "name": league.name,
        "kind": league.kind,
        "band": str(leagues.band_label(league)),
        "active": league.active,
        "members": row.members,
        "season": _season(row.season),
        "member": row.membership is not None,
        "max_games": row.membership.max_games if row.membership else None,
    }


def league_detail(league: League, user: Any) -> dict[str, Any]:
    counted = League.objects.filter(pk=league.pk).annotate(
        member_count=Count("members", filter=Q(members__active=True))
    )
    row = leagues.league_rows(counted, viewer=user)[0]
    data = _league(row)
    season = row.season
    data["standings"] = [
        {
            "rank": s.rank,
            "username": s.username,
            "name": s.name,
            "points": s.points,
            "games": s.games,
            "wins": s.wins,
            "running": s.running,
        }
        for s in (leagues.standings(season) if season else [])
    ]
    return data


def tournament_list(user: Any, limit: int = 100) -> list[dict[str, Any]]:
    tournaments = (
        private_tournaments.visible_tournaments(user)
        .annotate(player_count=Count("players"))
        .exclude(status=Tournament.Status.CANCELLED)
        .order_by("-signup_until", "-pk")[:limit]
    )
    mine = set(Tournament.objects.filter(players__user=user).values_list("pk", flat=True))
    return [_tournament(t, t.pk in mine) for t in tournaments]


def _tournament(t: Tournament, signed_up: bool) -> dict[str, Any]:
    return {
        "id": t.pk,
        "name": t.name,
        "kind": t.kind,
        "format": t.format,
        "status": t.status,
        "signup_until": t.signup_until,
        "table_size": t.table_size,
        "players": t.player_count,
        "signed_up": signed_up,
        "private": t.private,
    }


def tournament_detail(tournament: Tournament, user: Any) -> dict[str, Any]:
    tournament.player_count = tournament.players.count()
    signed_up = tournament.players.filter(user=user).exists()
    data = _tournament(tournament, signed_up)
    data["standings"] = [
        {
            "rank": s.rank,
            "username": s.user.username if s.user else None,
            "name": s.name,
            "bot": s.player.bot or None,
            "points": s.points,
            "buchholz": s.buchholz,
            "games": s.games,
            "byes": s.byes,
            "eliminated": s.eliminated,
        }
        for s in rounds.tournament_standings(tournament)
    ]
    return data


# -- friends: invitations and rematches ---------------------------------------------------------
def invitation(row: Invitation, viewer: Any) -> dict[str, Any]:
    """One invitation as ``viewer`` may see it: an address invited only to its inviter."""
    return {
        "id": row.pk,
        "game": row.game_id,
        "league": row.league_id,
        "inviter": row.inviter.public_name if row.inviter_id else "",
        "invitee": row.name_for(viewer),
        "status": row.status,
        "expires_at": row.expires_at,
    }


def invitations_of(user: Any) -> dict[str, list[dict[str, Any]]]:
    """The invitations waiting for ``user``'s answer, and theirs still waiting for one."""
    sent = (
        Invitation.objects.filter(
            inviter=user, status=InvitationStatus.PENDING, expires_at__gt=timezone.now()
        )
        .select_related("inviter", "invitee")
        .order_by("-created_at")
    )
    return {
        "received": [invitation(row, user) for row in pending_for(user)],
        "sent": [invitation(row, user) for row in sent],
    }


def rematch(game: Game, user: Any) -> dict[str, Any] | None:
    """A finished game's rematch as ``user`` sees it; None before the end."""
    if game.status != GameStatus.FINISHED:
        return None
    state = rematch_state(game, user)
    return {
        "status": state.status,
        "offered_by": state.offered_by,
        "accepted": state.accepted,
        "waiting": state.waiting,
        "declined_by": state.declined_by,
        "new_game": state.new_game_id,
        "may_offer": state.may_offer,
        "may_answer": state.may_answer,
    }
