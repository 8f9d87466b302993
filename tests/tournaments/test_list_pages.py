"""The public tournament and league lists in pages: one account once made 1,000 tournaments
and the list grew to 318 KB; now each section shows a page, whatever the count."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tournaments.models import League, Tournament

pytestmark = pytest.mark.django_db

Status = Tournament.Status


def tournaments(count: int, creator: Any, status: str = Status.SIGNUP, start: int = 0) -> None:
    """``count`` tournaments straight into the table (the flood the limits now refuse)."""
    soon = timezone.now() + timedelta(days=7)
    Tournament.objects.bulk_create(
        Tournament(
            name=f"Flood cup {start + i:04d}", kind="keltis", status=status, created_by=creator,
            signup_until=soon + timedelta(minutes=start + i),
        )
        for i in range(count)
    )  # fmt: skip


def names(pager: Any) -> list[str]:
    return [t.name for t in pager.items]


def test_a_thousand_tournaments_keep_the_list_as_small_and_cheap_as_twenty(
    client: Client, make_user: Any
) -> None:
    flooder = make_user()
    tournaments(20, flooder)
    with CaptureQueriesContext(connection) as twenty_queries:
        twenty = client.get(reverse("tournament_list"))
    tournaments(980, flooder, start=20)
    with CaptureQueriesContext(connection) as thousand_queries:
        thousand = client.get(reverse("tournament_list"))

    assert thousand.status_code == 200
    assert len(thousand.context["signup"].items) == 20
    # the same rows; only the pager ("Page 1 of 50", a next link) is added
    assert len(thousand.content) < len(twenty.content) + 600
    assert len(thousand.content) < 40_000
    assert len(thousand_queries) == len(twenty_queries)


def test_each_section_pages_on_its_own(client: Client, make_user: Any) -> None:
    anna = make_user()
    tournaments(45, anna)
    tournaments(25, anna, status=Status.CANCELLED, start=100)

    response = client.get(reverse("tournament_list"), {"signup_page": "3", "finished_page": "2"})

    assert names(response.context["signup"]) == [f"Flood cup {i:04d}" for i in range(40, 45)]
    # finished and cancelled: the latest sign-up deadline first
    assert names(response.context["finished"]) == [
        f"Flood cup {i:04d}" for i in range(104, 99, -1)
    ]
    page = response.content.decode()
    assert "Page 3 of 3" in page and "Page 2 of 2" in page
    # a section's links keep the other section's page
    assert 'href="/tournaments/?signup_page=2&amp;finished_page=2"' in page
    assert 'href="/tournaments/?signup_page=3"' in page


@pytest.mark.parametrize(
    ("asked", "number"), [("abc", 1), ("0", 1), ("99999", 3), ("2", 2), ("½", 1)]
)
def test_a_bad_page_number_shows_the_first_or_last_page(
    client: Client, make_user: Any, asked: str, number: int
) -> None:
    tournaments(45, make_user())
    response = client.get(reverse("tournament_list"), {"signup_page": asked})
    assert response.status_code == 200
    assert response.context["signup"].page.number == number


def test_the_league_list_shows_twenty_leagues_a_page(client: Client) -> None:
    League.objects.bulk_create(League(name=f"League {i:02d}", kind="keltis") for i in range(25))

    first = client.get(reverse("league_list"))
    second = client.get(reverse("league_list"), {"page": "2"})
    past = client.get(reverse("league_list"), {"page": "99999"})
    junk = client.get(reverse("league_list"), {"page": "abc"})

    assert [row.league.name for row in first.context["rows"]] == [
        f"League {i:02d}" for i in range(20)
    ]
    assert [row.league.name for row in second.context["rows"]] == [
        f"League {i:02d}" for i in range(20, 25)
    ]
    assert "Page 1 of 2" in first.content.decode()
    assert 'rel="next" href="/leagues/?page=2"' in first.content.decode()
    assert past.context["pager"].page.number == 2 and junk.context["pager"].page.number == 1
