"""One direction between the two apps: tournaments may read games, games never reads tournaments.

Ratings, leagues and tournaments are built on games (a rating is computed from finished games,
a round creates games); if games reached back, neither could change without the other. Pages
and commands that combine both live in tournaments; games lets tournaments join in through
hooks it registers at start-up (``FINISHED_HOOKS``, ``USER_DATA_PARTS``, ``DEMO_DATA_PARTS``).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
GAMES = REPO_ROOT / "games"


def tournaments_imports(source: str, filename: str) -> list[str]:
    """Every import of ``tournaments`` in a module, at its top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        found += [
            f"{filename}:{node.lineno}: {n}" for n in names if n.split(".")[0] == "tournaments"
        ]
    return found


def test_no_games_module_imports_tournaments() -> None:
    modules = sorted(GAMES.rglob("*.py"))
    assert GAMES / "views" / "play.py" in modules and GAMES / "presenters" / "page.py" in modules
    found = [
        hit
        for path in modules
        for hit in tournaments_imports(path.read_text(), str(path.relative_to(REPO_ROOT)))
    ]
    assert found == [], "games imports tournaments:\n" + "\n".join(found)


def test_the_check_sees_every_form_of_import() -> None:
    source = (
        "import tournaments\n"
        "from tournaments import rating_selectors\n"
        "def f():\n"
        "    from tournaments.models import League\n"
        "    import tournaments.elo as elo\n"
        "from . import listings\n"
        "import tournamentsx\n"
    )
    assert [hit.split(": ")[1] for hit in tournaments_imports(source, "x.py")] == [
        "tournaments",
        "tournaments",
        "tournaments.models",
        "tournaments.elo",
    ]
