"""How friends plugs into the rooms below it, which may not import it (``register``, called once
from ``FriendsConfig.ready``): the seats invitations hold (games' joins and lobby), the create
page's invitations, the data export, allauth's sign-up, sign-in and address confirmation, the
invitation emails after commit, and the reply addresses of the inbound mail."""

from __future__ import annotations

from typing import Any


def _add(hooks: list[Any], hook: Any) -> None:
    if hook not in hooks:
        hooks.append(hook)


def register() -> None:
    from allauth.account import signals as account_signals
    from django.contrib.auth.signals import user_logged_in

    from games import listings, maintenance, services

    from . import invitation_accounts, invitations, replies, tasks, user_data

    _add(services.SEATS_HELD, invitations.held_seats)
    _add(listings.SEATS_HELD_EXPRESSIONS, invitations.held_seats_expression)
    _add(services.CREATE_WITH_INVITEES, invitations.game_create_with_invitations)
    _add(maintenance.USER_DATA_PARTS, user_data.user_data)
    _add(invitations.INVITED_HOOKS, tasks.invited)
    replies.register()
    user_logged_in.connect(
        invitation_accounts.on_logged_in, dispatch_uid="friends_invitation_login"
    )
    account_signals.user_signed_up.connect(
        invitation_accounts.on_signed_up, dispatch_uid="friends_invitation_signup"
    )
    account_signals.email_confirmed.connect(
        invitation_accounts.on_email_confirmed, dispatch_uid="friends_invitation_confirmed"
    )
