"""``Cache-Control: private, no-store`` on every response to a logged-in player.

Any page of a logged-in player may show what is theirs alone: their hand on a game page, the
turns waiting in "my games", their address on the settings page. ``private`` keeps shared
caches (a proxy, a CDN) from storing such a page for the next visitor; ``no-store`` keeps the
browser from writing it to disk, where the next user of a shared computer would find it behind
the Back button. The cost is nothing here: every such page is built per request anyway.

Pages that show a hand without a login say the same themselves: the game's pages
(``games.views.play.private_page``) and the emailed links' pages (``never_cache``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


class PrivatePagesMiddleware:
    """After AuthenticationMiddleware: it reads ``request.user``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_store=True)
        return response
