"""Markup written in Python where a template's loop cost too much (the game page's drawings,
a turn email's parts: issues 21 and 30): a value escaped exactly as a template escapes it."""

from __future__ import annotations

import html

from django.utils.safestring import SafeData


def esc(value: object) -> str:
    """``value`` as a template writes it with autoescape on: Django's ``conditional_escape``
    (``html.escape``, a safe string as it is), without the wrapper for lazy strings that cost
    more than the escaping (a first view escapes some hundreds of values)."""
    return value if isinstance(value, SafeData) else html.escape(str(value))
