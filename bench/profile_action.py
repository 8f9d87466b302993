"""Where an action POST's CPU goes, run by hand (docs/benchmarks.md).

On bench/scale.py's filled database: one POST's queries (test client), the CPU per POST beside
the reference loop, cProfile's table and the CPU per package. ``--http``: the POSTs through
gunicorn (bench/gunicorn_profile.py), with the worker's CPU per POST.
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

from bench.common import cli, dated
from bench.measure import python_loop, worker_pids

TINY = {"posts": 3, "lines": 10}


def main(argv: list[str] | None = None) -> None:
    args = cli(
        __doc__, argv, TINY,
        *scale.SERVICES,
        ("--posts", 60, "POSTs profiled"),
        ("--sort", "tottime", "the table's order", {"choices": ("tottime", "cumulative")}),
        ("--lines", 40, "the table's lines"),
        ("--seed", 5, "seed of the games drawn"),
        ("--http", False, "profile in a gunicorn worker"),
    )  # fmt: skip
    with dated("profile_action.py", argv, after=False):
        run(args)


def run(args: argparse.Namespace) -> None:
    scale.configure_django(args.db, args.broker, args.cache)
    logging.disable(logging.INFO)  # the "action applied" lines: counted, not printed
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    if args.http:
        print_stats(http_profile(args), args)
        return
    turns = scale.turns(scale.running_ids(random.Random(args.seed), 2 * args.posts + 6))
    client = Client()

    def post(turn: scale.Turn, login: bool = True) -> float:
        if login:
            client.force_login(turn.user)
        # a browser follows the redirect, whose page shows (and drops) the POST's message: one
        # client's messages piled up from POST to POST would be re-encoded by every later one
        client.cookies.pop("messages", None)
        start = time.process_time()
        response = client.post(
            f"/games/{turn.game_id}/act/", {"action": turn.action, "seq": turn.seq}
        )
        if response.status_code != 303:
            raise RuntimeError(f"game {turn.game_id}: {response.status_code}")
        return (time.process_time() - start) * 1000

    for turn in turns[:5]:  # warm up
        post(turn)
    client.force_login(turns[5].user)
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
        client.force_login(turn.user)
        profile.enable()
        post(turn, login=False)
        profile.disable()
    print_stats(profile, args)


def http_profile(args: argparse.Namespace) -> str:
    """POST ``args.posts`` turns' forms through a profiling gunicorn worker; its profile."""
    turns = scale.turns(scale.running_ids(random.Random(args.seed), args.posts + 10), True)
    out = scale.LOG_DIR / "profile_action.prof"
    out.unlink(missing_ok=True)
    os.environ["PROFILE_OUT"] = str(out)
    with scale.http_server(config="bench/gunicorn_profile.py") as server:
        browser = server.browser()
        warm, timed = turns[:10], turns[10:]
        scale.pages_http(browser, warm)
        scale.actions_http(browser, warm)
        scale.pages_http(browser, timed)
        _, cpu = server.batch(lambda: scale.actions_http(browser, timed))
        master = server.master
    while worker_pids(master) or not out.exists():  # the worker writes it as it exits
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
