"""The engine is pure Python: importing any part of it loads no Django (architecture.md)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ENGINE = REPO_ROOT / "games" / "engine"

IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
import games.engine
names = sorted(
    info.name
    for info in pkgutil.walk_packages(games.engine.__path__, "games.engine.")
    if not info.name.endswith(".__main__")  # runs the command line
)
for name in names:
    importlib.import_module(name)
loaded = sorted(m for m in sys.modules if m == "django" or m.startswith("django."))
print(json.dumps({"modules": names, "django": loaded}))
"""


def test_importing_the_engine_loads_no_django() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    expected = {f"games.engine.{p.stem}" for p in ENGINE.glob("*.py")} - {
        "games.engine.__init__",
        "games.engine.__main__",
    }
    assert expected <= set(answer["modules"]), "every engine module was imported"
    assert {"games.engine.board", "games.engine.records", "games.engine.cli"} <= expected
    assert answer["django"] == [], f"the engine imports {answer['django']}"


def _django_imports(source: str, filename: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        found += [f"{filename}:{node.lineno}: {n}" for n in names if n.split(".")[0] == "django"]
    return found


def test_no_engine_source_mentions_a_django_import() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) >= 8
    problems = []
    for path in files:
        source = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(REPO_ROOT))
        problems += _django_imports(source, rel)
        for lineno, line in enumerate(source.splitlines(), start=1):
            text = line.strip()
            dynamic = ('import_module("django', "import_module('django", '__import__("django')
            if text.startswith(("import django", "from django")) or any(d in text for d in dynamic):
                problems.append(f"{rel}:{lineno}: {text}")
    assert problems == []
