"""A turn email's words do not change when the way it is built does (issue 30's cheaper reads
and presenters): the text and HTML parts for a fixed game, at a fixed time, are the ones kept
in ``golden/``, written by the code before that work. Only what differs from run to run is
replaced: the game's id and the signed tokens (each checked to name its action first)."""

from __future__ import annotations

import re
import types
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from django.core import mail

from games.services import game_create, game_join
from games.state import engine_state
from notifications import links, outbox
from notifications.models import Notification, NotificationStatus
from tests.notifications.conftest import (
    HAND_0,
    HAND_1,
    SITE,
    Table,
    html_of,
    play_turn,
    rig_hands,
    turn_notification,
)

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden"
WHEN = datetime(2030, 5, 6, 9, 30, tzinfo=UTC)
_TOKEN = re.compile(re.escape(SITE) + r"/t/([^/\s\"]+)/")
_UNSUBSCRIBE = re.compile(r"/email/unsubscribe/[^/\s\"]+/")


def rigged_table(kind: str) -> Table:
    """Anna and Bela's game of ``kind``, its hands rigged, seven turns played, every row sent."""
    from accounts.models import User

    anna = User.objects.create_user(
        username=f"anna-{kind}", email=f"anna-{kind}@mail.example", display_name="Anna"
    )
    bela = User.objects.create_user(
        username=f"bela-{kind}", email=f"bela-{kind}@mail.example", display_name="Bela"
    )
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    rig_hands(game, [HAND_0, HAND_1])
    table = Table(game, [anna, bela])
    for turn in range(7):
        play_turn(table, seed=turn + 1)
    Notification.objects.update(status=NotificationStatus.SENT)
    return table


def turn_email(kind: str) -> tuple[str, str, int]:
    """The text and HTML of the turn email after seven turns of a rigged game, and its id."""
    table = rigged_table(kind)
    row = turn_notification(table)
    mail.outbox.clear()
    assert outbox.deliver_many([row.pk]) == {"sent": 1}
    [message] = mail.outbox
    game = table.refresh()
    hand = engine_state(game).view(row.seat)["players"][row.seat]["hand"]
    assert hand  # the recipient's own hand is the one shown (test_turn_emails: never another's)
    return message.body, html_of(message), game.pk


def normalised(text: str, game_id: int) -> str:
    def token(match: re.Match[str]) -> str:
        link = links.action_read(match.group(1))
        assert link.game_id == game_id
        return f"{SITE}/t/<{link.seat} {link.turn_seq} {link.seq} {link.action}>/"

    text = _UNSUBSCRIBE.sub("/email/unsubscribe/<token>/", _TOKEN.sub(token, text))
    # the game's number, not a colour that starts with its digits (#1e1e1e in game 1)
    text = re.sub(rf"#{game_id}(?![0-9A-Za-z])", "#<game>", text)
    return text.replace(f"/{game_id}/", "/<game>/")


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_turn_emails_text_and_html_are_as_before(
    kind: str, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0  # type: ignore[attr-defined]
    monkeypatch.setattr("games.services.secrets", types.SimpleNamespace(randbits=lambda n: 30))
    with time_machine.travel(WHEN, tick=False):
        text, html, game_id = turn_email(kind)
    for part, got in (("txt", text), ("html", html)):
        expected = (GOLDEN / f"turn_email_{kind}.{part}").read_text()
        assert normalised(got, game_id) == expected
