"""Leagues: membership, the matchmaker, seasons and their standings.

Services (writes): ``league_create``, ``league_join``, ``league_leave``, ``league_set_max_games``;
``matchmaker_pass`` and ``seasons_close_due`` run from Celery beat (tournaments/tasks.py).
Selectors (reads): ``standings``, ``active_leagues`` and ``league_rows``, ``current_season``,
and who may see or run a league (``may_view``, ``may_organise``): a player's club
(tournaments.clubs) may be private, seen only by its members, its organisers and staff.

The matchmaker and the season close of a league serialise on the League row
(``select_for_update``), then re-read what they need: two passes at once seat nobody twice and
nobody above their limit, a pass never seats into a season being closed. Games are created
seated and started by ``games.services.game_create_seated`` in the same transaction, so their
first turn emails (and a bot seat's first move) go out as for games people start themselves.
"""

from __future__ import annotations

import logging
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import blocks
from games.engine import RecordError, game_class
from games.models import (
    BOT_LEVELS,
    DAYS_PER_MOVE_CHOICES,
    BotKind,
    Game,
    GameKind,
    GameStatus,
    Seat,
)
from games.services import GameServiceError, game_create_seated, game_finish_early
from games.state import engine_state

from .matchmaking import Candidate, match_tables, short_tables
from .models import START_RATING, League, LeagueMember, Rating, Season, SeasonGame

log = logging.getLogger(__name__)

#: bounds of LeagueMember.max_games (its validators)
MAX_GAMES_MIN = 1
MAX_GAMES_MAX = 20
#: bounds of a league's settings (see ``league_settings_errors``)
PLAYERS_MIN = 2
PLAYERS_MAX = 4
SEASON_DAYS_MIN = 7
SEASON_DAYS_MAX = 365
#: shuffles the seating order of a new table (who moves first); tests seed it
_rng: random.Random = random.SystemRandom()

UNFINISHED = (GameStatus.OPEN, GameStatus.RUNNING)


class LeagueError(Exception):
    """A refused request, worded for the player."""


# -- creation -----------------------------------------------------------------------------------
def league_settings_errors(values: dict[str, Any]) -> dict[str, str]:
    """The rules of a league's settings, in one place for the admin's League form, the
    organisers' form (tournaments.forms_leagues) and ``league_create``.

    Returns a message by field name. A value missing or None is not checked (a form reports
    its own missing or malformed fields). When ``values`` has ``options`` and they are valid
    for the game, they are replaced in place by their normalised form (every option present).
    """
    errors: dict[str, str] = {}
    kind = values.get("kind")
    if kind is not None and kind not in GameKind.values:
        errors["kind"] = _("Unknown game.")
    for field in ("min_players", "max_players"):
        players = values.get(field)
        if players is not None and not PLAYERS_MIN <= players <= PLAYERS_MAX:
            errors[field] = _("A table seats %(low)s to %(high)s players.") % {
                "low": PLAYERS_MIN,
                "high": PLAYERS_MAX,
            }
    low, high = values.get("min_players"), values.get("max_players")
    sizes_valid = "min_players" not in errors and "max_players" not in errors
    if low is not None and high is not None and low > high and sizes_valid:
        errors["max_players"] = _("A table cannot be smaller than the minimum.")
    days = values.get("days_per_move")
    if days is not None and days not in dict(DAYS_PER_MOVE_CHOICES):
        errors["days_per_move"] = _("Unknown number of days per move.")
    increment, cap = values.get("bank_increment_hours"), values.get("bank_cap_hours")
    if increment is not None and increment < 0:
        errors["bank_increment_hours"] = _("The time bank's increment cannot be negative.")
    elif increment is not None and cap is not None and cap < increment:
        errors["bank_cap_hours"] = _("The time bank's cap must be at least its increment.")
    low, high = values.get("rating_min"), values.get("rating_max")
    if low is not None and high is not None and low > high:
        errors["rating_max"] = _("The band's top is below its bottom.")
    bot_level = values.get("bot_level")
    if bot_level is not None and bot_level not in ["", *[str(level) for level in BOT_LEVELS]]:
        errors["bot_level"] = _("Choose the bots' level: none, easy, normal or strong.")
    season_days = values.get("season_days")
    if season_days is not None and not SEASON_DAYS_MIN <= season_days <= SEASON_DAYS_MAX:
        errors["season_days"] = _("A season lasts %(low)s to %(high)s days.") % {
            "low": SEASON_DAYS_MIN,
            "high": SEASON_DAYS_MAX,
        }
    if "options" in values and kind and "kind" not in errors:
        try:  # the matchmaker's game_create would refuse them on every pass
            values["options"] = game_class(kind).check_options(values["options"] or {})
        except RecordError as exc:
            errors["options"] = str(exc)
    return errors


def league_create(
    *,
    name: str,
    kind: str,
    min_players: int = 2,
    max_players: int = 4,
    days_per_move: int = 3,
    bank_increment_hours: int = 0,
    bank_cap_hours: int = 0,
    rating_min: int | None = None,
    rating_max: int | None = None,
    season_days: int = 90,
    bot_level: str = "",
    options: dict[str, bool] | None = None,
    now: datetime | None = None,
    private: bool = False,
    created_by: Any = None,
) -> League:
    """A new, active league; the matchmaker opens its first season once members wait.
    ``private`` and ``created_by`` are a club's (``tournaments.clubs.club_create`` checks who
    may create one; staff leagues have no creator).

    Raises LeagueError when a setting breaks ``league_settings_errors``.
    """
    name = (name or "").strip()
    if not name or len(name) > 80:
        raise LeagueError(_("A league needs a name of at most 80 characters."))
    values: dict[str, Any] = {
        "kind": kind,
        "min_players": min_players,
        "max_players": max_players,
        "days_per_move": days_per_move,
        "bank_increment_hours": bank_increment_hours,
        "bank_cap_hours": bank_cap_hours,
        "rating_min": rating_min,
        "rating_max": rating_max,
        "season_days": season_days,
        "bot_level": bot_level,
        "options": options or {},
    }
    errors = league_settings_errors(values)
    if errors:
        raise LeagueError(" ".join(errors.values()))
    return League.objects.create(
        name=name,
        created_at=now or timezone.now(),
        private=private,
        created_by=created_by,
        **values,
    )


# -- membership ---------------------------------------------------------------------------------
def rating_of(user_id: int, kind: str) -> float:
    """The player's current rating in the game, START_RATING if they have none yet."""
    rating = Rating.objects.filter(user_id=user_id, kind=kind).values_list("rating", flat=True)
    return next(iter(rating), START_RATING)


def in_band(league: League, rating: float) -> bool:
    return (league.rating_min is None or rating >= league.rating_min) and (
        league.rating_max is None or rating <= league.rating_max
    )


def _check_max_games(max_games: Any) -> int:
    if (
        isinstance(max_games, bool)
        or not isinstance(max_games, int)
        or not MAX_GAMES_MIN <= max_games <= MAX_GAMES_MAX
    ):
        raise LeagueError(
            _("Choose between %(min)s and %(max)s games at once.")
            % {"min": MAX_GAMES_MIN, "max": MAX_GAMES_MAX}
        )
    return max_games


def league_join(
    *, league_id: int, user: Any, max_games: int = 2, admitted: bool = False
) -> LeagueMember:
    """Join a league (or rejoin one left before) wanting ``max_games`` league games at once.

    A private club admits its organisers, staff and the people it invited (``admitted``: the
    caller, friends.invitations.accept, checked the invitation). Raises League.DoesNotExist
    for an unknown league and LeagueError when the league is closed or private, the player
    and the club's creator blocked one another, the player's rating is outside its band or
    they are a member already.
    """
    _check_max_games(max_games)
    with transaction.atomic():
        league = League.objects.get(pk=league_id)
        if not league.active:
            raise LeagueError(_("This league is closed."))
        if league.private and not admitted and not may_organise(user, league):
            raise LeagueError(_("This club is private: its members join by invitation."))
        if league.created_by_id is not None and blocks.apart(user.pk, [league.created_by_id]):
            raise LeagueError(_("You cannot join this club."))
        rating = rating_of(user.pk, league.kind)
        if not in_band(league, rating):
            raise LeagueError(
                _("Your rating (%(rating)s) is outside this league's band (%(band)s).")
                % {"rating": f"{rating:.0f}", "band": band_label(league)}
            )
        member, created = LeagueMember.objects.get_or_create(
            league=league, user=user, defaults={"max_games": max_games}
        )
        if not created:
            member = LeagueMember.objects.select_for_update().get(pk=member.pk)
            if member.active:
                raise LeagueError(_("You are a member of this league already."))
            member.active = True
            member.max_games = max_games
            # a rejoin waits for people afresh: the bot tables' wait counts from here
            member.joined_at = timezone.now()
            member.save(update_fields=["active", "max_games", "joined_at"])
    return member


def league_leave(*, league_id: int, user: Any) -> LeagueMember:
    """Leave a league: no new games; the running ones are played to their end."""
    with transaction.atomic():
        member = _active_member(league_id, user)
        member.active = False
        member.save(update_fields=["active"])
    return member


def league_set_max_games(*, league_id: int, user: Any, max_games: int) -> LeagueMember:
    """How many league games at once the member wants. Lowering it below the running games
    ends none of them: the member simply gets no new one until they are below it."""
    _check_max_games(max_games)
    with transaction.atomic():
        member = _active_member(league_id, user)
        member.max_games = max_games
        member.save(update_fields=["max_games"])
    return member


def _active_member(league_id: int, user: Any) -> LeagueMember:
    member = (
        LeagueMember.objects.select_for_update()
        .filter(league_id=league_id, user_id=user.pk, active=True)
        .first()
    )
    if member is None:
        if not League.objects.filter(pk=league_id).exists():
            raise League.DoesNotExist
        raise LeagueError(_("You are not a member of this league."))
    return member


# -- seasons ------------------------------------------------------------------------------------
def current_season(league: League) -> Season | None:
    """The running season (the newest one if, by accident, there were two)."""
    return league.seasons.filter(status=Season.Status.RUNNING).order_by("-number").first()


def _season_for_matchmaking(league: League, now: datetime) -> Season | None:
    """The running season, opened if the league has none (its first, or after a pause); None
    if it is over: closing it (and opening the next) is ``seasons_close_due``'s job."""
    season = current_season(league)
    if season is None:
        last = league.seasons.order_by("-number").values_list("number", flat=True).first()
        season = _open_season(league, (last or 0) + 1, now)
    return season if season.ends_at > now else None


def _open_season(league: League, number: int, now: datetime) -> Season:
    return Season.objects.create(
        league=league,
        number=number,
        starts_at=now,
        ends_at=now + timedelta(days=league.season_days),
    )


def seasons_close_due(*, now: datetime) -> int:
    """Close every running season whose end has come: its unfinished games are decided by
    their current scores, the season is marked finished and, if the league is still active,
    the next season opens now. Returns the seasons closed; safe to run twice at once."""
    due = Season.objects.filter(status=Season.Status.RUNNING, ends_at__lte=now)
    closed = 0
    for season_id, league_id in due.order_by("ends_at", "pk").values_list("pk", "league_id"):
        closed += _season_close(season_id, league_id, now)
    return closed


def _season_close(season_id: int, league_id: int, now: datetime) -> bool:
    with transaction.atomic():
        league = League.objects.select_for_update().get(pk=league_id)  # the matchmaker's lock
        season = Season.objects.select_for_update().get(pk=season_id)
        if season.status != Season.Status.RUNNING or season.ends_at > now:
            return False  # a racing run closed it first
        unfinished = season.games.filter(game__status__in=UNFINISHED)
        for game_id in unfinished.order_by("game_id").values_list("game_id", flat=True):
            _decide_by_current_scores(game_id, now)
        season.status = Season.Status.FINISHED
        season.save(update_fields=["status"])
        if league.active:
            _open_season(league, season.number + 1, now)
    return True


def _decide_by_current_scores(game_id: int, now: datetime) -> None:
    game = Game.objects.select_for_update().get(pk=game_id)
    if game.frozen:  # its log failed an integrity check: staff decide, not the season's end
        log.warning(
            "season end: game %s is frozen and left as it is", game_id, extra={"game_id": game_id}
        )
    elif game.status == GameStatus.RUNNING:
        game_finish_early(game, engine_state(game), now)
    elif game.status == GameStatus.OPEN:  # never left open by the matchmaker; be safe
        game.status = GameStatus.CANCELLED
        game.save(update_fields=["status"])


# -- the matchmaker -----------------------------------------------------------------------------
def matchmaker_pass(*, now: datetime) -> int:
    """Seat the waiting members of every active league into new games; returns the games
    created. A member waits while their unfinished games in the league are fewer than their
    ``max_games`` (and their rating is in the league's band). See ``tournaments.matchmaking``
    for who sits with whom. In a league with a ``bot_level`` the members left waiting sit at
    tables of ``min_players`` filled with bots of that level (``matchmaking.short_tables``);
    such a game rates the people at it against each other, as any table with bots."""
    created = 0
    leagues = League.objects.filter(active=True).order_by("pk").values_list("pk", flat=True)
    for league_id in leagues:
        try:
            created += _matchmake(league_id, now)
        except GameServiceError:  # e.g. options the game refuses: the other leagues go on
            log.exception("matchmaker: league %s cannot create its games", league_id)
    return created


def _matchmake(league_id: int, now: datetime) -> int:
    with transaction.atomic():
        league = League.objects.select_for_update().filter(pk=league_id, active=True).first()
        if league is None:
            return 0
        season = _season_for_matchmaking(league, now)
        if season is None:
            return 0
        candidates = waiting_members(league)
        tables: list[list[Any]] = list(
            match_tables(candidates, league.min_players, league.max_players)
        )
        if league.bot_level:
            ready = waited_for_people(league, candidates, now)
            for members in short_tables(ready, tables, league.min_players):
                tables.append([*members, *[league.bot_level] * (league.min_players - len(members))])
        if not tables:
            return 0
        people = {u for table in tables for u in table if not isinstance(u, str)}
        users = get_user_model().objects.in_bulk(people)
        for table in tables:
            _table_start(league, season, [u if isinstance(u, str) else users[u] for u in table])
    return len(tables)


def waiting_members(league: League) -> list[Candidate]:
    """The league's members who want another game, as matchmaking candidates (id = user id).

    A fixed number of queries whatever the league's size; call it under the League row lock.
    """
    members = list(
        LeagueMember.objects.filter(league=league, active=True, user__is_active=True)
        .order_by("joined_at", "pk")
        .values_list("user_id", "max_games")
    )
    if not members:
        return []
    ratings = dict(
        Rating.objects.filter(
            kind=league.kind,
            user__league_memberships__league=league,
            user__league_memberships__active=True,
        ).values_list("user_id", "rating")
    )
    league_seats = Seat.objects.filter(game__season_link__season__league=league, user__isnull=False)
    unfinished: dict[int, list[int]] = defaultdict(list)
    for user_id, game_id in league_seats.filter(game__status__in=UNFINISHED).values_list(
        "user_id", "game_id"
    ):
        unfinished[user_id].append(game_id)
    latest = league_seats.values("user_id").annotate(last=Max("game_id"))
    last_game = {row["user_id"]: row["last"] for row in latest}
    tables: dict[int, set[int]] = defaultdict(set)
    wanted = Q(game__in=latest.values("last")) | Q(
        game__season_link__season__league=league, game__status__in=UNFINISHED
    )
    for game_id, user_id in Seat.objects.filter(wanted, user__isnull=False).values_list(
        "game_id", "user_id"
    ):
        tables[game_id].add(user_id)

    pairs = blocks.blocked_pairs(user_id for user_id, _ in members)
    candidates = []
    for user_id, max_games in members:
        rating = ratings.get(user_id, START_RATING)
        slots = max_games - len(unfinished[user_id])
        if slots <= 0 or not in_band(league, rating):
            continue
        previous = [tables[g] for g in unfinished[user_id]]
        if user_id in last_game:
            previous.append(tables[last_game[user_id]])
        candidates.append(
            Candidate(
                id=user_id,
                rating=rating,
                slots=slots,
                previous=previous,
                # the longest waiting first: never seated, then the oldest last game
                priority=-last_game.get(user_id, 0),
                apart=[other for pair in pairs if user_id in pair for other in pair - {user_id}],
            )
        )
    return candidates


def waited_for_people(
    league: League, candidates: list[Candidate], now: datetime
) -> list[Candidate]:
    """The waiting members a bot table may take: those who have waited for people
    LEAGUE_BOT_WAIT_MINUTES since they (last re)joined and since their latest league game
    began or ended. Two members who come free a minute apart meet each other, not two bots."""
    if not candidates:
        return []
    cutoff = now - timedelta(minutes=settings.LEAGUE_BOT_WAIT_MINUTES)
    ids = [c.id for c in candidates]
    since = dict(
        LeagueMember.objects.filter(league=league, user_id__in=ids).values_list(
            "user_id", "joined_at"
        )
    )
    latest = (
        Seat.objects.filter(game__season_link__season__league=league, user_id__in=ids)
        .values("user_id")
        .annotate(began=Max("game__created_at"), ended=Max("game__finished_at"))
    )
    for row in latest:
        moments = [since[row["user_id"]], row["began"], row["ended"]]
        since[row["user_id"]] = max(m for m in moments if m is not None)
    return [c for c in candidates if since[c.id] <= cutoff]


def _table_start(league: League, season: Season, seats: list[Any]) -> Game:
    """A new game with the league's time control, started at once and linked to the season:
    ``seats`` are users and bot levels, seated in a shuffled order. Rated among its people."""
    seating = list(seats)
    _rng.shuffle(seating)
    game = game_create_seated(
        kind=league.kind,
        seats=seating,
        options=league.options,
        days_per_move=league.days_per_move,
        bank_increment_hours=league.bank_increment_hours,
        bank_cap_hours=league.bank_cap_hours,
        private=league.private,  # a private club's tables are seen by their players only
    )
    SeasonGame.objects.create(season=season, game=game)
    return game


# -- reads --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StandingRow:
    rank: int
    user_id: int
    username: str
    name: str
    points: float
    #: finished games of the season
    games: int
    #: first places (a shared first place counts)
    wins: int
    #: unfinished games of the season
    running: int


def place_points(players: int, place: int, tied: int = 1) -> float:
    """League points for ``place`` (1 = first) at a table of ``players``: N - p, and players
    tied on a place share the points of the places they cover (two tied first at 4: 2.5)."""
    return sum(players - p for p in range(place, place + tied)) / tied


def standings(season: Season) -> list[StandingRow]:
    """The season's table: points by place in finished games, then games played (fewer first:
    the same points from fewer games rank higher), then name. Every person seated in a game of
    the season appears; equal points and games share a rank. Bots (at short tables) do not
    appear, but their places count: a person placed below a bot scores as below a person."""
    all_seats = list(
        Seat.objects.filter(game__season_link__season=season)
        .exclude(game__status=GameStatus.CANCELLED)
        .values_list(
            "game_id", "game__status", "place", "user_id", "user__username",
            "user__display_name",
        )
    )  # fmt: skip
    tables = Counter(game_id for game_id, *_ in all_seats)
    ties = Counter((game_id, place) for game_id, status, place, *_ in all_seats)
    seats = [seat for seat in all_seats if seat[3] is not None]
    points: dict[int, float] = defaultdict(float)
    games: Counter[int] = Counter()
    wins: Counter[int] = Counter()
    running: Counter[int] = Counter()
    names: dict[int, tuple[str, str]] = {}
    for game_id, status, place, user_id, username, display_name in seats:
        names[user_id] = (username, display_name or username)
        if status == GameStatus.FINISHED and place is not None:
            points[user_id] += place_points(tables[game_id], place, ties[(game_id, place)])
            games[user_id] += 1
            wins[user_id] += place == 1
        else:
            running[user_id] += 1
    order = sorted(names, key=lambda u: (-points[u], games[u], names[u][1].lower(), u))
    rows: list[StandingRow] = []
    for position, user_id in enumerate(order, start=1):
        rank = position
        if rows and (rows[-1].points, rows[-1].games) == (points[user_id], games[user_id]):
            rank = rows[-1].rank
        rows.append(
            StandingRow(
                rank=rank,
                user_id=user_id,
                username=names[user_id][0],
                name=names[user_id][1],
                points=points[user_id],
                games=games[user_id],
                wins=wins[user_id],
                running=running[user_id],
            )
        )
    return rows


def band_label(league: League) -> str:
    if league.rating_min is None and league.rating_max is None:
        return _("open to all")
    if league.rating_max is None:
        return f"{league.rating_min}+"
    if league.rating_min is None:
        return _("up to %(max)s") % {"max": league.rating_max}
    return f"{league.rating_min}-{league.rating_max}"


def bots_label(league: League) -> str:
    """What fills a short table of the league, for its page ("" when nothing does)."""
    labels = {
        BotKind.EASY: _("short tables are filled with easy bots"),
        BotKind.NORMAL: _("short tables are filled with normal bots"),
        BotKind.STRONG: _("short tables are filled with strong bots"),
    }
    return labels[BotKind(league.bot_level)] if league.bot_level else ""


@dataclass(frozen=True)
class LeagueRow:
    league: League
    members: int
    season: Season | None
    membership: LeagueMember | None


def may_organise(user: Any, league: League) -> bool:
    """Staff run every league; a club's organisers run theirs."""
    if not getattr(user, "is_authenticated", False):
        return False
    return user.is_staff or league.organisers.filter(pk=user.pk).exists()


def may_view(user: Any, league: League) -> bool:
    """Everyone sees a public league; a private club only its active members, its organisers
    and staff (others are told it does not exist, as for a private table)."""
    if not league.private:
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return (
        may_organise(user, league)
        or LeagueMember.objects.filter(league=league, user_id=user.pk, active=True).exists()
    )


def _public_or_mine(viewer: Any) -> Q:
    """Public leagues, and the private clubs ``viewer`` is an active member or organiser of."""
    if not getattr(viewer, "is_authenticated", False):
        return Q(private=False)
    mine = LeagueMember.objects.filter(user_id=viewer.pk, active=True).values("league_id")
    organised = League.organisers.through.objects.filter(user_id=viewer.pk).values("league_id")
    return Q(private=False) | Q(pk__in=mine) | Q(pk__in=organised)


def visible_leagues(viewer: Any = None) -> QuerySet[League]:
    """The leagues ``viewer`` may see (``may_view`` for many), active or not."""
    if getattr(viewer, "is_staff", False):
        return League.objects.all()
    return League.objects.filter(_public_or_mine(viewer))


def active_leagues(viewer: Any = None) -> QuerySet[League]:
    """The active leagues by name, with their member count (to paginate, then ``league_rows``):
    the public ones, and the private clubs ``viewer`` belongs to or runs (staff reach the
    others through the admin or a link, not in the list)."""
    leagues = League.objects.filter(_public_or_mine(viewer), active=True)
    counted = leagues.annotate(member_count=Count("members", filter=Q(members__active=True)))
    return counted.order_by("name", "pk")


def league_rows(leagues: Iterable[League], *, viewer: Any) -> list[LeagueRow]:
    """Leagues of ``active_leagues`` with their running season and the viewer's membership."""
    leagues = list(leagues)
    seasons = {
        s.league_id: s
        for s in Season.objects.filter(league__in=leagues, status=Season.Status.RUNNING).order_by(
            "number"
        )
    }
    mine: dict[int, LeagueMember] = {}
    if getattr(viewer, "is_authenticated", False):
        mine = {
            m.league_id: m
            for m in LeagueMember.objects.filter(user=viewer, league__in=leagues, active=True)
        }
    return [
        LeagueRow(
            league=league,
            members=league.member_count,
            season=seasons.get(league.pk),
            membership=mine.get(league.pk),
        )
        for league in leagues
    ]
