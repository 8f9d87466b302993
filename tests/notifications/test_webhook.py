"""The chat webhook: Discord, Slack and signed JSON POSTs to a receiver on loopback."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from notifications import outbox
from notifications.channels import netguard, webhook
from notifications.channels.webhook import PermanentFailure, TemporaryFailure, send_webhook
from notifications.models import Notification, NotificationStatus, WebhookDestination

from .conftest import HAND_0, HAND_1, Table, play_turn
from .loopback_http import Receiver, receiver_fixture  # noqa: F401 (a fixture)

EVENT = {
    "type": "turn",
    "text": "Your move in Keltis #12 <@everyone> & co",
    "game": 12,
    "url": "https://keltis.example/games/12/",
}


@pytest.fixture(autouse=True)
def _loopback_allowed(settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]


def destination(user: User, url: str, fmt: str) -> WebhookDestination:
    return WebhookDestination.objects.create(user=user, url=url, format=fmt)


def choose_webhook(user: User) -> None:
    user.channel_modes = {**user.channel_modes, "webhook": "every_turn"}
    user.save(update_fields=["channel_modes"])


def verified_body(dest: WebhookDestination, headers: dict[str, str], body: bytes) -> Any:
    """What a receiver does: check the timestamp is recent and the signature is right."""
    timestamp = headers["X-Keltis-Timestamp"]
    assert abs(int(timestamp) - time.time()) < 300
    expected = hmac.new(dest.secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    assert hmac.compare_digest(headers["X-Keltis-Signature"], f"sha256={expected.hexdigest()}")
    assert headers["Content-Type"] == "application/json"
    return json.loads(body)


def test_discord_shape_signed(receiver: Receiver, make_user: Callable[..., User]) -> None:
    dest = destination(make_user(), receiver.url(), "discord")
    send_webhook(dest, EVENT)
    [(path, headers, body)] = receiver.requests
    assert path == "/hook"
    sent = verified_body(dest, headers, body)
    assert sent == {
        "content": f"{EVENT['text']}\n{EVENT['url']}",
        "allowed_mentions": {"parse": []},  # a name like "@everyone" pings nobody
    }


def test_slack_shape_signed_and_escaped(receiver: Receiver, make_user: Callable[..., User]) -> None:
    dest = destination(make_user(), receiver.url(), "slack")
    send_webhook(dest, EVENT)
    [(_path, headers, body)] = receiver.requests
    sent = verified_body(dest, headers, body)
    assert sent == {
        "text": "Your move in Keltis #12 &lt;@everyone&gt; &amp; co\n<https://keltis.example/games/12/>"
    }


def test_json_shape_is_the_event(receiver: Receiver, make_user: Callable[..., User]) -> None:
    dest = destination(make_user(), receiver.url(), "json")
    send_webhook(dest, EVENT)
    [(_path, headers, body)] = receiver.requests
    sent = verified_body(dest, headers, body)
    assert {k: sent[k] for k in EVENT} == EVENT
    assert sent["site"] == "https://keltis.example/"
    assert "sent_at" in sent


def test_a_tampered_body_fails_the_signature(
    receiver: Receiver, make_user: Callable[..., User]
) -> None:
    dest = destination(make_user(), receiver.url(), "json")
    send_webhook(dest, EVENT)
    [(_path, headers, body)] = receiver.requests
    with pytest.raises(AssertionError):
        verified_body(dest, headers, body.replace(b"12", b"13"))
    other = WebhookDestination(secret="another secret")
    with pytest.raises(AssertionError):
        verified_body(other, headers, body)


@pytest.mark.parametrize(
    ("status", "failure"),
    [
        (400, PermanentFailure),
        (404, PermanentFailure),
        (410, PermanentFailure),
        (401, PermanentFailure),
        (408, TemporaryFailure),
        (429, TemporaryFailure),
        (500, TemporaryFailure),
        (503, TemporaryFailure),
        (301, PermanentFailure),
        (307, PermanentFailure),
    ],
)
def test_answers_are_permanent_or_temporary_failures(
    receiver: Receiver, make_user: Callable[..., User], status: int, failure: type[Exception]
) -> None:
    receiver.status = status
    receiver.headers = {"Location": receiver.url("/moved")} if status < 400 else {}
    dest = destination(make_user(), receiver.url(), "discord")
    with pytest.raises(failure):
        send_webhook(dest, EVENT)
    assert [path for path, _h, _b in receiver.requests] == ["/hook"]  # no redirect followed


def test_no_answer_in_time_is_temporary(
    receiver: Receiver, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(netguard, "TOTAL_TIMEOUT", 0.3)
    receiver.hold.clear()
    dest = destination(make_user(), receiver.url(), "discord")
    with pytest.raises(TemporaryFailure):
        send_webhook(dest, EVENT)


def test_a_private_destination_is_a_permanent_failure_and_nothing_is_sent(
    receiver: Receiver, make_user: Callable[..., User], settings: Any
) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    dest = destination(make_user(), receiver.url(), "discord")
    with pytest.raises(PermanentFailure):
        send_webhook(dest, EVENT)
    assert receiver.requests == []


# -- the settings page -----------------------------------------------------------------------------
def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_set_test_and_remove_from_the_page(
    receiver: Receiver, make_user: Callable[..., User]
) -> None:
    user = make_user()
    client = logged_in(user)
    page = client.get(reverse("feeds_settings"))
    assert page.status_code == 200
    response = client.post(reverse("webhook_save"), {"url": receiver.url(), "format": "slack"})
    assert response.status_code == 302
    dest = WebhookDestination.objects.get(user=user)
    assert (dest.url, dest.format) == (receiver.url(), "slack")
    assert dest.secret in client.get(reverse("feeds_settings")).content.decode()

    response = client.post(reverse("webhook_test"), follow=True)
    assert "The test was delivered." in response.content.decode()
    [(_path, headers, body)] = receiver.requests
    assert "this is how your game news will reach you" in verified_body(dest, headers, body)["text"]

    client.post(reverse("webhook_remove"))
    assert not WebhookDestination.objects.filter(user=user).exists()


def test_the_test_is_in_the_players_language(
    receiver: Receiver, make_user: Callable[..., User]
) -> None:
    user = make_user(language="de")
    dest = destination(user, receiver.url(), "discord")
    logged_in(user).post(reverse("webhook_test"))
    [(_path, headers, body)] = receiver.requests
    assert "So erreichen dich die Neuigkeiten" in verified_body(dest, headers, body)["content"]


def test_a_failed_test_says_why(receiver: Receiver, make_user: Callable[..., User]) -> None:
    receiver.status = 404
    user = make_user()
    destination(user, receiver.url(), "discord")
    response = logged_in(user).post(reverse("webhook_test"), follow=True)
    assert "answered with an error (HTTP 404" in response.content.decode()


def test_a_private_address_is_refused_in_the_players_language(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    user = make_user(language="pl")
    client = logged_in(user)
    for url in ("http://127.0.0.1/hook", "http://10.0.0.1/hook", "http://[::1]/hook"):
        response = client.post(reverse("webhook_save"), {"url": url, "format": "json"})
        assert response.status_code == 400
        assert "tylko adresy publiczne" in response.content.decode()
    assert not WebhookDestination.objects.filter(user=user).exists()


def test_a_new_secret_changes_the_signature_key(make_user: Callable[..., User]) -> None:
    user = make_user()
    dest = destination(user, "https://hooks.example/x", "json")
    logged_in(user).post(reverse("webhook_new_secret"))
    dest_after = WebhookDestination.objects.get(pk=dest.pk)
    assert dest_after.secret != dest.secret and len(dest_after.secret) >= 40


def test_the_test_button_is_rate_limited(
    receiver: Receiver, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    from notifications.views import feeds

    monkeypatch.setattr(feeds, "TEST_RATE", "2/m")
    user = make_user()
    destination(user, receiver.url(), "discord")
    client = logged_in(user)
    for _ in range(3):
        response = client.post(reverse("webhook_test"), follow=True)
    assert len(receiver.requests) == 2
    assert "Too many tests" in response.content.decode()


def test_the_pages_answer_only_posts_and_only_to_players(make_user: Callable[..., User]) -> None:
    client = logged_in(make_user())
    for name in ("webhook_save", "webhook_test", "webhook_remove", "webhook_new_secret"):
        assert client.get(reverse(name)).status_code == 405
        response = Client().post(reverse(name))
        assert response.status_code == 302 and re.search(r"/accounts/login/", response["Location"])


def test_the_signature_helper_is_the_documented_one() -> None:
    body = b'{"a":1}'
    mac = hmac.new(b"s3cret", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert webhook.signature("s3cret", "1700000000", body) == f"sha256={mac}"


def test_the_data_export_has_the_addresses_but_no_secret(make_user: Callable[..., User]) -> None:
    from notifications.channels import calendar
    from notifications.user_data import user_data

    user = make_user()
    dest = destination(user, "https://hooks.example/x", "slack")
    feed = calendar.feed_enable(user)
    data = user_data(user)
    assert data["webhook"]["url"] == "https://hooks.example/x"
    assert data["calendar_feed"] is not None
    dumped = json.dumps(data)
    assert dest.secret not in dumped and feed.key not in dumped
    assert calendar.feed_token(feed) not in dumped


# -- the outbox's rows, through the channel's sender ---------------------------------------------
def test_a_turn_after_a_move_reaches_the_receiver_without_a_card(
    receiver: Receiver, table: Callable[..., Table]
) -> None:
    t = table()
    bela = t.users[1]
    dest = destination(bela, receiver.url(), "json")
    choose_webhook(bela)
    play_turn(t)
    outbox.deliver_due()
    game = t.refresh()
    [(_path, headers, body)] = receiver.requests
    sent = verified_body(dest, headers, body)
    assert sent["type"] == "turn" and sent["game"] == game.pk
    assert sent["text"].startswith(f"Keltis #{game.pk}")
    assert sent["url"] == f"https://keltis.example/games/{game.pk}/"
    assert sent["deadline"] == game.deadline.isoformat()
    text = body.decode()
    for card in HAND_0 + HAND_1:
        assert not re.search(rf"\b{card}\b", text), card
    row = Notification.objects.get(user=bela, channel="webhook")
    assert row.status == NotificationStatus.SENT


def test_a_refused_destination_fails_the_row_at_once_and_a_player_without_one_is_skipped(
    table: Callable[..., Table], settings: Any
) -> None:
    t = table()
    anna, bela = t.users
    WebhookDestination.objects.create(user=bela, url="http://10.0.0.7/hook", format="json")
    choose_webhook(bela)
    choose_webhook(anna)
    play_turn(t)
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    outbox.deliver_due()
    assert (
        Notification.objects.get(user=bela, channel="webhook").status == NotificationStatus.FAILED
    )
    for row in Notification.objects.filter(user=anna, channel="webhook"):
        assert row.status == NotificationStatus.SKIPPED
