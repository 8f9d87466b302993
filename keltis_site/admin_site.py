"""Django's admin site with a rate limit on its login form.

allauth limits the site's own login, sign-up and password reset (ACCOUNT_RATE_LIMITS); the
admin has a login form of its own that nothing limited, a target for password guessing
against staff accounts. Past ADMIN_LOGIN_RATE_LIMIT POSTs from one client IP in a window the
form answers 429 with the site's 429 page, without checking the password. The client IP is
read as allauth reads it (TRUSTED_PROXY_COUNT), and the counter is the one ACTION_RATE_LIMIT
uses (games.ratelimit), in the shared cache. While the cache's Redis is away the counter counts
in each process (keltis_site.cache): the limit holds per process, and staff can still log in.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache

from games import ratelimit

log = logging.getLogger(__name__)


class AdminSite(admin.AdminSite):
    """The default admin site (installed by keltis_site.apps.AdminConfig)."""

    # the decorators of Django's own login view, which this one replaces
    @method_decorator(never_cache)
    @login_not_required
    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        if request.method == "POST":
            ip = ratelimit.client_ip(request)
            if not ratelimit.hit("admin-login", ip, settings.ADMIN_LOGIN_RATE_LIMIT):
                log.warning("admin login rate limited", extra={"client_ip": ip})
                return too_many_login_attempts(request)
        return super().login(request, extra_context)


def too_many_login_attempts(request: HttpRequest) -> HttpResponse:
    """The site's 429 page (the one allauth shows past its limits)."""
    return render(request, "429.html", status=429)
