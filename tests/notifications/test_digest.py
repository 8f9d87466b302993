"""The daily digest: queued once per local day at the player's hour, least time left first."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import mail

from accounts.models import EmailMode
from games.models import Game
from notifications.digest import queue_digests
from notifications.emails import send_notification
from notifications.models import Notification, NotificationKind
from tests.notifications.conftest import SITE, play_turn

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def digests() -> list[Notification]:
    return list(Notification.objects.filter(kind=NotificationKind.DIGEST).order_by("pk"))


def digest_reader(table: Any, **fields: Any) -> Any:
    """A running game where it is Anna's turn, Anna reading the digest (Warsaw, 7 o'clock)."""
    fields = {"email_mode": EmailMode.DAILY_DIGEST, "time_zone": "Europe/Warsaw", **fields}
    return table(**fields)


def test_queued_once_per_local_day_at_the_digest_hour(table: Any) -> None:
    t = digest_reader(table, digest_hour=7)
    anna = t.users[0]
    # Warsaw is UTC+1 in winter: 05:59 UTC is 06:59 there
    assert queue_digests(dt.datetime(2030, 1, 10, 5, 59, tzinfo=UTC)) == 0
    assert queue_digests(dt.datetime(2030, 1, 10, 6, 0, tzinfo=UTC)) == 1
    assert queue_digests(dt.datetime(2030, 1, 10, 6, 15, tzinfo=UTC)) == 0
    assert queue_digests(dt.datetime(2030, 1, 10, 22, 59, tzinfo=UTC)) == 0  # 23:59 local
    # 23:00 UTC is midnight of the next day in Warsaw: a new day, but before 7 o'clock
    assert queue_digests(dt.datetime(2030, 1, 10, 23, 0, tzinfo=UTC)) == 0
    assert queue_digests(dt.datetime(2030, 1, 11, 6, 0, tzinfo=UTC)) == 1
    assert [n.key for n in digests()] == [
        f"digest:{anna.pk}:2030-01-10",
        f"digest:{anna.pk}:2030-01-11",
    ]
    assert all(n.user_id == anna.pk and n.game_id is None for n in digests())


def test_no_digest_without_a_waiting_game_or_for_other_modes(table: Any, make_user: Any) -> None:
    t = digest_reader(table)
    bela = t.users[1]  # it is not Bela's turn
    bela.email_mode = EmailMode.DAILY_DIGEST
    bela.save()
    make_user(email_mode=EmailMode.DAILY_DIGEST)  # no game at all
    table(email_mode=EmailMode.EVERY_TURN)  # their turn, but they want every turn
    table(email_mode=EmailMode.NONE)
    assert queue_digests(dt.datetime(2030, 1, 10, 12, 0, tzinfo=UTC)) == 1
    assert [n.user_id for n in digests()] == [t.users[0].pk]


def test_the_digest_lists_the_waiting_games_least_time_left_first(
    table: Any, make_user: Any
) -> None:
    t1 = digest_reader(table)
    anna = t1.users[0]
    from games.services import game_create, game_join

    games = [t1.game]
    for _ in range(2):
        game = game_create(creator=anna, kind="keltis-cards", player_count=2)
        game_join(game_id=game.pk, user=make_user())
        games.append(game)
    not_waiting = game_create(creator=make_user(), kind="keltis", player_count=2)
    game_join(game_id=not_waiting.pk, user=anna)  # Anna is seat 1 there: not her turn

    soon = dt.datetime(2030, 1, 2, 12, 0, tzinfo=UTC)
    Game.objects.filter(pk=games[0].pk).update(deadline=soon + dt.timedelta(days=2))
    Game.objects.filter(pk=games[1].pk).update(deadline=None)
    Game.objects.filter(pk=games[2].pk).update(deadline=soon)

    queue_digests(dt.datetime(2030, 1, 1, 12, 0, tzinfo=UTC))
    [n] = digests()
    assert send_notification(n) is True
    message = mail.outbox[0]
    assert "3 games wait" in message.subject
    order = [games[2], games[0], games[1]]
    positions = [message.body.index(f"{SITE}/games/{g.pk}/") for g in order]
    assert positions == sorted(positions)
    assert f"{SITE}/games/{not_waiting.pk}/" not in message.body
    assert "Deadline:" in message.body and "No deadline." in message.body
    assert "List-Unsubscribe" in message.extra_headers


def test_a_digest_with_nothing_waiting_any_more_is_not_sent(table: Any) -> None:
    t = digest_reader(table)
    queue_digests(dt.datetime(2030, 1, 1, 12, 0, tzinfo=UTC))
    [n] = digests()
    play_turn(t)  # Anna moved on the site before the digest went out
    assert send_notification(n) is False
    assert mail.outbox == []


def test_a_digest_is_not_sent_to_someone_who_left_the_digest(table: Any) -> None:
    t = digest_reader(table)
    queue_digests(dt.datetime(2030, 1, 1, 12, 0, tzinfo=UTC))
    anna = t.users[0]
    anna.email_mode = EmailMode.EVERY_TURN
    anna.save()
    [n] = digests()
    n.refresh_from_db()
    assert send_notification(n) is False
