"""Every email is in its recipient's language and time zone, whoever's action sent it."""

from __future__ import annotations

import zoneinfo
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import formats, timezone, translation

from games.engine.bots import RandomBot
from games.models import GameStatus
from games.state import engine_state

pytestmark = pytest.mark.django_db


def fixed_parts(language: str, msgid: str) -> list[str]:
    """The words of a message around its placeholders, in ``language``."""
    with translation.override(language):
        text = translation.gettext(msgid)
    assert text != msgid, f"{msgid!r} is not translated into {language}"
    parts = [part.strip(" :,.") for part in text.split("%(game)s")]
    return [part for part in parts if len(part) > 2]


def test_a_polish_player_gets_polish_email_when_a_hungarian_player_moved(
    table: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = table("keltis", language="hu", time_zone="Europe/Budapest")
    anna, bela = t.users
    bela.language, bela.time_zone = "pl", "Europe/Warsaw"
    bela.save(update_fields=["language", "time_zone"])

    # Anna plays her whole turn on the game page, in Hungarian
    hungarian = Client()
    hungarian.force_login(anna)
    bot = RandomBot(5)
    game = t.refresh()
    while game.status == GameStatus.RUNNING and game.to_move == 0:
        with django_capture_on_commit_callbacks(execute=True):
            response = hungarian.post(
                f"/games/{game.pk}/act/",
                {"action": bot.choose(engine_state(game)), "seq": str(game.seq)},
                follow=True,
            )
        assert '<html lang="hu">' in response.content.decode()
        game = t.refresh()

    [message] = [m for m in mail.outbox if m.to == [bela.email]]
    for part in fixed_parts("pl", "Your turn in %(game)s"):
        assert part in message.subject
    for part in fixed_parts("hu", "Your turn in %(game)s"):
        assert part not in message.subject
    with translation.override("pl"):
        polish_hand = translation.gettext("Your hand:")
        deadline = formats.date_format(
            timezone.localtime(game.deadline, zoneinfo.ZoneInfo("Europe/Warsaw")),
            "DATETIME_FORMAT",
        )
    with translation.override("hu"):
        hungarian_hand = translation.gettext("Your hand:")
    assert polish_hand != hungarian_hand
    assert polish_hand in message.body and hungarian_hand not in message.body
    assert deadline in message.body  # Polish date format, Warsaw time
    assert message.extra_headers["Content-Language"] == "pl"
