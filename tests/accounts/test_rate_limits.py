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


PROXY = "10.0.0.2"


def through_proxy(client_address: str, forged: str = "") -> dict[str, str]:
    """A request as the site's reverse proxy passes it on: from the proxy's own address, with
    the client's address appended to any X-Forwarded-For the client sent (``forged``)."""
    chain = f"{forged}, {client_address}" if forged else client_address
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": chain}


def test_behind_a_proxy_a_stranger_cannot_lock_the_owner_out_from_elsewhere(
    make_player, settings
) -> None:
    """With TRUSTED_PROXY_COUNT=1 every request comes from the proxy's address: the failed
    logins are counted per account and per client address as the proxy saw it (X-Forwarded-For),
    so a stranger's wrong passwords from address A leave the owner free on address B."""
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    make_player(email="anna@example.test")
    stranger = Client()
    for _ in range(allowed("login_failed")):
        response = log_in(stranger, password="wrong guess", **through_proxy(STRANGER))
        assert TOO_MANY not in response.content.decode()

    response = log_in(stranger, password=PASSWORD, **through_proxy(STRANGER))
    assert TOO_MANY in response.content.decode()
    assert not get_user(stranger).is_authenticated

    owner = Client()
    assert log_in(owner, password=PASSWORD, **through_proxy(OWNER)).status_code == 302
    assert get_user(owner).is_authenticated


def test_behind_a_proxy_a_forged_x_forwarded_for_neither_locks_the_owner_nor_frees_the_stranger(
    make_player, settings
) -> None:
    """A stranger who writes the owner's address (or ever new ones) into X-Forwarded-For is
    still counted on the address the proxy appended: the owner is not locked out, and the
    stranger gets no more guesses."""
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    make_player(email="anna@example.test")
    stranger = Client()
    for number in range(allowed("login_failed")):
        forged = f"{OWNER}, 192.0.2.{number}"
        log_in(stranger, password="wrong guess", **through_proxy(STRANGER, forged))

    response = log_in(stranger, password=PASSWORD, **through_proxy(STRANGER, "192.0.2.99"))
    assert TOO_MANY in response.content.decode()

    owner = Client()
    assert log_in(owner, password=PASSWORD, **through_proxy(OWNER)).status_code == 302


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
    assert [t.name for t in response.templates][:3] == ["429.html", "_error_page.html", "base.html"]
    assert "Too many requests" in response.content.decode()
