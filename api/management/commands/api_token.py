"""``manage.py api_token``: create, list and revoke a player's personal API tokens.

manage.py api_token create USERNAME --name "my bot" [--play]   # prints the token once
manage.py api_token list USERNAME
manage.py api_token revoke USERNAME TOKEN_ID
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api import tokens
from api.models import Scope


class Command(BaseCommand):
    help = "Create, list and revoke personal API tokens."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="command", required=True)
        create = sub.add_parser("create")
        create.add_argument("username")
        create.add_argument("--name", required=True)
        create.add_argument("--play", action="store_true", help="also the play scope")
        listing = sub.add_parser("list")
        listing.add_argument("username")
        revoke = sub.add_parser("revoke")
        revoke.add_argument("username")
        revoke.add_argument("token_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            user = get_user_model().objects.get(username=options["username"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user {options['username']!r}") from None
        try:
            if options["command"] == "create":
                scopes = [Scope.READ, Scope.PLAY] if options["play"] else [Scope.READ]
                made = tokens.token_create(user=user, name=options["name"], scopes=scopes)
                self.stdout.write(made.secret)
            elif options["command"] == "list":
                for token in tokens.user_tokens(user):
                    state = "revoked" if token.revoked_at else "active"
                    self.stdout.write(
                        f"{token.pk}\t{token.prefix}…\t{token.scopes}\t{state}\t{token.name}"
                    )
            else:
                token = tokens.token_revoke(user=user, token_id=options["token_id"])
                self.stdout.write(f"revoked {token.pk} ({token.prefix}…)")
        except tokens.TokenError as exc:
            raise CommandError(str(exc)) from None
