"""The rules pages: one per game, written for the site in each language it ships.

Each language has its own text (``templates/rules/<language>/<game>.html``), not a string-by-
string translation: rules read better written whole. A language without its own text falls
back to English, and the page says so.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import select_template
from django.utils.translation import get_language

from games.models import GameKind


def rules_template_names(kind: str, language: str) -> list[str]:
    """The rules text to use, best first: the language's own, then English."""
    names = [f"rules/{language}/{kind}.html"]
    if language != settings.LANGUAGE_CODE:
        names.append(f"rules/{settings.LANGUAGE_CODE}/{kind}.html")
    return names


def rules_index(request: HttpRequest) -> HttpResponse:
    """Both games' rules, linked."""
    return render(request, "rules/index.html", {"games": GameKind.choices})


def rules(request: HttpRequest, kind: str) -> HttpResponse:
    """One game's rules in the reader's language."""
    if kind not in GameKind.values:
        raise Http404("no such game")
    language = get_language() or settings.LANGUAGE_CODE
    body = select_template(rules_template_names(kind, language))
    context = {
        "kind": kind,
        "game_name": GameKind(kind).label,
        "body_template": body.template.name,
        "fallback": not body.template.name.startswith(f"rules/{language}/"),
    }
    return render(request, "rules/page.html", context)
