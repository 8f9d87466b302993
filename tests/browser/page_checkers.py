"""The two page checkers of tests/browser/test_page_standards.py: axe-core, run inside the page in
Chromium, and the Nu Html Checker (vnu.jar), run with Java over the HTML the server sent.

Both are pinned in tests/browser/tools/package-lock.json; scripts/ensure-page-checkers installs
them (scripts/test runs it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

#: for checks of how pages look, which are the same on both databases and take minutes: CI's
#: SQLite run has them, so that the PostgreSQL run stays within its 15 minutes
SQLITE_RUN_ONLY = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the same pages on SQLite: CI's SQLite run"
)
#: the same, for the few such checks CI's PostgreSQL run takes over so that neither run passes 15
#: minutes (test_page_standards: some languages' axe checks)
POSTGRESQL_RUN_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the same pages on PostgreSQL: CI's PostgreSQL run"
)

TOOLS = Path(__file__).resolve().parent / "tools" / "node_modules"
AXE = TOOLS / "axe-core" / "axe.min.js"
VNU = TOOLS / "vnu-jar" / "build" / "dist" / "vnu.jar"

#: the impacts this site refuses (issue 15: no critical or serious violation)
REFUSED_IMPACTS = ("critical", "serious")


@cache
def _axe_source() -> str:
    if not AXE.exists():
        raise RuntimeError(f"{AXE} is missing: run scripts/ensure-page-checkers")
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Any, *, contrast: bool = True) -> list[str]:
    """The page's critical and serious axe-core violations (WCAG 2.x A and AA rules and axe's
    best practices), one line each: rule, impact, and the first elements it names.
    ``contrast=False``: every rule but colour contrast, which is half of axe's time on a page
    and the same in every language (the colours are the CSS's)."""
    page.add_script_tag(content=_axe_source())
    rules = "" if contrast else ", rules: {'color-contrast': {enabled: false}}"
    result = page.evaluate(
        f"async () => await axe.run(document, {{resultTypes: ['violations']{rules}}})"
    )
    lines = []
    for violation in result["violations"]:
        if violation["impact"] not in REFUSED_IMPACTS:
            continue
        targets = ", ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
        lines.append(f"{violation['id']} ({violation['impact']}): {targets}")
    return lines


def html_errors(documents: dict[str, bytes]) -> dict[str, list[str]]:
    """The Nu Html Checker's errors per document (name: the HTML as served), one JVM for all:
    starting Java is most of the time a check takes."""
    java = shutil.which("java")
    if java is None or not VNU.exists():
        raise RuntimeError("vnu.jar or Java is missing: run scripts/ensure-page-checkers")
    errors: dict[str, list[str]] = {name: [] for name in documents}
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for number, (name, html) in enumerate(documents.items()):
            path = Path(folder) / f"{number}.html"
            path.write_bytes(html)
            files[path.name] = name
        run = subprocess.run(
            [java, "-jar", str(VNU), "--format", "json", "--exit-zero-always", *sorted(files)],
            capture_output=True, text=True, check=True, cwd=folder,
        )
        for message in json.loads(run.stderr)["messages"]:
            if message["type"] != "error":
                continue
            url = message.get("url", "?")
            name = files.get(url.rsplit("/", 1)[-1], url)
            errors.setdefault(name, []).append(
                f"line {message.get('lastLine', '?')}: {message['message']}"
            )
    return {name: lines for name, lines in errors.items() if lines}
