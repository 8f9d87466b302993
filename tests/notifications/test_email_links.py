"""Acting from an email: GET confirms, POST acts once, the turn finishes without login, and
every link that cannot act says why and changes nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import presenters
from games.engine.bots import RandomBot
from games.models import Event, Game, GameStatus
from games.services import action_submit, only_step
from games.state import engine_state
from notifications import links
from notifications.emails import send_notification
from tests.notifications.conftest import (
    HAND_1,
    Table,
    action_links,
    forms_in,
    path_of,
    play_turn,
    post_form,
    turn_notification,
)

pytestmark = pytest.mark.django_db

KINDS = ["keltis", "keltis-cards"]


def emailed_links(t: Table) -> list[str]:
    """The action links of the seat to move's turn email, as paths."""
    mail.outbox.clear()
    assert send_notification(turn_notification(t))
    return [path_of(link) for link in action_links(mail.outbox[0].body)]


def link_for(t: Table, prefix: str) -> str:
    """The emailed link whose action starts with ``prefix`` ("discard", "play")."""
    for path in emailed_links(t):
        token = path.split("/")[2]
        if links.action_read(token).action.startswith(prefix):
            return path
    raise AssertionError(f"no {prefix} link")


def events(game: Game) -> int:
    return Event.objects.filter(game=game).count()


def text(response: Any) -> str:
    return response.content.decode()


# -- GET confirms, POST acts ----------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_get_shows_a_confirm_page_and_changes_nothing(
    table: Any, browser: Client, kind: str
) -> None:
    t = table(kind)
    path = link_for(t, "discard")
    action = links.action_read(path.split("/")[2]).action
    before = events(t.game)

    page = browser.get(path)
    assert page.status_code == 200
    html = text(page)
    view = engine_state(t.refresh()).view(0)
    assert presenters.action_label(kind, action, view) in html
    assert "Confirm" in html
    assert 'data-hand-seat="0"' in html
    for card in HAND_1:  # the position as seat 0 sees it: no other hand
        assert presenters.card_name(card) not in html
    assert page["Cache-Control"].startswith("max-age=0")
    # a second look (a mail scanner, a reload, a HEAD request) changes nothing either
    browser.get(path)
    assert browser.head(path).status_code == 200
    assert events(t.refresh()) == before
    assert t.game.seq == before


@pytest.mark.parametrize("kind", KINDS)
def test_post_acts_once_and_a_second_post_says_the_game_moved_on(
    table: Any, browser: Client, kind: str
) -> None:
    t = table(kind)
    path = link_for(t, "discard")
    action = links.action_read(path.split("/")[2]).action
    page = browser.get(path)
    after = engine_state(t.game)
    after.apply(action, player=0)
    # the card game's discard leaves only the deck to draw from: the site draws at once
    stored = 1 if only_step(after) is None else 2

    done = post_form(browser, text(page), path)
    assert done.status_code == 200
    game = t.refresh()
    assert events(game) == stored
    last = Event.objects.get(game=game, seq=1)
    assert (last.seat, last.action) == (0, action)
    assert presenters.event_text(kind, action) in text(done)

    again = post_form(browser, text(page), path)
    assert again.status_code == 410
    # after the draw taken for the player the turn is over, and the page says so
    assert ("already done" if stored == 1 else "turn is over") in text(again)
    assert "Nothing was changed." in text(again)
    assert events(t.refresh()) == stored


@pytest.mark.parametrize("kind", KINDS)
def test_the_next_buttons_finish_the_turn_without_login(
    table: Any, browser: Client, kind: str
) -> None:
    t = table(kind)
    path = link_for(t, "play")
    page = browser.get(path)
    response = post_form(browser, text(page), path)
    steps = 1
    while "Your turn is done" not in text(response):
        assert response.status_code == 200
        assert "Your turn goes on" in text(response)
        buttons = forms_in(text(response))
        assert buttons, text(response)
        response = post_form(browser, text(response), buttons[0])
        steps += 1
    game = t.refresh()
    assert game.to_move == 1
    # the piles are empty at the start: the closing draw from the deck is taken for the player
    assert events(game) == steps + 1 >= 2
    assert "the only step left, taken for you" in text(response)
    assert f"Next: {t.users[1].public_name}" in text(response)
    assert "_auth_user_id" not in browser.session


def test_a_used_link_offers_the_rest_of_the_same_turn(table: Any, browser: Client) -> None:
    t = table()
    path = link_for(t, "discard")
    page = browser.get(path)
    post_form(browser, text(page), path)
    again = browser.get(path)
    assert again.status_code == 410
    buttons = forms_in(text(again))
    assert buttons  # the draw is still this turn's
    finish = post_form(browser, text(again), buttons[0])
    assert "Your turn is done" in text(finish)


# -- links that cannot act ------------------------------------------------------------------
def assert_refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status
    body = text(response)
    assert words in body
    assert "Nothing was changed." in body
    assert "data-hand-seat" not in body


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_link_explains_itself(table: Any, method: str) -> None:
    t = table()
    path = link_for(t, "discard")
    token = path.split("/")[2]
    client = Client()
    changed = token[:-2] + ("BB" if token.endswith("AA") else "AA")
    for bad in (changed, token[:20], "x", "a:b:c"):
        response = getattr(client, method)(reverse("email_action", args=[bad]))
        assert_refused(response, 400, "This link does not work")
    # a token re-signed for another purpose does not act either
    other = links.unsubscribe_token(t.users[0].pk)
    assert_refused(client.get(reverse("email_action", args=[other])), 400, "does not work")
    assert events(t.refresh()) == 0


def test_a_link_with_another_game_in_it_is_a_forgery(table: Any) -> None:
    t = table()
    other = table()
    path = link_for(t, "discard")
    token = path.split("/")[2]
    rest = token.split(":", 1)[1]
    link = links.action_read(token)
    forged = links.ActionLink(other.game.pk, 0, 0, 0, link.action).token().split(":", 1)[0]
    response = Client().post(reverse("email_action", args=[f"{forged}:{rest}"]))
    assert_refused(response, 400, "This link does not work")
    assert events(other.refresh()) == 0


def test_a_link_for_a_seat_not_to_move_acts_for_nobody(table: Any) -> None:
    t = table()
    game = t.refresh()
    action = engine_state(game).legal()[0]
    # a genuine token, but for seat 1, while seat 0 is to move
    path = links.ActionLink(game.pk, 1, game.turn_seq, game.seq, action).path()
    for method in ("get", "post"):
        assert_refused(getattr(Client(), method)(path), 410, "This turn is over")
    assert events(t.refresh()) == 0


def test_a_link_cannot_act_for_another_seat_or_another_action(table: Any, browser: Client) -> None:
    t = table()
    path = link_for(t, "discard")
    action = links.action_read(path.split("/")[2]).action
    page = browser.get(path)
    other = next(a for a in engine_state(t.refresh()).legal() if a != action)
    post_form(browser, text(page), path, seat="1", action=other)
    [event] = Event.objects.filter(game=t.game)
    assert (event.seat, event.action) == (0, action)


def test_a_link_after_its_deadline_changes_nothing(table: Any) -> None:
    t = table()
    path = link_for(t, "discard")
    Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() - dt.timedelta(minutes=1))
    for method in ("get", "post"):
        assert_refused(getattr(Client(), method)(path), 410, "The deadline has passed")
    assert events(t.refresh()) == 0


def test_a_link_after_its_turn_ended_changes_nothing(table: Any) -> None:
    t = table()
    path = link_for(t, "discard")
    play_turn(t)  # played on the game page instead
    play_turn(t)  # and the opponent's turn: seat 0 is to move again, in a new turn
    game = t.refresh()
    assert game.to_move == 0
    before = events(game)
    for method in ("get", "post"):
        assert_refused(getattr(Client(), method)(path), 410, "This turn is over")
    assert events(t.refresh()) == before


def test_a_link_of_a_finished_game_changes_nothing(table: Any) -> None:
    t = table()
    path = link_for(t, "discard")
    Game.objects.filter(pk=t.game.pk).update(status=GameStatus.FINISHED)
    assert_refused(Client().post(path), 410, "This game is not running")
    assert events(t.refresh()) == 0


def test_a_link_of_a_deleted_game_changes_nothing(table: Any) -> None:
    t = table()
    game = t.refresh()
    path = links.ActionLink(game.pk + 1000, 0, 0, 0, "draw deck").path()
    assert_refused(Client().get(path), 410, "This game does not exist")


def test_the_post_needs_the_pages_csrf_token(table: Any, browser: Client) -> None:
    t = table()
    path = link_for(t, "discard")
    assert browser.post(path).status_code == 403
    assert events(t.refresh()) == 0


# -- the link grants nothing elsewhere --------------------------------------------------------
def test_the_link_grants_nothing_on_the_game_page(table: Any, browser: Client) -> None:
    t = table()
    path = link_for(t, "discard")
    page = browser.get(path)
    post_form(browser, text(page), path)
    game = t.refresh()

    detail = browser.get(reverse("game_detail", args=[game.pk]))
    assert detail.status_code == 200
    assert "data-hand-seat" not in text(detail)  # a spectator's view: no hand at all
    act = Client().post(
        reverse("game_act", args=[game.pk]), {"action": "draw deck", "seq": game.seq}
    )
    assert act.status_code == 302 and "/accounts/login/" in act["Location"]
    assert events(t.refresh()) == 1
    assert Client().get(reverse("my_games")).status_code == 302


@pytest.mark.parametrize("kind", KINDS)
def test_the_last_action_of_the_game_from_a_link(table: Any, browser: Client, kind: str) -> None:
    t = table(kind)
    bot = RandomBot(7)
    while True:  # play on until the next action would end the game
        game = t.refresh()
        engine = engine_state(game)
        action = bot.choose(engine)
        trial = engine.copy()
        trial.apply(action)
        if trial.finished:
            break
        action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)
    path = links.ActionLink(game.pk, game.to_move, game.turn_seq, game.seq, action).path()
    page = browser.get(path)
    assert page.status_code == 200
    done = post_form(browser, text(page), path)
    assert done.status_code == 200
    assert "The game is over" in text(done)
    assert t.refresh().status == GameStatus.FINISHED
    assert_refused(browser.get(path), 410, "This game is not running")


def test_tokens_emailed_before_the_kept_signers_still_read() -> None:
    """``sign`` keeps a signer a purpose and leaves zlib out: it never made such a payload
    shorter, so the tokens already emailed (``signing.dumps(compress=True)``) are of the same
    form, and read the same."""
    from django.core import signing

    payload = [7, 1, 40, 41, "draw deck"]
    older = signing.dumps(payload, salt=f"{links.SALT}.{links.ACTION}", compress=True)
    assert not older.startswith(".")  # not compressed: Django keeps the shorter form
    assert links.unsign(links.ACTION, older) == payload
    assert links.unsign(links.ACTION, links.sign(links.ACTION, payload)) == payload
    with pytest.raises(links.LinkError):  # a signer per purpose: never one for another
        links.unsign(links.UNSUBSCRIBE, links.sign(links.ACTION, payload))


def test_a_token_is_djangos_own_byte_for_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept signer works its HMAC key out once; each token is still what
    ``signing.dumps`` makes of the payload at the same second, for every purpose."""
    from django.core import signing

    monkeypatch.setattr("time.time", lambda: 1_764_000_000.5)
    for purpose, payload in [(links.ACTION, [7, 1, 40, 41, "lay r7"]), (links.UNSUBSCRIBE, [5])]:
        salt = f"{links.SALT}.{purpose}"
        assert links.sign(purpose, payload) == signing.dumps(payload, salt=salt)
    other = links._signer(f"{links.SALT}.{links.ACTION}", "another key, " + "y" * 40)
    assert other.signature("a:b") == signing.Signer(
        key="another key, " + "y" * 40, salt=f"{links.SALT}.{links.ACTION}"
    ).signature("a:b")


def test_a_new_secret_key_signs_at_once(settings: Any) -> None:
    token = links.sign(links.UNSUBSCRIBE, [5])
    settings.SECRET_KEY = "another secret key, rotated, " + "x" * 40
    assert links.unsign(links.UNSUBSCRIBE, links.sign(links.UNSUBSCRIBE, [5])) == [5]
    with pytest.raises(links.LinkError):  # the old key is not among the fallbacks
        links.unsign(links.UNSUBSCRIBE, token)
