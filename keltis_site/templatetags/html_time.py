"""``{{ value|datetime_attr }}``: a time for ``<time datetime="...">``.

Django's ``date:'c'`` writes microseconds (six fraction digits), which HTML's datetime attribute
refuses (one to three); whole seconds are all a reader or a script needs.
"""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def datetime_attr(value: datetime | None) -> str:
    """The time in the page's time zone, to the second, with its offset; "" for no time."""
    if not isinstance(value, datetime):
        return ""
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return value.replace(microsecond=0).isoformat()
