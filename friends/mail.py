"""The invitation email, and its sending: an ``Invitation`` row is its own outbox row.

The email is written in the invitation's language (the invitee's, else the inviter's) from
``templates/emails/invitation.*``, with the headers of the turn emails
(``keltis_site.mail_headers.automatic``): a Message-ID made from the row, so a resent email is
the same email to a client that de-duplicates; RFC 8058's one-click List-Unsubscribe (a member's
"no game emails", an address's "never email me again": ``friends.optout``); Auto-Submitted:
auto-generated, as for a turn email (RFC 3834 section 5: the site writes it on its own, after a
person's action, not in answer to a message; the person who reads it may still reply, and
their "yes" or "no" is read: ``friends.replies``). With INBOUND_EMAIL_DOMAIN set, replies go to
``invite+<id>-<signature>@domain`` and the envelope sender is ``bounce+<id>-<signature>@domain``
(VERP): a delivery report that comes back later marks the address bounced.

Sending follows ``notifications.outbox``: a row is claimed with a conditional UPDATE (two
runners never send one email), sent after the commit that made it by a task and else by the
sweep (a dead worker, a broker that was down), retried with the outbox's back-off for
NOTIFICATION_RETRY_HOURS from its creation (its first attempt), then 'failed'. A row claimed
longer than NOTIFICATION_SENDING_TIMEOUT was left by a worker that died: it is queued again.
An invitation answered, withdrawn or expired, a table no longer open, an address that asked
never to hear from us, or a member who takes no game emails is not sent ('skipped'). A mail
server that refuses the recipient for good (a 5xx to RCPT) makes the email 'bounced' and the
address refused for every later invitation (``OptOut``, reason bounced).
"""

from __future__ import annotations

import logging
import re
import smtplib
import zoneinfo
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.base import BaseEmailBackend
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.models import EmailMode
from games import listings
from games.models import GameStatus
from keltis_site import mail_headers
from keltis_site.public_site import absolute
from notifications import emails, outbox
from notifications.channels.email import close_quietly, mail_session
from notifications.inbound import routes

from . import optout
from .models import Invitation, InvitationStatus, MailStatus, OptOut

log = logging.getLogger(__name__)

INVITE_PREFIX, INVITE_PURPOSE = "invite+", "invite"
BOUNCE_PREFIX, BOUNCE_PURPOSE = "bounce+", "bounce"
#: rows the sweep sends at most in one run
SWEEP_BATCH = 200


# -- addresses ------------------------------------------------------------------------------------
def reply_address(invitation_id: int) -> str | None:
    """Where a reply to the invitation goes ("yes", "no"); None without INBOUND_EMAIL_DOMAIN."""
    return routes.address(INVITE_PREFIX, INVITE_PURPOSE, invitation_id)


def bounce_address(invitation_id: int) -> str | None:
    """The envelope sender (VERP): a delivery report comes back to it, naming the row."""
    return routes.address(BOUNCE_PREFIX, BOUNCE_PURPOSE, invitation_id)


def recipient(invitation: Invitation) -> str:
    """The address it goes to: the member's sign-in address, or the address invited."""
    if invitation.invitee_id is not None:
        return invitation.invitee.email if invitation.invitee else ""
    return invitation.email


def answer_url(invitation: Invitation) -> str:
    """The link to accept or decline (also the way to sign up for an address)."""
    return absolute(reverse("invitation_answer", args=[invitation.pk, invitation.secret]))


def message_key(invitation: Invitation) -> str:
    return f"invitation-{invitation.pk}"


# -- writing it -----------------------------------------------------------------------------------
def _text(raw: str) -> str:
    """Plain-text templates: no trailing blanks, at most one empty line in a row."""
    lines = [line.rstrip() for line in raw.strip().splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def compose_to(
    name: str,
    address: str,
    context: dict[str, Any],
    headers: dict[str, str],
    *,
    envelope_from: str | None = None,
) -> EmailMultiAlternatives:
    """``emails/<name>`` to ``address`` in the active language (``notifications.emails.compose``
    for someone who may have no account). ``envelope_from`` is the SMTP MAIL FROM (VERP) while
    the From header stays DEFAULT_FROM_EMAIL."""
    base = f"emails/{name}"
    subject = " ".join(render_to_string(f"{base}.subject.txt", context).split())
    if envelope_from:
        headers = {**headers, "From": settings.DEFAULT_FROM_EMAIL}
    message = EmailMultiAlternatives(
        subject=subject,
        body=_text(render_to_string(f"{base}.txt", context)),
        from_email=envelope_from or settings.DEFAULT_FROM_EMAIL,
        to=[address],
        headers=headers,
        reply_to=[context["reply_address"]] if context.get("reply_address") else None,
    )
    message.attach_alternative(render_to_string(f"{base}.html", context), "text/html")
    return message


def zone_for(invitation: Invitation) -> zoneinfo.ZoneInfo:
    """A member's time zone; an address's reader has none we know: UTC."""
    if invitation.invitee_id is not None and invitation.invitee is not None:
        return emails.zone_of(invitation.invitee)
    return zoneinfo.ZoneInfo("UTC")


def inviter_name(invitation: Invitation) -> str:
    return invitation.inviter.public_name if invitation.inviter else _("A player")


def footer_context(invitation: Invitation) -> dict[str, Any]:
    """A member's footer is every game email's (their settings, unsubscribe); an address's
    says why it got this email and how never to get another."""
    if invitation.invitee_id is not None and invitation.invitee is not None:
        return {**emails.common_context(invitation.invitee), "for_member": True}
    never = optout.url(invitation.email, invitation.language)
    return {
        "for_member": False,
        "user_name": "",
        "invited_address": invitation.email,
        "never_email_url": never,
        "unsubscribe_url": never,
    }


def _target_context(invitation: Invitation) -> dict[str, Any]:
    game, league = invitation.game, invitation.league
    source: Any = game if game is not None else league
    assert source is not None
    options = listings.options_in_words(source.kind, source.options or {})
    context: dict[str, Any] = {
        "kind_name": source.get_kind_display(),
        "options": options,
        "days_per_move": source.days_per_move,
        "bank": (
            listings.bank_text(source.bank_increment_hours, source.bank_cap_hours)
            if source.bank_increment_hours
            else ""
        ),
    }
    if game is not None:
        seats = list(game.seats.select_related("user").order_by("index"))
        context.update(
            is_game=True,
            title=emails.game_title(game),
            player_count=game.player_count,
            seated=[seat.name for seat in seats],
            rated=game.rated,
            target_url=absolute(reverse("game_detail", args=[game.pk])),
        )
    else:
        assert league is not None
        context.update(
            is_game=False,
            title=league.name,
            league_name=league.name,
            target_url=absolute(reverse("league_detail", args=[league.pk])),
        )
    return context


def invitation_context(invitation: Invitation) -> dict[str, Any]:
    """What ``emails/invitation.*`` show, in the active language and time zone."""
    yes, no = routes.yes_no_words(invitation.language)
    return {
        **footer_context(invitation),
        **_target_context(invitation),
        "inviter_name": inviter_name(invitation),
        "expires_at": invitation.expires_at,
        # the sentence ends with its own full stop (a Hungarian date ends with one already)
        "expires_on": date_format(timezone.localtime(invitation.expires_at)).rstrip("."),
        "answer_url": answer_url(invitation),
        "reply_address": reply_address(invitation.pk),
        "yes_word": yes,
        "no_word": no,
    }


def headers_for(invitation: Invitation, unsubscribe_url: str) -> dict[str, str]:
    return mail_headers.automatic(message_key(invitation), unsubscribe_url=unsubscribe_url)


def compose(invitation: Invitation) -> EmailMultiAlternatives:
    """The invitation email, in the invitation's language, ready to send."""
    with (
        translation.override(invitation.language or settings.LANGUAGE_CODE),
        timezone.override(zone_for(invitation)),
    ):
        context = invitation_context(invitation)
        return compose_to(
            "invitation",
            recipient(invitation),
            context,
            headers_for(invitation, context["unsubscribe_url"]),
            envelope_from=bounce_address(invitation.pk),
        )


# -- sending --------------------------------------------------------------------------------------
def claim(invitation_id: int, now: datetime) -> bool:
    """Take the row for sending: one conditional UPDATE, so of two runners one wins."""
    return bool(
        Invitation.objects.filter(
            pk=invitation_id, mail_status=MailStatus.QUEUED, mail_next_at__lte=now
        ).update(
            mail_status=MailStatus.SENDING,
            mail_attempts=F("mail_attempts") + 1,
            mail_claimed_at=now,
        )
    )


def deliver(invitation_id: int, connection: BaseEmailBackend | None = None) -> str:
    """Send one invitation's email if it is queued, due and nobody else has claimed it."""
    if not claim(invitation_id, timezone.now()):
        return "not_claimed"
    return _send_claimed(invitation_id, connection)


def deliver_due(limit: int = SWEEP_BATCH) -> dict[str, int]:
    """The sweep: take back the rows a dead worker left 'sending', then send what is due, over
    one SMTP session."""
    now = timezone.now()
    take_back_stale(now)
    due = list(
        Invitation.objects.filter(mail_status=MailStatus.QUEUED, mail_next_at__lte=now)
        .order_by("mail_next_at")
        .values_list("pk", flat=True)[:limit]
    )
    counts: dict[str, int] = {}
    with mail_session() as connection:
        for pk in due:
            outcome = deliver(pk, connection)
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def take_back_stale(now: datetime) -> int:
    """Rows left 'sending' longer than the sending timeout: their worker died (perhaps after
    the server took the email: the same Message-ID goes again). Queued again, or failed once
    the retry period is over."""
    stale = Invitation.objects.filter(
        mail_status=MailStatus.SENDING, mail_claimed_at__lt=now - outbox.sending_timeout()
    )
    error = "the worker sending it stopped before recording the outcome (it may have been sent)"
    stale.filter(created_at__lte=now - outbox.retry_period()).update(
        mail_status=MailStatus.FAILED, mail_error=error
    )
    return stale.update(mail_status=MailStatus.QUEUED, mail_next_at=now, mail_error=error)


def skip_reason(invitation: Invitation, now: datetime) -> str | None:
    """Why its email is not (or no longer) to be sent; None when it is."""
    if invitation.status != InvitationStatus.PENDING or invitation.expires_at <= now:
        return "the invitation is no longer pending"
    if invitation.game_id is not None and invitation.game.status != GameStatus.OPEN:
        return "the table is no longer open"
    if invitation.league_id is not None and not invitation.league.active:
        return "the league is closed"
    member = invitation.invitee
    if member is not None and (not member.is_active or member.email_mode == EmailMode.NONE):
        return "the player takes no game emails"
    address = recipient(invitation)
    if not address:
        return "no address"
    if OptOut.objects.filter(email=address.lower()).exists():
        return "the address is refused (asked never to be emailed, or bounced)"
    return None


def _send_claimed(invitation_id: int, connection: BaseEmailBackend | None) -> str:
    invitation = (
        Invitation.objects.select_related("game", "league", "inviter", "invitee")
        .filter(pk=invitation_id)
        .first()
    )
    if invitation is None:
        return "gone"
    now = timezone.now()
    reason = skip_reason(invitation, now)
    if reason is not None:
        return _mark(invitation, MailStatus.SKIPPED, reason)
    try:
        message = compose(invitation)
        if connection is not None:
            connection.open()  # a no-op while open: the sweep's emails share the session
        message.connection = connection
        message.send()
    except smtplib.SMTPRecipientsRefused as exc:
        if _refused_for_good(exc):
            return _bounced(invitation, exc)
        return _attempt_failed(invitation, exc, connection)
    except Exception as exc:  # writing it, the database, the server or the network failed
        return _attempt_failed(invitation, exc, connection)
    # out: recorded at once, in a statement of its own (as notifications.outbox does)
    Invitation.objects.filter(pk=invitation.pk).update(mail_sent_at=timezone.now())
    return _mark(invitation, MailStatus.SENT, "")


def _refused_for_good(exc: smtplib.SMTPRecipientsRefused) -> bool:
    """Every recipient refused with a permanent (5xx) reply: the address does not take mail."""
    codes = [code for code, _message in exc.recipients.values()]
    return bool(codes) and all(int(code) >= 500 for code in codes)


def error_text(exc: BaseException) -> str:
    # PostgreSQL text refuses NUL characters
    return f"{type(exc).__name__}: {exc}".replace("\x00", "")[:2000]


def _mark(invitation: Invitation, status: str, error: str) -> str:
    Invitation.objects.filter(pk=invitation.pk).update(mail_status=status, mail_error=error)
    log.info(
        "invitation email %s",
        status,
        extra={"invitation_id": invitation.pk, "outcome": status, "game_id": invitation.game_id},
    )
    return str(status)


def mark_bounced(invitation: Invitation, error: str) -> None:
    """The address does not take our mail: this email is 'bounced', the address refused from
    now on (an address's, not a member's: their account has other addresses and settings),
    and its other pending invitations are answered for it (their seats are free again)."""
    _mark(invitation, MailStatus.BOUNCED, error)
    if invitation.invitee_id is None and invitation.email:
        optout.opt_out(invitation.email, reason=OptOut.Reason.BOUNCED)


def _bounced(invitation: Invitation, exc: Exception) -> str:
    mark_bounced(invitation, error_text(exc))
    return str(MailStatus.BOUNCED)


def _attempt_failed(
    invitation: Invitation, exc: Exception, connection: BaseEmailBackend | None
) -> str:
    """Queued again after the outbox's back-off, or 'failed' once it has been failing for the
    retry period (counted from its creation: its first attempt was right after)."""
    if connection is not None:
        close_quietly(connection)  # it may be broken: the next email opens anew
    now = timezone.now()
    failed = now - invitation.created_at >= outbox.retry_period()
    error = error_text(exc)
    log.warning(
        "invitation email failed: %s",
        error,
        extra={"invitation_id": invitation.pk, "outcome": "failed" if failed else "retry"},
    )
    Invitation.objects.filter(pk=invitation.pk).update(
        mail_status=MailStatus.FAILED if failed else MailStatus.QUEUED,
        mail_next_at=now + outbox.backoff(invitation.mail_attempts),
        mail_error=error,
    )
    return "failed" if failed else "retry"
