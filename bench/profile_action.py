"""Where an action POST's CPU goes, run by hand: ``python bench/profile_action.py [--db URL]
[--posts 60] [--sort tottime|cumulative] [--lines 40] [--http] [--tiny]``.

On a database bench/scale.py filled (default ``keltis_bench``; ``--db``, ``--broker`` and
``--cache`` as there), the seat to move of random running games POSTs the greedy bot's action
through Django's test client, DEBUG off, its after-response work (Celery, live pages) included.
It prints the queries of one POST, the CPU per POST without the profiler (median) beside the
reference loop (bench/measure.py), then cProfile's table over the other POSTs, timed on the
process's CPU clock (so waiting on PostgreSQL or Redis is not counted), and the share of CPU
per package. This is how issue 21's action work was found: ORM compilation, a Redis client
built per cache call, the live update's three queries.

``--http``: the same POSTs through gunicorn (one sync worker, bench/gunicorn_profile.py: the
production settings with cProfile around each POST in the worker), each after its game page's
GET as a browser sends it (its session, its CSRF token, its messages cookie): the worker's CPU
per POST from /proc, then the worker's profile. This is what bench/scale.py measures over HTTP.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import os
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scale

from bench.common import parse_args
from bench.measure import header, python_loop

#: ``--tiny``: a few POSTs (tests/bench/)
TINY = {"posts": 3, "lines": 10}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=scale.DEFAULT_DB)
    parser.add_argument("--broker", default=scale.DEFAULT_BROKER)
    parser.add_argument("--cache", default=scale.DEFAULT_CACHE)
    parser.add_argument("--posts", type=int, default=60)
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--http", action="store_true", help="profile in a gunicorn worker")
    args = parse_args(parser, argv, TINY)
    print("\n".join(header("bench/profile_action.py " + " ".join(argv or sys.argv[1:]))))
    scale.configure_django(args.db, args.broker, args.cache)
    logging.disable(logging.INFO)  # the "action applied" lines: counted, not printed
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    if args.http:
        print_stats(http_profile(args), args)
        return
    turns = [
        scale.turn_of(g) for g in scale.running_ids(random.Random(args.seed), 2 * args.posts + 6)
    ]
    client = Client()

    def post(turn: tuple[object, object, str], login: bool = True) -> float:
        game, user, action = turn
        if login:
            client.force_login(user)
        start = time.process_time()
        response = client.post(f"/games/{game.pk}/act/", {"action": action, "seq": game.seq})
        if response.status_code != 303:
            raise RuntimeError(f"game {game.pk}: {response.status_code}")
        return (time.process_time() - start) * 1000

    for turn in turns[:5]:  # warm up
        post(turn)
    client.force_login(turns[5][1])
    with CaptureQueriesContext(connection) as queries:
        post(turns[5], login=False)
    print("\nthe queries of one POST and its after-response work:")
    for query in queries.captured_queries:
        print(f"  {query['sql'][:160]}")
    plain = [post(turn) for turn in turns[6 : 6 + args.posts]]
    loop = min(python_loop() for _ in range(5))
    print(
        f"\nCPU per POST without the profiler: median {statistics.median(plain):.2f} ms over "
        f"{len(plain)} (reference loop {loop:.2f} ms: {statistics.median(plain) / loop:.2f}x)"
    )
    profile = cProfile.Profile(time.process_time)
    for turn in turns[6 + args.posts :]:
        game, user, action = turn
        client.force_login(user)
        profile.enable()
        client.post(f"/games/{game.pk}/act/", {"action": action, "seq": game.seq})
        profile.disable()
    print_stats(profile, args)


def http_profile(args: argparse.Namespace) -> str:
    """POST the page's form of ``args.posts`` random turns through a profiling gunicorn
    worker (after their page's GET, not profiled); the file of the worker's profile."""
    turns = scale.turns(scale.running_ids(random.Random(args.seed), args.posts + 10))
    for turn in turns:
        turn.cookies = {"sessionid": scale.login_cookie(turn.user)}
    out = scale.LOG_DIR / "profile_action.prof"
    out.unlink(missing_ok=True)
    os.environ["PROFILE_OUT"] = str(out)
    with scale.http_server(config="bench/gunicorn_profile.py") as server:
        browser = scale.Browser(server.port)
        warm, timed = turns[:10], turns[10:]
        scale.pages_http(browser, warm)
        scale.actions_http(browser, warm)
        scale.pages_http(browser, timed)
        _, cpu = scale.server_batch(server, lambda: scale.actions_http(browser, timed))
        browser.close()
        master = server.master
    while scale.worker_pids(master) or not out.exists():  # the worker writes it as it exits
        time.sleep(0.1)
    if cpu is not None:
        print(f"\nworker CPU per POST, profiler on: {cpu / len(timed):.2f} ms over {len(timed)}")
    return str(out)


def print_stats(profile: cProfile.Profile | str, args: argparse.Namespace) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats(args.sort).print_stats(args.lines)
    print(out.getvalue())
    shares: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        name = filename.split("site-packages/")[-1].replace(str(scale.ROOT) + "/", "")
        parts = name.split("/")
        shares["/".join(parts[:3] if parts[0] == "django" else parts[:2])] += own
    total = sum(shares.values())
    print("CPU by package (own time):")
    for name, own in sorted(shares.items(), key=lambda item: -item[1])[:25]:
        print(f"  {own / total:6.1%}  {name}")


if __name__ == "__main__":
    main()
