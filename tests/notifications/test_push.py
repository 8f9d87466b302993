"""Web Push: a browser's subscription is stored from the settings page's script; a turn then
reaches a push service (here one on loopback) encrypted to the subscription's keys (RFC 8291,
aes128gcm) and signed with the site's VAPID key; the decrypted payload names the game, says
what happened and opens the game, and names no hidden card. A subscription the push service
answers 404 or 410 for is removed; one that fails for a while is retried."""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.test import Client

from games import presenters, selectors
from games.state import engine_state
from notifications import outbox
from notifications.channels import PermanentFailure, netguard, push
from notifications.channels.messages import Message
from notifications.models import (
    ChannelMode,
    Notification,
    NotificationKind,
    NotificationStatus,
    PushSubscription,
)
from tests.notifications.conftest import SITE, play_turn
from tests.notifications.test_netguard import fake_dns

pytestmark = pytest.mark.django_db


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PushService:
    """A push service on loopback: records each POST and answers ``status``."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                service.received.append((self.path, headers, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Browser:
    """A browser's push keys: the P-256 key pair and auth secret its subscription carries."""

    def __init__(self, endpoint: str) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.auth = os.urandom(16)
        self.subscription = {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(public), "auth": b64(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict[str, str]:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


@pytest.fixture
def service(settings: Any, tmp_path: Path) -> Iterator[PushService]:
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_KEY_FILE = str(tmp_path / "vapid_private_key.pem")
    settings.WEBPUSH_ALLOW_HTTP = True  # the loopback service; real ones are https
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]  # ... and on public addresses
    settings.NOTIFICATION_QUIET_MINUTES = 0
    server = PushService()
    yield server
    server.stop()


def subscribe(user: Any, subscription: dict[str, Any]) -> Any:
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)
    return client.post(
        "/settings/push/subscribe/", json.dumps(subscription), content_type="application/json"
    )


def test_a_turn_reaches_the_device_encrypted_to_its_keys(table: Any, service: PushService) -> None:
    t = table()
    anna, bela = t.users
    browser = Browser(f"{service.url}/push/bela-phone")
    assert subscribe(bela, browser.subscription).status_code == 201
    bela.refresh_from_db()
    assert bela.channel_modes == {"push": ChannelMode.EVERY_TURN}

    play_turn(t)  # Anna plays: Bela's turn
    outbox.deliver_due()

    game = t.refresh()
    row = Notification.objects.get(user=bela, channel="push", kind=NotificationKind.TURN)
    assert row.status == NotificationStatus.SENT
    [(path, headers, body)] = service.received
    assert path == "/push/bela-phone"
    assert headers["content-encoding"] == "aes128gcm"
    assert f"k={push.public_key()}" in headers["authorization"]  # the site's VAPID key
    key_file = Path(push.settings.WEBPUSH_VAPID_KEY_FILE)
    assert key_file.stat().st_mode & 0o777 == 0o600  # made on first use, its user's only
    payload = browser.decrypt(body)
    assert set(payload) == {"title", "body", "url", "tag"}
    assert str(game.pk) in payload["title"]
    assert "your turn" in payload["body"]
    assert anna.public_name in payload["body"]  # what happened: Anna's move
    assert payload["url"] == f"{SITE}/games/{game.pk}/"
    # what happened is the history's public line of Anna's move; her hand and the deck are
    # not in it (a card named in that line may have a twin in a hand: it is left out)
    last = selectors.game_history(game=game).events[-1]
    public = presenters.event_text(game.kind, last.action, last.seat_name, last.drawn)
    assert payload["body"].startswith(public)
    state = engine_state(game)
    hidden = {presenters.card_name(c) for c in state.hands[0] + state.deck[state.deck_pos :]}
    for name in hidden - {n for n in hidden if n in public}:
        assert name not in payload["body"]


def test_a_gone_subscription_is_removed(table: Any, service: PushService) -> None:
    t = table()
    bela = t.users[1]
    subscribe(bela, Browser(f"{service.url}/push/gone").subscription)
    service.status = 410
    play_turn(t)
    outbox.deliver_due()
    assert not PushSubscription.objects.filter(user=bela).exists()
    row = Notification.objects.get(user=bela, channel="push")
    assert row.status == NotificationStatus.SKIPPED  # nowhere left to send it
    bela.refresh_from_db()
    assert bela.channel_modes == {"push": "none"}  # the last device gone: push is off
    play_turn(t)
    play_turn(t)  # Bela's next turn: no push row any more
    assert Notification.objects.filter(user=bela, channel="push").count() == 1


def test_a_push_service_that_fails_is_tried_again(table: Any, service: PushService) -> None:
    t = table()
    bela = t.users[1]
    subscribe(bela, Browser(f"{service.url}/push/busy").subscription)
    service.status = 503
    play_turn(t)
    outbox.deliver_due()
    row = Notification.objects.get(user=bela, channel="push")
    assert (row.status, row.attempts) == (NotificationStatus.QUEUED, 1)
    assert PushSubscription.objects.filter(user=bela).exists()


def test_a_subscription_that_is_not_https_or_not_whole_is_refused(
    make_user: Any, service: PushService, settings: Any
) -> None:
    user = make_user()
    settings.WEBPUSH_ALLOW_HTTP = False
    answer = subscribe(user, Browser("http://127.0.0.1:9/push").subscription)
    assert answer.status_code == 400 and "error" in answer.json()
    assert subscribe(user, {"endpoint": "https://push.example/x"}).status_code == 400
    assert not PushSubscription.objects.exists()


def test_a_push_address_on_a_private_network_is_refused_and_never_pushed_to(
    make_user: Any, service: PushService, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The address comes from the browser: a forged one must not point the site's pushes at
    its own network (the chat webhooks' guard, notifications.channels.netguard)."""
    user = make_user()
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    answer = subscribe(user, Browser(service.url).subscription)  # loopback, not allowed now
    assert answer.status_code == 400
    monkeypatch.setattr(netguard, "lookup", lambda host, port: ["10.1.2.3"])
    assert subscribe(user, Browser("https://push.example/x").subscription).status_code == 400
    assert not PushSubscription.objects.exists()
    # a stored subscription whose name now resolves to a private address is dropped unsent
    forged = PushSubscription.objects.create(
        user=user, endpoint="https://push.example/y", p256dh="x", auth="y"
    )
    with pytest.raises(PermanentFailure):
        push.push_to(forged, Message("t", "b", "https://keltis.example/", "tag"))
    assert not PushSubscription.objects.exists() and service.received == []


def test_a_push_goes_to_the_address_that_was_checked(
    make_user: Any, service: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The push service's name is resolved once, by the guard; pywebpush's connection goes to
    that address under the name, so a second DNS answer (rebinding to the site's own network)
    is never asked for. Here the name does not exist at all: only the pinned address works."""
    port = service.server.server_address[1]
    browser = Browser(f"http://push.example:{port}/push/pinned")
    keys = browser.subscription["keys"]
    subscription = PushSubscription.objects.create(
        user=make_user(), endpoint=browser.subscription["endpoint"], **keys
    )
    asked = fake_dns(monkeypatch, ["127.0.0.1"], ["10.9.9.9"])
    push.push_to(subscription, Message("t", "b", "https://keltis.example/", "tag"))
    assert asked == ["push.example"]
    [(path, headers, body)] = service.received
    assert (path, headers["host"]) == ("/push/pinned", f"push.example:{port}")
    assert browser.decrypt(body)["title"] == "t"


def test_the_pinned_session_refuses_any_other_destination() -> None:
    """A redirect or a second URL through the pinned session goes nowhere."""
    target = netguard.Target("https", "push.example", 443, "/x", "127.0.0.1")
    session = netguard.pinned_session(target)
    with pytest.raises(requests.ConnectionError):
        session.post("https://other.example/x", data=b"")
    with pytest.raises(requests.ConnectionError):
        session.post("http://push.example:443/x", data=b"")


def test_the_service_worker_is_served_from_the_root(client: Client) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Service-Worker-Allowed"] == "/"
    assert b"showNotification" in answer.content and b"notificationclick" in answer.content
