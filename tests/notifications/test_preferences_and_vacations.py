"""Email preferences and vacations: the rules (accounts.vacations) and the page."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts import vacations
from accounts.models import EmailMode, Vacation

pytestmark = pytest.mark.django_db

# noon in Warsaw on 10 June 2030
NOW = dt.datetime(2030, 6, 10, 10, 0, tzinfo=dt.UTC)
D = dt.date


@pytest.fixture
def anna(make_user: Any) -> Any:
    return make_user(time_zone="Europe/Warsaw")


def create(user: Any, first: dt.date, last: dt.date) -> Vacation:
    return vacations.vacation_create(user=user, first_day=first, last_day=last, now=NOW)


def refused(user: Any, first: dt.date, last: dt.date) -> str:
    with pytest.raises(ValidationError) as error:
        create(user, first, last)
    return " ".join(error.value.messages)


# -- the rules --------------------------------------------------------------------------------
def test_a_vacation_runs_from_local_midnight_to_the_midnight_after_its_last_day(
    anna: Any,
) -> None:
    vacation = create(anna, D(2030, 7, 1), D(2030, 7, 3))
    assert vacation.starts_at == dt.datetime(2030, 6, 30, 22, 0, tzinfo=dt.UTC)
    assert vacation.ends_at == dt.datetime(2030, 7, 3, 22, 0, tzinfo=dt.UTC)
    assert vacations.days_used(anna, 2030) == 3


def test_a_vacation_from_today_starts_now_not_retroactively(anna: Any) -> None:
    vacation = create(anna, D(2030, 6, 10), D(2030, 6, 10))
    assert vacation.starts_at == NOW
    assert vacations.days_used(anna, 2030) == 1


def test_the_allowance_is_counted_per_calendar_year(anna: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 10
    create(anna, D(2030, 7, 1), D(2030, 7, 7))  # 7 days
    message = refused(anna, D(2030, 8, 1), D(2030, 8, 4))  # 4 more: 11 > 10
    assert "only 3 left of 10" in message and "2030" in message
    create(anna, D(2030, 8, 1), D(2030, 8, 3))  # exactly 10
    # across new year: 2 days in 2030 would exceed, so the same span is refused ...
    assert "2030" in refused(anna, D(2030, 12, 31), D(2031, 1, 5))
    # ... while 2031 has its own allowance
    create(anna, D(2031, 1, 1), D(2031, 1, 10))
    assert vacations.days_used(anna, 2030) == 10
    assert vacations.days_used(anna, 2031) == 10


def test_the_allowance_defaults_to_30_days(anna: Any, settings: Any) -> None:
    del settings.VACATION_DAYS_PER_YEAR
    assert vacations.allowance() == 30
    create(anna, D(2030, 7, 1), D(2030, 7, 30))
    assert "only 0 left of 30" in refused(anna, D(2030, 9, 1), D(2030, 9, 1))


def test_overlapping_past_and_backwards_vacations_are_refused(anna: Any) -> None:
    create(anna, D(2030, 7, 10), D(2030, 7, 12))
    assert "overlaps" in refused(anna, D(2030, 7, 12), D(2030, 7, 14))
    assert "overlaps" in refused(anna, D(2030, 7, 1), D(2030, 7, 20))
    create(anna, D(2030, 7, 13), D(2030, 7, 14))  # the day after is fine
    assert "past" in refused(anna, D(2030, 6, 9), D(2030, 6, 11))
    assert "before the first" in refused(anna, D(2030, 7, 20), D(2030, 7, 19))
    assert "a year ahead" in refused(anna, D(2031, 8, 1), D(2031, 8, 2))
    assert Vacation.objects.filter(user=anna).count() == 2


def test_only_a_vacation_that_has_not_begun_can_be_removed(anna: Any, make_user: Any) -> None:
    today = create(anna, D(2030, 6, 10), D(2030, 6, 11))
    later = create(anna, D(2030, 7, 1), D(2030, 7, 2))
    with pytest.raises(ValidationError, match="has begun"):
        vacations.vacation_delete(user=anna, vacation_id=today.pk, now=NOW)
    with pytest.raises(ValidationError, match="no such vacation"):
        vacations.vacation_delete(user=make_user(), vacation_id=later.pk, now=NOW)
    vacations.vacation_delete(user=anna, vacation_id=later.pk, now=NOW)
    assert list(Vacation.objects.filter(user=anna)) == [today]


# -- the page ---------------------------------------------------------------------------------
@pytest.fixture
def logged_in(anna: Any) -> Client:
    client = Client()
    client.force_login(anna)
    return client


def test_the_page_needs_a_login() -> None:
    response = Client().get(reverse("email_preferences"))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_the_settings_page_links_to_it(logged_in: Client) -> None:
    page = logged_in.get(reverse("account_settings"))
    assert reverse("email_preferences") in page.content.decode()


def test_saving_the_email_mode_and_digest_hour(logged_in: Client, anna: Any) -> None:
    page = logged_in.get(reverse("email_preferences"))
    assert page.status_code == 200
    response = logged_in.post(
        reverse("email_preferences"),
        {"email_mode": EmailMode.DAILY_DIGEST, "digest_hour": "19"},
    )
    assert response.status_code == 302
    anna.refresh_from_db()
    assert (anna.email_mode, anna.digest_hour) == (EmailMode.DAILY_DIGEST, 19)
    bad = logged_in.post(
        reverse("email_preferences"), {"email_mode": "sometimes", "digest_hour": "25"}
    )
    assert bad.status_code == 400
    anna.refresh_from_db()
    assert (anna.email_mode, anna.digest_hour) == (EmailMode.DAILY_DIGEST, 19)


def test_declaring_and_removing_a_vacation_on_the_page(logged_in: Client, anna: Any) -> None:
    today = vacations.local_today(anna)
    first, last = today + dt.timedelta(days=10), today + dt.timedelta(days=12)
    dates = {"first_day": first.isoformat(), "last_day": last.isoformat()}
    response = logged_in.post(reverse("email_vacation_add"), dates)
    assert response.status_code == 302
    [vacation] = Vacation.objects.filter(user=anna)
    page = logged_in.get(reverse("email_preferences")).content.decode()
    assert reverse("email_vacation_remove", args=[vacation.pk]) in page

    clash = logged_in.post(
        reverse("email_vacation_add"), {"first_day": last.isoformat(), "last_day": last.isoformat()}
    )
    assert clash.status_code == 400
    assert "overlaps" in clash.content.decode()

    response = logged_in.post(reverse("email_vacation_remove", args=[vacation.pk]))
    assert response.status_code == 302
    assert not Vacation.objects.filter(user=anna).exists()


def test_over_the_allowance_the_page_says_so(logged_in: Client, anna: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 2
    first = vacations.local_today(anna) + dt.timedelta(days=3)
    last = first + dt.timedelta(days=4)  # 5 days: at least 3 of them in one calendar year
    dates = {"first_day": first.isoformat(), "last_day": last.isoformat()}
    response = logged_in.post(reverse("email_vacation_add"), dates)
    assert response.status_code == 400
    assert "left of 2 this year" in response.content.decode()
    assert not Vacation.objects.filter(user=anna).exists()
