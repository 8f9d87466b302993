"""The action POST's CPU on two versions of the code at the same time, run by hand
(docs/benchmarks.md).

A few tenths of a millisecond hide in the drift between two runs. Here ``--base`` (exported
with ``git archive``) and this checkout are served side by side by gunicorn, one worker each,
their action POSTs alternating in batches on bench/scale.py's fill: worker CPU per POST.
"""

from __future__ import annotations

import argparse
import logging
import random
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import scale

from bench.common import cli, dated
from bench.measure import median, python_loop

TINY = {"base": "HEAD", "rounds": 1, "batch": 2}


def export(rev: str) -> Path:
    """The tree of ``rev`` in <tmp>/keltis-ab-<rev>, with this checkout's catalogues."""
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
        # DEBUG off serves the static files bench/scale.py collected
        (target / "var" / "bench").mkdir(parents=True)
        (target / "var" / "bench" / "static").symlink_to(scale.LOG_DIR / "static")
    return target


def main(argv: list[str] | None = None) -> None:
    args = cli(
        __doc__, argv, TINY,
        ("--base", "main", "the other version (a git revision)"),
        ("--rounds", 6, "batches of each version"),
        *scale.SERVICES,
        ("--seed", 7, "seed of the games drawn"),
        ("--batch", 40, "POSTs a batch"),
    )  # fmt: skip
    with dated("ab_action.py", argv, after=False):
        run(args)


def run(args: argparse.Namespace) -> None:
    base, here = export(args.base), scale.ROOT
    scale.configure_django(args.db, args.broker, args.cache)
    logging.disable(logging.INFO)  # the "action applied" lines
    size = args.batch
    wanted = size * 2 * (args.rounds + 1)
    turns = scale.turns(scale.running_ids(random.Random(args.seed), wanted), logged_in=True)
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
        browsers = {name: server.browser() for name, server in servers.items()}
        batches = iter(turns[i : i + size] for i in range(0, len(turns), size))
        for round_ in range(args.rounds + 1):  # the first round warms both, not counted
            names = list(versions) if round_ % 2 == 0 else list(reversed(versions))
            for name in names:
                batch, server, browser = next(batches), servers[name], browsers[name]
                scale.pages_http(browser, batch)
                post = lambda b=browser, t=batch: scale.actions_http(b, t)  # noqa: E731
                _, used = server.batch(post)
                if round_ and used is not None:
                    cpu[name].append(used / len(batch))
            loops.append(python_loop())
    for name, values in cpu.items():
        each = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name}: worker CPU per POST, median {median(values):.2f} ms ({each})")
    print(f"reference loop: median {median(loops[1:]):.2f} ms")


if __name__ == "__main__":
    main()
