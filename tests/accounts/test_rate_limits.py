"""Failed logins are limited (ACCOUNT_RATE_LIMITS, counted in the cache)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user
from django.test import Client
from django.urls import reverse

from tests.accounts.helpers import PASSWORD, log_in

pytestmark = pytest.mark.django_db


def allowed(action: str) -> int:
    """How many times the configured limits of an action allow it to one client (one IP) for
    one key (one email address) in a short time: the smallest amount among its rates."""
    rates = settings.ACCOUNT_RATE_LIMITS[action].split(",")
    return min(int(rate.split("/")[0]) for rate in rates)


def test_rate_limits_are_configured_for_the_account_actions() -> None:
    assert {"login", "login_failed", "signup", "reset_password"} <= set(
        settings.ACCOUNT_RATE_LIMITS
    )


def test_after_the_allowed_failed_logins_the_next_attempt_is_refused(
    client: Client, make_player
) -> None:
    make_player(email="anna@example.test")
    for _ in range(allowed("login_failed")):
        response = log_in(client, password="wrong guess")
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()

    # Even the right password is refused now, with an explanation.
    response = log_in(client, password=PASSWORD)

    assert response.status_code == 200
    assert "Too many failed login attempts. Try again later." in response.content.decode()
    assert not get_user(client).is_authenticated


def test_failed_logins_below_the_limit_do_not_block(client: Client, make_player) -> None:
    make_player(email="anna@example.test")
    for _ in range(allowed("login_failed") - 1):
        log_in(client, password="wrong guess")

    assert log_in(client, password=PASSWORD).status_code == 302
    assert get_user(client).is_authenticated


STRANGER = "203.0.113.7"
OWNER = "198.51.100.20"
TOO_MANY = "Too many failed login attempts. Try again later."


def test_a_strangers_failed_logins_lock_the_stranger_out_not_the_owner(make_player) -> None:
    make_player(email="anna@example.test")
    stranger = Client(REMOTE_ADDR=STRANGER)
    for _ in range(allowed("login_failed")):
        assert TOO_MANY not in log_in(stranger, password="wrong guess").content.decode()

    # The stranger is out of this account, even with the right password...
    response = log_in(stranger, password=PASSWORD)
    assert TOO_MANY in response.content.decode()
    assert not get_user(stranger).is_authenticated

    # ...and the owner, on another address, logs in as usual.
    owner = Client(REMOTE_ADDR=OWNER)
    assert log_in(owner, password=PASSWORD).status_code == 302
    assert get_user(owner).is_authenticated


def test_one_address_cannot_spray_guesses_over_many_accounts(make_player) -> None:
    per_ip = min(
        int(rate.split("/")[0])
        for rate in settings.ACCOUNT_RATE_LIMITS["login_failed"].split(",")
        if rate.endswith("/ip")
    )
    for number in range(per_ip + 1):
        make_player(email=f"p{number}@example.test", display_name=f"Player {number}")
    stranger = Client(REMOTE_ADDR=STRANGER)
    for number in range(per_ip):  # one guess per account: the per-account limit never bites
        log_in(stranger, email=f"p{number}@example.test", password="wrong guess")

    response = log_in(stranger, email=f"p{per_ip}@example.test", password=PASSWORD)

    assert TOO_MANY in response.content.decode()
    assert log_in(Client(REMOTE_ADDR=OWNER), email=f"p{per_ip}@example.test").status_code == 302


def test_too_many_signups_from_one_client_get_the_sites_429_page(client: Client) -> None:
    for _ in range(allowed("signup")):
        assert client.post(reverse("account_signup"), {}).status_code == 200  # form errors

    response = client.post(reverse("account_signup"), {})

    assert response.status_code == 429
    assert [t.name for t in response.templates][:2] == ["429.html", "base.html"]
    assert "Too many requests" in response.content.decode()
