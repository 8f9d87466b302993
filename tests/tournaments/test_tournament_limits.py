"""How many tournaments one player may create (tournaments.creation_limits): so many open for
sign-up at once and so many in any 24 hours; refused with a message, nothing created; staff
are not limited."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments import rounds
from tournaments.models import Tournament
from tournaments.rounds import TournamentError

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """The services word refusals in the active language: match them in English, whatever an
    earlier test's request in another language left active in this thread."""
    with translation.override("en"):
        yield

NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
Status = Tournament.Status


def create(creator: Any, now: datetime = NOW, **fields: Any) -> Tournament:
    values = {"name": "Spring cup", "kind": "keltis", "format": "swiss", **fields}
    return rounds.tournament_create(
        creator=creator, signup_until=now + timedelta(days=7), now=now, **values
    )


def test_a_fourth_tournament_open_for_sign_up_is_refused(make_user: Any) -> None:
    anna = make_user()
    for _ in range(3):
        create(anna)

    with pytest.raises(TournamentError, match="at most 3 tournaments open for sign-up"):
        create(anna, name="One too many")

    assert Tournament.objects.filter(created_by=anna).count() == 3
    assert not Tournament.objects.filter(name="One too many").exists()


def test_a_tournament_out_of_sign_up_frees_its_place(make_user: Any) -> None:
    anna = make_user()
    first, *_ = [create(anna) for _ in range(3)]
    Tournament.objects.filter(pk=first.pk).update(status=Status.CANCELLED)

    create(anna)

    assert Tournament.objects.filter(created_by=anna, status=Status.SIGNUP).count() == 3


def test_at_most_five_tournaments_in_24_hours(make_user: Any, settings: Any) -> None:
    """Tournaments nobody joins are cancelled when sign-up ends and stay listed: a short
    sign-up must not let one account make them without end."""
    settings.MAX_SIGNUP_TOURNAMENTS_PER_PLAYER = 10
    anna = make_user()
    for hour in range(5):
        create(anna, now=NOW + timedelta(hours=hour))

    with pytest.raises(TournamentError, match="at most 5 tournaments in 24 hours"):
        create(anna, now=NOW + timedelta(hours=23, minutes=59))
    create(anna, now=NOW + timedelta(hours=24, minutes=1))  # the first one is 24 hours old

    assert Tournament.objects.filter(created_by=anna).count() == 6


def test_the_limits_are_settings(make_user: Any, settings: Any) -> None:
    settings.MAX_SIGNUP_TOURNAMENTS_PER_PLAYER = 1
    anna = make_user()
    create(anna)
    with pytest.raises(TournamentError, match="at most 1 tournament open for sign-up"):
        create(anna)
    settings.MAX_SIGNUP_TOURNAMENTS_PER_PLAYER = 5
    settings.MAX_TOURNAMENTS_PER_PLAYER_PER_DAY = 1
    with pytest.raises(TournamentError, match="at most 1 tournament in 24 hours"):
        create(anna)


def test_staff_are_not_limited(make_user: Any) -> None:
    organiser = make_user(is_staff=True)
    for _ in range(8):
        create(organiser)
    assert Tournament.objects.filter(created_by=organiser).count() == 8


@pytest.mark.parametrize("language", ["en", "de", "pl"])
def test_the_create_form_says_why_in_the_players_language(
    client: Client, make_user: Any, language: str
) -> None:
    anna = make_user(language=language)
    for _ in range(3):
        create(anna, now=NOW - timedelta(days=2))
    client.force_login(anna)
    data = {
        "name": "Fourth cup", "kind": "keltis", "format": "swiss", "table_size": 2,
        "rounds": 3, "days_per_move": 3, "bank_increment_hours": 0, "bank_cap_hours": 0,
        "signup_until": "2026-05-09T09:00", "round_days": 14,
    }  # fmt: skip

    with time_machine.travel(NOW, tick=False):
        response = client.post(reverse("tournament_create"), data)

    assert response.status_code == 200
    with translation.override(language):
        expected = translation.ngettext(
            "You may have at most %(n)s tournament open for sign-up: create the next one when "
            "its sign-up has closed.",
            "You may have at most %(n)s tournaments open for sign-up: create the next one when "
            "the sign-up of one of them has closed.",
            3,
        ) % {"n": 3}
    assert expected in response.content.decode()
    assert language == "en" or not expected.startswith("You may")
    assert not Tournament.objects.filter(name="Fourth cup").exists()
