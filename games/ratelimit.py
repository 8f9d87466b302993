"""A fixed-window counter in Django's cache, for limiting how often actions are submitted,
and the page that answers a request past the limit (``too_many_actions``).

``hit(key)`` counts one request under ``key`` in the present window of ``ACTION_RATE_LIMIT``
("60/m": 60 in each minute) and says whether it is still within the limit. The counter lives
in the shared cache (``CACHES``), so all web processes count together when production points
CACHE_URL at Redis. While that Redis is away each process counts on its own (keltis_site.cache
keeps the "ratelimit:" keys in the process's memory then): the limit still holds, per process.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse(rate: str) -> tuple[int, int]:
    """``"60/m"`` → (60, 60): how many requests in how many seconds."""
    count, _, period = rate.partition("/")
    return int(count), PERIODS[period.strip()]


def hit(scope: str, key: str, rate: str | None = None) -> bool:
    """Count one request of ``key`` in ``scope``; False once the window's limit is passed."""
    limit, seconds = parse(rate or settings.ACTION_RATE_LIMIT)
    window = int(time.time()) // seconds
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]  # tokens may be long: keys stay short
    cache_key = f"ratelimit:{scope}:{digest}:{window}"
    count_once = getattr(cache, "count", None)  # Redis (keltis_site.cache): one round trip
    if count_once is not None:
        return int(count_once(cache_key, seconds + 1)) <= limit
    if cache.add(cache_key, 1, timeout=seconds + 1):
        return True
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr: this request starts a new count
        cache.add(cache_key, 1, timeout=seconds + 1)
        return True
    return count <= limit


def too_many_actions(request: HttpRequest) -> HttpResponse:
    """The answer past ACTION_RATE_LIMIT: the site's 429 page, nothing stored. Here, beside
    the counter, so every page that counts (the game's, an emailed link's) answers alike
    without importing another app's views."""
    message = _("Too many actions in a short time: nothing was changed. Please try again later.")
    return render(request, "429.html", {"message": message}, status=429)


def client_ip(request: HttpRequest) -> str:
    """The client's address as allauth's rate limits read it (ALLAUTH_TRUSTED_PROXY_COUNT)."""
    from allauth.account.adapter import get_adapter

    return get_adapter(request).get_client_ip(request)
