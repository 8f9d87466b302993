"""Replies by email: "yes" or "no" to an invitation (``invite+``) or to a game-over email
(``rematch+``: a rematch), and the delivery reports that come back to an invitation's
envelope sender (``bounce+``).

They are routes of ``notifications.inbound.routes`` (registered in ``FriendsConfig.ready``):
the inbound handler reads the message, stores it once, drops loops and auto-replies, applies
the rate limit and DMARC, and calls these for the rest. Like a turn's reply, the sender must be
the person the address was sent to: a verified address of the member, or for an invitation to
an address that address itself. A "yes" from an address without an account cannot seat anyone:
the answer tells them to use the link, which signs them up on the way; "no" declines. The answer
is written from the stored row, in the reader's language, and sent once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import User
from games.error_messages import service_error_text
from games.models import Seat
from games.services import GameServiceError
from keltis_site import mail_headers
from keltis_site.public_site import absolute
from notifications import emails
from notifications.inbound import answers as turn_answers
from notifications.inbound import routes
from notifications.inbound.routes import RoutedReply, RouteOutcome
from notifications.models import InboundMessage, InboundOutcome

from . import invitations, mail
from .models import Invitation, InvitationStatus, MailStatus

detail = turn_answers.detail


def _verified(user: User, sender: str) -> bool:
    return EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()


def _first_line(lines: list[str]) -> str:
    return lines[0].strip()[:200] if lines else ""


def _read_answer(lines: list[str] | None) -> tuple[bool | None, str]:
    """(yes/no/None, the row's detail when it is neither)."""
    if lines is None:
        return None, detail(error="unparseable")
    said = routes.yes_or_no(lines)
    if said is None:
        return None, detail(error="unreadable", line=_first_line(lines))
    return said, ""


def _send(
    address: str,
    context: dict[str, Any],
    row: InboundMessage,
    in_reply_to: str,
    unsubscribe_url: str,
) -> None:
    headers = mail_headers.automatic(f"inbound-answer-{row.pk}", unsubscribe_url=unsubscribe_url)
    headers["In-Reply-To"] = headers["References"] = in_reply_to
    mail.compose_to("reply_answer", address, context, headers).send()


def _problem(found: dict[str, Any], yes: str, no: str) -> str:
    error = found.get("error")
    if error == "unparseable":
        return _(
            "Nothing was changed: your email could not be read. Reply with “%(yes)s” or "
            "“%(no)s” as plain text."
        ) % {"yes": yes, "no": no}
    if error == "unreadable":
        return _(
            "Nothing was changed: “%(line)s” is neither “%(yes)s” nor “%(no)s”. Write one of "
            "them alone on the first line of your reply."
        ) % {"line": found.get("line", ""), "yes": yes, "no": no}
    if error == "service":
        return _("Nothing was changed: %(reason)s") % {"reason": found.get("reason", "")}
    return ""


# -- invitations ----------------------------------------------------------------------------------
class InvitationRoute:
    """``invite+<invitation>-<signature>@domain``: the invitation email's Reply-To."""

    accepts_automatic = False

    def read(self, token: str) -> int | None:
        ids = routes.token_read(mail.INVITE_PURPOSE, token, 1)
        return ids[0] if ids else None

    def handle(self, reply: RoutedReply) -> RouteOutcome:
        invitation = (
            Invitation.objects.select_related("invitee", "game", "league")
            .filter(pk=reply.target)
            .first()
        )
        if invitation is None:
            return RouteOutcome(InboundOutcome.UNKNOWN_ADDRESS)
        game_id = invitation.game_id
        member = invitation.invitee
        if member is not None:
            if not _verified(member, reply.sender):
                return RouteOutcome(InboundOutcome.FORGED, game_id=game_id)
        elif reply.sender.strip().lower() != invitation.email:
            return RouteOutcome(InboundOutcome.FORGED, game_id=game_id)
        said, problem = _read_answer(reply.lines)
        base = {"invitation": invitation.pk}
        if said is None:
            return RouteOutcome(InboundOutcome.REFUSED, _with(problem, base), game_id)
        with translation.override(invitation.language or settings.LANGUAGE_CODE):
            try:
                if not said:
                    invitations.decline(
                        invitation_id=invitation.pk,
                        user=member,
                        secret=None if member else invitation.secret,
                    )
                    return RouteOutcome(
                        InboundOutcome.APPLIED, detail(answer="declined", **base), game_id
                    )
                taker = member or _member_of(reply.sender)
                if taker is None:
                    return RouteOutcome(
                        InboundOutcome.REFUSED, detail(error="needs_account", **base), game_id
                    )
                invitations.accept(
                    invitation_id=invitation.pk,
                    user=taker,
                    secret=None if member else invitation.secret,
                )
            except GameServiceError as exc:
                return RouteOutcome(
                    InboundOutcome.STALE,
                    detail(error="service", reason=service_error_text(exc), **base),
                    game_id,
                )
        return RouteOutcome(InboundOutcome.APPLIED, detail(answer="accepted", **base), game_id)

    def answer(self, row: InboundMessage, in_reply_to: str) -> bool:
        found = json.loads(row.detail or "{}")
        invitation = (
            Invitation.objects.select_related("invitee", "game", "league", "inviter")
            .filter(pk=found.get("invitation"))
            .first()
        )
        if invitation is None:
            return False
        address = mail.recipient(invitation)
        if not address:
            return False
        with (
            translation.override(invitation.language or settings.LANGUAGE_CODE),
            timezone.override(mail.zone_for(invitation)),
        ):
            context = _invitation_answer(invitation, found)
            _send(address, context, row, in_reply_to, context["unsubscribe_url"])
        return True


def _with(problem: str, base: dict[str, Any]) -> str:
    return json.dumps({**json.loads(problem), **base}, ensure_ascii=False)


def _member_of(sender: str) -> User | None:
    """The member whose verified address wrote: a "yes" to an address's invitation seats them
    (the link would, once they signed in)."""
    row = (
        EmailAddress.objects.filter(email__iexact=sender, verified=True, user__is_active=True)
        .select_related("user")
        .first()
    )
    return row.user if row is not None else None


def _invitation_answer(invitation: Invitation, found: dict[str, Any]) -> dict[str, Any]:
    yes, no = routes.yes_no_words(invitation.language)
    target = mail.invitation_context(invitation)
    inviter, title = target["inviter_name"], target["title"]
    paragraphs: list[str] = []
    link_list: list[tuple[str, str]] = []
    answered = found.get("answer")
    if answered == "accepted":
        paragraphs.append(
            _("You accepted the invitation of %(inviter)s to %(title)s.")
            % {"inviter": inviter, "title": title}
        )
        if target["is_game"]:
            paragraphs.append(_("The game starts when every seat is filled; we email you then."))
            link_list.append((_("The game page"), target["target_url"]))
        else:
            link_list.append((_("The league page"), target["target_url"]))
    elif answered == "declined":
        paragraphs.append(
            _(
                "You declined the invitation of %(inviter)s to %(title)s. Nothing more will "
                "come of it."
            )
            % {"inviter": inviter, "title": title}
        )
    elif found.get("error") == "needs_account":
        paragraphs.append(
            _(
                "To play you need an account on Keltis by mail: open the link below, sign up, "
                "and you land at the table. To decline, reply “%(no)s”."
            )
            % {"no": no}
        )
        link_list.append((_("Accept or decline"), target["answer_url"]))
    else:
        paragraphs.append(_problem(found, yes, no))
        if invitations.closed_reason(invitation) is None:
            link_list.append((_("Accept or decline"), target["answer_url"]))
    pending = invitation.status == InvitationStatus.PENDING
    return {
        **target,
        "subject": _("Your answer to the invitation of %(inviter)s") % {"inviter": inviter},
        "paragraphs": paragraphs,
        "link_list": link_list,
        # only a still open invitation can be answered by replying again
        "reply_address": target["reply_address"] if pending else None,
    }


# -- rematches ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RematchKey:
    game_id: int
    seat: int


class RematchRoute:
    """``rematch+<game>-<seat>-<signature>@domain``: the game-over email's Reply-To."""

    accepts_automatic = False

    def read(self, token: str) -> RematchKey | None:
        ids = routes.token_read(routes.REMATCH_PURPOSE, token, 2)
        return RematchKey(*ids) if ids else None

    def handle(self, reply: RoutedReply) -> RouteOutcome:
        key = reply.target
        assert isinstance(key, RematchKey)
        seat = (
            Seat.objects.filter(game_id=key.game_id, index=key.seat).select_related("user").first()
        )
        user = seat.user if seat is not None else None
        if user is None or not _verified(user, reply.sender):
            return RouteOutcome(InboundOutcome.FORGED, game_id=key.game_id)
        said, problem = _read_answer(reply.lines)
        base = {"seat": key.seat}
        if said is None:
            return RouteOutcome(InboundOutcome.REFUSED, _with(problem, base), key.game_id)
        from . import rematches  # written apart; friends imports it only when a reply comes

        with translation.override(user.language or settings.LANGUAGE_CODE):
            try:
                if said:
                    rematch = rematches.rematch_reply(game_id=key.game_id, user=user)
                else:
                    rematch = rematches.rematch_decline(game_id=key.game_id, user=user)
            except GameServiceError as exc:
                return RouteOutcome(
                    InboundOutcome.STALE,
                    detail(error="service", reason=service_error_text(exc), **base),
                    key.game_id,
                )
        return RouteOutcome(
            InboundOutcome.APPLIED,
            detail(
                answer="yes" if said else "no",
                status=str(rematch.status),
                new_game=rematch.new_game_id,
                **base,
            ),
            key.game_id,
        )

    def answer(self, row: InboundMessage, in_reply_to: str) -> bool:
        found = json.loads(row.detail or "{}")
        seat = (
            Seat.objects.filter(game_id=row.game_id, index=found.get("seat"))
            .select_related("user", "game")
            .first()
        )
        if seat is None or seat.user is None or not seat.user.email:
            return False
        user = seat.user
        with translation.override(user.language or settings.LANGUAGE_CODE):
            context = _rematch_answer(seat, found)
            _send(user.email, context, row, in_reply_to, context["unsubscribe_url"])
        return True


def _rematch_answer(seat: Seat, found: dict[str, Any]) -> dict[str, Any]:
    game, user = seat.game, seat.user
    assert user is not None
    yes, no = routes.yes_no_words(user.language)
    title = emails.game_title(game)
    paragraphs: list[str] = []
    link_list = [(_("The game page"), absolute(reverse("game_detail", args=[game.pk])))]
    if found.get("answer") == "yes":
        if found.get("new_game"):
            paragraphs.append(_("The rematch of %(title)s has begun.") % {"title": title})
            link_list = [
                (_("The new game"), absolute(reverse("game_detail", args=[found["new_game"]])))
            ]
        else:
            paragraphs.append(
                _(
                    "Your “yes” to a rematch of %(title)s is recorded: it begins once every "
                    "player of the table has said yes."
                )
                % {"title": title}
            )
    elif found.get("answer") == "no":
        paragraphs.append(_("You declined the rematch of %(title)s.") % {"title": title})
    else:
        paragraphs.append(_problem(found, yes, no))
    return {
        **emails.common_context(user),
        "for_member": True,
        "subject": _("Your answer about a rematch of %(title)s") % {"title": title},
        "paragraphs": paragraphs,
        "link_list": link_list,
    }


# -- delivery reports -----------------------------------------------------------------------------
class BounceRoute:
    """``bounce+<invitation>-<signature>@domain``: an invitation's envelope sender (VERP). A
    delivery report (RFC 3464) that says the delivery failed for good marks it bounced; an
    auto-reply that reached it (a vacation notice) is ignored."""

    accepts_automatic = True

    def read(self, token: str) -> int | None:
        ids = routes.token_read(mail.BOUNCE_PURPOSE, token, 1)
        return ids[0] if ids else None

    def handle(self, reply: RoutedReply) -> RouteOutcome:
        invitation = Invitation.objects.filter(pk=reply.target).first()
        if invitation is None:
            return RouteOutcome(InboundOutcome.UNKNOWN_ADDRESS)
        if reply.message is None or not failed_for_good(reply.message):
            return RouteOutcome(InboundOutcome.LOOP, game_id=invitation.game_id)
        if invitation.mail_status in (MailStatus.SENT, MailStatus.SENDING):
            mail.mark_bounced(invitation, "a delivery report said the address does not exist")
        return RouteOutcome(
            InboundOutcome.APPLIED,
            detail(bounced=invitation.pk),
            invitation.game_id,
        )

    def answer(self, row: InboundMessage, in_reply_to: str) -> bool:
        return False  # a mail server's report is never answered


def failed_for_good(message: Any) -> bool:
    """A delivery status notification with a recipient whose Action is "failed" and whose
    Status is permanent (5.x.x)."""
    if message.get_content_type() != "multipart/report":
        return False
    for part in message.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        blocks = part.get_payload()
        for block in blocks if isinstance(blocks, list) else []:
            action = str(block.get("Action", "")).strip().lower()
            status = str(block.get("Status", "")).strip()
            if action == "failed" and status.startswith("5"):
                return True
    return False


def register() -> None:
    """Called from ``FriendsConfig.ready``."""
    routes.REPLY_ROUTES.setdefault(mail.INVITE_PREFIX, InvitationRoute())
    routes.REPLY_ROUTES.setdefault(routes.REMATCH_PREFIX, RematchRoute())
    routes.REPLY_ROUTES.setdefault(mail.BOUNCE_PREFIX, BounceRoute())
