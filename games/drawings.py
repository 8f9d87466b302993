"""Drawings of a game page that change only with the position (the board's SVG, a hand, the
players' panels, the piles, the legend, the clock, the moves): drawn once per position,
language and viewer, then served from the cache, byte for byte the same.

The key names the code that draws (``code_version``: a release never reads an older one's
markup), the game and its move number (``seq``: every stored action moves it on, so a
move makes the next request draw afresh; nothing needs deleting), the language, the seat
names (a display name changed mid-game shows at once), what else may change with no move
(``page_facts``: a game ended early, a seat retired; ``drawing_facts`` adds a drawing's own,
such as the clock's vacations) and, for a drawing that depends on who looks, the viewer. Each
drawing says whose it is (``DRAWINGS``):

- ``PUBLIC``: the same for everyone (the board, the piles): one entry, shared;
- ``VIEWER``: public facts that mark the viewer's own seat ("you"), never a card only one
  player may see (the players' panels): keyed by the viewer's seat and user; every reader
  without a seat shares one entry, in which no seat is marked;
- ``OWN``: what only the viewer may see (their hand): keyed by the viewer's seat and user
  and drawn for a seated viewer only, so no entry read for one player holds another's cards.

No entry holds a request's CSRF token (the moves' forms): a drawing is drawn with
``CSRF_PLACEHOLDER`` as the token, and the request's own field replaces the placeholder's
whenever it is served, drawn afresh or read (``with_request_token``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from django.core.cache import cache
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PUBLIC, VIEWER, OWN = "public", "viewer", "own"

#: the drawings a page may cache, and whose each is
DRAWINGS = {
    "board": PUBLIC,
    "piles": PUBLIC,
    "players": VIEWER,
    "cards_table": VIEWER,  # the card game's table: stones, piles and the players' panels
    "hand": OWN,
    "legend": PUBLIC,  # the board game's figures and tiles explained: names and colours
    "clock": VIEWER,  # the time control and each seat's bank, timeouts and vacation
    "actions": OWN,  # the moves' forms: only the player to move sees them
}

#: the CSRF token a drawing is drawn with: alphanumerics and dashes (escaping keeps them as they
#: are), replaced by the request's own token when served
CSRF_PLACEHOLDER = "csrf-token-of-the-request-drawn-here"

#: seconds an entry is kept: a position's drawing is read while the position lasts
TIMEOUT = 6 * 3600

_ROOT = Path(__file__).resolve().parent.parent
#: what a drawing is made of: the templates, the code that words and draws a position, and the
#: translations (compiled catalogues)
DRAWN_BY = ("templates/**/*.html", "games/presenters/*.py", "games/templatetags/*.py",
            "keltis_site/markup.py", "locale/*/LC_MESSAGES/django.mo")  # fmt: skip


def digest(root: Path, patterns: Iterable[str]) -> str:
    """A short digest of the files under ``root`` that match ``patterns``: their names and
    contents."""
    sha = hashlib.sha256()
    for path in sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()}):
        sha.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()[:8]


@functools.cache
def code_version() -> str:
    """The digest of ``DRAWN_BY`` in this process, part of every drawing's key: a release that
    draws a position otherwise (a template, a word, a translation) reads none of the entries
    the one before stored in a shared cache, which would otherwise show the old markup until
    the next move or ``TIMEOUT`` (read once a process: about 2 MB)."""
    return digest(_ROOT, DRAWN_BY)


def drawing_key(
    name: str,
    *,
    game_id: int,
    seq: int,
    language: str,
    names: Sequence[str],
    facts: Sequence[object] = (),
    viewer_seat: int | None = None,
    viewer_user: int | None = None,
) -> str:
    """The cache key of one drawing of one position. ``facts``: whatever else a drawing shows
    that may change between two moves (``page_facts``)."""
    whose = DRAWINGS.get(name)
    if whose is None:
        raise ValueError(f"not a cached drawing: {name}")
    told = "\x1f".join(names) + ("\x1e" + repr(tuple(facts)) if facts else "")
    seated = hashlib.sha256(told.encode()).hexdigest()[:12]
    key = f"drawing:{code_version()}:{name}:{game_id}:{seq}:{language}:{seated}"
    if whose == PUBLIC:
        return key
    if (viewer_seat is None) != (viewer_user is None):
        raise ValueError(f"the {name} drawing is keyed by its viewer: name the seat and user")
    if viewer_seat is None:
        if whose == OWN:
            raise ValueError(f"the {name} drawing is a viewer's own: name the viewer")
        return key + ":-"  # a reader without a seat: nothing of anyone's own
    return key + f":{viewer_seat}:{viewer_user}"


def page_facts(status: str, seats: Sequence[Any]) -> tuple[object, ...]:
    """What the players' panels show that may change with no move: the game's status (a game
    ended early: winners marked), each seat's username (its profile's address), timeouts and
    retirement, and place (``seats``: the page's SeatInfo rows)."""
    return (status, *((s.username, s.timeouts, s.retired, s.place) for s in seats))


def clock_facts(page: Any) -> tuple[object, ...]:
    """What the clock shows, beyond ``page_facts``, that may change with no move: the game's
    time control, whether it is frozen (no seat to move then), the time zone its vacations are
    written in, and each seat's bank, bot marks and vacation (``page``: a GamePage)."""
    game = page.game
    return (
        game.days_per_move, game.bank_increment_hours, game.bank_cap_hours, game.max_timeouts,
        page.frozen, page.finished, page.to_move, timezone.get_current_timezone_name(),
        *((s.bank_seconds, s.is_bot, s.bot_account, page.away_until.get(s.index))
          for s in page.seats),
    )  # fmt: skip


#: a drawing's facts beyond ``page_facts``, for those that show more of the game
_OWN_FACTS: dict[str, Callable[[Any], tuple[object, ...]]] = {"clock": clock_facts}


def drawing_facts(name: str, page: Any) -> tuple[object, ...]:
    """The ``facts`` of drawing ``name``'s key on ``page`` (a GamePage)."""
    facts = page_facts(page.game.status, page.seats)
    more = _OWN_FACTS.get(name)
    return facts + more(page) if more is not None else facts


def csrf_input(token: object) -> str:
    """What ``{% csrf_token %}`` draws for ``token``: nothing without one."""
    if not token or token == "NOTPROVIDED":
        return ""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(str(token))}">'


#: the CSRF field as a drawing holds it
_PLACEHOLDER_FIELD = csrf_input(CSRF_PLACEHOLDER)


def with_request_token(html: str, field: Callable[[], str]) -> str:
    """``html`` with the request's CSRF field (``field()``, asked for only when the drawing
    has a form: asking makes the response set the CSRF cookie) where it was drawn with
    ``CSRF_PLACEHOLDER``."""
    return html.replace(_PLACEHOLDER_FIELD, field()) if _PLACEHOLDER_FIELD in html else html


def drawn(key: str, draw: Callable[[], str]) -> SafeString:
    """The cached drawing, or ``draw()`` stored under ``key`` (a template's own output: safe)."""
    html = cache.get(key)
    if html is None:
        html = str(draw())
        cache.set(key, html, TIMEOUT)
    return mark_safe(html)  # rendered, and escaped, by the template it comes from


class PageDrawings:
    """A page's drawings read from the cache in one round trip and the new ones stored in one
    (the player to move sees seven on a board game's page: fourteen round trips when all were
    drawn one by one). The drawing tag makes one per request (``for_request``), asking for
    every drawing in ``DRAWINGS``, those of included templates too; the view calls ``store``
    once the page is rendered."""

    def __init__(self, keys: list[str]) -> None:
        keys = list(dict.fromkeys(keys))  # a drawing shown twice (the board's piles) read once
        self.found: dict[str, str] = cache.get_many(keys) if keys else {}
        self.new: dict[str, str] = {}

    def drawn(self, key: str, draw: Callable[[], str]) -> SafeString:
        html = self.found.get(key)
        if html is None:
            html = self.new[key] = self.found[key] = str(draw())
        return mark_safe(html)  # rendered, and escaped, by the template it comes from

    @staticmethod
    def for_request(request: Any, keys: Callable[[], list[str]]) -> PageDrawings:
        """The request's drawings, read with ``keys()`` (every drawing the page may show)
        the first time a drawing is asked for."""
        drawings = getattr(request, "page_drawings", None)
        if drawings is None:
            drawings = request.page_drawings = PageDrawings(keys())
        return drawings

    @staticmethod
    def store(request: Any) -> None:
        """Store what the request's page drew afresh (nothing when it drew nothing)."""
        drawings = getattr(request, "page_drawings", None)
        if drawings is not None and drawings.new:
            cache.set_many(drawings.new, TIMEOUT)
            drawings.new = {}
