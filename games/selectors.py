"""Reads for the pages of one game: its page, its history with a replay, its exported record.

Plain functions returning dataclasses; ``presenters.py`` turns them into what templates draw.
Hidden information is decided here, once: a seated person gets ``view(seat)``, everyone else
``view(SPECTATOR)``; ``view(None)`` (every hand, the deck order) only for a finished game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from accounts.models import Vacation
from games.engine import Game as EngineGame
from games.engine.base import SPECTATOR
from games.engine.records import Record
from keltis_site.prepared import Prepared

from .integrity import LogNotReplayable
from .models import Event, EventSource, Game, GameStatus, Seat, Snapshot
from .rated import RatedStatus, rated_status
from .state import apply_stored, engine_start, engine_state

#: how many of the latest events the game page lists
RECENT_EVENTS = 8


@dataclass(frozen=True)
class SeatInfo:
    index: int
    name: str
    is_bot: bool
    username: str | None
    is_viewer: bool
    #: final score and place once the game is finished (stored on the seat)
    score: int | None
    place: int | None
    #: the clock: unused time bank (seconds), timeouts in a row, retired after too many
    bank_seconds: int = 0
    timeouts: int = 0
    retired: bool = False
    #: a person's account turned into a bot (it plays through the API): shown as a bot
    bot_account: bool = False


@dataclass(frozen=True)
class EventInfo:
    seq: int
    seat: int
    seat_name: str
    action: str
    created_at: datetime
    #: the card a ``draw <pile>`` took (public: every pile top is seen by all), when known
    drawn: str | None = None
    #: who chose the action (``EventSource``): the player, a bot, the timeout rule, a retired seat
    source: str = EventSource.PLAYER


@dataclass(frozen=True)
class GamePage:
    game: Game
    seats: list[SeatInfo]
    #: the seat of the person looking, or None (anonymous, or not a player of this game)
    viewer_seat: int | None
    started: bool
    finished: bool
    #: the engine's view for this viewer (None before the game starts)
    view: dict[str, Any] | None
    #: the viewer's legal actions: empty unless it is the viewer's turn in a running game
    legal: list[str]
    to_move: int | None
    phase: str | None
    scores: list[int]
    winners: list[int]
    recent_events: list[EventInfo]
    #: whether the game counts for the ratings, and why
    rated: RatedStatus | None = None
    #: the game takes no action: its log failed an integrity check (games.integrity)
    frozen: bool = False
    #: the log failed to replay for this page (the caller freezes the game); no position then
    unreplayable: LogNotReplayable | None = None
    #: seats whose player is on vacation now (a running game), with when they are back
    away_until: dict[int, datetime] = field(default_factory=dict)


@dataclass(frozen=True)
class HistoryPage:
    game: Game
    seats: list[SeatInfo]
    events: list[EventInfo]
    started: bool
    #: the position shown: after ``step`` events (0 = the start), clamped to 0..last_step
    step: int
    last_step: int
    #: the position's view: public only while the game runs, everything once it is finished
    view: dict[str, Any] | None
    shows_hands: bool
    scores: list[int] = field(default_factory=list)
    #: the game takes no action: its log failed an integrity check (games.integrity)
    frozen: bool = False
    #: the replay stopped at an event the engine refused (the caller freezes the game): the
    #: page shows the events before it
    unreplayable: LogNotReplayable | None = None
    #: the view after each step, 0..last_step, for the replay stepped in the browser: the same
    #: viewer as ``view`` (public while the game runs, everything once it is finished)
    views: list[dict[str, Any]] = field(default_factory=list)


class RecordNotAvailable(Exception):
    """The record of a game that has not finished: it would reveal hands and the deck order."""


#: the game page's reads, compiled once (keltis_site.prepared): the game with its snapshot ...
GAME_WITH_SNAPSHOT = Prepared(
    lambda pk: Game.objects.select_related("snapshot").filter(pk=pk).order_by()
)
def _seats_with_users() -> QuerySet[Seat]:
    """Seats as their readers take them: with their users (names, vacations, languages)."""
    return Seat.objects.select_related("user")


#: ... its seats with their users ...
_SEATS_IN_ORDER = Prepared(
    lambda game_id: _seats_with_users().filter(game_id=game_id).order_by("index")
)
#: ... its snapshot, when the game was read without it (an email's row names the game) ...
_SNAPSHOT = Prepared(lambda game_id: Snapshot.objects.filter(game_id=game_id).order_by())


class StoredEvent(NamedTuple):
    """The columns of an event the pages and emails read: the action and who chose it when,
    not its hash chain (two hashes an event: reading whole rows as models cost a turn email
    more than its signed links)."""

    seq: int
    seat: int
    action: str
    created_at: datetime
    source: str


_EVENT_COLUMNS = StoredEvent._fields
#: ... its latest events, newest first ...
_LATEST_EVENTS = Prepared(
    lambda game_id: (
        Event.objects.filter(game_id=game_id)
        .order_by("-seq")
        .values_list(*_EVENT_COLUMNS)[:RECENT_EVENTS]
    )
)
#: ... and all of them, in order
_ALL_EVENTS = Prepared(
    lambda game_id: (
        Event.objects.filter(game_id=game_id).order_by("seq").values_list(*_EVENT_COLUMNS)
    )
)


class GameReads:
    """One game's rows read once for several readers in a row: the emails of one batch (a
    game over goes to every player at once) share the game row, its seats with their users,
    its engine state and its latest events instead of reading them per recipient.

    What it hands out is shared: readers must not change it. Without one, every call reads
    afresh (``game_page`` makes its own).
    """

    def __init__(self) -> None:
        self._games: dict[int, Game] = {}
        self._seats: dict[int, list[Seat]] = {}
        self._engines: dict[tuple[int, int], EngineGame] = {}
        self._recent: dict[tuple[int, int], list[StoredEvent]] = {}
        self._events: dict[tuple[int, int], list[StoredEvent]] = {}
        self._movers: dict[int, int] = {}

    def game(self, game: Game) -> Game:
        """The game's row, read again the first time it is asked for, then that same row."""
        if game.pk not in self._games:
            game.refresh_from_db()
            self._games[game.pk] = game
        return self._games[game.pk]

    def known(self, game: Game) -> None:
        """Take ``game`` as read: its row was just read (with the rows that name it)."""
        self._games.setdefault(game.pk, game)

    def read_ahead(self, games: list[Game], *, events_of: list[Game] | None = None) -> None:
        """Read the seats (with their users) of ``games``, and every event of ``events_of``,
        that are not read yet: one query for all of them instead of one a game. A chunk of the
        outbox holds the emails of twenty games, each read once (notifications.outbox)."""
        ids = {game.pk for game in games if game.pk not in self._seats}
        if ids:  # kept only once the query has answered whole: a failure leaves nothing read
            seats: dict[int, list[Seat]] = {game_id: [] for game_id in ids}
            for seat in _seats_with_users().filter(game_id__in=ids).order_by("game_id", "index"):
                seats[seat.game_id].append(seat)
            self._seats.update(seats)
        wanted = {(g.pk, g.seq): g.pk for g in events_of or () if (g.pk, g.seq) not in self._events}
        if wanted:
            logs: dict[int, list[StoredEvent]] = {game_id: [] for game_id in wanted.values()}
            for game_id, *columns in (
                Event.objects.filter(game_id__in=logs)
                .order_by("game_id", "seq")
                .values_list("game_id", *_EVENT_COLUMNS)
            ):
                logs[game_id].append(StoredEvent(*columns))
            for key, game_id in wanted.items():
                self._events[key] = logs[game_id]

    def seat_rows(self, game: Game) -> list[Seat]:
        if game.pk not in self._seats:
            self._seats[game.pk] = _SEATS_IN_ORDER.run(game.pk)
        return self._seats[game.pk]

    def movers(self, game: Game) -> int:
        """How many people made a move of their own (whether a finished game is rated)."""
        if game.pk not in self._movers:
            self._movers[game.pk] = people_who_moved(game).count()
        return self._movers[game.pk]

    def engine(self, game: Game) -> EngineGame:
        key = (game.pk, game.seq)
        if key not in self._engines:
            if not Game.snapshot.related.is_cached(game):  # read as select_related would
                found = _SNAPSHOT.run(game.pk)
                if found:
                    Game.snapshot.related.set_cached_value(game, found[0])
            self._engines[key] = engine_state(game)
        return self._engines[key]

    def replayed(self, game: Game, engine: EngineGame, seq: int) -> None:
        """Take ``engine``, a replay of the game's log up to ``seq`` (``latest_events``), as
        the game's engine when that is the game's position and none was made yet: as
        ``engine_state`` would without a current snapshot, sparing the snapshot's read."""
        if seq == game.seq:
            self._engines.setdefault((game.pk, game.seq), engine)

    def recent_events(self, game: Game) -> list[StoredEvent]:
        key = (game.pk, game.seq)
        if key not in self._recent:
            if key in self._events:  # every event was read: the latest are among them
                self._recent[key] = self._events[key][-RECENT_EVENTS:]
            else:
                rows = _LATEST_EVENTS.rows(game.pk)
                self._recent[key] = [StoredEvent(*row) for row in reversed(rows)]
        return self._recent[key]

    def events(self, game: Game) -> list[StoredEvent]:
        """Every event of the game in order (a turn email's "since your last turn")."""
        key = (game.pk, game.seq)
        if key not in self._events:
            self._events[key] = [StoredEvent(*row) for row in _ALL_EVENTS.rows(game.pk)]
        return self._events[key]


# -- seats --------------------------------------------------------------------------------------
def _seats(game: Game, viewer_id: int | None, reads: GameReads | None = None) -> list[SeatInfo]:
    return _seat_infos((reads or GameReads()).seat_rows(game), viewer_id)


def _seat_infos(rows: list[Seat], viewer_id: int | None) -> list[SeatInfo]:
    """The seats in order; two bots of one kind are told apart by their seat ("greedy bot 3")."""
    rows = sorted(rows, key=lambda seat: seat.index)
    bot_names = Counter(seat.name for seat in rows if seat.is_bot)
    seats = []
    for seat in rows:
        name = seat.name
        if seat.is_bot and bot_names[name] > 1:
            name = f"{name} {seat.index + 1}"
        seats.append(
            SeatInfo(
                index=seat.index,
                name=name,
                is_bot=seat.is_bot,
                username=seat.user.username if seat.user_id else None,
                is_viewer=viewer_id is not None and seat.user_id == viewer_id,
                score=seat.score,
                place=seat.place,
                bank_seconds=seat.bank_seconds,
                timeouts=seat.timeouts,
                retired=seat.retired,
                bot_account=bool(seat.user_id and seat.user.is_bot),
            )
        )
    return seats


def seats_away(rows: list[Seat], now: datetime) -> dict[int, datetime]:
    """The people seats whose player is on vacation at ``now``, with the end of their time
    away (back-to-back vacations joined): the others see why the deadline moved. No query
    unless a seat's player has a vacation that has not ended (``User.vacations_end``)."""
    seat_of = {
        seat.user_id: seat.index
        for seat in rows
        if seat.user_id
        and not seat.retired
        and seat.user.vacations_end is not None
        and seat.user.vacations_end > now
    }
    if not seat_of:
        return {}
    until: dict[int, datetime] = {}
    spans = (
        Vacation.objects.filter(user_id__in=list(seat_of), ends_at__gt=now)
        .order_by("user_id", "starts_at")
        .values_list("user_id", "starts_at", "ends_at")
    )
    for user_id, starts_at, ends_at in spans:
        back = until.get(seat_of[user_id])
        if (back is None and starts_at <= now) or (back is not None and starts_at <= back):
            until[seat_of[user_id]] = max(ends_at, back or ends_at)
    return until


def seat_names(*, game: Game, rows: list[Seat] | None = None) -> list[str]:
    """The seats' public names in seating order (never an email address); from ``rows``, the
    game's seats with their users, when the caller has them."""
    infos = _seat_infos(rows, None) if rows is not None else _seats(game, None)
    return [s.name for s in infos]


def _started(game: Game) -> bool:
    return game.status in (GameStatus.RUNNING, GameStatus.FINISHED)


# -- the game page ------------------------------------------------------------------------------
def game_page(
    *, game: Game, user: Any, reads: GameReads | None = None, with_rated: bool = True
) -> GamePage:
    """The page of ``game`` as ``user`` sees it (``reads``: rows shared with other readers).
    ``with_rated`` False leaves out whether it is rated (a query once it is over), for the
    emails, which do not say it."""
    reads = reads or GameReads()
    viewer_id = user.pk if user is not None and user.is_authenticated else None
    seats = _seats(game, viewer_id, reads)
    viewer_seat = next((s.index for s in seats if s.is_viewer), None)
    started = _started(game)
    rated = game_rated_status(game=game, seats=seats, reads=reads) if with_rated else None
    names = {s.index: s.name for s in seats}
    try:
        engine = reads.engine(game) if started else None
    except LogNotReplayable as exc:
        engine, unreplayable = None, exc
    else:
        unreplayable = None
    if engine is None:  # not started, or a log that does not replay: no position to show
        recent = reads.recent_events(game) if started else []
        return GamePage(
            game=game, seats=seats, viewer_seat=viewer_seat, started=started, finished=False,
            view=None, legal=[], to_move=None, phase=None, scores=[], winners=[],
            recent_events=[_event_info(event, names) for event in recent], rated=rated,
            frozen=game.frozen or unreplayable is not None, unreplayable=unreplayable,
        )
    view = engine.view(viewer_seat if viewer_seat is not None else SPECTATOR)
    running = game.status == GameStatus.RUNNING and not engine.finished and not game.frozen
    away = seats_away(reads.seat_rows(game), timezone.now()) if running else {}
    legal = engine.legal() if running and engine.to_move == viewer_seat else []
    recent = [_event_info(event, names) for event in reads.recent_events(game)]
    return GamePage(
        game=game,
        seats=seats,
        viewer_seat=viewer_seat,
        started=True,
        finished=engine.finished,
        view=view,
        legal=legal,
        to_move=engine.to_move,
        phase=engine.phase_name,
        scores=engine.scores(),
        winners=engine.winners(),
        recent_events=recent,
        rated=rated,
        frozen=game.frozen,
        away_until=away,
    )


def _event_info(
    event: Event | StoredEvent, names: dict[int, str], drawn: str | None = None
) -> EventInfo:
    return EventInfo(
        seq=event.seq,
        seat=event.seat,
        seat_name=names.get(event.seat, str(event.seat)),
        action=event.action,
        created_at=event.created_at,
        drawn=drawn,
        source=event.source,
    )


# -- whether it is rated ------------------------------------------------------------------------
def people_who_moved(game: OuterRef | Game) -> QuerySet[Seat]:
    """The people seats of ``game`` with at least one action the player chose themselves
    (source "player": not a bot, the timeout policy or a retired seat acting for them)."""
    moved = Event.objects.filter(
        game=OuterRef("game"), seat=OuterRef("index"), source=EventSource.PLAYER
    )
    return Seat.objects.filter(game=game, user__isnull=False).filter(Exists(moved))


def game_rated_status(
    *, game: Game, seats: list[SeatInfo], reads: GameReads | None = None
) -> RatedStatus:
    """``rated_status`` of a game: its seats not taken yet wait for people; who moved counts
    once it is over (one query then, shared by the readers of ``reads``)."""
    bots = sum(1 for seat in seats if seat.is_bot)
    finished = game.status == GameStatus.FINISHED
    return rated_status(
        people=game.player_count - bots,
        bots=bots,
        marked_rated=game.rated,
        movers=(reads or GameReads()).movers(game) if finished else None,
    )


# -- the history and its replay -----------------------------------------------------------------
def parse_step(raw: str | None, last_step: int) -> int:
    """The step a ``?step=`` asks for, clamped to 0..last_step; the last one when not a number."""
    try:
        step = int(raw) if raw is not None else last_step
    except ValueError:
        step = last_step
    return max(0, min(step, last_step))


def game_history(*, game: Game, step: str | None = None) -> HistoryPage:
    """Every event in order, and the position after ``step`` of them (``engine_replay`` upto).

    The game is replayed once: each ``draw`` from a pile learns the card it took (the pile top,
    which all players saw), and the view at the asked step is kept. While the game runs that
    view is the public one for everybody, the players included: no hand appears at all.
    An event the engine refuses ends the replay there: the page shows the events before it and
    says why in ``unreplayable`` (the caller freezes the game).
    """
    seats = _seats(game, None)
    names = {s.index: s.name for s in seats}
    stored = list(Event.objects.filter(game=game).order_by("seq"))
    last_step = len(stored)
    chosen = parse_step(step, last_step)
    if not _started(game):
        return HistoryPage(
            game=game, seats=seats, events=[], started=False, step=0, last_step=0, view=None,
            shows_hands=False,
        )
    finished = game.status == GameStatus.FINISHED
    viewer = None if finished else SPECTATOR
    engine: EngineGame | None = None
    view: dict[str, Any] | None = None
    scores: list[int] = []
    events: list[EventInfo] = []
    unreplayable = None
    views: list[dict[str, Any]] = []
    try:
        engine = engine_start(game)
        views.append(engine.view(viewer))
        if chosen == 0:
            view, scores = views[0], engine.scores()
        for event in stored:
            drawn = None
            pile = _drawn_pile(event.action)
            if pile is not None:  # the position before (views[-1]): piles are public
                cards = views[-1]["piles"].get(pile) or []
                drawn = cards[-1] if cards else None
            apply_stored(engine, game.pk, event.seq, event.seat, event.action)
            events.append(_event_info(event, names, drawn))
            views.append(engine.view(viewer))
            if event.seq == chosen:
                view, scores = views[-1], engine.scores()
    except LogNotReplayable as exc:
        unreplayable = exc
        last_step = len(events)
        if chosen > last_step and engine is not None:
            chosen = last_step  # the last position the replay reached
            view, scores = engine.view(viewer), engine.scores()
    return HistoryPage(
        game=game,
        seats=seats,
        events=events,
        started=True,
        step=min(chosen, last_step),
        last_step=last_step,
        view=view,
        shows_hands=finished,
        scores=scores,
        frozen=game.frozen or unreplayable is not None,
        unreplayable=unreplayable,
        views=views,
    )


def latest_events(
    *, game: Game, reads: GameReads, window: Callable[[list[EventInfo]], tuple[int, int]]
) -> list[EventInfo]:
    """The events ``game_history`` lists, each as it lists it, for a reader of a few of the
    latest: ``window`` picks them (start, end) from every event without its drawn card, and
    the replay views only the positions before the pile draws among them (``game_history``
    views every position: a turn email paid for the whole game's views). A log that stops
    replaying gets ``game_history``'s own answer."""
    names = {s.index: s.name for s in _seats(game, None, reads)}
    stored = reads.events(game)
    if not _started(game):
        return []
    plain = [_event_info(event, names) for event in stored]
    start, end = window(plain)
    viewer = None if game.status == GameStatus.FINISHED else SPECTATOR
    events: list[EventInfo] = []
    try:
        engine = engine_start(game)
        for index, event in enumerate(stored):
            pile = _drawn_pile(event.action) if start <= index < end else None
            if pile is not None:  # the position before: piles are public
                cards = engine.view(viewer)["piles"].get(pile) or []
                events.append(_event_info(event, names, cards[-1] if cards else None))
            else:
                events.append(plain[index])
            apply_stored(engine, game.pk, event.seq, event.seat, event.action)
    except LogNotReplayable:
        return game_history(game=game).events
    reads.replayed(game, engine, stored[-1].seq if stored else 0)
    return events


def _drawn_pile(action: str) -> str | None:
    parts = action.split()
    if len(parts) == 2 and parts[0] == "draw" and parts[1] != "deck":
        return parts[1]
    return None


# -- the exported record ------------------------------------------------------------------------
#: each gives a finished game's record more keys (``{}``: none), e.g. talk's table talk when
#: its authors agreed: apps built on games register here (games cannot import them)
RECORD_PARTS: list[Callable[[Game], dict[str, Any]]] = []


def game_record(*, game: Game) -> dict[str, Any]:
    """The records.md record (format 1) of a finished game: its explicit setup and actions,
    and what RECORD_PARTS add."""
    if game.status != GameStatus.FINISHED:
        raise RecordNotAvailable
    players = game.record_players()
    actions = list(Event.objects.filter(game=game).order_by("seq").values_list("action", flat=True))
    record = Record(
        game=game.kind, players=players, setup=game.setup, options=game.options, actions=actions
    )
    answer = record.to_dict()
    for part in RECORD_PARTS:
        answer.update(part(game))
    return answer
