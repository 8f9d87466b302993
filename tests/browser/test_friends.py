"""Playing with friends in a real browser: a newcomer invited by email signs up on the way and
lands at the table; a member invited by name accepts from their games page; after the end both
ask for the same table again and the rematch starts. Everything through the pages a person
uses; the emails are read from the test mailbox."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from friends.models import Invitation, InvitationStatus, Rematch
from games.models import Game, GameStatus
from games.services import game_finish_early
from games.state import engine_state

from .test_play_flow import PASSWORD, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def create_with_invitee(page: Any, base: str, invitee: str) -> Game:
    page.goto(base + "/games/new/")
    page.check("input[name=kind][value=keltis]")
    page.check("input[name=player_count][value='2']")
    page.select_option("select[name=seat_1]", "invite")
    page.fill("input[name=invitee_1]", invitee)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    game = Game.objects.get()
    assert page.url.endswith(f"/games/{game.pk}/")
    return game


def test_a_newcomer_invited_by_email_signs_up_on_the_way_and_lands_in_the_game(
    live_server: Any, browser: Any, settings: Any
) -> None:
    base = live_server.url
    settings.SITE_URL = base
    anna_ctx, new_ctx = browser.new_context(), browser.new_context()
    anna, newcomer = anna_ctx.new_page(), new_ctx.new_page()
    try:
        sign_up(anna, base, "anna@example.test", "Anna")
        game = create_with_invitee(anna, base, "dora@example.test")
        assert game.status == GameStatus.OPEN
        assert "dora@example.test" in anna.locator("main").inner_text()  # her own invitation

        [email] = [m for m in mail.outbox if m.to == ["dora@example.test"]]
        assert "Anna" in email.subject + email.body
        link = re.search(r"https?://\S+/invitations/\d+/[\w-]+/", email.body)
        assert link, email.body
        newcomer.goto(link.group(0))  # the link shows the table; nothing happens yet
        assert Invitation.objects.get().status == InvitationStatus.PENDING
        newcomer.click("button[value=signup]")
        newcomer.wait_for_load_state()
        assert "/accounts/signup/" in newcomer.url
        assert newcomer.input_value("input[name=email]") == "dora@example.test"
        newcomer.fill("input[name=display_name]", "Dora")
        newcomer.fill("input[name=password1]", PASSWORD)
        newcomer.fill("input[name=password2]", PASSWORD)
        newcomer.click("main form button[type=submit]")
        newcomer.wait_for_load_state()

        # the link proved the address: no confirmation email, signed in and seated at once
        assert newcomer.url.endswith(f"/games/{game.pk}/"), newcomer.url
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING
        assert [seat.user.display_name for seat in game.seats.all()] == ["Anna", "Dora"]
        assert newcomer.locator(".hand").count() == 1
        newcomer.goto(link.group(0))  # the link is used up: it takes nobody anywhere again
        assert Invitation.objects.get().status == InvitationStatus.ACCEPTED
    finally:
        anna_ctx.close()
        new_ctx.close()


def test_a_member_accepts_from_their_games_and_both_ask_for_a_rematch(
    live_server: Any, browser: Any, settings: Any
) -> None:
    base = live_server.url
    settings.SITE_URL = base
    anna_ctx, bela_ctx = browser.new_context(), browser.new_context()
    anna, bela = anna_ctx.new_page(), bela_ctx.new_page()
    try:
        sign_up(anna, base, "anna@example.test", "Anna")
        sign_up(bela, base, "bela@example.test", "Béla")
        game = create_with_invitee(anna, base, "Béla")

        bela.goto(base + "/games/mine/")
        bela.get_by_role("button", name=re.compile("Accept")).first.click()
        bela.wait_for_load_state()
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING
        assert [seat.user.display_name for seat in game.seats.all()] == ["Anna", "Béla"]

        # the game ends; Anna offers the same table again, Béla accepts on the page
        game_finish_early(game, engine_state(game), game.started_at)
        url = f"{base}/games/{game.pk}/"
        anna.goto(url)
        anna.get_by_role("button", name="Offer a rematch").click()
        anna.wait_for_load_state()
        bela.goto(url)
        assert "Anna" in bela.locator("main").inner_text()
        bela.get_by_role("button", name="Accept").click()
        bela.wait_for_load_state()
        rematch = Rematch.objects.get(game=game)
        assert rematch.new_game is not None
        new = rematch.new_game
        assert new.status == GameStatus.RUNNING
        assert [seat.user.display_name for seat in new.seats.all()] == ["Béla", "Anna"]
        bela.goto(url)
        bela.get_by_role("link", name="Go to the new game").click()
        bela.wait_for_load_state()
        assert bela.url.endswith(f"/games/{new.pk}/")
    finally:
        anna_ctx.close()
        bela_ctx.close()
