"""The history page leaves its game's positions to reference counting, not to the cycle
collector: a template's Context is a reference cycle (Context <-> ContextDict), so whatever the
page's context holds lives on after the response until a collection traverses it. With every
view of a 600-event game in it, each GET left some 25,000 objects: 10-30 ms of a gunicorn
worker's collection after the response (gunicorn.conf.py; bench/history_page.py's
"collection after"), now under 1 ms.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest
from django.test import Client

from games.selectors import HistoryPage
from tests.games.test_history_size import LONG_DEAL, dealt, history, play_until

pytestmark = pytest.mark.django_db


def garbage_of(client: Client, game: Any, step: int | None) -> list[object]:
    """What one GET of the history page leaves to the cycle collector (the test client's
    response, which holds the template's context, included: it is a cycle too)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        history(client, game, step)
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("step", [None, 0, 7])
def test_no_position_is_left_to_the_cycle_collector(
    client: Client, make_user: Any, step: int | None
) -> None:
    game, users = dealt(make_user, "keltis", 3, LONG_DEAL)
    game = play_until(game, users, 30, seed=LONG_DEAL)
    client.force_login(users[0])
    history(client, game, step)  # the first GET loads templates and catalogues for good
    left = garbage_of(client, game, step)
    # by type, not isinstance(): a lazy object among them would be evaluated
    pages = [page for page in left if type(page) is HistoryPage]
    assert all(not page.views and not page.events for page in pages)
    # nor the views themselves, found by another way: the engine's views of positions, but
    # the one the page draws
    views = [o for o in left if type(o) is dict and {"players", "removed_count"} <= o.keys()]
    assert len(views) <= 1
