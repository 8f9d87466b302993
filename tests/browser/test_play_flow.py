"""Two new players meet in a real browser: sign up, verify, create, join, play a full round.

Everything goes through the pages a person uses; the verification emails are read from the
test mailbox. A finished game's history is then stepped through in the replay viewer.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from games.engine.bots import RandomBot
from games.models import Event, Game, GameStatus
from games.services import action_submit, game_create
from games.state import engine_state

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"
#: set SCREENSHOT_DIR=docs to refresh the README's screenshot
SCREENSHOT_DIR = os.environ.get("SCREENSHOT_DIR")


def sign_up(page: Any, base: str, email: str, name: str) -> None:
    """Sign up, follow the emailed link and confirm by POST, which logs the player in."""
    outbox_before = len(mail.outbox)
    page.goto(base + "/accounts/signup/")
    page.fill("input[name=email]", email)
    page.fill("input[name=display_name]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    assert len(mail.outbox) == outbox_before + 1
    message = mail.outbox[-1]
    assert message.to == [email]
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", message.body)
    assert link, message.body
    page.goto(link.group(0))  # the link only shows a confirm page ...
    page.click("main form button[type=submit]")  # ... the POST confirms and logs in
    page.wait_for_load_state()
    assert page.locator("header").get_by_text(name).count() >= 1


def take_one_action(page: Any, url: str) -> str:
    """On the game page, press the first action button; returns the action it carried."""
    page.goto(url)
    if page.locator(".all-moves").count():  # a card's moves show when asked (play.js)
        page.click(".all-moves")
    form = page.locator("form.act-form").first
    action = form.locator("input[name=action]").get_attribute("value")
    form.locator("button").click()
    page.wait_for_load_state()
    return action


def test_two_players_sign_up_create_join_and_play_a_round(
    live_server: Any, browser: Any, settings: Any
) -> None:
    base = live_server.url
    settings.SITE_URL = base  # the emails' links reach the site that sent them
    anna_ctx, bela_ctx = browser.new_context(), browser.new_context()
    anna, bela = anna_ctx.new_page(), bela_ctx.new_page()
    try:
        sign_up(anna, base, "anna@example.test", "Anna")
        sign_up(bela, base, "bela@example.test", "Béla")

        # Anna creates a 2-player board game and waits in the lobby
        anna.goto(base + "/games/new/")
        anna.check("input[name=kind][value=keltis]")
        anna.check("input[name=player_count][value='2']")
        anna.click("main form button[type=submit]")
        anna.wait_for_load_state()
        game = Game.objects.get()
        assert game.status == GameStatus.OPEN

        # Béla finds it in the lobby and joins: the game starts
        bela.goto(base + "/games/")
        bela.locator(f"form[action='/games/{game.pk}/join/'] button").click()
        bela.wait_for_load_state()
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING
        url = f"{base}/games/{game.pk}/"

        # Béla sees no button while it is Anna's turn, and of the hands only his own
        bela.goto(url)
        assert bela.locator("form.act-form").count() == 0
        assert bela.locator(".hand").count() == 1
        assert bela.locator("[data-hand-seat='0']").count() == 0
        bela_hand = engine_state(game).view(1)["players"][1]["hand"]
        shown = bela.locator("[data-hand-seat='1'] .kcard").count()
        assert shown == len(bela_hand) == 8

        # one full round: each player acts until the turn passes to the other
        pages = {0: anna, 1: bela}
        for seat in (0, 1):
            while True:
                game.refresh_from_db()
                if game.to_move != seat:
                    break
                take_one_action(pages[seat], url)
                assert pages[seat].locator(".messages, .message").count() >= 1
        actors = list(Event.objects.filter(game=game).values_list("seat", flat=True))
        assert actors[0] == 0 and 1 in actors and actors[-1] == 1
        assert len(actors) >= 4  # a play and a draw each, at least
        game.refresh_from_db()
        assert game.to_move == 0

        anna.goto(url)
        assert anna.locator("form.act-form").count() >= 1
        assert anna.locator("[data-hand-seat='1']").count() == 0
        if SCREENSHOT_DIR:
            Path(SCREENSHOT_DIR).mkdir(exist_ok=True)
            anna.set_viewport_size({"width": 1280, "height": 1500})
            anna.screenshot(path=str(Path(SCREENSHOT_DIR) / "game-page.png"), full_page=True)
    finally:
        anna_ctx.close()
        bela_ctx.close()


def test_a_finished_games_history_replays(live_server: Any, page: Any, django_user_model: Any):
    anna = django_user_model.objects.create_user(
        username="anna", email="anna@example.test", password=PASSWORD
    )
    game = game_create(creator=anna, kind="keltis", player_count=2, bots=["greedy"])
    bot = RandomBot(3)
    for _ in range(5000):
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        if game.to_move == 0:
            action = bot.choose(engine_state(game))
            action_submit(game_id=game.pk, seat=0, action=action, expected_seq=game.seq)
    assert game.status == GameStatus.FINISHED
    total = Event.objects.filter(game=game).count()

    page.goto(f"{live_server.url}/games/{game.pk}/history/?step=0")
    first = page.locator("main").inner_text()
    page.keyboard.press("ArrowRight")  # replay.js: the arrow keys step
    page.wait_for_url(re.compile(r"step=1\b"))
    assert page.locator("main").inner_text() != first
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step={total}")
    final = page.locator("main").inner_text()
    seats = list(game.seats.order_by("index"))
    for seat in seats:
        assert str(seat.score) in final
    # every move is listed: the page of the list that holds the last, the others in the record
    # that replay.js pages through (issue 32)
    assert page.locator(f".history-table #move-{total}").count() == 1
    record = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).moves")
    assert len(record) == total
