"""Private tables (``Game.private``): kept out of the lobby and of strangers' eyes
(``games.visibility``), and joined by a secret link its players share.

The link names the game and a secret; whoever has it may take a free seat while the table is
open, as a shared link does on Board Game Arena or lichess. Its creator may renew it (the old
link then stops working), say after it reached someone it should not have.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .models import Game, GameStatus
from .services import CannotJoin, GameServiceError, game_join, new_join_secret


class LinkNotValid(GameServiceError):
    default_message = _(
        "This link to a private table is not valid: it may have been renewed by the table's "
        "creator. Ask them for the new one."
    )


def link_matches(game: Game, secret: str) -> bool:
    return bool(game.join_secret) and hmac.compare_digest(game.join_secret, secret)


def join_url(game: Game) -> str:
    """The link to share (absolute: it is pasted into mails and chats)."""
    path = reverse("private_table_join", args=[game.pk, game.join_secret])
    return f"{settings.SITE_URL}{path}"


def link_renew(*, game_id: int, user: Any) -> Game:
    """A new secret for the table's link; only its creator may, while it is open."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if not game.private or game.created_by_id != user.pk:
            raise CannotJoin(_("Only the creator of a private table can renew its link."))
        if game.status != GameStatus.OPEN:
            raise CannotJoin(_("This game is no longer open."))
        game.join_secret = new_join_secret()
        game.save(update_fields=["join_secret"])
    return game


def join_by_link(*, game_id: int, secret: str, user: Any) -> Game:
    """Take a free seat of the private table whose link this is."""
    game = Game.objects.get(pk=game_id)
    if not game.private or not link_matches(game, secret):
        raise LinkNotValid()
    return game_join(game_id=game_id, user=user, admitted=True)
