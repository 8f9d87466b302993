"""The invitation email (friends.mail): its words, language and headers; its sending (once, by
the task or the sweep, retried, skipped, bounced); "never email me again" (friends.optout and
its page); and the replies by email: "yes"/"no" to an invitation or to a game-over email
(friends.replies through notifications.inbound's routes), and a bounce's delivery report."""

from __future__ import annotations

import itertools
import smtplib
import socket
from collections.abc import Callable, Iterator
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.core import mail as django_mail
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import EmailMode, User
from friends import invitations, mail, optout, tasks
from friends.invitations import AddressRefused
from friends.models import Invitation, InvitationStatus, MailStatus, OptOut, Rematch
from games.models import Game, GameStatus
from games.services import game_create, game_finish_early, game_join
from games.state import engine_state
from keltis_site import mail_headers
from notifications import emails, links
from notifications.inbound.handler import EX_NOUSER, EX_OK, receive
from notifications.models import InboundMessage, InboundOutcome, Notification, NotificationKind

pytestmark = pytest.mark.django_db

SITE = "https://keltis.example"
_ids = itertools.count(1)
DOMAIN = "play.keltis.example"


@pytest.fixture(autouse=True)
def _mail(settings: Any) -> None:
    settings.SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.INBOUND_EMAIL_DOMAIN = DOMAIN
    settings.INBOUND_AUTHSERV_ID = "mx.keltis.example"
    settings.INBOUND_RATE_LIMIT = "1000/h"


@pytest.fixture
def person(make_user: Callable[..., User]) -> Callable[..., User]:
    """A member whose sign-in address is verified, as sign-up leaves it."""

    def make(name: str, **fields: Any) -> User:
        user = make_user(name, **fields)
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return user

    return make


def invite(
    capture: Any, creator: User, invitees: list[str], players: int = 2, **kwargs: Any
) -> list[Invitation]:
    """A table with ``invitees``, its after-commit hooks run (the email task, eager)."""
    with capture(execute=True):
        game = invitations.game_create_with_invitations(
            creator=creator, invitees=invitees, kind="keltis", player_count=players, **kwargs
        )
    return list(Invitation.objects.filter(game=game).order_by("pk"))


def reply(to: str, sender: str, body: str, **headers: str) -> bytes:
    message = EmailMessage()
    message["From"] = f"Someone <{sender}>"
    message["To"] = to
    message["Subject"] = "Re: invitation"
    message["Message-ID"] = headers.pop("message_id", f"<reply-{next(_ids)}@client.example>")
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message.as_bytes()


def only_email() -> Any:
    [message] = django_mail.outbox
    return message


# -- the email ------------------------------------------------------------------------------------
def test_a_members_invitation_is_in_their_language_with_the_turn_emails_headers(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna = person("anna", display_name="Anna")
    bela = person("bela", display_name="Béla", language="hu")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["Béla"], days_per_move=3)
    message = only_email()
    assert message.to == [bela.email]
    assert "Anna" in message.subject and "meghív" in message.subject  # Hungarian
    headers = message.extra_headers
    assert headers["Message-ID"] == mail_headers.message_id(f"invitation-{invitation.pk}")
    unsubscribe = headers["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith(SITE + "/email/unsubscribe/")
    assert links.unsubscribe_read(unsubscribe.rstrip("/").rsplit("/", 1)[1]) == bela.pk
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert headers["Auto-Submitted"] == "auto-generated"
    assert headers["Content-Language"] == "hu"
    [reply_to] = message.reply_to
    assert reply_to.startswith("invite+") and reply_to.endswith("@" + DOMAIN)
    assert reply_to == reply_to.lower()
    answer = SITE + reverse("invitation_answer", args=[invitation.pk, invitation.secret])
    assert answer in message.body
    assert "igen" in message.body and "nem" in message.body
    assert "3 nap" in message.body  # days per move
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.SENT and invitation.mail_sent_at is not None


def test_an_address_invitation_is_in_the_inviters_language_and_says_why_it_came(
    person: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    anna = person("anna", display_name="Anna", language="de")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["Friend@Example.org"])
    message = only_email()
    assert message.to == ["friend@example.org"]
    assert message.extra_headers["Content-Language"] == "de"
    never = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert never.startswith(SITE + "/never-email/")
    found = optout.read(never.rstrip("/").rsplit("/", 1)[1])
    assert (found.email, found.language) == ("friend@example.org", "de")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # the footer: who invited the address, and the way never to hear from us again
    assert "Anna" in message.body and "friend@example.org" in message.body
    assert never in message.body and never in emails_html(message)
    assert "nein" in message.body  # "reply no to decline", in German
    # VERP: the envelope sender names the row; the From is the site's
    assert message.from_email.startswith("bounce+") and message.from_email.endswith(DOMAIN)
    assert message.message()["From"] == settings.DEFAULT_FROM_EMAIL
    assert invitation.language == "de"


def emails_html(message: Any) -> str:
    [(html, _mimetype)] = message.alternatives
    return str(html)


def test_a_resent_email_carries_the_same_message_id(
    person: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna, _bela = person("anna"), person("bela")
    sent: list[Any] = []
    real_send = django_mail.EmailMultiAlternatives.send

    def flaky(message: Any, fail_silently: bool = False) -> int:
        sent.append(message)
        if len(sent) == 1:
            raise smtplib.SMTPServerDisconnected("the server went away")
        return real_send(message, fail_silently)

    monkeypatch.setattr(django_mail.EmailMultiAlternatives, "send", flaky)
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.QUEUED and invitation.mail_attempts == 1
    assert invitation.mail_next_at > timezone.now()  # backing off
    assert "SMTPServerDisconnected" in invitation.mail_error
    assert tasks.sweep_invitations()["expired"] == 0  # not due yet: nothing sent
    Invitation.objects.filter(pk=invitation.pk).update(mail_next_at=timezone.now())
    assert tasks.sweep_invitations()["sent"] == 1
    first, second = sent
    assert first.extra_headers["Message-ID"] == second.extra_headers["Message-ID"]
    assert len(django_mail.outbox) == 1


def test_failing_past_the_retry_period_gives_up(
    person: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna, _bela = person("anna"), person("bela")

    def refuse(message: Any, fail_silently: bool = False) -> int:
        raise smtplib.SMTPDataError(451, b"try later")

    monkeypatch.setattr(django_mail.EmailMultiAlternatives, "send", refuse)
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    Invitation.objects.filter(pk=invitation.pk).update(
        created_at=timezone.now() - timedelta(hours=49), mail_next_at=timezone.now()
    )
    assert mail.deliver(invitation.pk) == "failed"
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.FAILED


# -- sending once ---------------------------------------------------------------------------------
def test_two_runners_send_one_email(person: Any) -> None:
    anna, _bela = person("anna"), person("bela")
    game = invitations.game_create_with_invitations(  # the hooks do not run: no commit
        creator=anna, invitees=["bela"], kind="keltis", player_count=2
    )
    invitation = Invitation.objects.get(game=game)
    now = timezone.now()
    assert mail.claim(invitation.pk, now) is True
    assert mail.claim(invitation.pk, now) is False  # the second runner gets nothing
    assert mail.deliver(invitation.pk) == "not_claimed"
    assert django_mail.outbox == []
    Invitation.objects.filter(pk=invitation.pk).update(mail_status=MailStatus.QUEUED)
    outcomes = [mail.deliver(invitation.pk), mail.deliver(invitation.pk)]
    assert outcomes == ["sent", "not_claimed"] and len(django_mail.outbox) == 1


def test_a_broker_that_is_down_breaks_nothing_and_the_sweep_sends(
    person: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna, _bela = person("anna"), person("bela")

    def broker_down(*args: Any) -> None:
        raise ConnectionRefusedError("no broker")

    monkeypatch.setattr(tasks.send_invitation, "delay", broker_down)
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    assert django_mail.outbox == []
    assert Invitation.objects.get(pk=invitation.pk).mail_status == MailStatus.QUEUED
    assert tasks.sweep_invitations()["sent"] == 1
    assert len(django_mail.outbox) == 1


def test_the_sweep_takes_back_a_row_a_dead_worker_left_and_expires_the_old(
    person: Any, settings: Any
) -> None:
    anna, _bela, _cecil = person("anna"), person("bela"), person("cecil")
    game = invitations.game_create_with_invitations(
        creator=anna, invitees=["bela", "cecil"], kind="keltis", player_count=3
    )
    stuck, old = Invitation.objects.filter(game=game).order_by("pk")
    long_ago = timezone.now() - timedelta(seconds=settings.NOTIFICATION_SENDING_TIMEOUT + 5)
    Invitation.objects.filter(pk=stuck.pk).update(
        mail_status=MailStatus.SENDING, mail_claimed_at=long_ago, mail_attempts=1
    )
    Invitation.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    counts = tasks.sweep_invitations()
    assert counts["sent"] == 1 and counts["skipped"] == 1 and counts["expired"] == 1
    assert Invitation.objects.get(pk=stuck.pk).mail_status == MailStatus.SENT
    assert Invitation.objects.get(pk=old.pk).status == InvitationStatus.EXPIRED
    assert [m.to for m in django_mail.outbox] == [["bela@example.test"]]


def test_not_sent_when_answered_closed_opted_out_or_unwanted(person: Any) -> None:
    anna, _bela = person("anna"), person("bela", email_mode=EmailMode.NONE)
    person("cecil"), person("dora")
    game = invitations.game_create_with_invitations(
        creator=anna, invitees=["bela", "cecil", "x@example.org"], kind="keltis", player_count=4
    )
    to_bela, to_cecil, to_address = Invitation.objects.filter(game=game).order_by("pk")
    invitations.decline(invitation_id=to_cecil.pk, user=to_cecil.invitee)
    OptOut.objects.create(email="x@example.org")
    assert mail.deliver(to_bela.pk) == "skipped"  # Béla takes no game emails
    assert Invitation.objects.get(pk=to_cecil.pk).mail_status == MailStatus.SKIPPED
    assert mail.deliver(to_address.pk) == "skipped"
    other = invitations.game_create_with_invitations(
        creator=anna, invitees=["dora"], kind="keltis", player_count=2
    )
    Game.objects.filter(pk=other.pk).update(status=GameStatus.CANCELLED)
    assert mail.deliver(Invitation.objects.get(game=other).pk) == "skipped"
    assert django_mail.outbox == []


# -- a refused recipient --------------------------------------------------------------------------
class RefusingServer:
    """An SMTP server that refuses the recipients in ``unknown`` at RCPT (550)."""

    def __init__(self, unknown: set[str]) -> None:
        self.unknown = unknown
        self.delivered: list[str] = []

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if address.lower() in self.unknown:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.delivered.extend(envelope.rcpt_tos)
        return "250 OK"


@pytest.fixture
def refusing_smtp(settings: Any) -> Iterator[RefusingServer]:
    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    handler = RefusingServer({"gone@example.org"})
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    yield handler
    controller.stop()


def test_a_refused_recipient_bounces_and_the_address_is_refused_later(
    person: Any, refusing_smtp: RefusingServer
) -> None:
    anna = person("anna")
    game = invitations.game_create_with_invitations(
        creator=anna, invitees=["gone@example.org", "fine@example.org"], kind="keltis",
        player_count=3,
    )  # fmt: skip
    gone, _fine = Invitation.objects.filter(game=game).order_by("pk")
    counts = tasks.sweep_invitations()
    assert counts["bounced"] == 1 and counts["sent"] == 1
    gone.refresh_from_db()
    assert gone.mail_status == MailStatus.BOUNCED and "550" in gone.mail_error
    assert gone.status == InvitationStatus.DECLINED  # its seat is free again
    assert OptOut.objects.get(email="gone@example.org").reason == OptOut.Reason.BOUNCED
    assert refusing_smtp.delivered == ["fine@example.org"]
    with pytest.raises(AddressRefused, match="bounced"):
        invitations.game_invite(game_id=game.pk, inviter=anna, invitee="gone@example.org")


def delivery_report(to: str, failed: bool = True) -> bytes:
    """A DSN (RFC 3464) as a mail server sends it to the envelope sender."""
    action, status = ("failed", "5.1.1") if failed else ("delayed", "4.4.1")
    return (
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {to}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <dsn-{next(_ids)}@mx.example.org>\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n'
        "\r\n--b1\r\n"
        "Content-Type: text/plain\r\n\r\n"
        "Your message could not be delivered.\r\n"
        "\r\n--b1\r\n"
        "Content-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        "Final-Recipient: rfc822; gone@example.org\r\n"
        f"Action: {action}\r\n"
        f"Status: {status}\r\n"
        "\r\n--b1--\r\n"
    ).encode()


def test_a_delivery_report_to_the_envelope_sender_marks_it_bounced(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna = person("anna")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["gone@example.org"])
    envelope = only_email().from_email
    delayed = receive(delivery_report(envelope, failed=False), envelope_sender="")
    assert delayed.outcome == InboundOutcome.LOOP  # only a permanent failure counts
    result = receive(delivery_report(envelope), envelope_sender="")
    assert (result.outcome, result.status, result.answered) == ("applied", EX_OK, False)
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.BOUNCED
    assert OptOut.objects.filter(email="gone@example.org", reason="bounced").exists()
    forged = envelope.replace("bounce+", "bounce+9")
    assert receive(delivery_report(forged), envelope_sender="").status == EX_NOUSER


# -- never email me again -------------------------------------------------------------------------
@pytest.fixture
def address_invitation(person: Any) -> Invitation:
    anna = person("anna", language="pl")
    game = invitations.game_create_with_invitations(
        creator=anna, invitees=["friend@example.org"], kind="keltis", player_count=2
    )
    return Invitation.objects.get(game=game)


def test_the_link_shows_a_page_and_changes_nothing_on_get(
    address_invitation: Invitation,
) -> None:
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(optout.url("friend@example.org", "pl").removeprefix(SITE))
    assert page.status_code == 200
    assert '<html lang="pl">' in page.content.decode()
    assert "friend@example.org" in page.content.decode()
    assert not OptOut.objects.exists()
    assert Invitation.objects.get(pk=address_invitation.pk).pending


def test_the_pages_button_opts_out_and_declines_the_waiting_invitations(
    address_invitation: Invitation,
) -> None:
    browser = Client(enforce_csrf_checks=True)
    path = optout.url("friend@example.org", "pl").removeprefix(SITE)
    assert browser.post(path).status_code == 403  # no CSRF token, not one-click: refused
    assert not OptOut.objects.exists()
    page = browser.get(path)
    token = page.content.decode().split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    done = browser.post(path, {"csrfmiddlewaretoken": token})
    assert done.status_code == 200 and '<html lang="pl">' in done.content.decode()
    assert OptOut.objects.get(email="friend@example.org").reason == OptOut.Reason.ASKED
    invitation = Invitation.objects.get(pk=address_invitation.pk)
    assert invitation.status == InvitationStatus.DECLINED
    assert invitation.mail_status == MailStatus.SKIPPED  # it had not gone out yet
    with pytest.raises(AddressRefused, match="asked"):
        invitations.resolve("friend@example.org", inviter=invitation.inviter)


def test_the_one_click_post_opts_out_without_a_csrf_token(
    address_invitation: Invitation,
) -> None:
    browser = Client(enforce_csrf_checks=True)
    path = optout.url("friend@example.org", "pl").removeprefix(SITE)
    response = browser.post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert OptOut.objects.filter(email="friend@example.org").exists()
    assert Invitation.objects.get(pk=address_invitation.pk).status == InvitationStatus.DECLINED


def test_a_forged_link_is_refused_and_changes_nothing(address_invitation: Invitation) -> None:
    browser = Client(enforce_csrf_checks=True)
    path = optout.url("friend@example.org", "pl").removeprefix(SITE)
    forged = path.replace("friend", "fiend") if "friend" in path else path[:-6] + "AAAAA/"
    for response in (
        browser.get(forged),
        browser.post(forged, {"List-Unsubscribe": "One-Click"}),
        browser.get(reverse("never_email", args=[links.sign("unsubscribe", [1])])),
    ):
        assert response.status_code == 400
    assert not OptOut.objects.exists()
    assert Invitation.objects.get(pk=address_invitation.pk).pending


# -- replies to the invitation --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("language", "word", "expected"),
    [
        ("hu", "Igen!", InvitationStatus.ACCEPTED),
        ("sk", "áno", InvitationStatus.ACCEPTED),
        ("ru", "Да.", InvitationStatus.ACCEPTED),
        ("de", "nein", InvitationStatus.DECLINED),
        ("cs", "Ne", InvitationStatus.DECLINED),
        ("en", "YES", InvitationStatus.ACCEPTED),
    ],
)
def test_a_member_answers_by_replying_yes_or_no(
    person: Any,
    django_capture_on_commit_callbacks: Any,
    language: str,
    word: str,
    expected: str,
) -> None:
    anna, bela = person("anna"), person("bela", language=language)
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    [reply_to] = only_email().reply_to
    django_mail.outbox.clear()
    body = f"{word}\n\nOn Monday Keltis wrote:\n> {anna.username} invites you\n"
    result = receive(reply(reply_to, bela.email, body))
    assert (result.outcome, result.status, result.answered) == ("applied", EX_OK, True)
    invitation.refresh_from_db()
    assert invitation.status == expected
    if expected == InvitationStatus.ACCEPTED:
        assert Game.objects.get(pk=invitation.game_id).status == GameStatus.RUNNING
    answer = only_email()
    assert answer.to == [bela.email]
    assert answer.extra_headers["Content-Language"] == language
    assert answer.extra_headers["Auto-Submitted"] == "auto-generated"
    row = InboundMessage.objects.get()
    assert row.game_id == invitation.game_id and row.answered_at is not None


def test_a_reply_acts_once_and_is_answered_once(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = person("anna"), person("bela")
    invite(django_capture_on_commit_callbacks, anna, ["bela"])
    [reply_to] = only_email().reply_to
    raw = reply(reply_to, bela.email, "no", message_id="<once@client.example>")
    assert receive(raw).answered is True
    again = receive(raw)
    assert again.outcome == "applied" and again.answered is False
    assert len(django_mail.outbox) == 2  # the invitation and one answer


def test_a_forged_sender_changes_nothing_and_gets_no_answer(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, _bela, cecil = person("anna"), person("bela"), person("cecil")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    [reply_to] = only_email().reply_to
    django_mail.outbox.clear()
    for sender in (cecil.email, "bela@elsewhere.example"):
        result = receive(reply(reply_to, sender, "yes"))
        assert result.outcome == InboundOutcome.FORGED and not result.answered
    failing = reply(
        reply_to, "bela@example.test", "yes",
        Authentication_Results="mx.keltis.example; dmarc=fail header.from=example.test",
    )  # fmt: skip
    assert receive(failing).outcome == InboundOutcome.DMARC_FAIL
    assert Invitation.objects.get(pk=invitation.pk).pending and django_mail.outbox == []
    # an altered address is unknown (the mail server bounces it to the sender)
    altered = reply_to.replace("invite+", "invite+1")
    assert receive(reply(altered, "bela@example.test", "yes")).status == EX_NOUSER


def test_an_unreadable_answer_is_explained_and_changes_nothing(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = person("anna"), person("bela", language="pl")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    [reply_to] = only_email().reply_to
    django_mail.outbox.clear()
    result = receive(reply(reply_to, bela.email, "może jutro"))
    assert (result.outcome, result.answered) == (InboundOutcome.REFUSED, True)
    answer = only_email()
    assert "może jutro" in answer.body and "tak" in answer.body and "nie" in answer.body
    assert answer.reply_to == [reply_to]  # they may answer again
    assert Invitation.objects.get(pk=invitation.pk).pending


def test_an_address_declines_by_reply_and_a_yes_is_told_to_sign_up(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna = person("anna", language="pl")
    first, second = invite(
        django_capture_on_commit_callbacks, anna, ["one@example.org", "two@example.org"], 3
    )
    to_first = next(m.reply_to[0] for m in django_mail.outbox if m.to == ["one@example.org"])
    to_second = next(m.reply_to[0] for m in django_mail.outbox if m.to == ["two@example.org"])
    django_mail.outbox.clear()
    said_yes = receive(reply(to_first, "One@Example.org", "Tak"))
    assert (said_yes.outcome, said_yes.answered) == (InboundOutcome.REFUSED, True)
    answer = only_email()
    assert answer.to == ["one@example.org"]
    assert mail.answer_url(first) in answer.body  # sign up on the way, by the link
    assert Invitation.objects.get(pk=first.pk).pending
    django_mail.outbox.clear()
    assert receive(reply(to_second, "one@example.org", "nie")).outcome == InboundOutcome.FORGED
    said_no = receive(reply(to_second, "two@example.org", "Nie."))
    assert said_no.outcome == "applied"
    assert Invitation.objects.get(pk=second.pk).status == InvitationStatus.DECLINED


def test_an_answer_to_a_closed_invitation_says_why(
    person: Any, django_capture_on_commit_callbacks: Any
) -> None:
    anna, bela = person("anna"), person("bela")
    (invitation,) = invite(django_capture_on_commit_callbacks, anna, ["bela"])
    [reply_to] = only_email().reply_to
    invitations.withdraw(invitation_id=invitation.pk, user=anna)
    django_mail.outbox.clear()
    result = receive(reply(reply_to, bela.email, "yes"))
    assert (result.outcome, result.answered) == (InboundOutcome.STALE, True)
    assert "withdrawn" in only_email().body
    assert only_email().reply_to == []  # nothing left to answer


# -- the game-over email and a rematch ------------------------------------------------------------
def finished_game(anna: User, bela: User) -> Game:
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        game_finish_early(game, engine_state(game), timezone.now())
    return game


def test_the_game_over_email_takes_yes_for_a_rematch(person: Any) -> None:
    anna, bela = person("anna", language="de"), person("bela", language="cs")
    game = finished_game(anna, bela)
    rows = Notification.objects.filter(game=game, kind=NotificationKind.FINISHED)
    for row in rows:
        assert emails.send_notification(row)
    by_player = {m.to[0]: m for m in django_mail.outbox}
    to_anna, to_bela = by_player[anna.email], by_player[bela.email]
    [anna_reply_to] = to_anna.reply_to
    assert anna_reply_to.startswith(f"rematch+{game.pk}-") and anna_reply_to.endswith(DOMAIN)
    assert "„ja“" in to_anna.body or "ja" in to_anna.body
    assert "ano" in to_bela.body and to_bela.reply_to != to_anna.reply_to
    django_mail.outbox.clear()

    result = receive(reply(anna_reply_to, anna.email, "Ja!"))
    assert (result.outcome, result.answered) == ("applied", True)
    rematch = Rematch.objects.get(game=game)
    assert rematch.offered_by == anna and rematch.new_game is None
    [answer] = django_mail.outbox
    assert answer.to == [anna.email] and answer.extra_headers["Content-Language"] == "de"
    django_mail.outbox.clear()
    # Béla's reply cannot be sent from Anna's address
    bela_reply_to = to_bela.reply_to[0]
    assert receive(reply(bela_reply_to, anna.email, "ano")).outcome == InboundOutcome.FORGED
    result = receive(reply(bela_reply_to, bela.email, "Ano"))
    assert result.outcome == "applied"
    rematch.refresh_from_db()
    assert rematch.new_game is not None
    [answer] = django_mail.outbox
    assert str(rematch.new_game_id) in answer.body


def test_a_no_to_the_game_over_email_declines_the_rematch(person: Any) -> None:
    anna, bela = person("anna"), person("bela")
    game = finished_game(anna, bela)
    from friends import rematches

    rematches.rematch_offer(game_id=game.pk, user=anna)
    row = Notification.objects.get(game=game, kind=NotificationKind.FINISHED, user=bela)
    emails.send_notification(row)
    [reply_to] = django_mail.outbox[-1].reply_to
    assert receive(reply(reply_to, bela.email, "no")).outcome == "applied"
    assert Rematch.objects.get(game=game).declined_by == bela


def test_no_reply_address_without_an_inbound_domain(person: Any, settings: Any) -> None:
    settings.INBOUND_EMAIL_DOMAIN = ""
    anna, bela = person("anna"), person("bela")
    game = finished_game(anna, bela)
    row = Notification.objects.get(game=game, kind=NotificationKind.FINISHED, user=anna)
    emails.send_notification(row)
    assert django_mail.outbox[-1].reply_to == []
    invitation = invitations.game_create_with_invitations(
        creator=anna, invitees=["bela"], kind="keltis", player_count=2
    )
    assert mail.deliver(Invitation.objects.get(game=invitation).pk) == "sent"
    message = django_mail.outbox[-1]
    assert message.reply_to == [] and not message.from_email.startswith("bounce+")


# -- staff ----------------------------------------------------------------------------------------
def test_staff_see_invitations_refused_addresses_and_rematches(
    person: Any, client: Client, address_invitation: Invitation
) -> None:
    staff = User.objects.create_superuser("staff", "staff@example.test", "a long pass phrase")
    OptOut.objects.create(email="never@example.org")
    client.force_login(staff)
    for name in ("invitation", "optout", "rematch"):
        page = client.get(reverse(f"admin:friends_{name}_changelist"))
        assert page.status_code == 200, name
    found = client.get(reverse("admin:friends_invitation_changelist"), {"q": "friend@example"})
    assert "friend@example.org" in found.content.decode()
    detail = client.get(reverse("admin:friends_invitation_change", args=[address_invitation.pk]))
    assert detail.status_code == 200
    assert address_invitation.secret not in detail.content.decode()
