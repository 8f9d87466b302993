"""The history page of a long game (issue 32), run by hand:
``python bench/history_page.py [--events 600] [--repeats 7] [--tiny]``.

Plays a three-player board game of random moves through the services (as players would send
them) into a SQLite database of its own, then times the server's CPU for the history page's GET
(Django's test client, DEBUG off, the site's middleware and templates): the last position, the
start and a position in the middle. Prints each one's median and best CPU ms over the repeats,
the page's size and its element count, with the reference loop measured in the same run.
Target: under 100 ms of CPU for a 600-event game, at most 1,500 elements.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import footer, header, markdown_table, parse_args, reference_line
from bench.measure import median

TARGET_CPU_MS = 100.0
MOST_ELEMENTS = 1500
#: ``--tiny`` (tests/bench/): a short game, each page timed twice
TINY = {"events": 40, "repeats": 2}
#: a three-player deal whose random game runs past 600 events (tests/games/test_history_size)
DEAL_SEED = 30


def site_env(folder: Path) -> dict[str, str]:
    """The site's production settings on a SQLite file in ``folder``, static files unhashed
    (nothing to collect), tasks kept in memory (no worker), no email leaving the folder."""
    (folder / "bench_history_settings.py").write_text(
        "from keltis_site.settings import *  # noqa: F403\n"
        "STORAGES = {\n"
        '    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},\n'
        '    "staticfiles": {"BACKEND": '
        '"django.contrib.staticfiles.storage.StaticFilesStorage"},\n'
        "}\n"
        f"STATIC_ROOT = {str(folder / 'static')!r}\n"
    )
    (folder / "static").mkdir()
    sys.path.insert(0, str(folder))
    return {
        "DJANGO_SETTINGS_MODULE": "bench_history_settings",
        "ENV_FILE": str(folder / "no.env"),  # a local .env does not change the figures
        "VAR_DIR": str(folder / "var"),
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "memory://localhost//",
        "CACHE_URL": "locmemcache://",
        "EMAIL_URL": "consolemail://",
        "DEBUG": "False",
        "SECRET_KEY": "bench-history-not-secret",
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "False",
        "LOG_LEVEL": "WARNING",
        "LOG_FORMAT": "plain",
    }


def long_game(events: int) -> tuple[object, object]:
    """A three-player board game played by random moves through the services."""
    from accounts.models import User
    from games.engine import game_class
    from games.engine.bots import RandomBot
    from games.models import Game, GameStatus
    from games.services import action_submit, game_create, game_join
    from games.state import engine_state

    users = [
        User.objects.create_user(username=f"bench{i}", email=f"bench{i}@example.test",
                                 password="a long pass phrase")
        for i in range(3)
    ]  # fmt: skip
    game = game_create(creator=users[0], kind="keltis", player_count=3)
    Game.objects.filter(pk=game.pk).update(setup=game_class("keltis").deal(3, DEAL_SEED))
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    game.refresh_from_db()
    bot = RandomBot(DEAL_SEED)
    while game.status == GameStatus.RUNNING and game.seq < events:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )  # fmt: skip
        game.refresh_from_db()
    return game, users[0]


def cpu_ms(client: object, url: str, repeats: int) -> tuple[list[float], bytes]:
    """The CPU ms of each GET of ``url`` (after one unmeasured), and the page."""
    response = client.get(url)  # type: ignore[attr-defined]
    assert response.status_code == 200, response.status_code
    times = []
    for _ in range(repeats):
        start = time.process_time()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append((time.process_time() - start) * 1000)
    return times, response.content


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=600, help="the game's length")
    parser.add_argument("--repeats", type=int, default=7, help="GETs timed per page")
    args = parse_args(parser, argv, TINY)
    started = time.perf_counter()
    print("\n".join(header("bench/history_page.py " + " ".join(argv or sys.argv[1:]))))
    print(reference_line(), flush=True)
    with tempfile.TemporaryDirectory(prefix="keltis-history-") as tmp:
        os.environ.update(site_env(Path(tmp)))
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client
        from django.urls import reverse

        call_command("migrate", verbosity=0)
        built = time.perf_counter()
        game, user = long_game(args.events)
        seq = game.seq  # type: ignore[attr-defined]
        print(f"game: {seq} events through the services in {time.perf_counter() - built:.1f} s")
        client = Client()
        client.force_login(user)
        base = reverse("game_history", args=[game.pk])  # type: ignore[attr-defined]
        rows = []
        all_times: list[float] = []
        for label, query in (("last position", ""), ("start", "?step=0"),
                             ("middle", f"?step={seq // 2}")):  # fmt: skip
            times, page = cpu_ms(client, base + query, args.repeats)
            all_times += times
            elements = len(re.findall(rb"<[a-zA-Z][^\s>/]*", page))
            rows.append((label, f"{median(times):.1f} ms", f"{min(times):.1f} ms",
                         f"{len(page) / 1024:.0f} KB", elements))  # fmt: skip
        print("\n".join(markdown_table(
            ("history page", "CPU median", "CPU best", "size", "elements"), rows
        )))  # fmt: skip
        mark = "ok" if median(all_times) < TARGET_CPU_MS else f"ABOVE {TARGET_CPU_MS:.0f} ms"
        most = max(row[4] for row in rows)
        print(
            f"history page of a {seq}-event game: CPU per GET median {median(all_times):.1f} ms "
            f"over {len(all_times)}  {mark}; at most {most} elements "
            f"{'ok' if most <= MOST_ELEMENTS else f'ABOVE {MOST_ELEMENTS}'}"
        )
    print(reference_line())
    print("\n".join(footer(started)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
