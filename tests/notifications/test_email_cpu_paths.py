"""The worker's cheaper paths to an email (issue 30) write the same email as before: a batch's
queries grow by a constant per email, the turn email's "since your last turn" equals the one
the whole replay gave, the talk check skips only when there is nothing to show, and the MIME
message (its boundary chosen early, its folded headers remembered) is byte for byte what
Django's own message writes."""

from __future__ import annotations

import re
from email.utils import formatdate
from typing import Any

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.db import DatabaseError
from django.urls import reverse

from games import selectors
from notifications import emails, links, outbox
from notifications.models import Notification, NotificationKind, NotificationStatus
from talk import selectors as talk_selectors
from talk import services as talk
from tests.notifications.conftest import Table, game_over_rows, play_turn, turn_notification

pytestmark = pytest.mark.django_db

#: the statements of a batch whatever its size (the claim, the rows, and read ahead: the
#: games' seats, logs and table talk) and of each turn email (marking it sent)
BATCH_QUERIES, TURN_EMAIL_QUERIES = 5, 1


@pytest.fixture(autouse=True)
def _no_quiet(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0


def played(table: Table, turns: int) -> Table:
    for turn in range(turns):
        play_turn(table, seed=turn + 1)
    return table


def _fresh_turn_rows(tables: list[Table]) -> list[Notification]:
    Notification.objects.update(status=NotificationStatus.SENT)
    return [turn_notification(t) for t in tables]


@pytest.mark.parametrize("games", [1, 4])
def test_a_batch_of_turn_emails_makes_a_constant_number_of_queries_per_email(
    table: Any, games: int, django_assert_max_num_queries: Any
) -> None:
    tables = [played(table(kind=("keltis", "keltis-cards")[i % 2]), 3) for i in range(games)]
    rows = _fresh_turn_rows(tables)
    mail.outbox.clear()

    with django_assert_max_num_queries(BATCH_QUERIES + TURN_EMAIL_QUERIES * games):
        assert outbox.deliver_many([r.pk for r in rows]) == {"sent": games}

    assert sorted(m.to[0] for m in mail.outbox) == sorted(r.user.email for r in rows)


def test_reading_ahead_gives_each_game_what_it_reads_alone(table: Any) -> None:
    games = [played(table(kind=kind), 2).refresh() for kind in ("keltis", "keltis-cards")]
    ahead = selectors.GameReads()
    ahead.read_ahead(games, events_of=games[1:])
    for game in games:
        alone = selectors.GameReads()
        assert [(s.pk, s.index, s.user.email) for s in ahead.seat_rows(game)] == [
            (s.pk, s.index, s.user.email) for s in alone.seat_rows(game)
        ]
    assert ahead.events(games[1]) == selectors.GameReads().events(games[1])
    assert (games[0].pk, games[0].seq) not in ahead._events  # only the logs asked for


def test_a_failed_read_ahead_leaves_each_email_to_read_its_own(
    table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [played(table(), 1) for _ in range(2)]
    rows = _fresh_turn_rows(tables)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise DatabaseError("the connection dropped")

    monkeypatch.setattr(selectors.GameReads, "read_ahead", broken)
    mail.outbox.clear()
    assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 2}
    assert sorted(m.to[0] for m in mail.outbox) == sorted(r.user.email for r in rows)


def test_one_games_game_over_batch_reads_it_once(
    make_user: Any, django_assert_max_num_queries: Any
) -> None:
    """Four emails: the batch's statements (its seats read ahead), the game's state read
    once, one update per email."""
    rows = game_over_rows(make_user)
    Notification.objects.exclude(kind=NotificationKind.FINISHED).update(
        status=NotificationStatus.SENT
    )
    with django_assert_max_num_queries(BATCH_QUERIES + 1 + len(rows)):
        assert outbox.deliver_many([r.pk for r in rows]) == {"sent": 4}


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_since_your_last_turn_is_what_the_whole_replay_says(table: Any, kind: str) -> None:
    """Each seat's window of the latest events, their drawn cards too, as ``game_history``
    lists them (it replays and views every position)."""
    t = played(table(kind=kind), 9)
    game = t.refresh()
    whole = selectors.game_history(game=game).events
    assert any(e.drawn for e in whole) or kind == "keltis"  # the card game draws from piles
    for seat in (0, 1):
        latest = selectors.latest_events(
            game=game, reads=selectors.GameReads(),
            window=lambda events, seat=seat: emails._since_window(events, seat),
        )  # fmt: skip
        assert emails.since_last_turn(latest, seat) == emails.since_last_turn(whole, seat)
        assert [(e.seq, e.seat) for e in latest] == [(e.seq, e.seat) for e in whole]


def test_the_talk_check_skips_only_when_there_is_nothing_to_show(table: Any) -> None:
    t = table()
    game, anna, bela = t.refresh(), *t.users
    assert not emails._others_wrote(game, anna, -1)
    talk.message_post(game_id=game.pk, user=anna, text="mine", via="page")
    assert not emails._others_wrote(game, anna, -1)  # her own message is no news to her
    assert talk_selectors.messages_since_turn(game, anna, -1) == []
    hidden = talk.message_post(game_id=game.pk, user=bela, text="hidden", via="page")
    talk.message_hide(message_id=hidden.pk, staff=anna)
    assert not emails._others_wrote(game, anna, -1)
    talk.message_post(game_id=game.pk, user=bela, text="hello", via="page")
    assert emails._others_wrote(game, anna, -1)
    assert not emails._others_wrote(game, anna, game.seq + 1)  # written before that move
    assert [m.text for m in talk_selectors.messages_since_turn(game, anna, -1)] == ["hello"]


def test_the_talk_read_ahead_answers_as_the_check_does(table: Any) -> None:
    t = table()
    game, anna, bela = t.refresh(), *t.users

    def agree() -> None:
        reads = emails.MailReads()
        reads.read_talk_ahead([game])
        for user in (anna, bela):
            for since in (-1, 0, game.seq, game.seq + 1):
                assert reads.others_wrote(game, user, since) == emails._others_wrote(
                    game, user, since
                ), (user, since)

    agree()
    talk.message_post(game_id=game.pk, user=anna, text="mine", via="page")
    agree()
    hidden = talk.message_post(game_id=game.pk, user=bela, text="hidden", via="page")
    talk.message_hide(message_id=hidden.pk, staff=anna)
    agree()
    talk.message_post(game_id=game.pk, user=bela, text="hello", via="page")
    agree()
    later = emails.MailReads()
    later.read_talk_ahead([game])
    assert later.others_wrote(game, anna, -1) is True
    game.seq += 1  # a later turn of the same game was not read ahead: the check asks itself
    assert later.others_wrote(game, anna, -1) is None


def test_a_turn_email_still_lists_what_the_others_wrote(table: Any) -> None:
    t = played(table(), 1)
    anna, bela = t.users
    talk.message_post(game_id=t.game.pk, user=bela, text="your move, Anna", via="page")
    play_turn(t, seed=2)
    row = _fresh_turn_rows([t])[0]
    assert row.user == anna
    mail.outbox.clear()
    assert outbox.deliver_many([row.pk]) == {"sent": 1}
    [message] = mail.outbox
    assert "your move, Anna" in message.body


SAMPLE_HEADERS = {
    "Date": formatdate(0),
    "Message-ID": "<turn-1-0-3@keltis.example>",
    "List-Unsubscribe": "<https://keltis.example/notifications/unsubscribe/"
    + "x" * 120
    + "/>, <mailto:unsubscribe@keltis.example>",
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "Auto-Submitted": "auto-generated",
    "References": "<game-1@keltis.example>",
}


@pytest.mark.parametrize(
    "subject",
    [
        "Your turn in Keltis #1",
        "Te jössz: Keltis \u2013 Kártyajáték #12 " * 3,
        "Ваш ход: Кельтис #7",
    ],
)
def test_the_message_is_byte_for_byte_djangos_own(subject: str) -> None:
    body = "Hello,\n\nyour turn.\n" + "a long line of the email's text, " * 6 + "\n"
    html = "<p>Hello, <b>your turn</b>. Ünnep \u2013 ход</p>"

    def built(cls: type[EmailMultiAlternatives]) -> EmailMultiAlternatives:
        message = cls(
            subject=subject, body=body, from_email="Keltis <noreply@keltis.example>",
            to=["anna@mail.example"], headers=dict(SAMPLE_HEADERS),
            reply_to=["play+abc@keltis.example"],
        )  # fmt: skip
        message.attach_alternative(html, "text/html")
        return message

    for _ in range(2):  # the second time its folded headers are remembered ones
        ours = built(emails._Email).message()
        boundary = ours.get_boundary()
        assert re.fullmatch(r"=+\d+==", boundary)
        theirs = built(EmailMultiAlternatives).message()
        theirs.set_boundary(boundary)  # the generator's random choice, made the same
        assert ours.as_bytes(linesep="\r\n") == theirs.as_bytes(linesep="\r\n")


def test_a_boundary_found_in_the_text_is_left_to_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = "===============1234567890123456789=="
    monkeypatch.setattr(emails.Generator, "_make_boundary", classmethod(lambda cls: taken))
    message = emails._Email(subject="s", body=f"--{taken}\n", to=["a@mail.example"])
    message.attach_alternative("<p>x</p>", "text/html")
    assert message.message().get_boundary() is None


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_action_paths_are_the_ones_reverse_makes(table: Any, kind: str) -> None:
    """The paths made with one ``reverse`` an email are the ones ``reverse`` makes for each."""
    t = table(kind=kind)
    game = t.refresh()
    page = selectors.game_page(game=game, user=t.users[0], with_rated=False)
    link = links.ActionLink(game.pk, 0, game.turn_seq, game.seq, "")
    choices = [
        c for g in emails.linked_groups(game.kind, page.legal, page.view, link) for c in g.choices
    ]
    assert sorted(c.action for c in choices) == sorted(page.legal)
    for choice in choices:
        token = choice.path.rstrip("/").rsplit("/", 1)[1]
        assert choice.path == reverse("email_action", args=[token])
        assert links.action_read(token) == link.next_step(seq=game.seq, action=choice.action)
        assert choice.url == links.absolute(choice.path)
