"""Pages of the public lists that grow with what players create (lobby, tournaments, leagues).

Django's Paginator, with a forgiving page number: whatever is not a page (``?page=abc``,
``?page=0``, a number too long to read) shows the first page and a number past the end shows
the last, so a hand-edited or stale link never answers 500 or 404. The pager's links keep the
rest of the query string (another section's page, a filter), so one page can hold several
paginated lists, each with its own parameter. ``templates/_pager.html`` shows a ``Pager``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.http import HttpRequest, QueryDict


@dataclass(frozen=True)
class Pager:
    page: Page
    #: the query parameter that carries this list's page number
    param: str
    previous_url: str | None
    next_url: str | None

    @property
    def items(self) -> Any:
        return self.page.object_list


def page_number(raw: str | None, last: int) -> int:
    """The page ``raw`` asks for, within 1..``last``."""
    try:
        number = int(raw or "")
    except ValueError:  # not a number, or too many digits to read
        return 1
    return min(max(number, 1), last)


def _url(path: str, query: QueryDict, param: str, number: int) -> str:
    query = query.copy()
    if number == 1:
        query.pop(param, None)  # page 1 is the plain address
    else:
        query[param] = str(number)
    return f"{path}?{query.urlencode()}" if query else path


def paginate(request: HttpRequest, items: Any, *, per_page: int, param: str = "page") -> Pager:
    """The page of ``items`` (an ordered queryset or a list) that ``request`` asks for."""
    paginator = Paginator(items, per_page)
    page = paginator.page(page_number(request.GET.get(param), paginator.num_pages))
    return Pager(
        page=page,
        param=param,
        previous_url=(
            _url(request.path, request.GET, param, page.previous_page_number())
            if page.has_previous()
            else None
        ),
        next_url=(
            _url(request.path, request.GET, param, page.next_page_number())
            if page.has_next()
            else None
        ),
    )
