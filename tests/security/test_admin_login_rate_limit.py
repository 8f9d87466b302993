"""ADMIN_LOGIN_RATE_LIMIT: past the limit, POSTs to the admin login from one client IP are
answered 429 with the site's 429 page, and the password is not even checked."""

from __future__ import annotations

import time
from typing import Any

import pytest
import time_machine
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from keltis_site.admin_site import AdminSite

pytestmark = pytest.mark.django_db

#: the start of a minute soon (the fixed window starts afresh there)
MINUTE = (int(time.time()) // 60 + 1) * 60
PASSWORD = "a long pass phrase"  # make_user's


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("root", is_staff=True, is_superuser=True)


def login(client: Client, password: str, ip: str = "203.0.113.7", **headers: str) -> Any:
    return client.post(
        reverse("admin:login"),
        {"username": "root", "password": password, "next": "/admin/"},
        REMOTE_ADDR=ip,
        headers=headers,
    )


def test_the_admin_site_is_ours() -> None:
    assert isinstance(admin.site, AdminSite)


def test_the_default_limit(settings: Any) -> None:
    assert settings.ADMIN_LOGIN_RATE_LIMIT == "10/m"


def test_past_the_limit_the_admin_login_is_429_even_with_the_right_password(
    client: Client, staff: Any, settings: Any
) -> None:
    settings.ADMIN_LOGIN_RATE_LIMIT = "3/m"
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(3):
            response = login(client, "wrong")
            assert response.status_code == 200  # the form again, with its error
            assert "correct username and password" in response.content.decode()
        response = login(client, PASSWORD)

        assert response.status_code == 429
        names = [t.name for t in response.templates]
        assert names[:3] == ["429.html", "_error_page.html", "base.html"]
        assert "Too many requests" in response.content.decode()
        assert "_auth_user_id" not in client.session  # not logged in
        # looking at the form is not counted, and still works
        assert client.get(reverse("admin:login"), REMOTE_ADDR="203.0.113.7").status_code == 200
    # the next window starts afresh
    with time_machine.travel(MINUTE + 60, tick=False):
        response = login(client, PASSWORD)
        assert response.status_code == 302
        assert response["Location"] == "/admin/"


def test_the_limit_is_per_client_ip(client: Client, staff: Any, settings: Any) -> None:
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/m"
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(2):
            login(client, "wrong", ip="203.0.113.7")
        assert login(client, "wrong", ip="203.0.113.7").status_code == 429

        assert login(Client(), PASSWORD, ip="198.51.100.20").status_code == 302


def test_behind_a_trusted_proxy_the_client_ip_comes_from_x_forwarded_for(
    client: Client, staff: Any, settings: Any
) -> None:
    """Every request arrives from the proxy's address; the clients are told apart by the
    address the proxy appended, and a forged leftmost entry does not escape the limit."""
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/m"
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.2"
    with time_machine.travel(MINUTE, tick=False):
        login(client, "wrong", ip=proxy, x_forwarded_for="203.0.113.7")
        login(client, "wrong", ip=proxy, x_forwarded_for="1.2.3.4, 203.0.113.7")
        response = login(client, "wrong", ip=proxy, x_forwarded_for="5.6.7.8, 203.0.113.7")
        assert response.status_code == 429

        other = login(Client(), PASSWORD, ip=proxy, x_forwarded_for="198.51.100.20")
        assert other.status_code == 302
