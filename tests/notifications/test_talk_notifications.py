"""Table talk as news (issue 29): a message queues rows for the others at the table by each
channel's choice for messages, inside the posting transaction; they are sent after the commit,
held while the reader is at the game's page; the message email and the push text; the turn
email's "Messages since your last turn"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import Block, EmailMode
from games import presence
from games.selectors import GameReads
from keltis_site import mail_headers
from notifications import outbox, table_talk
from notifications.channels import messages as channel_messages
from notifications.channels import webhook
from notifications.models import (
    Channel,
    ChannelMode,
    MessageMode,
    Notification,
    NotificationKind,
    NotificationStatus,
)
from notifications.reader import message_mode
from talk import services as talk
from talk.models import Message
from tests.notifications.conftest import Table, html_of, play_turn
from tests.notifications.inbound.conftest import DOMAIN

pytestmark = pytest.mark.django_db

HOSTILE = "<b>bold</b> & <script>alert(1)</script> [x](https://evil.example) *hi*"


@pytest.fixture(autouse=True)
def _talk_settings(settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 0  # quiet while present: its own test sets it
    settings.INBOUND_EMAIL_DOMAIN = DOMAIN
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_KEY_FILE = ""  # no push unless a test turns it on


def post(t: Table, seat: int, text: str) -> Message:
    return talk.message_post(game_id=t.game.pk, user=t.users[seat], text=text, via="page")


def rows(user: Any) -> dict[str, str]:
    return dict(
        Notification.objects.filter(user=user, kind=NotificationKind.MESSAGE).values_list(
            "channel", "key"
        )
    )


def choose(user: Any, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(user, name, value)
    user.save(update_fields=list(fields))


def message_emails(user: Any) -> list[Any]:
    return [m for m in mail.outbox if m.to == [user.email] and " wrote at " in m.subject]


# -- the rows -------------------------------------------------------------------------------------
def test_the_hook_is_registered_once() -> None:
    assert talk.POSTED_HOOKS.count(table_talk.message_posted) == 1


def test_the_defaults_every_message_by_email_and_push_with_the_turn_on_a_webhook() -> None:
    user: Any = type("Nobody", (), {"message_modes": {}})()
    assert message_mode(user, Channel.EMAIL) == MessageMode.EVERY_MESSAGE
    assert message_mode(user, Channel.PUSH) == MessageMode.EVERY_MESSAGE
    assert message_mode(user, Channel.WEBHOOK) == MessageMode.WITH_TURN
    user.message_modes = {"email": "bogus"}
    assert message_mode(user, Channel.EMAIL) == MessageMode.EVERY_MESSAGE


def test_a_message_queues_an_email_row_for_the_other_player_only(table: Any) -> None:
    t = table()
    anna, bela = t.users
    message = post(t, 0, "Good luck!")
    assert rows(bela) == {"email": f"message:{message.pk}:{bela.pk}"}
    assert rows(anna) == {}
    row = Notification.objects.get(user=bela, kind=NotificationKind.MESSAGE)
    assert (row.game_id, row.seat, row.seq, row.message_id) == (
        t.game.pk,
        1,
        message.seq,
        message.pk,
    )


@pytest.mark.parametrize(
    ("channel_modes", "message_modes", "expected"),
    [
        # a webhook on for turns: its default for talk is the next turn, so no row
        ({"webhook": ChannelMode.EVERY_TURN}, {}, {"email"}),
        ({"webhook": ChannelMode.EVERY_TURN}, {"webhook": "every_message"}, {"email", "webhook"}),
        # a channel off carries no talk, whatever its talk choice
        ({"webhook": ChannelMode.NONE}, {"webhook": "every_message"}, {"email"}),
        ({}, {"email": "with_turn"}, set()),
        ({}, {"email": "none"}, set()),
        ({"push": ChannelMode.DAILY_DIGEST}, {}, {"email", "push"}),
        ({"push": ChannelMode.EVERY_TURN}, {"push": "none"}, {"email"}),
    ],
)
def test_rows_per_channel_follow_the_choice_for_messages(
    table: Any, settings: Any, tmp_path: Any, channel_modes: Any, message_modes: Any, expected: Any
) -> None:
    settings.WEBPUSH_VAPID_KEY_FILE = str(tmp_path / "vapid.pem")  # push is on here
    t = table()
    bela = t.users[1]
    choose(bela, channel_modes=channel_modes, message_modes=message_modes)
    post(t, 0, "Hello")
    assert set(rows(bela)) == expected
    assert all(key.startswith(f"{c}:") for c, key in rows(bela).items() if c != "email")


def test_no_email_row_for_a_player_who_turned_game_emails_off(table: Any) -> None:
    t = table()
    choose(t.users[1], email_mode=EmailMode.NONE)
    post(t, 0, "Hello")
    assert rows(t.users[1]) == {}


def test_a_muted_table_a_blocker_a_bot_and_an_inactive_player_hear_nothing(
    table: Any, make_user: Callable[..., Any]
) -> None:
    t = table()
    anna, bela = t.users
    talk.mute(game_id=t.game.pk, user=bela)
    post(t, 0, "one")
    assert rows(bela) == {}

    talk.mute(game_id=t.game.pk, user=bela, muted=False)
    Block.objects.create(blocker=bela, blocked=anna)
    post(t, 0, "two")
    assert rows(bela) == {}

    Block.objects.all().delete()
    choose(bela, is_active=False)
    post(t, 0, "three")
    assert rows(bela) == {}

    choose(bela, is_active=True, is_bot=True)
    post(t, 0, "four")
    assert rows(bela) == {}

    choose(bela, is_bot=False)
    post(t, 0, "five")
    assert len(rows(bela)) == 1


def test_the_same_message_queues_its_rows_once(table: Any) -> None:
    t = table()
    message = post(t, 0, "Hello")
    table_talk.message_posted(message)
    assert Notification.objects.filter(kind=NotificationKind.MESSAGE).count() == 1


# -- delivery -------------------------------------------------------------------------------------
def test_the_message_email_goes_out_after_the_commit_with_the_games_headers(
    table: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = table()
    anna, bela = t.users
    choose(anna, display_name="Anna")
    post(t, 1, "Earlier words")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        message = post(t, 0, "Good luck,\nhave fun!")
    [email] = message_emails(bela)
    game = t.refresh()
    assert email.subject == f"Anna wrote at Keltis #{game.pk}: Good luck, have fun!"
    headers = email.extra_headers
    assert headers["Message-ID"] == mail_headers.message_id(f"message:{message.pk}:{bela.pk}")
    thread = mail_headers.message_id(f"game-{game.pk}")
    assert headers["References"] == headers["In-Reply-To"] == thread
    assert headers["Auto-Submitted"] == "auto-generated"
    assert headers["List-Unsubscribe"].startswith("<https://keltis.example/email/unsubscribe/")
    [reply_to] = email.reply_to
    assert reply_to.startswith("play+") and reply_to.endswith(f"@{DOMAIN}")
    assert "  Good luck,\n  have fun!" in email.body
    assert "Earlier words" in email.body  # the latest messages at the table
    assert f"https://keltis.example/games/{game.pk}/" in email.body
    assert Notification.objects.get(user=bela, kind="message").status == NotificationStatus.SENT


def test_the_message_email_escapes_html_and_shows_the_text_as_typed(table: Any) -> None:
    t = table()
    post(t, 0, HOSTILE)
    mail.outbox.clear()
    outbox.deliver_due()
    [email] = message_emails(t.users[1])
    html = html_of(email)
    assert "<script>" not in html and "<b>bold</b>" not in html
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;" in html
    assert 'href="https://evil.example' not in html
    assert HOSTILE in email.body  # the text part is plain text, as typed


def test_no_email_once_it_is_no_news(table: Any) -> None:
    """Hidden by staff, muted since, or answered at the table since: skipped."""
    t = table()
    bela = t.users[1]
    first = post(t, 0, "first")
    talk.message_hide(message_id=first.pk, staff=t.users[0])
    second = post(t, 0, "second")
    post(t, 1, "I read it")  # Bela answered: the second message is no news to him
    talk.mute(game_id=t.game.pk, user=t.users[0])
    third = post(t, 1, "a third, to a muted Anna")
    mail.outbox.clear()
    outbox.deliver_due()
    assert message_emails(bela) == [] and message_emails(t.users[0]) == []
    statuses = set(
        Notification.objects.filter(message__in=[first, second, third]).values_list(
            "status", flat=True
        )
    )
    assert statuses == {NotificationStatus.SKIPPED}


def test_quiet_while_the_reader_is_at_the_game(table: Any, settings: Any) -> None:
    settings.NOTIFICATION_QUIET_MINUTES = 10
    t = table()
    bela = t.users[1]
    presence.mark(t.game.pk, bela.pk)
    post(t, 0, "Are you there?")
    mail.outbox.clear()
    assert outbox.deliver_due().get("held") == 1
    row = Notification.objects.get(user=bela, kind="message")
    assert row.status == NotificationStatus.QUEUED and row.attempts == 0
    assert message_emails(bela) == []


# -- push and chat --------------------------------------------------------------------------------
def test_the_push_and_chat_text_is_plain_and_says_who_wrote(table: Any, settings: Any) -> None:
    settings.WEBPUSH_VAPID_KEY_FILE = "/nonexistent/vapid.pem"  # listed; nothing is sent here
    t = table()
    anna, bela = t.users
    choose(anna, display_name="Anna")
    choose(bela, channel_modes={"push": ChannelMode.EVERY_TURN})
    post(t, 0, HOSTILE + "\n" + "x" * 400)
    row = Notification.objects.get(user=bela, channel="push")
    text = channel_messages.describe(row, GameReads())
    assert text is not None
    assert text.title == f"Keltis #{t.game.pk}"
    assert text.body.startswith("Anna: <b>bold</b> & <script>")  # plain text, never HTML
    assert "&lt;" not in text.body and "\n" not in text.body
    assert len(text.body) <= len("Anna: ") + 200 and text.body.endswith("…")
    assert text.tag == f"talk-{t.game.pk}"
    # a Discord webhook shows the words as typed: no masked link, no emphasis
    event = {"type": "message", "text": f"{text.title}: {text.body}", "url": text.url}
    content = webhook.payload("discord", event)["content"]
    assert r"\[x\](https://evil.example) \*hi\*" in content
    assert webhook.payload("discord", {**event, "type": "turn"})["content"].count("\\") == 0


# -- the turn email --------------------------------------------------------------------------------
def turn_email(user: Any) -> Any:
    found = [m for m in mail.outbox if m.to == [user.email] and m.subject.startswith("Your turn")]
    assert found, "no turn email"
    return found[-1]


def test_the_turn_email_shows_the_messages_since_the_last_turn(table: Any) -> None:
    t = table()
    anna, bela = t.users
    choose(anna, display_name="Anna")
    choose(bela, display_name="Bela")
    post(t, 0, "Good <luck>")
    post(t, 1, "early words")  # Bela, before Anna's first turn ends
    play_turn(t)  # Anna: Bela's first turn
    mail.outbox.clear()
    outbox.deliver_due()
    email = turn_email(bela)
    assert "Messages since your last turn:\n- Anna: Good <luck>" in email.body
    assert "early words" not in email.body  # his own
    assert "Anna</strong>: Good &lt;luck&gt;" in html_of(email)

    post(t, 1, "late words")  # during Bela's turn: after Anna's last step
    play_turn(t)  # Bela: Anna's second turn
    mail.outbox.clear()
    outbox.deliver_due()
    email = turn_email(anna)
    assert "- Bela: late words" in email.body
    assert "early words" not in email.body  # written before her previous turn ended


@pytest.mark.parametrize("how", ["mode none", "muted"])
def test_no_messages_in_the_turn_email_for_never_or_a_muted_table(table: Any, how: str) -> None:
    t = table()
    bela = t.users[1]
    if how == "muted":
        talk.mute(game_id=t.game.pk, user=bela)
    else:
        choose(bela, message_modes={"email": MessageMode.NONE})
    post(t, 0, "Good luck")
    play_turn(t)
    mail.outbox.clear()
    outbox.deliver_due()
    email = turn_email(bela)
    assert "Messages since your last turn" not in email.body
    assert "Good luck" not in email.body


def test_with_the_turn_the_message_waits_for_the_turn_email(table: Any) -> None:
    t = table()
    bela = t.users[1]
    choose(bela, message_modes={"email": MessageMode.WITH_TURN})
    post(t, 0, "See you")
    mail.outbox.clear()
    outbox.deliver_due()
    assert message_emails(bela) == []
    play_turn(t)
    outbox.deliver_due()
    assert "See you" in turn_email(bela).body


# -- the settings ---------------------------------------------------------------------------------
def test_the_settings_page_sets_each_channels_choice_for_table_talk(
    client: Any, make_user: Callable[..., Any]
) -> None:
    anna = make_user()
    client.force_login(anna)
    page = client.get(reverse("email_preferences"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="talk-mode-email"' in html and 'id="talk-mode-webhook"' in html
    assert 'value="every_message" selected' in html  # email's default

    saved = client.post(reverse("notify_talk_mode", args=["email"]), {"mode": "with_turn"})
    assert saved.status_code == 302
    anna.refresh_from_db()
    assert anna.message_modes == {"email": "with_turn"}

    refused = client.post(reverse("notify_talk_mode", args=["email"]), {"mode": "loud"})
    assert refused.status_code == 302
    client.post(reverse("notify_talk_mode", args=["fax"]), {"mode": "none"})
    anna.refresh_from_db()
    assert anna.message_modes == {"email": "with_turn"}  # nothing changed
    assert client.get(reverse("notify_talk_mode", args=["email"])).status_code == 405


def test_the_account_settings_keep_the_talk_in_records_choice(
    client: Any, make_user: Callable[..., Any]
) -> None:
    anna = make_user(time_zone="UTC", language="en")
    client.force_login(anna)
    form = {"display_name": "Anna K", "time_zone": "UTC", "language": "en"}
    client.post(reverse("account_settings"), {**form, "talk_in_records": "on"})
    anna.refresh_from_db()
    assert anna.talk_in_records is True
    assert (
        "My table talk may be in downloaded game records"
        in client.get(reverse("account_settings")).content.decode()
    )
    client.post(reverse("account_settings"), form)  # the box left empty
    anna.refresh_from_db()
    assert anna.talk_in_records is False
