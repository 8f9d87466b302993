"""A new account's time zone is the browser's, sent in the sign-up form's hidden field
(accounts/static/accounts/browser_time_zone.js; tests/browser/test_signup_time_zone.py runs the
script): kept when the site lists the zone, UTC otherwise and without the script."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from tests.accounts.helpers import sign_up

pytestmark = pytest.mark.django_db


def test_the_browsers_time_zone_is_the_new_accounts(client: Client) -> None:
    response = sign_up(client, time_zone="America/Argentina/Buenos_Aires")

    assert response.status_code == 302
    assert User.objects.get().time_zone == "America/Argentina/Buenos_Aires"


@pytest.mark.parametrize("sent", [None, "", "Mars/Olympus_Mons", "localtime", "x" * 300])
def test_without_a_listed_zone_the_account_starts_in_utc(client: Client, sent: str | None) -> None:
    fields = {} if sent is None else {"time_zone": sent}

    response = sign_up(client, **fields)

    assert response.status_code == 302  # the player never typed it: no reason to refuse
    assert User.objects.get().time_zone == "UTC"
