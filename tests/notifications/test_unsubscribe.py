"""Unsubscribing: GET asks, the page's POST (with CSRF) or RFC 8058's one-click POST acts."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import EmailMode, User
from notifications import links
from notifications.emails import send_notification
from tests.notifications.conftest import path_of, post_form, turn_notification

pytestmark = pytest.mark.django_db


def unsubscribe_path(user: User) -> str:
    return reverse("email_unsubscribe", args=[links.unsubscribe_token(user.pk)])


def mode(user: User) -> str:
    user.refresh_from_db()
    return user.email_mode


def test_get_asks_and_changes_nothing(make_user: Any) -> None:
    anna = make_user()
    page = Client().get(unsubscribe_path(anna))
    assert page.status_code == 200
    assert "Unsubscribe" in page.content.decode()
    assert mode(anna) == EmailMode.EVERY_TURN


def test_the_pages_button_unsubscribes(make_user: Any, browser: Client) -> None:
    anna = make_user()
    path = unsubscribe_path(anna)
    page = browser.get(path)
    done = post_form(browser, page.content.decode(), path)
    assert done.status_code == 200
    assert "You are unsubscribed" in done.content.decode()
    assert reverse("email_preferences") in done.content.decode()
    assert mode(anna) == EmailMode.NONE


def test_a_post_without_csrf_token_or_one_click_body_is_refused(
    make_user: Any, browser: Client
) -> None:
    anna = make_user()
    assert browser.post(unsubscribe_path(anna)).status_code == 403
    response = browser.post(unsubscribe_path(anna), {"List-Unsubscribe": "Yes please"})
    assert response.status_code == 403
    assert mode(anna) == EmailMode.EVERY_TURN


def test_one_click_from_the_email_header_works_without_csrf(table: Any, browser: Client) -> None:
    t = table()
    anna = t.users[0]
    send_notification(turn_notification(t))
    header = mail.outbox[0].extra_headers["List-Unsubscribe"]
    # as a mail provider sends it (RFC 8058): a form POST, no cookies, no CSRF token
    response = browser.post(
        path_of(header.strip("<>")),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert mode(anna) == EmailMode.NONE
    # and from now on no turn email goes out
    mail.outbox.clear()
    assert send_notification(turn_notification(t)) is False


def test_a_tampered_unsubscribe_link_explains_itself(make_user: Any) -> None:
    anna = make_user()
    token = links.unsubscribe_token(anna.pk)
    for bad in (token[:-3] + "xyz", "nonsense"):
        path = reverse("email_unsubscribe", args=[bad])
        one_click = Client().post(path, {"List-Unsubscribe": "One-Click"})
        for response in (Client().get(path), one_click):
            assert response.status_code == 400
            assert "does not work" in response.content.decode()
    assert mode(anna) == EmailMode.EVERY_TURN


def test_an_action_token_is_no_unsubscribe_token(table: Any) -> None:
    t = table()
    action = links.ActionLink(t.game.pk, 0, 0, 0, "draw deck").token()
    path = reverse("email_unsubscribe", args=[action])
    assert Client().post(path, {"List-Unsubscribe": "One-Click"}).status_code == 400
    assert mode(t.users[0]) == EmailMode.EVERY_TURN
