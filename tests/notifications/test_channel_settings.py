"""The settings page lists every channel this site sends with the player's choice and a
"send me a test" button (a POST); choices are saved only from valid input; tests go out on
the channel asked for, or say why they cannot."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from accounts.models import EmailMode
from notifications.models import ChannelMode, PushSubscription
from tests.notifications.test_push import Browser, PushService, service, subscribe

pytestmark = pytest.mark.django_db

__all__ = ["service"]  # the loopback push service fixture, shared with test_push


@pytest.fixture
def player(make_user: Any) -> Iterator[Any]:
    yield make_user(language="de")
    translation.activate("en")  # the pages activated the player's language in this thread


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_shows_every_channel_with_its_choice_and_a_test_button(
    player: Any, service: PushService
) -> None:
    page = logged_in(player).get("/settings/email/").content.decode()
    for channel in ("email", "push"):
        assert f'id="channel-{channel}"' in page
        assert f'action="/settings/notify/{channel}/test/"' in page
    assert re.search(r'<option value="every_turn" selected>', page)  # email: every turn
    assert 'id="push-subscribe"' in page and "notifications/push.js" in page
    assert "Schick mir einen Test" in page  # in the player's language


def test_an_email_test_is_sent_on_post_only(player: Any) -> None:
    client = logged_in(player)
    assert client.get("/settings/notify/email/test/").status_code == 405
    assert mail.outbox == []
    answer = client.post("/settings/notify/email/test/", follow=True)
    [email] = mail.outbox
    assert email.to == [player.email]
    assert "Test" in email.subject
    assert "Der Test ist unterwegs." in answer.content.decode()


def test_a_push_test_reaches_the_players_device(player: Any, service: PushService) -> None:
    browser = Browser(f"{service.url}/push/phone")
    subscribe(player, browser.subscription)
    logged_in(player).post("/settings/notify/push/test/")
    [(_, _, body)] = service.received
    payload = browser.decrypt(body)
    assert payload["url"].endswith("/settings/email/")
    assert payload["title"] == "Keltis by mail"


def test_a_push_test_without_a_device_says_so(player: Any, service: PushService) -> None:
    answer = logged_in(player).post("/settings/notify/push/test/", follow=True)
    assert service.received == []
    assert "errorlist" in answer.content.decode() or "error" in answer.content.decode()


def test_a_channels_choice_is_saved_and_a_bad_one_refused(
    player: Any, service: PushService
) -> None:
    client = logged_in(player)
    client.post("/settings/notify/push/", {"mode": ChannelMode.DAILY_DIGEST})
    player.refresh_from_db()
    assert player.channel_modes == {"push": "daily_digest"}
    client.post("/settings/notify/push/", {"mode": "hourly"})
    client.post("/settings/notify/carrier-pigeon/", {"mode": ChannelMode.EVERY_TURN})
    player.refresh_from_db()
    assert player.channel_modes == {"push": "daily_digest"}
    client.post("/settings/notify/email/", {"mode": ChannelMode.NONE})
    player.refresh_from_db()
    assert player.email_mode == EmailMode.NONE


def test_always_notify_is_saved(player: Any) -> None:
    client = logged_in(player)
    client.post("/settings/notify/always/", {"always": "on"})
    player.refresh_from_db()
    assert player.always_notify
    client.post("/settings/notify/always/", {})
    player.refresh_from_db()
    assert not player.always_notify


def test_a_device_is_removed_only_by_its_player(
    player: Any, make_user: Any, service: PushService
) -> None:
    subscribe(player, Browser(f"{service.url}/push/tablet").subscription)
    [device] = PushSubscription.objects.filter(user=player)
    other = logged_in(make_user())
    other.post(f"/settings/push/{device.pk}/remove/")
    assert PushSubscription.objects.filter(pk=device.pk).exists()
    logged_in(player).post(f"/settings/push/{device.pk}/remove/")
    assert not PushSubscription.objects.filter(pk=device.pk).exists()
    player.refresh_from_db()
    assert player.channel_modes == {"push": "none"}
