"""'N days left' with the right plural form in every language.

Polish, Czech, Slovak and Russian have several forms, and the word for "left" agrees with the
number too (Polish "został 1 dzień", "zostały 2 dni", "zostało 5 dni"); 21, 22 and 25 tell a
rule that looks at the last digit from one that looks at the whole number.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from games.listings import time_left_text

NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)

DAYS_LEFT = {
    "en": {1: "1 day left", 2: "2 days left", 5: "5 days left", 21: "21 days left"},
    "hu": {1: "1 nap van hátra", 2: "2 nap van hátra", 5: "5 nap van hátra"},
    "pl": {1: "został 1 dzień", 2: "zostały 2 dni", 4: "zostały 4 dni", 5: "zostało 5 dni",
           12: "zostało 12 dni", 21: "zostało 21 dni", 22: "zostały 22 dni",
           25: "zostało 25 dni"},
    "cs": {1: "zbývá 1 den", 2: "zbývají 2 dny", 4: "zbývají 4 dny", 5: "zbývá 5 dní",
           21: "zbývá 21 dní", 22: "zbývá 22 dní"},
    "sk": {1: "1 deň", 2: "2 dni", 4: "4 dni", 5: "5 dní", 21: "21 dní"},
    "ru": {1: "остался 1 день", 2: "осталось 2 дня", 5: "осталось 5 дней",
           11: "осталось 11 дней", 21: "остался 21 день", 22: "осталось 22 дня",
           25: "осталось 25 дней"},
    "de": {1: "1 Tag", 2: "2 Tage", 5: "5 Tage"},
}

HOURS_LEFT = {
    "pl": {1: "została 1 godzina", 3: "zostały 3 godziny", 5: "zostało 5 godzin"},
    "ru": {1: "остался 1 час", 3: "осталось 3 часа", 5: "осталось 5 часов",
           21: "остался 21 час"},
    "cs": {1: "1 hodina", 3: "3 hodiny", 5: "5 hodin"},
}


@pytest.mark.parametrize(
    ("language", "n", "expected"),
    [(lang, n, text) for lang, forms in DAYS_LEFT.items() for n, text in forms.items()],
)
def test_days_left(language: str, n: int, expected: str) -> None:
    with translation.override(language):
        text = time_left_text(NOW + dt.timedelta(days=n), NOW)
    assert expected.lower() in text.lower()


@pytest.mark.parametrize(
    ("language", "n", "expected"),
    [(lang, n, text) for lang, forms in HOURS_LEFT.items() for n, text in forms.items()],
)
def test_hours_left(language: str, n: int, expected: str) -> None:
    with translation.override(language):
        text = time_left_text(NOW + dt.timedelta(hours=n), NOW)
    assert expected.lower() in text.lower()


@pytest.mark.parametrize("language", ["pl", "ru"])
def test_days_and_hours_agree_each_with_its_own_number(language: str) -> None:
    with translation.override(language):
        text = time_left_text(NOW + dt.timedelta(days=2, hours=5), NOW)
    assert {"pl": "zostały 2 dni", "ru": "осталось 2 дня"}[language] in text
    assert {"pl": "5 godzin", "ru": "5 часов"}[language] in text


def test_time_up_and_no_deadline() -> None:
    assert time_left_text(None, NOW) == ""
    with translation.override("pl"):
        assert time_left_text(NOW, NOW) == translation.gettext(
            "time is up: the timeout rule plays next"
        )
