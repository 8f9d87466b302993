"""Play knows only that something became due: no module of games imports the channels' app.

games tells ``games.due`` what became due and ``services.AFTER_COMMIT_HOOKS`` that a move
committed; notifications listens (its ``AppConfig.ready``). An import of notifications from games
would tie play to the channels again, and bring back the import circle it left.
"""

from __future__ import annotations

import ast
from pathlib import Path

from games import due, services
from notifications import outbox
from notifications import tasks as notification_tasks

REPO_ROOT = Path(__file__).resolve().parents[2]
GAMES = REPO_ROOT / "games"
CHANNELS = "notifications"


def _imports(path: Path) -> list[tuple[int, str]]:
    """The absolute modules ``path`` imports (relative imports stay inside games)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_no_module_of_games_imports_notifications() -> None:
    files = sorted(GAMES.rglob("*.py"))
    assert len(files) >= 30
    problems = []
    for path in files:
        rel = path.relative_to(REPO_ROOT)
        problems += [
            f"{rel}:{lineno}: {module}"
            for lineno, module in _imports(path)
            if module.split(".")[0] == CHANNELS
        ]
        text = path.read_text(encoding="utf-8")
        for lineno, line in enumerate(text.splitlines(), start=1):
            if f'import_module("{CHANNELS}' in line or f"import_module('{CHANNELS}" in line:
                problems.append(f"{rel}:{lineno}: {line.strip()}")
    assert problems == []


def test_the_parse_sees_an_import_of_notifications(tmp_path: Path) -> None:
    source = tmp_path / "bad.py"
    source.write_text("from notifications.outbox import deliver\nimport notifications.tasks\n")
    assert [module for _, module in _imports(source)] == [
        "notifications.outbox",
        "notifications.tasks",
    ]


def test_notifications_listens_to_what_became_due() -> None:
    assert outbox.turn_began in due.turn_began.listeners
    assert outbox.reminder_due in due.reminder_due.listeners
    assert outbox.timed_out in due.timed_out.listeners
    assert outbox.game_finished in due.game_finished.listeners
    assert services.AFTER_COMMIT_HOOKS.count(notification_tasks.after_action) == 1
