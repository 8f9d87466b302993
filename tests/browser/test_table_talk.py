"""Table talk in a real Chromium: two players' browsers on one game; one writes, the other's
open page shows the message without a reload, and keeps what that player was typing."""

from __future__ import annotations

from typing import Any

import pytest

from games.services import game_create, game_join
from tests.browser.test_live import WAIT_MS, logged_in_page, opened, wait_for
from tests.live import conftest as live_fixtures
from tests.live.conftest import StreamServer

pytestmark = pytest.mark.django_db(transaction=True)

#: the real stream server of tests/live (a fixture shared by module attribute)
stream_server = live_fixtures.stream_server


def test_a_message_shows_on_the_other_players_page_without_reload(
    live_server: Any, stream_server: StreamServer, browser: Any, make_user: Any
) -> None:
    anna, bela = make_user(display_name="Anna"), make_user(display_name="Bela")
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    url = f"{live_server.url}/games/{game.pk}/"
    theirs = opened(logged_in_page(browser, live_server.url, bela), url)
    mine = opened(logged_in_page(browser, live_server.url, anna), url)
    theirs.fill("#talk-text", "half a thought")  # Béla is typing meanwhile

    mine.fill("#talk-text", "Good luck, <b>Bela</b>!")
    mine.locator(".talk-form button[type=submit]").click()  # posts and reloads as any form
    mine.wait_for_load_state()
    assert "Good luck, <b>Bela</b>!" in mine.locator("#talk").inner_text()

    wait_for(theirs, "document.querySelectorAll('#talk .talk-message').length === 1", WAIT_MS)
    assert theirs.evaluate("window.__sameDocument") is True  # no reload
    assert "Good luck, <b>Bela</b>!" in theirs.locator("#talk .talk-text").inner_text()
    assert theirs.locator("#talk b").count() == 0  # escaped: the text, never markup
    assert theirs.input_value("#talk-text") == "half a thought"
