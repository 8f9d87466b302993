"""Addresses that never get an invitation again: those whose owner asked (the link in every
invitation to an address, its List-Unsubscribe) and those our mail bounced from.

The link needs no account: it is the address (and the language to answer in), signed with a
purpose of its own (``notifications.links.sign``), so it never expires, nothing is stored per
link, and a token made for another purpose never passes for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from keltis_site.public_site import absolute
from notifications import links

from .models import Invitation, InvitationStatus, MailStatus, OptOut

PURPOSE = "never-email"


@dataclass(frozen=True)
class OptOutLink:
    email: str
    language: str


def token(email: str, language: str) -> str:
    return links.sign(PURPOSE, [email.strip().lower(), language])


def url(email: str, language: str) -> str:
    """The absolute "never email me again" address, also the email's List-Unsubscribe."""
    return absolute(reverse("never_email", args=[token(email, language)]))


def read(text: str) -> OptOutLink:
    """The address a link names, or ``links.LinkError("invalid")`` for a forged one."""
    payload = links.unsign(PURPOSE, text)
    if len(payload) != 2 or not all(isinstance(value, str) for value in payload):
        raise links.LinkError("invalid")
    email, language = payload
    if "@" not in email:
        raise links.LinkError("invalid")
    known = {code for code, _name in settings.LANGUAGES}
    return OptOutLink(email, language if language in known else settings.LANGUAGE_CODE)


def is_opted_out(email: str) -> bool:
    return OptOut.objects.filter(email=email.strip().lower()).exists()


def opt_out(email: str, reason: str = OptOut.Reason.ASKED) -> int:
    """Record that ``email`` gets no invitation again and answer its pending invitations for
    it; returns how many. They are recorded as declined, not withdrawn: the inviter sees the
    answer at the table (withdrawn ones are not listed) and the seat is free again. An address
    that bounced and later asked keeps its first reason; asking twice changes nothing."""
    email = email.strip().lower()
    now = timezone.now()
    with transaction.atomic():
        OptOut.objects.get_or_create(email=email, defaults={"reason": reason, "created_at": now})
        pending = Invitation.objects.select_for_update().filter(
            email=email, status=InvitationStatus.PENDING
        )
        games = set(pending.exclude(game=None).values_list("game_id", flat=True))
        ids = list(pending.values_list("pk", flat=True))
        Invitation.objects.filter(pk__in=ids).update(
            status=InvitationStatus.DECLINED, answered_at=now
        )
        Invitation.objects.filter(pk__in=ids, mail_status=MailStatus.QUEUED).update(
            mail_status=MailStatus.SKIPPED
        )
        for game_id in games:
            game_services.changed(game_id)
    return len(ids)
