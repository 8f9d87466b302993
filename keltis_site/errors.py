"""The site's own error pages (templates/400.html to 500.html), in the visitor's language.

Django renders its 403 and 404 pages with the request, so they are pages of the site like any
other (base.html: its header, menu and language menu). Its 400 page and its CSRF failure page
are rendered without the request, so these views render them with it. The 500 page must show
when anything else failed, the database or the URL configuration included: it is rendered
from the template alone, without a request or a query, in the language that was active.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: a malformed or suspicious request (e.g. a Host header not ours)."""
    return render(request, "400.html", status=400)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form sent without its token (an old page, refused cookies).

    With DEBUG the page also names Django's reason, for the developer."""
    context = {"reason": reason if settings.DEBUG else ""}
    return render(request, "403_csrf.html", context, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the template alone (no request context, no database)."""
    context = {
        "stylesheet": _static("games/site.css"),
        "icon": _static("games/favicon.ico"),
        "svg_icon": _static("games/favicon.svg"),
    }
    return HttpResponseServerError(render_to_string("500.html", context))


def _static(path: str) -> str:
    """The file's static address; its plain name if the manifest lacks it (collectstatic
    not run): the error page must not fail on its stylesheet."""
    try:
        return static(path)
    except ValueError:
        return f"{settings.STATIC_URL}{path}"
