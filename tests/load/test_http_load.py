"""The load test in small (bench/loadtest.py is the large one): simulated players finish three
games through a real threaded HTTP server, each in its own thread and session, and some of
their POSTs are sent twice at once. Nothing may fail, be lost or be applied twice."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from accounts.models import EmailMode, User
from bench.players import (
    MOVED_ON,
    Budget,
    Http,
    Ledger,
    SimulatedPlayer,
    Stats,
    advance,
    create_games,
    create_players,
    run_players,
    session_cookies,
    verify,
)
from games.models import Event, Game, GameStatus
from games.services import GameMovedOn

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # SQLite has no row locks (it serialises whole writes): the row locks this test races
    # need a database server.
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

#: both games, 2 to 4 players; 5 players, so some play two games at once
TABLES = [("keltis", 2), ("keltis-cards", 3), ("keltis", 4)]
#: actions per game left for the players to make over HTTP (the setup plays the rest)
LEFT_FOR_HTTP = 12
PASSWORD = "a long pass phrase 42"


def test_players_finish_every_game_over_http_and_doubles_apply_once(
    live_server: Any, settings: Any
) -> None:
    settings.ACTION_RATE_LIMIT = "10000/m"  # a simulated player is faster than a person
    assert GameMovedOn.default_message.startswith(MOVED_ON)  # the text the players look for
    users = create_players(5, "web", form_logins=1, password=PASSWORD)
    # emails are bench/email_fanout.py's and tests/realtime's subject: rendering them in the
    # live server's requests (tasks run eagerly here) would only slow this test down
    User.objects.filter(pk__in=[u.pk for u in users]).update(email_mode=EmailMode.NONE)
    game_ids = create_games(users, TABLES, seed=7)
    before = {gid: advance(gid, leave=LEFT_FOR_HTTP, seed=gid) for gid in game_ids}
    stats, budget, ledger = Stats(), Budget(max_requests=2000, max_seconds=50), Ledger()
    players = []
    for i, user in enumerate(users):
        http = Http(live_server.url, stats, budget)
        if i == 0:
            assert http.log_in(user.email, PASSWORD)
        else:
            http.cookies.update(session_cookies(user))
        players.append(
            SimulatedPlayer(user.username, http, ledger, seed=i, poll_seconds=0.3,
                            double_every=3)
        )

    run_players(players, stats)

    assert not budget.exhausted
    assert ledger.problems == []
    assert stats.unexpected == []
    assert set(stats.statuses()) <= {200, 302, 303}
    assert ledger.finished_players == len(players)
    assert len(ledger.doubles) >= 3
    # one applies the move, the other is told it was made (never "moved on", never twice)
    assert all(sorted(results) == ["made", "won"] for _, _, results in ledger.doubles)
    assert verify(ledger, game_ids, played_before=before) == []
    games = Game.objects.filter(pk__in=game_ids)
    assert all(game.status == GameStatus.FINISHED for game in games)
    over_http = sum(game.seq - before[game.pk] for game in games)
    assert len(ledger.accepted) == over_http > 0
    assert Event.objects.filter(game__in=game_ids).count() == sum(g.seq for g in games)
