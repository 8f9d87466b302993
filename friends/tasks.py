"""Celery tasks of friends: an invitation's email after the commit that made it, and the
periodic sweep (settings.CELERY_BEAT_SCHEDULE: every minute).

Idempotent like every task: a row is claimed by one conditional update (``mail.claim``), so a
task run twice, or beside the sweep, sends one email.
"""

from __future__ import annotations

from celery import shared_task

from games.after_response import call_after_response
from games.tasks import log_sweep

from . import invitations, mail


@shared_task(acks_late=True, ignore_result=True)
def send_invitation(invitation_id: int) -> str:
    """Send one invitation's email (it may have been sent, skipped or claimed already)."""
    return mail.deliver(invitation_id)


@shared_task(ignore_result=True)
def sweep_invitations() -> dict[str, int]:
    """Periodic: the invitation emails a dead worker, a down broker or a refusing mail server
    left queued (and those left 'sending' by a worker that died), then the invitations whose
    time is up."""
    counts = mail.deliver_due()
    counts["expired"] = invitations.expire_due()
    log_sweep("invitation sweep", counts)
    return counts


def invited(invitation_id: int) -> None:
    """``invitations.INVITED_HOOKS``: queue the email once the response is sent. A broker that
    is down is logged, never raised (``call_after_response``): the invitation is stored, and
    the sweep sends its email within a minute."""
    call_after_response(send_invitation.delay, invitation_id)
