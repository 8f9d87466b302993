"""The processes of the SQLite concurrency test (test_sqlite_concurrency.py), one role each.

``python tests/site/sqlite_roles.py setup GAMES`` makes four players and GAMES two-player
games between them; ``play NAME:MOVES`` plays NAME's turns through ``action_submit`` until
the players together have made MOVES moves (or NAME's games are over), and prints how many
moves NAME made. Each runs as its own process on the
same SQLite file, as the web server's requests and the worker do on the embedded default.
"""

from __future__ import annotations

import os
import random
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")
django.setup()

from allauth.account.models import EmailAddress  # noqa: E402  (after django.setup)

from accounts.models import User  # noqa: E402
from games.models import Event, Game, GameStatus  # noqa: E402
from games.services import action_submit, game_create, game_join  # noqa: E402
from games.state import engine_state  # noqa: E402

PLAYERS = ["p0", "p1", "p2", "p3"]
#: the pairs that sit down together, in turn
TABLES = [("p0", "p1"), ("p2", "p3"), ("p0", "p2"), ("p1", "p3"), ("p0", "p3"), ("p1", "p2")]


def setup(games: int) -> None:
    users = {}
    for name in PLAYERS:
        user = User.objects.create_user(
            username=name, email=f"{name}@example.test", password="a long pass phrase"
        )
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        users[name] = user
    for number in range(games):
        first, second = TABLES[number % len(TABLES)]
        game = game_create(creator=users[first], kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=users[second])


def play(name: str, total: int) -> None:
    """Take this player's turns, a random legal action each time."""
    user = User.objects.get(username=name)
    rng = random.Random(name)
    moves = 0
    deadline = time.monotonic() + 240
    while Event.objects.count() < total and time.monotonic() < deadline:
        running = list(
            Game.objects.filter(seats__user=user, status=GameStatus.RUNNING).distinct()
        )
        if not running:
            break
        mine = [g for g in running if g.to_move == g.seats.get(user=user).index]
        if not mine:
            time.sleep(0.01)  # the others' turns: let them move
        for game in mine:
            seat = game.to_move
            action = rng.choice(engine_state(game).legal())
            result = action_submit(
                game_id=game.pk, seat=seat, action=action, expected_seq=game.seq, user=user
            )
            moves += 1 + len(result.automatic)  # the only step left, taken for the player
    print(moves)


if __name__ == "__main__":
    role, argument = sys.argv[1], sys.argv[2]
    if role == "setup":
        setup(int(argument))
    elif role == "play":
        name, most = argument.split(":")
        play(name, int(most))
    else:
        raise SystemExit(f"unknown role {role!r}")
