"""Live pages under load, by hand: N open pages (default 1,000 SSE streams on loopback) on one
stream server process, one move, and how long each page takes to hear of it.

    .venv/bin/python bench/live.py [--pages 1000] [--port 8450] [--redis redis://127.0.0.1:6379/13]

It makes its own SQLite database and VAR_DIR in a temporary folder, starts uvicorn
(keltis_site.asgi) as a subprocess, opens the streams as asyncio clients (visitors of a public
game page, as a shared link would), submits one action through games.services.action_submit in
this process (its after-commit hook publishes, over the Unix socket or Redis), and prints the
latency from the commit to each stream's event.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


async def open_stream(port: int, game_id: int) -> asyncio.StreamReader:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /live/events/?game={game_id} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    await reader.readuntil(b"retry:")  # headers and the first line: subscribed
    reader._writer = writer  # type: ignore[attr-defined]  (kept open)
    return reader


async def hear(reader: asyncio.StreamReader) -> float:
    await reader.readuntil(b"event: change")
    return time.perf_counter()


def duel() -> tuple[Any, list[Any]]:
    from accounts.models import User
    from games.models import Game
    from games.services import game_create, game_join

    anna = User.objects.create_user(username="anna", email="a@example.test", password="x" * 20)
    bela = User.objects.create_user(username="bela", email="b@example.test", password="x" * 20)
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    return Game.objects.get(pk=game.pk), [anna, bela]


async def main(args: argparse.Namespace, game: Any, users: list[Any]) -> None:
    from games.engine.bots import RandomBot
    from games.services import action_submit, engine_state

    started = time.perf_counter()
    readers = []
    for start in range(0, args.pages, 100):  # in batches: the accept queue stays short
        readers += await asyncio.gather(
            *(open_stream(args.port, game.pk) for _ in range(start, min(args.pages, start + 100)))
        )
    print(f"{len(readers)} streams open in {time.perf_counter() - started:.1f} s")
    waits = [asyncio.ensure_future(hear(r)) for r in readers]
    await asyncio.sleep(0.5)

    def move() -> float:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=RandomBot(1).choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
        return time.perf_counter()  # committed, and published by the hook

    committed = await asyncio.to_thread(move)
    heard = await asyncio.wait_for(asyncio.gather(*waits), timeout=30)
    latencies = sorted(t - committed for t in heard)
    within = sum(1 for t in latencies if t <= 2.0)
    print(
        f"{len(latencies)} pages heard the move: {within} within 2 s; "
        f"median {statistics.median(latencies) * 1000:.0f} ms, "
        f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000:.0f} ms"
    )


def run() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--port", type=int, default=8450)
    parser.add_argument("--redis", default="")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = Path(tempfile.mkdtemp(prefix="bench-live-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "keltis_site.settings",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "VAR_DIR": str(folder / "var"),
        "LIVE_PUBSUB_URL": args.redis or f"unix://{folder / 'var' / 'live.sock'}",
        "LIVE_CHANNEL": f"keltis:live:bench:{os.getpid()}",  # pub/sub ignores the db number
        "CELERY_TASK_ALWAYS_EAGER": "False",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=REPO, env=env,
        check=True,
    )
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("uvicorn")), "keltis_site.asgi:application",
            "--port", str(args.port), "--log-level", "warning", "--no-access-log",
            "--timeout-graceful-shutdown", "1", "--backlog", "4096",
        ],
        cwd=REPO, env=env,
    )
    try:
        time.sleep(3)
        sys.path.insert(0, str(REPO))
        import django

        django.setup()
        game, users = duel()
        asyncio.run(main(args, game, users))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    run()
