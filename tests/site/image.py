"""The Dockerfile read as data, for the tests that check the image without a Docker engine
(this machine has none)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = (REPO_ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [
        (word.upper(), rest.strip())
        for word, _, rest in (line.strip().partition(" ") for line in joined.splitlines())
        if word
    ]


def copies() -> list[tuple[str, str]]:
    """(source, destination) of every COPY, the destination relative to WORKDIR."""
    pairs = []
    for instruction, args in dockerfile():
        if instruction == "COPY":
            *sources, destination = args.split()
            pairs += [(source, destination) for source in sources]
    return pairs
