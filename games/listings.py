"""Reads for the lobby, my-games, player-profile and home pages.

Each function runs a fixed number of queries (the seats of a list's games, with their users, in
one query) and returns plain rows the templates only display: who sits where, whose turn it is,
what the options mean in words. Writes live in ``games.services``; the game page has its own
reads in ``games.selectors``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from keltis_site.prepared import Prepared, PreparedCount

from .engine.registry import GAMES
from .models import Game, GameKind, GameStatus, Seat
from .selectors import GameReads

#: the words for each engine option: (short label, explanation); a test checks that every
#: option of every engine has its words here
OPTION_TEXTS: dict[str, dict[str, tuple[Promise, Promise]]] = {
    GameKind.BOARD: {
        "no_redraw_own_discard": (
            _("No taking back your own discard"),
            _(
                "A card you discard may not be drawn back in the same turn: you must take "
                "the deck or another pile."
            ),
        ),
    },
    GameKind.CARDS: {
        "closing_may_open_row": (
            _("Closing cards may start a row"),
            _(
                "A closing card may be laid as the first card of a colour row, not only at "
                "the end of an existing one."
            ),
        ),
    },
}

#: open games on one page of the lobby
LOBBY_PAGE_SIZE = 20
#: the lobby lists at most this many of one creator's games (their newest): one player's many
#: games never push everyone else's off the page; the rest are a link away
LOBBY_GAMES_PER_CREATOR = 2
RUNNING_GAMES_SHOWN = 10
FINISHED_GAMES_SHOWN = 20

#: each gives a query expression: how many free seats of the game ``OuterRef("pk")`` it holds
#: for someone, as ``games.services.SEATS_HELD`` counts them for one game (friends: the
#: pending invitations). The lobby adds them to its one query, so that a table whose free
#: seats are all promised offers no Join, whatever the number of games on the page.
SEATS_HELD_EXPRESSIONS: list[Callable[[], Any]] = []


def option_label(kind: str, name: str) -> str:
    text = OPTION_TEXTS.get(kind, {}).get(name)
    return str(text[0]) if text else name.replace("_", " ")


def option_help(kind: str, name: str) -> str:
    text = OPTION_TEXTS.get(kind, {}).get(name)
    return str(text[1]) if text else ""


def options_in_words(kind: str, options: dict[str, Any]) -> list[str]:
    """The labels of the options that differ from the engine's defaults (empty: standard)."""
    defaults = GAMES[kind].OPTIONS if kind in GAMES else {}
    return [
        option_label(kind, name)
        for name, default in defaults.items()
        if bool(options.get(name, default)) != default
    ]


# -- clocks in words ----------------------------------------------------------------------------
def duration_text(seconds: int) -> str:
    """A length of time for people: "2 days, 5 hours", "12 hours", "40 minutes" (at most two
    units, the larger first; whatever is less than a minute counts as nothing)."""
    minutes = max(0, int(seconds)) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(ngettext("%(n)s day", "%(n)s days", days) % {"n": days})
    if hours:
        parts.append(ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours})
    if minutes and not days:
        parts.append(ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes})
    if not parts:
        return ngettext("%(n)s minute", "%(n)s minutes", 0) % {"n": 0}
    return ", ".join(parts[:2])


def bank_text(increment_hours: int, cap_hours: int) -> str:
    """A game's time bank setting: "+12 hours per move, up to 2 days", or "no time bank"."""
    if not increment_hours:
        return gettext("no time bank")
    return gettext("time bank: +%(increment)s per move, up to %(cap)s") % {
        "increment": duration_text(increment_hours * 3600),
        "cap": duration_text(cap_hours * 3600),
    }


def days_per_move_text(days: int) -> str:
    return ngettext("%(n)s day per move", "%(n)s days per move", days) % {"n": days}


def time_control_text(game: Game) -> str:
    """Days per move and the time bank: "3 days per move, time bank: +12 hours per move, ..."."""
    days = days_per_move_text(game.days_per_move)
    return f"{days}, {bank_text(game.bank_increment_hours, game.bank_cap_hours)}"


def time_left_text(deadline: datetime | None, now: datetime) -> str:
    """How long until ``deadline``: "2 days, 23 hours left", "time is up", or "" (none).

    The sentence is chosen by the plural form of its first number, since in Polish, Czech,
    Slovak and Russian the word for "left" agrees with it ("zostały 2 dni", "zostało 5 dni").
    """
    if deadline is None:
        return ""
    if deadline <= now:
        return gettext("time is up: the timeout rule plays next")
    minutes = int((deadline - now).total_seconds()) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        if hours:
            text = ngettext(
                "%(n)s day, %(rest)s left", "%(n)s days, %(rest)s left", days
            )
            return text % {"n": days, "rest": duration_text(hours * 3600)}
        return ngettext("%(n)s day left", "%(n)s days left", days) % {"n": days}
    if hours:
        if minutes:
            text = ngettext(
                "%(n)s hour, %(rest)s left", "%(n)s hours, %(rest)s left", hours
            )
            return text % {"n": hours, "rest": duration_text(minutes * 60)}
        return ngettext("%(n)s hour left", "%(n)s hours left", hours) % {"n": hours}
    return ngettext("%(n)s minute left", "%(n)s minutes left", minutes) % {"n": minutes}


def game_url(game_id: int) -> str:
    """The game page (``game_detail``, routed by games/urls_play.py)."""
    return f"/games/{game_id}/"


# -- rows ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatRow:
    index: int
    name: str
    username: str | None  # None for a bot
    is_bot: bool
    is_viewer: bool
    score: int | None
    place: int | None
    #: a person's account turned into a bot (it plays through the API): shown as a bot
    bot_account: bool = False


@dataclass(frozen=True)
class GameRow:
    """One game as a list shows it, seen by ``viewer`` and about ``subject`` (often the same)."""

    game: Game
    url: str
    kind: str
    players: list[SeatRow]
    options: list[str]
    #: the seat of the user the list is about (my games: the viewer; a profile: its player)
    seat: SeatRow | None
    #: the seat of the person looking at the page
    viewer_seat: SeatRow | None
    creator_name: str
    to_move: SeatRow | None
    is_subject_turn: bool
    #: whole days since the seat to move got the turn
    days_waiting: int | None
    can_join: bool
    #: when the seat to move times out (None: not running, or a bot or retired seat to move)
    deadline: datetime | None = None
    #: the time left until the deadline, in words ("" without a deadline)
    time_left: str = ""
    #: days per move and the time bank, in words
    time_control: str = ""
    #: the creator's open games the lobby leaves out (shown on the row of their last one)
    more_by_creator: int = 0
    #: free seats held for people invited (lobby rows only: ``SEATS_HELD_EXPRESSIONS``)
    invited: int = 0

    @property
    def frozen(self) -> bool:
        """The game's log failed an integrity check: nobody moves (games.integrity)."""
        return self.game.frozen

    @property
    def seated(self) -> int:
        return len(self.players)

    @property
    def free_seats(self) -> int:
        return self.game.player_count - len(self.players)

    @property
    def open_seats(self) -> int:
        """The free seats nobody is invited to: those a stranger may take."""
        return max(0, self.free_seats - self.invited)

    @property
    def opponents(self) -> list[SeatRow]:
        return [p for p in self.players if self.seat is None or p.index != self.seat.index]

    @property
    def winners(self) -> list[SeatRow]:
        return [p for p in self.players if p.place == 1]

    @property
    def viewer_is_creator(self) -> bool:
        return self.viewer_seat is not None and self.viewer_seat.index == 0


def _user_id(user: Any) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def _rows(
    games: Iterable[Game],
    *,
    viewer: Any,
    seats: GameReads,
    subject: Any = None,
) -> list[GameRow]:
    """The rows of ``games``, their seats read ahead in ``seats`` (one query for a list)."""
    viewer_id = _user_id(viewer)
    subject_id = _user_id(subject) if subject is not None else viewer_id
    now = timezone.now()
    rows = []
    for game in games:
        at_table = seats.seat_rows(game)
        players = [
            SeatRow(
                index=seat.index,
                name=seat.name,
                username=seat.user.username if seat.user_id else None,
                is_bot=seat.is_bot,
                is_viewer=viewer_id is not None and seat.user_id == viewer_id,
                score=seat.score,
                place=seat.place,
                bot_account=bool(seat.user_id and seat.user.is_bot),
            )
            for seat in at_table
        ]
        by_user = {seat.user_id: row for seat, row in zip(at_table, players, strict=True)}
        seat = by_user.get(subject_id) if subject_id is not None else None
        viewer_seat = by_user.get(viewer_id) if viewer_id is not None else None
        running = game.status == GameStatus.RUNNING and not game.frozen
        to_move = next((p for p in players if p.index == game.to_move), None) if running else None
        waited = _whole_days(now, game.turn_started_at) if running else None
        deadline = game.deadline if running else None
        invited = getattr(game, "seats_held", 0) or 0
        rows.append(
            GameRow(
                game=game,
                url=game_url(game.pk),
                kind=game.get_kind_display(),
                players=players,
                options=options_in_words(game.kind, game.options),
                seat=seat,
                viewer_seat=viewer_seat,
                creator_name=game.created_by.public_name if game.created_by else "",
                to_move=to_move,
                is_subject_turn=(
                    to_move is not None and seat is not None and to_move.index == seat.index
                ),
                days_waiting=waited,
                can_join=(
                    viewer_id is not None
                    and viewer_seat is None
                    and game.status == GameStatus.OPEN
                    and len(players) + invited < game.player_count
                ),
                deadline=deadline,
                time_left=time_left_text(deadline, now),
                time_control=time_control_text(game),
                invited=invited,
            )
        )
    return rows


def _whole_days(now: datetime, since: datetime | None) -> int | None:
    return None if since is None else max(0, (now - since).days)


# -- the lobby ----------------------------------------------------------------------------------
def _few_per_creator(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` newest first, keeping only each creator's LOBBY_GAMES_PER_CREATOR newest;
    every game carries ``creator_rank`` (1: the creator's newest) and ``creator_total`` (the
    creator's games before the cut). One query: window functions number and count each
    creator's games inside the database (over every open game, which the per-player limit
    keeps few)."""
    partition = [F("created_by")]
    latest_first = [F("created_at").desc(), F("pk").desc()]
    return (
        games.annotate(
            creator_rank=Window(RowNumber(), partition_by=partition, order_by=latest_first),
            creator_total=Window(Count("pk"), partition_by=partition),
        )
        .filter(creator_rank__lte=LOBBY_GAMES_PER_CREATOR)
        .order_by(*latest_first)
    )


def _with_seats_held(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` each with ``seats_held``: the free seats held for someone (a subquery per
    registered ``SEATS_HELD_EXPRESSIONS``, in the same query)."""
    if not SEATS_HELD_EXPRESSIONS:
        return games
    total: Any = Value(0)
    for expression in SEATS_HELD_EXPRESSIONS:
        total = total + Coalesce(expression(), Value(0))
    return games.annotate(seats_held=total)


def _open_to_all() -> QuerySet[Game]:
    return _with_seats_held(
        Game.objects.filter(status=GameStatus.OPEN, private=False).select_related("created_by")
    )


def _open_listed() -> QuerySet[Game]:
    """The open games the lobby lists, a few of each creator (``OpenGames``)."""
    return _few_per_creator(_open_to_all())


class OpenGames:
    """The lobby's open games, at most LOBBY_GAMES_PER_CREATOR of each creator, newest first
    (``_few_per_creator``), as Django's paginator reads them: their count, and the games of a
    slice (a page), each a query compiled once a process. Building and compiling the window
    functions and the held seats' subqueries took the ORM longer than running them."""

    def count(self) -> int:
        return _OPEN_COUNT.run()

    def __getitem__(self, part: slice) -> list[Game]:
        start, stop = part.start or 0, part.stop
        if part.step not in (None, 1) or stop is None or not 0 <= start <= stop:
            raise TypeError("the open games are read a slice from a start to a stop")
        if start == stop:  # the empty lobby's one page (the ORM answers it without SQL too)
            return []
        return _open_slice(start, stop).run()


_OPEN_COUNT = PreparedCount(_open_listed)


@functools.lru_cache(maxsize=64)
def _open_slice(start: int, stop: int) -> Prepared[Game]:
    """A page of ``OpenGames``, compiled once (the pages read are few: past the last one the
    pager shows the last)."""
    return Prepared(lambda: _open_listed()[start:stop])


def lobby_open_games(*, creator: Any = None) -> OpenGames | QuerySet[Game]:
    """Games waiting for players, newest first, to paginate: at most LOBBY_GAMES_PER_CREATOR
    of each creator (``OpenGames``), or every one of ``creator``'s; each knows its seats held
    for the people invited (``seats_held``). Their seats are read with their rows
    (``open_game_rows``)."""
    if creator is not None:
        return _open_to_all().filter(created_by=creator).order_by("-created_at", "-pk")
    return OpenGames()


def open_game_rows(
    games: Iterable[Game], *, viewer: Any, seats: GameReads | None = None
) -> list[GameRow]:
    """Rows of a page of ``lobby_open_games``; the last row of a creator whose other open games
    were left out says how many (``more_by_creator``). Their seats are read in one query, or
    were read ahead in ``seats``."""
    games = list(games)
    if seats is None:
        seats = GameReads()
        seats.read_ahead(games)
    rows = _rows(games, viewer=viewer, seats=seats)
    return [
        replace(row, more_by_creator=row.game.creator_total - LOBBY_GAMES_PER_CREATOR)
        if getattr(row.game, "creator_rank", 0) == LOBBY_GAMES_PER_CREATOR
        and row.game.creator_total > LOBBY_GAMES_PER_CREATOR
        else row
        for row in rows
    ]


#: the most recently started running games, to look at. Not cut per creator as the open games
#: are: the window would run over every running game (four times the time of this query at
#: 30,000 of them), for a list nobody needs to find a game in. Compiled once a process.
_RECENT_RUNNING = Prepared(
    lambda: (
        Game.objects.filter(status=GameStatus.RUNNING, private=False)
        .select_related("created_by")
        .order_by("-started_at", "-pk")[:RUNNING_GAMES_SHOWN]
    )
)


def lobby_rows(open_games: Iterable[Game], *, viewer: Any) -> tuple[list[GameRow], list[GameRow]]:
    """The lobby's two lists: the rows of a page of open games (``lobby_open_games``) and of
    the latest running games, the seats of both read in one query."""
    waiting, running = list(open_games), _RECENT_RUNNING.run()
    at_tables = GameReads()
    at_tables.read_ahead(waiting + running)
    return (
        open_game_rows(waiting, viewer=viewer, seats=at_tables),
        _rows(running, viewer=viewer, seats=at_tables),
    )


# -- one player's games -------------------------------------------------------------------------
def _seat_of(user: Any) -> QuerySet[Seat]:
    return Seat.objects.filter(game=OuterRef("pk"), user=user)


def _own_seats(user_id: int, status: str) -> QuerySet[Seat]:
    """The player's seats at games of ``status``, each with its game and the game's creator:
    a player's lists start from their seats (one a game), so that their id is one value of the
    SQL, and the player's own lists are compiled once a process (``Prepared``): the ORM spent
    more building and compiling them than the database answering them."""
    return Seat.objects.filter(user_id=user_id, game__status=status).select_related(
        "game__created_by"
    )


def _seen_by_player(seats: QuerySet[Seat], viewer_id: int) -> QuerySet[Seat]:
    """The seats at the games another player may see: a private table only if they sit at
    it."""
    viewer_seated = Exists(Seat.objects.filter(game=OuterRef("game"), user_id=viewer_id))
    return seats.filter(Q(game__private=False) | Q(viewer_seated))


#: the seat's turn, on a row of ``_own_seats``
_OWN_TURN = Q(index=F("game__to_move"))


def _running_first(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """The games where it is the seat's turn first, the least time left first (games without
    a deadline last); then the others' turns, the longest waiting first; frozen games last."""
    return seats.order_by(
        F("game__frozen_at").asc(nulls_first=True),  # frozen games wait for nobody: last
        Case(When(_OWN_TURN, then=Value(0)), default=Value(1)),
        Case(When(_OWN_TURN, then=F("game__deadline"))).asc(nulls_last=True),
        "game__turn_started_at",
        "game__pk",
    )


def _newest_first(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    return seats.order_by("-game__created_at", "-game__pk")


def _latest_finished(seats: QuerySet[Seat], limit: int = FINISHED_GAMES_SHOWN) -> QuerySet[Seat]:
    return seats.order_by("-game__finished_at", "-game__pk")[:limit]


#: who looks at a player's lists: the player (every game), a visitor (the public games), another
#: player (the public games and the private tables they sit at too)
OWN, VISITOR, PLAYER = "own", "visitor", "player"


@functools.cache
def _list_query(status: str, seen_by: str) -> Prepared[Seat]:
    """The query of a player's seats at games of ``status`` for one kind of viewer, compiled
    once a process: the player's id (and another player's) are its values."""
    order = {
        GameStatus.RUNNING: _running_first,
        GameStatus.OPEN: _newest_first,
        GameStatus.FINISHED: _latest_finished,
    }[GameStatus(status)]
    if seen_by == PLAYER:
        return Prepared(
            lambda user_id, viewer_id: order(
                _seen_by_player(_own_seats(user_id, status), viewer_id)
            )
        )
    if seen_by == VISITOR:
        return Prepared(
            lambda user_id: order(_own_seats(user_id, status).filter(game__private=False))
        )
    return Prepared(lambda user_id: order(_own_seats(user_id, status)))


def _seats_seen(user: Any, viewer: Any, status: str) -> list[Seat]:
    """``user``'s seats at games of ``status`` that ``viewer`` may see (None: the player)."""
    user_id, viewer_id, status = user.pk, _user_id(viewer), GameStatus(status).value
    if viewer is None or viewer_id == user_id:
        return _list_query(status, OWN).run(user_id)
    if viewer_id is None:
        return _list_query(status, VISITOR).run(user_id)
    return _list_query(status, PLAYER).run(user_id, viewer_id)


def _seat_lists(
    lists: list[Iterable[Seat]], *, viewer: Any, subject: Any
) -> list[list[GameRow]]:
    """The rows of the games of each list of ``subject``'s seats, the seats of all those
    games read in one query."""
    games = [[seat.game for seat in seats] for seats in lists]
    at_tables = GameReads()
    at_tables.read_ahead([game for some in games for game in some])
    return [_rows(some, viewer=viewer, subject=subject, seats=at_tables) for some in games]


def game_lists(*, user: Any, viewer: Any = None, statuses: Sequence[str]) -> list[list[GameRow]]:
    """``user``'s games of each of ``statuses`` (running: their turns first, the least time
    left first; open: the newest first; finished: the latest FINISHED_GAMES_SHOWN) as
    ``viewer`` may see them (None: the player): a compiled query a list, and one for the
    seats of all their games."""
    lists = [_seats_seen(user, viewer, status) for status in statuses]
    return _seat_lists(lists, viewer=viewer or user, subject=user)


def user_game_lists(*, user: Any) -> tuple[list[GameRow], list[GameRow], list[GameRow]]:
    """The player's own running, open and finished games (their games page, the API)."""
    statuses = (GameStatus.RUNNING, GameStatus.OPEN, GameStatus.FINISHED)
    running, waiting, finished = game_lists(user=user, statuses=statuses)
    return running, waiting, finished


def user_turn_count(*, user: Any) -> int:
    """In how many running games it is ``user``'s turn (one query; frozen games wait for
    nobody)."""
    return Game.objects.filter(
        Exists(_seat_of(user).filter(index=OuterRef("to_move"))),
        status=GameStatus.RUNNING,
        frozen_at__isnull=True,
    ).count()


def players() -> QuerySet[Any]:
    """The users a profile page may show."""
    return get_user_model().objects.filter(is_active=True)


def player_counts(*, user: Any) -> dict[str, int]:
    """Finished games played and won (a shared first place counts as a win)."""
    return Seat.objects.filter(user=user, game__status=GameStatus.FINISHED).aggregate(
        played=Count("pk"), won=Count("pk", filter=Q(place=1))
    )
