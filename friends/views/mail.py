"""The "never email me again" page behind the link (and the List-Unsubscribe) of every
invitation to an address: no account needed.

Mail scanners open links, so a GET only shows what the button would do; the POST from that
page (CSRF-checked) or a mail client's RFC 8058 one-click POST (the body
``List-Unsubscribe=One-Click``, which carries no CSRF token: the one reason the view is exempt
and checks CSRF itself otherwise) records it. A forged link is refused (400) and changes
nothing. The page speaks the language the invitation was written in.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from notifications import links

from .. import optout


def _csrf_refusal(request: HttpRequest) -> HttpResponse | None:
    """Django's CSRF check, for the view that must also take RFC 8058's token-less POST."""
    return CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})


def _page(request: HttpRequest, state: str, email: str = "", status: int = 200) -> HttpResponse:
    return render(
        request, "friends/never_email.html", {"state": state, "email": email}, status=status
    )


@csrf_exempt
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def never_email(request: HttpRequest, token: str) -> HttpResponse:
    try:
        found = optout.read(token)
    except links.LinkError:
        return _page(request, "invalid", status=400)
    with translation.override(found.language):
        request.LANGUAGE_CODE = found.language
        if request.method != "POST":
            state = "done" if optout.is_opted_out(found.email) else "confirm"
            return _page(request, state, found.email)
        if request.POST.get("List-Unsubscribe") != "One-Click":
            refusal = _csrf_refusal(request)
            if refusal is not None:
                return refusal
        optout.opt_out(found.email)
        return _page(request, "done", found.email)
