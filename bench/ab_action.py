"""The action POST's CPU on two versions of the code at the same time, run by hand:
``python bench/ab_action.py [--base REV] [--rounds 6] [--batch 40] [--db URL] [--broker URL]
[--cache URL] [--tiny]``.

A figure taken on a shared machine depends on the hour (bench/measure.py): a change of a few
tenths of a millisecond hides in the difference between two runs of bench/scale.py minutes
apart. Here the code of ``--base`` (default ``main``, exported with ``git archive`` into the
temporary directory, outside the checkout) and this checkout are served side by side, each by
gunicorn with its own ``gunicorn.conf.py`` (one sync worker), and their action POSTs (each
after its game page's GET, as bench/scale.py sends them) alternate in batches of 40 on the
database bench/scale.py filled: each batch's worker CPU per POST (from /proc), their median
per version and the reference loop.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scale

from bench.common import parse_args
from bench.measure import footer, header, python_loop

BATCH = 40
#: ``--tiny``: one counted round of two POSTs a version, against the last commit
TINY = {"base": "HEAD", "rounds": 1, "batch": 2}


def export(rev: str) -> Path:
    """The tree of ``rev`` in <tmp>/keltis-ab-<rev> (outside the checkout, where nothing scans
    it), with this checkout's compiled catalogues."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=scale.ROOT, check=True, capture_output=True,
        text=True,
    ).stdout.strip()  # fmt: skip
    target = Path(tempfile.gettempdir()) / f"keltis-ab-{sha}"
    if not target.exists():
        target.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "archive", sha], cwd=scale.ROOT, check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
        for mo in (scale.ROOT / "locale").glob("*/LC_MESSAGES/*.mo"):
            shutil.copy(mo, target / mo.relative_to(scale.ROOT))
        # DEBUG off serves the collected static files (bench/scale_settings.py): this
        # checkout's, collected by bench/scale.py
        (target / "var" / "bench").mkdir(parents=True)
        (target / "var" / "bench" / "static").symlink_to(scale.LOG_DIR / "static")
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="the other version (a git revision)")
    parser.add_argument("--rounds", type=int, default=6, help="batches of each version")
    parser.add_argument("--db", default=scale.DEFAULT_DB)
    parser.add_argument("--broker", default=scale.DEFAULT_BROKER)
    parser.add_argument("--cache", default=scale.DEFAULT_CACHE)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=int, default=BATCH, help="POSTs a batch")
    args = parse_args(parser, argv, TINY)
    started = time.perf_counter()
    print("\n".join(header("bench/ab_action.py " + " ".join(argv or sys.argv[1:]))))
    base, here = export(args.base), scale.ROOT
    scale.configure_django(args.db, args.broker, args.cache)
    import logging

    logging.disable(logging.INFO)
    batch_size = args.batch
    wanted = batch_size * 2 * (args.rounds + 1)
    turns = scale.turns(scale.running_ids(random.Random(args.seed), wanted))
    for turn in turns:
        turn.cookies = {"sessionid": scale.login_cookie(turn.user)}
    sha = base.name.removeprefix("keltis-ab-")
    versions = {f"{args.base} ({sha})": base, "this checkout": here}
    cpu: dict[str, list[float]] = {name: [] for name in versions}
    loops = []
    with ExitStack() as stack:
        servers = {}
        for name, root in versions.items():
            scale.ROOT = root  # the server's working directory: its code, its gunicorn.conf.py
            servers[name] = stack.enter_context(scale.http_server())
        scale.ROOT = here
        browsers = {name: scale.Browser(server.port) for name, server in servers.items()}
        batches = iter(
            turns[i : i + batch_size] for i in range(0, len(turns), batch_size)
        )
        for round_ in range(args.rounds + 1):  # the first round warms both, not counted
            names = list(versions) if round_ % 2 == 0 else list(reversed(versions))
            for name in names:
                batch, server, browser = next(batches), servers[name], browsers[name]
                scale.pages_http(browser, batch)
                post = lambda b=browser, t=batch: scale.actions_http(b, t)  # noqa: E731
                _, used = scale.server_batch(server, post)
                if round_ and used is not None:
                    cpu[name].append(used / len(batch))
            loops.append(python_loop())
    for name, values in cpu.items():
        each = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name}: worker CPU per POST, median {statistics.median(values):.2f} ms ({each})")
    print(f"reference loop: median {statistics.median(loops[1:]):.2f} ms")
    print("\n".join(footer(started)))


if __name__ == "__main__":
    main()
