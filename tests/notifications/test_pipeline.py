"""The whole path, in-process: a turn begins → notifications.outbox queues the row → after
commit the task delivers it through notifications.emails → the player confirms from the email →
the next player's email arrives. (The CI test with a real worker, Redis and SMTP lives with the
deadline tests.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client

from games.services import game_create, game_join
from notifications.models import Notification, NotificationKind, NotificationStatus
from tests.notifications.conftest import action_links, forms_in, path_of, post_form

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_turn_played_from_the_email_brings_the_next_players_email(
    make_user: Any, django_capture_on_commit_callbacks: Any, kind: str
) -> None:
    anna, bela = make_user(), make_user()
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create(creator=anna, kind=kind, player_count=2)
        game_join(game_id=game.pk, user=bela)
    [first] = mail.outbox
    assert first.to == [anna.email]
    row = Notification.objects.get(kind=NotificationKind.TURN, user=anna)
    assert row.status == NotificationStatus.SENT

    browser = Client(enforce_csrf_checks=True)
    path = path_of(action_links(first.body)[0])
    page = browser.get(path)
    assert len(mail.outbox) == 1  # looking sends and changes nothing
    with django_capture_on_commit_callbacks(execute=True):
        response = post_form(browser, page.content.decode(), path)
    while "Your turn is done" not in response.content.decode():
        html = response.content.decode()
        with django_capture_on_commit_callbacks(execute=True):
            response = post_form(browser, html, forms_in(html)[0])
        assert response.status_code == 200
    second = mail.outbox[-1]
    assert second.to == [bela.email]
    assert len(action_links(second.body)) > 0
    # a task delivered twice sends one email
    from notifications import outbox

    assert outbox.deliver(row.pk) == "not_claimed"
    assert len([m for m in mail.outbox if m.to == [anna.email]]) == 1
