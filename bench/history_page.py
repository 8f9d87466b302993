"""The history page of a long game (issue 32), run by hand (docs/benchmarks.md).

A three-player game of random moves through the services on SQLite, then the CPU per GET of
its history page (test client, DEBUG off) at the end, the start and the middle, its size and
elements. Target: under 100 ms for 600 events, at most 1,500 elements. ``--gc server`` runs the
cycle collector as gunicorn.conf.py does (timed apart); ``--gc auto`` leaves it automatic.
"""

from __future__ import annotations

import gc
import re
import runpy
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from bench.common import ROOT, cli, dated, markdown_table
from bench.measure import median

TARGET_CPU_MS = 100.0
MOST_ELEMENTS = 1500
TINY = {"events": 40, "repeats": 2}
#: a three-player deal whose random game runs past 600 events (tests/games/test_history_size)
DEAL_SEED = 30


def site_env(folder: Path) -> dict[str, str]:
    """Production settings on SQLite in ``folder``, static files unhashed, tasks in memory."""
    storage = "django.contrib.staticfiles.storage.StaticFilesStorage"
    module = common.settings_module(folder, "bench_history_settings", (
        f'STORAGES = {{"default": {{"BACKEND": "django.core.files.storage.FileSystemStorage"}}, '
        f'"staticfiles": {{"BACKEND": "{storage}"}}}}\n'
    ))  # fmt: skip
    return common.production_env(
        DJANGO_SETTINGS_MODULE=module, VAR_DIR=str(folder / "var"),
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", CELERY_BROKER_URL="memory://localhost//",
        CACHE_URL="locmemcache://", EMAIL_URL="consolemail://", LOG_LEVEL="WARNING",
        LOG_FORMAT="plain",
    )  # fmt: skip


def long_game(events: int) -> tuple[object, object]:
    """A three-player board game played by random moves through the services."""
    from accounts.models import User
    from games.engine import game_class
    from games.engine.bots import RandomBot
    from games.models import Game, GameStatus
    from games.services import action_submit, game_create, game_join
    from games.state import engine_state

    users = [User.objects.create_user(f"bench{i}", f"bench{i}@example.test", "a long pass phrase")
             for i in range(3)]  # fmt: skip
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


class Collector:
    """Python's cycle collector as gunicorn.conf.py's hooks run it, or left automatic."""

    def __init__(self, mode: str) -> None:
        self.hooks: dict[str, Any] = {}
        self.worker = SimpleNamespace()
        self.after_ms: list[float] = []
        if mode == "server":
            self.hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
            self.hooks["post_worker_init"](self.worker)

    def after_response(self) -> None:
        if self.hooks:
            start = time.process_time()
            self.hooks["post_request"](self.worker, None, None, None)
            self.after_ms.append((time.process_time() - start) * 1000)

    def close(self) -> str:
        """How the collector ran, with the CPU of the full collection every ``GC_FULL_EVERY``."""
        if not self.hooks:
            return "cycle collector: automatic, its collections inside the GETs"
        start = time.process_time()
        gc.collect(2)
        gc.freeze()
        full = (time.process_time() - start) * 1000
        gc.enable()
        every = self.hooks["GC_FULL_EVERY"]
        return (
            f"cycle collector: as gunicorn.conf.py runs it, after each response; its full "
            f"collection every {every} requests {full:.1f} ms ({full / every:.2f} ms a GET)"
        )


def cpu_ms(client: Any, url: str, repeats: int, collector: Collector) -> tuple[list[float], bytes]:
    """The CPU ms of each GET of ``url`` (after one unmeasured), and the page."""
    times = []
    for _ in range(repeats + 1):
        start = time.process_time()
        response = client.get(url)
        times.append((time.process_time() - start) * 1000)
        assert response.status_code == 200, response.status_code
        collector.after_response()
    return times[1:], response.content


def main(argv: list[str] | None = None) -> int:
    args = cli(
        __doc__, argv, TINY,
        ("--events", 600, "the game's length"),
        ("--repeats", 7, "GETs timed per page"),
        ("--gc", "server", "the collector as gunicorn.conf.py runs it, or left automatic",
         {"choices": ("server", "auto")}),
    )  # fmt: skip
    with (
        dated("history_page.py", argv, before=True),
        tempfile.TemporaryDirectory(prefix="keltis-history-") as tmp,
    ):
        common.setup_django(site_env(Path(tmp)))
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
        medians: list[float] = []
        collector = Collector(args.gc)
        for label, query in (("last position", ""), ("start", "?step=0"),
                             ("middle", f"?step={seq // 2}")):  # fmt: skip
            collector.after_ms.clear()
            times, page = cpu_ms(client, base + query, args.repeats, collector)
            all_times += times
            medians.append(median(times))
            elements = len(re.findall(rb"<[a-zA-Z][^\s>/]*", page))
            after = collector.after_ms
            rows.append((label, f"{median(times):.1f} ms", f"{min(times):.1f} ms",
                         f"{sum(after) / len(after):.1f} ms" if after else "in the GET",
                         f"{len(page) / 1024:.0f} KB", elements))  # fmt: skip
        print(collector.close())
        print("\n".join(markdown_table(
            ("history page", "CPU median", "CPU best", "collection after", "size", "elements"),
            rows,
        )))  # fmt: skip
        # the target holds for every position's median
        mark = "ok" if max(medians) < TARGET_CPU_MS else f"ABOVE {TARGET_CPU_MS:.0f} ms"
        most = max(row[5] for row in rows)
        print(
            f"history page of a {seq}-event game: CPU per GET median {median(all_times):.1f} ms "
            f"over {len(all_times)}, the highest position's {max(medians):.1f} ms  {mark}; "
            f"at most {most} elements {'ok' if most <= MOST_ELEMENTS else f'ABOVE {MOST_ELEMENTS}'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
