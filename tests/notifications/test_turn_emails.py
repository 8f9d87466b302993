"""The emails themselves: what a turn email holds, who gets which email, and when none is sent."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

import pytest
from django.core import mail
from django.urls import resolve
from django.utils import formats, timezone

from accounts.models import EmailMode
from games import presenters
from games.models import EventSource, Game, GameStatus, Seat
from games.services import action_submit
from games.state import engine_state
from notifications.emails import send_notification
from notifications.models import NotificationKind
from tests.notifications.conftest import (
    HAND_0,
    HAND_1,
    SITE,
    action_links,
    html_of,
    notification,
    path_of,
    play_turn,
    turn_notification,
)

pytestmark = pytest.mark.django_db

KINDS = ["keltis", "keltis-cards"]


def names(cards: list[str]) -> list[str]:
    return [presenters.card_name(card) for card in cards]


@pytest.mark.parametrize("kind", KINDS)
def test_turn_email_has_both_parts_the_hand_the_opponents_and_one_link_per_action(
    table: Any, kind: str
) -> None:
    t = table(kind)
    anna, bela = t.users
    assert send_notification(turn_notification(t)) is True

    [message] = mail.outbox
    html = html_of(message)
    assert message.to == [anna.email]
    assert str(t.game.pk) in message.subject
    for part in (message.body, html):
        for card in names(HAND_0):
            assert card in part
        assert bela.public_name in part
        # nobody else's hand, and no address but the recipient's in the headers
        for card in names(HAND_1):
            assert card not in part
        assert bela.email not in part
    assert bela.email not in str(message.message())

    legal = engine_state(t.game).legal()
    text_links = action_links(message.body)
    html_links = action_links(html)
    assert len(text_links) == len(set(text_links)) == len(legal)
    assert sorted(html_links) == sorted(text_links)
    assert f"{SITE}/games/{t.game.pk}/" in message.body
    assert all(resolve(path_of(link)).url_name == "email_action" for link in text_links)


def test_turn_email_groups_the_actions_like_the_game_page(table: Any) -> None:
    t = table("keltis")
    send_notification(turn_notification(t))
    body = mail.outbox[0].body
    legal = engine_state(t.game).legal()
    view = engine_state(t.game).view(0)
    for group in presenters.action_groups("keltis", legal, view):
        assert f"\n{group.title}\n" in body
        for choice in group.choices:
            assert choice.label in body


def test_unsubscribe_headers_name_a_working_one_click_address(table: Any) -> None:
    t = table()
    send_notification(turn_notification(t))
    message = mail.outbox[0]
    headers = message.extra_headers
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = headers["List-Unsubscribe"]
    assert link.startswith(f"<{SITE}/email/unsubscribe/") and link.endswith("/>")
    assert resolve(path_of(link[1:-1])).url_name == "email_unsubscribe"
    # one game's emails share a thread
    assert headers["References"] == f"<game-{t.game.pk}@keltis.example>"
    assert headers["Message-ID"].endswith("@keltis.example>")


def test_the_email_is_rendered_in_the_players_language(table: Any) -> None:
    t = table(language="pl")
    send_notification(turn_notification(t))
    assert '<html lang="pl">' in html_of(mail.outbox[0])


def test_the_deadline_is_shown_in_the_players_time_zone(table: Any) -> None:
    t = table(time_zone="Asia/Tokyo")
    Game.objects.filter(pk=t.game.pk).update(
        deadline=dt.datetime(2030, 12, 1, 12, 0, tzinfo=dt.UTC)
    )
    send_notification(turn_notification(t))
    body = mail.outbox[0].body
    assert "Dec. 1, 2030, 9 p.m. (Asia/Tokyo)" in body


def test_a_stale_turn_email_is_not_sent(table: Any) -> None:
    t = table()
    stale = turn_notification(t)
    play_turn(t)
    assert send_notification(stale) is False
    assert mail.outbox == []


def test_a_turn_email_of_a_finished_game_is_not_sent(table: Any) -> None:
    t = table()
    n = turn_notification(t)
    Game.objects.filter(pk=t.game.pk).update(status=GameStatus.FINISHED, to_move=None)
    assert send_notification(n) is False
    assert mail.outbox == []


def test_a_turn_email_after_the_first_step_links_the_next_steps(table: Any) -> None:
    """The email was queued at the turn's start; the player played a card on the web before
    it went out: its links are for the draw, not for the card already played."""
    t = table()
    n = turn_notification(t)
    game = t.refresh()
    action = next(a for a in engine_state(game).legal() if a.startswith("discard"))
    action_submit(game_id=game.pk, seat=0, action=action, expected_seq=game.seq, user=t.users[0])
    assert send_notification(n) is True
    body = mail.outbox[0].body
    assert len(action_links(body)) == len(engine_state(t.refresh()).legal())
    assert "Draw from the deck" in body


@pytest.mark.parametrize(
    ("mode", "kind", "sent"),
    [
        (EmailMode.NONE, NotificationKind.TURN, False),
        (EmailMode.NONE, NotificationKind.REMINDER, False),
        (EmailMode.DAILY_DIGEST, NotificationKind.TURN, False),
        (EmailMode.DAILY_DIGEST, NotificationKind.REMINDER, True),
        (EmailMode.EVERY_TURN, NotificationKind.REMINDER, True),
    ],
)
def test_the_email_setting_decides(table: Any, mode: str, kind: str, sent: bool) -> None:
    t = table(email_mode=mode)
    game = t.refresh()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + dt.timedelta(hours=2))
    n = notification(game, t.users[0], kind, 0, game.turn_seq)
    assert send_notification(n) is sent
    assert len(mail.outbox) == int(sent)


def test_a_reminder_says_how_long_is_left_and_when_the_deadline_is(table: Any) -> None:
    t = table(time_zone="Europe/Warsaw")
    deadline = timezone.now() + dt.timedelta(hours=2, minutes=30)
    Game.objects.filter(pk=t.game.pk).update(deadline=deadline)
    game = t.refresh()
    send_notification(notification(game, t.users[0], NotificationKind.REMINDER, 0, 0))
    message = mail.outbox[0]
    body = message.body.replace("\N{NO-BREAK SPACE}", " ")
    assert "ends in 2 hours" in message.subject
    assert "ends in 2 hours, 29 minutes" in body
    local = timezone.localtime(deadline, zoneinfo.ZoneInfo("Europe/Warsaw"))
    assert formats.date_format(local, "DATETIME_FORMAT") in body
    assert "(Europe/Warsaw)" in body
    assert len(action_links(body)) == len(engine_state(game).legal())


def test_a_reminder_after_the_deadline_is_not_sent(table: Any) -> None:
    t = table()
    Game.objects.filter(pk=t.game.pk).update(deadline=timezone.now() - dt.timedelta(minutes=1))
    n = notification(t.refresh(), t.users[0], NotificationKind.REMINDER, 0, 0)
    assert send_notification(n) is False


def test_since_your_last_turn_lists_the_others_moves_in_words(table: Any) -> None:
    t = table()
    play_turn(t)  # Anna
    play_turn(t)  # Bela
    game = t.refresh()
    bela_events = list(game.events.filter(seat=1).order_by("seq"))
    send_notification(turn_notification(t))
    body = mail.outbox[0].body
    section = body.split("Since your last turn:")[1].split("Your hand:")[0]
    assert len([line for line in section.splitlines() if line.startswith("- ")]) == len(bela_events)
    first = bela_events[0]
    assert presenters.event_text(game.kind, first.action, t.users[1].public_name) in section


def test_the_timeout_email_tells_everyone_what_the_rule_played(table: Any) -> None:
    from games import timeouts

    t = table()
    game = t.refresh()
    seq = game.seq
    assert game.deadline is not None
    late = game.deadline + dt.timedelta(seconds=1)
    assert timeouts.timeout_apply(game_id=game.pk, now=late) == "played"
    assert game.events.filter(source=EventSource.TIMEOUT).exists()
    anna, bela = t.users
    for user in (anna, bela):
        n = notification(game, user, NotificationKind.TIMEOUT, 0, seq)
        assert send_notification(n) is True
    mine, theirs = mail.outbox
    assert mine.subject.startswith("Your time ran out")
    assert "The timeout rule played the turn for you:" in mine.body
    assert "more timeouts in a row your seat is retired" in mine.body
    assert theirs.subject.startswith(f"{anna.public_name}'s time ran out")
    assert "It is now your turn" in theirs.body


def test_a_digest_reader_hears_of_their_own_timeouts_only(table: Any) -> None:
    t = table()
    bela = t.users[1]
    bela.email_mode = EmailMode.DAILY_DIGEST
    bela.save()
    game = t.refresh()
    assert send_notification(notification(game, bela, NotificationKind.TIMEOUT, 0, 0)) is False
    assert send_notification(notification(game, bela, NotificationKind.TIMEOUT, 1, 0)) is True


def test_the_game_over_email_has_the_results(table: Any) -> None:
    t = table("keltis-cards")
    game = t.refresh()
    while game.status == GameStatus.RUNNING:
        play_turn(t, seed=game.seq)
        game = t.refresh()
    anna = t.users[0]
    assert send_notification(notification(game, anna, NotificationKind.FINISHED, 0)) is True
    message = mail.outbox[0]
    place = Seat.objects.get(game=game, index=0).place
    assert "is over" in message.subject
    assert "Final scores:" in message.body
    for user in t.users:
        assert user.public_name in message.body
    assert f"{place}. {anna.public_name}" in message.body


def test_a_game_over_email_of_a_running_game_is_not_sent(table: Any) -> None:
    t = table()
    assert send_notification(notification(t.game, t.users[0], NotificationKind.FINISHED)) is False


def test_the_timeout_email_tells_of_a_retired_seat_and_the_end(table: Any) -> None:
    from games import timeouts

    t = table()
    game = t.refresh()
    Seat.objects.filter(game=game, index=0).update(timeouts=game.max_timeouts - 1)
    seq = game.seq
    assert game.deadline is not None
    late = game.deadline + dt.timedelta(seconds=1)
    assert timeouts.timeout_apply(game_id=game.pk, now=late) == "ended"
    anna, bela = t.users
    assert send_notification(notification(game, bela, NotificationKind.TIMEOUT, 0, seq))
    body = mail.outbox[0].body
    assert f"{anna.public_name}'s seat is retired" in body
    assert "The game is over." in body
