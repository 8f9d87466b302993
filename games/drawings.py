"""Drawings of a game page that change only with the position (the board's SVG, a hand): drawn
once per position, language and viewer, then served from the cache, byte for byte the same.

The key names the game and its move number (``seq``: every stored action moves it on, so a
move makes the next request draw afresh; nothing needs deleting), the language, the seat
names (a display name changed mid-game shows at once) and, for a drawing of what one player
may see, that player: a hand is keyed by the viewer's seat and user, so no entry read for one
player ever holds another's cards. The board is public, the same for every viewer, and shared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

#: the drawings a page may cache, and whether each is the viewer's own (keyed by viewer)
DRAWINGS = {"board": False, "hand": True}

#: seconds an entry is kept: a position's drawing is read while the position lasts
TIMEOUT = 6 * 3600


def drawing_key(
    name: str,
    *,
    game_id: int,
    seq: int,
    language: str,
    names: Sequence[str],
    viewer_seat: int | None = None,
    viewer_user: int | None = None,
) -> str:
    """The cache key of one drawing of one position."""
    if name not in DRAWINGS:
        raise ValueError(f"not a cached drawing: {name}")
    seated = hashlib.sha256("\x1f".join(names).encode()).hexdigest()[:12]
    key = f"drawing:{name}:{game_id}:{seq}:{language}:{seated}"
    if DRAWINGS[name]:
        if viewer_seat is None or viewer_user is None:
            raise ValueError(f"the {name} drawing is a viewer's own: name the viewer")
        key += f":{viewer_seat}:{viewer_user}"
    return key


def drawn(key: str, draw: Callable[[], str]) -> SafeString:
    """The cached drawing, or ``draw()`` stored under ``key`` (a template's own output: safe)."""
    html = cache.get(key)
    if html is None:
        html = str(draw())
        cache.set(key, html, TIMEOUT)
    return mark_safe(html)  # rendered, and escaped, by the template it comes from
