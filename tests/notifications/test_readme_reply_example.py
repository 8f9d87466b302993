"""README's reply-by-email example: ``receive_mail`` runs in a terminal of its own, so the
answer's links point at the site only if that terminal sets the site's PORT too."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def example_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("To take a turn by email on the embedded default")
    block = re.search(r"```\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1).splitlines()


def exports(line: str) -> dict[str, str]:
    statement = re.match(r"export ([^;]*);", line)
    assert statement is not None, line
    return dict(pair.split("=", 1) for pair in statement.group(1).split())


def test_both_terminals_of_the_example_set_the_same_port() -> None:
    lines = example_block()
    site, mail = exports(lines[0]), exports(lines[1])
    assert "scripts/serve" in lines[0] and "receive_mail" in lines[-1]
    assert site["INBOUND_EMAIL_DOMAIN"] == mail["INBOUND_EMAIL_DOMAIN"]
    assert "PORT" in site and site["PORT"] == mail.get("PORT")


def test_a_management_command_takes_the_sites_address_from_port() -> None:
    """What the example relies on: a process started with PORT links to that port."""
    env = {**os.environ, "PORT": "8123", "DJANGO_SETTINGS_MODULE": "keltis_site.settings"}
    env.pop("SITE_URL", None)
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.SITE_URL)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    assert out.stdout.strip().endswith(":8123")
