"""Where a form asked to go back to after its POST: its ``next`` field when that is a path of
this site (never another host: an open redirect), else the page the caller names."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def next_page(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default
