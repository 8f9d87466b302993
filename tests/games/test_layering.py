"""games is the bottom room: no module of games imports the apps built on it.

Play knows only that something became due: it tells ``games.due`` what became due and
``services.AFTER_COMMIT_HOOKS`` that a move committed, and notifications listens (its
``AppConfig.ready``). Ratings, leagues and tournaments are built on games (a rating is computed
from finished games, a round creates games); pages and commands that combine both live in
tournaments, which joins in through hooks games offers (``FINISHED_HOOKS``,
``USER_DATA_PARTS``, ``DEMO_DATA_PARTS``). An import the other way would tie the rooms
together again and bring back the import circles they left.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games import due, maintenance, services
from notifications import outbox, user_data
from notifications import tasks as notification_tasks

REPO_ROOT = Path(__file__).resolve().parents[2]
GAMES = REPO_ROOT / "games"


def imports_of(source: str, filename: str, app: str) -> list[str]:
    """Every import of ``app`` in a module, at its top or inside a function (relative imports
    stay inside games), and any ``import_module`` of it."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names = [str(node.args[0].value)]
        else:
            continue
        found += [f"{filename}:{node.lineno}: {n}" for n in names if n.split(".")[0] == app]
    return found


@pytest.mark.parametrize("app", ["notifications", "tournaments", "live", "friends"])
def test_no_module_of_games_imports_an_app_built_on_it(app: str) -> None:
    modules = sorted(GAMES.rglob("*.py"))
    assert GAMES / "views" / "play.py" in modules and GAMES / "presenters" / "page.py" in modules
    found = [
        hit
        for path in modules
        for hit in imports_of(path.read_text(), str(path.relative_to(REPO_ROOT)), app)
    ]
    assert found == [], f"games imports {app}:\n" + "\n".join(found)


@pytest.mark.parametrize("room", ["tournaments", "notifications", "accounts"])
def test_friends_is_built_on_the_rooms_below_it_and_none_of_them_imports_it(room: str) -> None:
    """friends (invitations, rematches, clubs' invitations) uses games, tournaments, accounts
    and notifications; they learn of it only through the hooks friends registers."""
    folder = REPO_ROOT / room
    found = [
        hit
        for path in sorted(folder.rglob("*.py"))
        for hit in imports_of(path.read_text(), str(path.relative_to(REPO_ROOT)), "friends")
    ]
    assert found == [], f"{room} imports friends:\n" + "\n".join(found)


def test_the_check_sees_every_form_of_import() -> None:
    source = (
        "import tournaments\n"
        "from tournaments import rating_selectors\n"
        "def f():\n"
        "    from tournaments.models import League\n"
        "    import tournaments.elo as elo\n"
        "    importlib.import_module('tournaments.views')\n"
        "from . import listings\n"
        "import tournamentsx\n"
    )
    assert [hit.split(": ")[1] for hit in imports_of(source, "x.py", "tournaments")] == [
        "tournaments",
        "tournaments",
        "tournaments.models",
        "tournaments.elo",
        "tournaments.views",
    ]


def test_notifications_listens_to_what_became_due() -> None:
    assert outbox.turn_began in due.turn_began.listeners
    assert outbox.reminder_due in due.reminder_due.listeners
    assert outbox.timed_out in due.timed_out.listeners
    assert outbox.game_finished in due.game_finished.listeners
    assert services.AFTER_COMMIT_HOOKS.count(notification_tasks.after_action) == 1
    assert maintenance.USER_DATA_PARTS.count(user_data.user_data) == 1


def test_invitations_hold_their_seats_through_the_hook_games_offers() -> None:
    from friends import invitations

    assert services.SEATS_HELD.count(invitations.held_seats) == 1
