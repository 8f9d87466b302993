"""``{% rematch_panel game %}``: a finished game's rematch, on its page (templates/games/game.html
loads this library, so ``games`` needs no import of friends)."""

from __future__ import annotations

from typing import Any

from django import template

from friends.rematches import rematch_state

register = template.Library()


@register.inclusion_tag("friends/_rematch.html", takes_context=True)
def rematch_panel(context: template.Context, game: Any) -> dict[str, Any]:
    """The offer button, the offer's answers so far or the new game's link; nothing before the
    end (or for a cancelled game)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"game": game, "rematch": rematch_state(game, user)}
