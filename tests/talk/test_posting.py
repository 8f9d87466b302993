"""Posting at a table (talk.services.message_post): who may, what a message may hold, the rate
limits, and what each reader is shown (hidden by staff, blocked authors, muted tables)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts import blocks
from games.models import Game, GameStatus
from games.services import game_create, game_join
from talk import selectors, services
from talk.models import Message, Suspension
from talk.services import (
    MessageNotValid,
    NotAtTheTable,
    TalkClosed,
    TalkSuspended,
    TalkTooFast,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(make_user: Any) -> tuple[Game, Any, Any]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    return Game.objects.get(pk=game.pk), anna, bela


def test_a_player_writes_and_both_read_it_at_its_move(table: tuple[Game, Any, Any]) -> None:
    game, anna, bela = table
    message = services.message_post(game_id=game.pk, user=anna, text="  Good luck!\r\n\n")
    assert message.text == "Good luck!" and message.seq == game.seq
    for reader in (anna, bela):
        [shown] = selectors.messages_for(game, reader)
        assert (shown.author, shown.text) == (anna.public_name, "Good luck!")
    assert selectors.messages_since_turn(game, bela, since_seq=-1)[0].text == "Good luck!"
    assert selectors.messages_since_turn(game, anna, since_seq=-1) == []  # not one's own


def test_strangers_bots_and_bad_texts_post_nothing(
    table: tuple[Game, Any, Any], make_user: Any, settings: Any
) -> None:
    game, anna, _bela = table
    stranger = make_user("stranger")
    with pytest.raises(NotAtTheTable):
        services.message_post(game_id=game.pk, user=stranger, text="hi")
    settings.TALK_MAX_LENGTH = 10
    bad = ["", "   \n ", "x" * 11, "hi\u202ethere", "a\u0000b", "zero\u200bwidth", "\u0301x"]
    for text in bad:
        with pytest.raises(MessageNotValid) as raised:
            services.message_post(game_id=game.pk, user=anna, text=text)
        assert str(raised.value)
    assert services.message_post(game_id=game.pk, user=anna, text="two\nlines").text == (
        "two\nlines"
    )
    assert Message.objects.count() == 1


def test_the_rate_limit_and_a_suspension_stop_a_writer(
    table: tuple[Game, Any, Any], settings: Any
) -> None:
    game, anna, bela = table
    settings.TALK_RATE_PER_MINUTE = "2/m"
    services.message_post(game_id=game.pk, user=anna, text="one")
    services.message_post(game_id=game.pk, user=anna, text="two")
    with pytest.raises(TalkTooFast):
        services.message_post(game_id=game.pk, user=anna, text="three")
    Suspension.objects.create(user=bela, until=timezone.now() + timedelta(days=1))
    with pytest.raises(TalkSuspended):
        services.message_post(game_id=game.pk, user=bela, text="hi")


def test_talk_closes_thirty_days_after_the_end(table: tuple[Game, Any, Any]) -> None:
    game, anna, _bela = table
    Game.objects.filter(pk=game.pk).update(
        status=GameStatus.FINISHED, finished_at=timezone.now() - timedelta(days=29)
    )
    services.message_post(game_id=game.pk, user=anna, text="well played")
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(days=31))
    with pytest.raises(TalkClosed):
        services.message_post(game_id=game.pk, user=anna, text="late")


def test_hidden_blocked_and_muted_messages_are_not_shown(
    table: tuple[Game, Any, Any], make_user: Any
) -> None:
    game, anna, bela = table
    staff = make_user("staff", is_staff=True)
    rude = services.message_post(game_id=game.pk, user=anna, text="rude words")
    services.report(message_id=rude.pk, user=bela, reason="rude")
    services.message_hide(message_id=rude.pk, staff=staff)
    [shown] = selectors.messages_for(game, bela)
    assert shown.hidden and shown.text == ""
    assert rude.reports.get().resolved_at is not None
    services.message_post(game_id=game.pk, user=anna, text="sorry")
    blocks.block(blocker=bela, blocked=anna)
    assert selectors.messages_for(game, bela) == []
    assert [m.text for m in selectors.messages_for(game, anna)] == ["", "sorry"]
    services.message_post(game_id=game.pk, user=bela, text="hm")
    services.mute(game_id=game.pk, user=anna)
    assert selectors.messages_since_turn(game, anna, since_seq=-1) == []
