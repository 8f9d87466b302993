"""api is the top room: it uses games, tournaments, live and accounts; none of them imports it
(the API reads through their selectors and writes through their services, never the reverse)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.games.test_layering import imports_of

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "room", ["games", "tournaments", "live", "notifications", "accounts", "keltis_site"]
)
def test_no_other_room_imports_the_api(room: str) -> None:
    modules = sorted((REPO_ROOT / room).rglob("*.py"))
    assert modules
    found = [
        hit
        for path in modules
        for hit in imports_of(path.read_text(), str(path.relative_to(REPO_ROOT)), "api")
    ]
    assert found == [], f"{room} imports api:\n" + "\n".join(found)
