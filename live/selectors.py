"""Reads for live pages: what a page depends on (its marks) and the player's turn count."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q

from games.models import Game, GameStatus, Seat
from keltis_site.prepared import Prepared

from .messages import GameChange

if TYPE_CHECKING:
    from games.services import Position

#: a player's games whose changes reach every page of theirs ("my games", the turn count)
ACTIVE = (GameStatus.OPEN, GameStatus.RUNNING)


#: compiled once (keltis_site.prepared): the seats' users with their game's columns
_SEATS_AND_GAME = Prepared(
    lambda game_id: (
        Seat.objects.filter(game_id=game_id)
        .order_by("index")
        .values_list("user_id", "game__seq", "game__status", "game__to_move")
    )
)


def game_change(game_id: int) -> GameChange | None:
    """The message for the game as committed now (None: no such game): one query, the seats
    with their game's columns (it runs after every action: three queries cost a millisecond of
    the action's CPU), and a second one only for a game without seats."""
    rows = _SEATS_AND_GAME.rows(game_id)
    if rows:
        _, seq, status, to_move = rows[0]
    else:
        game = Game.objects.filter(pk=game_id).values_list("seq", "status", "to_move").first()
        if game is None:
            return None
        seq, status, to_move = game
    return GameChange(
        game=game_id, seq=seq, status=status, to_move=to_move, seats=len(rows),
        users=tuple(row[0] for row in rows if row[0] is not None),
    )  # fmt: skip


def written_change(game_id: int, position: Position) -> GameChange:
    """The message for the position an action's transaction wrote (no query): what
    ``game_change`` reads once it has committed."""
    return GameChange(
        game=game_id, seq=position.seq, status=position.status, to_move=position.to_move,
        seats=len(position.users), users=tuple(u for u in position.users if u is not None),
    )  # fmt: skip


def page_marks(
    *, user_id: int | None, game_id: int | None, lobby: bool = False
) -> dict[int, tuple[int, str, int]]:
    """(seq, status, seats) of the game the page shows, of the viewer's open and running games
    and, on the lobby, of every open game: one query (``page_reads``)."""
    return page_reads(user_id=user_id, game_id=game_id, lobby=lobby)[0]


def page_reads(
    *, user_id: int | None, game_id: int | None, lobby: bool = False
) -> tuple[dict[int, tuple[int, str, int]], int]:
    """``page_marks``, and the viewer's ``turn_count`` read with them: one query for both
    (every page of a player shows the count in its header).

    Written in SQL: every page reads it, and the ORM took most of a millisecond to build and
    compile it each time (issue 21). ``orm_page_marks`` is the same read through the ORM (a
    test holds the two equal, and the count equal to ``turn_count``'s). As there, the seats
    are counted on the rows the filter keeps: all of a game the page shows or an open game on
    the lobby, the viewer's own elsewhere; the viewer's seats that are to move are counted on
    the viewer's rows alone."""
    game, seat = Game._meta.db_table, Seat._meta.db_table
    index = connection.ops.quote_name("index")
    # one SELECT per condition, joined by UNION ALL: an OR across the join would keep the
    # planner from the seat's user index and the game's key (a scan of every seat: 90 ms on
    # 100,000 games); each part reads by an index, and the rows kept are the same
    parts: list[str] = []
    params: list[object] = []
    if user_id is not None:
        parts.append(
            f"SELECT g.id, g.seq, g.status, s.id AS seat_id, CASE WHEN g.status = %s AND "
            f"g.to_move = s.{index} AND g.frozen_at IS NULL THEN 1 ELSE 0 END AS to_move "
            f"FROM {seat} s JOIN {game} g ON g.id = s.game_id "
            "WHERE s.user_id = %s AND g.status IN (%s, %s)"
        )
        params += [GameStatus.RUNNING, user_id, *ACTIVE]
    shown = (
        f"SELECT g.id, g.seq, g.status, s.id AS seat_id, 0 AS to_move FROM {game} g "
        f"LEFT OUTER JOIN {seat} s ON g.id = s.game_id"
    )
    if game_id is not None:
        # a private table only for its players (games.visibility): a stranger's stream of it
        # finds no game
        if user_id is None:
            parts.append(f"{shown} WHERE g.id = %s AND g.private = %s")
            params += [game_id, False]
        else:
            parts.append(
                f"{shown} WHERE g.id = %s AND (g.private = %s OR EXISTS (SELECT 1 FROM {seat} "
                "mine WHERE mine.game_id = g.id AND mine.user_id = %s))"
            )
            params += [game_id, False, user_id]
    if lobby:
        parts.append(f"{shown} WHERE g.status = %s AND g.private = %s")
        params += [GameStatus.OPEN, False]
    if not parts:
        return {}, 0
    sql = (
        f"SELECT id, seq, status, COUNT(DISTINCT seat_id), SUM(to_move) "
        f"FROM ({' UNION ALL '.join(parts)}) marks GROUP BY id, seq, status"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    marks = {pk: (seq, status, seats) for pk, seq, status, seats, _turns in rows}
    return marks, sum(int(turns or 0) for *_, turns in rows)


def orm_page_marks(
    *, user_id: int | None, game_id: int | None, lobby: bool = False
) -> dict[int, tuple[int, str, int]]:
    """``page_marks`` through the ORM, as it was written first: the reference of its test."""
    games = Game.objects.none()
    if user_id is not None:
        games = Game.objects.filter(seats__user_id=user_id, status__in=ACTIVE)
    if game_id is not None:
        seated = Exists(Seat.objects.filter(game=OuterRef("pk"), user_id=user_id))
        watched = Q(private=False) | Q(seated) if user_id else Q(private=False)
        games = games | Game.objects.filter(watched, pk=game_id)
    if lobby:
        games = games | Game.objects.filter(status=GameStatus.OPEN, private=False)
    rows = (
        games.distinct()
        .annotate(seat_count=Count("seats", distinct=True))
        .values_list("pk", "seq", "status", "seat_count")
    )
    return {pk: (seq, status, seats) for pk, seq, status, seats in rows}


def kept_mark(change: GameChange, *, user_id: int | None, game_id: int | None, lobby: bool) -> bool:
    """Whether ``page_marks`` would now read the changed game (a stream keeps its marks by the
    changes it hears, with no query)."""
    if change.game == game_id:
        return True
    if change.status in ACTIVE and user_id is not None and user_id in change.users:
        return True
    return lobby and change.status == GameStatus.OPEN


#: compiled once (keltis_site.prepared): the seats whose running game waits for their user, read on
#: every page a player opens (the header's count)
_SEATS_TO_MOVE = Prepared(
    lambda user_id: (
        Seat.objects.filter(
            user_id=user_id,
            game__status=GameStatus.RUNNING,
            game__to_move=F("index"),
            game__frozen_at__isnull=True,
        )
        .order_by()
        .values_list("game_id")
    )
)


def turn_count(*, user_id: int) -> int:
    """Running games where it is the player's turn (a frozen game waits for nobody): a few
    rows at most, counted here."""
    return len(_SEATS_TO_MOVE.rows(user_id))
