"""Display names one could take to pass for someone or something else (issue 33): blank
symbols such as the Braille blank, combining marks that make no letter, and the names the
site gives its bots, in every language and whatever reads like them (accounts.display_names).
Refused with a reason in the player's language; nothing is saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation

from accounts.display_names import reserved_for_bots
from accounts.models import User, validate_display_name
from accounts.services import update_profile
from tests.accounts.helpers import sign_up
from tournaments.models import bot_entrant_name


def refusal_code(name: str) -> str | None:
    try:
        validate_display_name(name)
    except ValidationError as error:
        [code] = [e.code for e in error.error_list]
        return code
    return None


# -- blank and invisible characters -------------------------------------------------------------


@pytest.mark.parametrize(
    "character",
    [
        "\u2800",  # Braille pattern blank: a symbol drawn as nothing
        "\u3164",  # Hangul filler
        "\u115f",  # Hangul choseong filler
        "\u1160",  # Hangul jungseong filler
        "\uffa0",  # half-width Hangul filler
        *[chr(code) for code in range(0x200B, 0x2010)],  # zero-width spaces, joiners, marks
        *[chr(code) for code in range(0x2060, 0x2065)],  # word joiner, invisible operators
        "\u034f",  # combining grapheme joiner
        "\u180e",  # Mongolian vowel separator
    ],
)
@pytest.mark.parametrize("where", ["end", "middle", "alone"])
def test_blank_and_invisible_characters_are_refused(character: str, where: str) -> None:
    name = {"end": f"Alice{character}", "middle": f"Al{character}ice", "alone": character * 3}
    assert refusal_code(name[where]) == "characters"


# -- combining marks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Alice\u0336",  # combining long stroke overlay: "Alice" struck through
        "Alic\u0336e\u0336",
        "A\u0327lice",  # a cedilla on A: no such letter, NFC leaves it apart
        "Alice\u0301\u0301",  # a second acute: é and a mark left over
        "\u0301Alice",  # a mark at the start
        "Anna \u0301K",  # on a space
        "Anna K\u20dd",  # an enclosing circle on a Latin letter
        "Player1\u0301",  # on a digit
        "Anna!\u0300",  # on punctuation
        "\u0418\u0432\u0430\u043d\u0336",  # on a Cyrillic letter
        "\u03b1\u0335\u03b2",  # on a Greek letter
        "\u0915\u093f\u0902\u0901\u0903",  # four marks on one Devanagari letter
    ],
)
def test_marks_that_make_no_letter_are_refused(name: str) -> None:
    assert refusal_code(name) == "marks"


@pytest.mark.parametrize(
    "name",
    [
        "Kova\u0301cs Be\u0301la",  # accents typed apart: NFC makes them letters (á, é)
        "Kov\u00e1cs B\u00e9la",
        "\u0415\u0308\u043b\u043a\u0430",  # Cyrillic capital Io typed as Ie and a diaeresis
        "Nguye\u0302\u0303n",  # Vietnamese ễ typed apart: one precomposed letter
        "\u0928\u092e\u0938\u094d\u0924\u0947",  # Hindi: vowel signs and virama are marks
        "\u0e2a\u0e21\u0e0a\u0e32\u0e22 \u0e25\u0e39\u0e01",  # Thai
        "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd",  # Hebrew with its points
    ],
)
def test_marks_that_belong_to_letters_are_accepted(name: str) -> None:
    assert refusal_code(name) is None


# -- the bots' names ---------------------------------------------------------------------------

#: the site's own bot names as it writes them: in a tournament ("Strong bot 2") and at a
#: table (the level, "strong bot"), in each of its languages
SITE_BOT_NAMES = [
    "Strong bot 1",
    "Normal bot 2",
    "Easy bot 17",
    "strong bot",
    "random bot",
    "greedy bot",
    "Er\u0151s bot 3",  # hu
    "Norm\u00e1l bot 2",
    "Silny bot 4",  # pl
    "\u0141atwy bot 1",
    "Siln\u00fd bot 5",  # cs, sk
    "Norm\u00e1lny bot 2",  # sk
    "\u0421\u0438\u043b\u044c\u043d\u044b\u0439 \u0431\u043e\u0442 6",  # ru
    "\u043e\u0431\u044b\u0447\u043d\u044b\u0439 \u0431\u043e\u0442",
    "Starker Bot 7",  # de
    "Zufallsbot",
]
#: the same read alike: case, width, look-alike letters and digits, spacing
LOOK_ALIKES = [
    "\uff33\uff54\uff52\uff4f\uff4e\uff47 \uff42\uff4f\uff54 \uff11",  # full-width
    "\uff2e\uff4f\uff52\uff4d\uff41\uff4c \uff42\uff4f\uff54 \uff12",
    "STRONG BOT 1",
    "Str\u043eng b\u043et 1",  # Cyrillic o
    "NormaI bot 2",  # capital I for small l
    "Strong bot l",  # small L for the digit one
    "Strongbot1",
    "Strong bot 12345",
    "\U0001d412trong bot 3",  # mathematical bold S
]


@pytest.mark.parametrize("name", SITE_BOT_NAMES + LOOK_ALIKES)
def test_the_bots_names_and_their_look_alikes_are_reserved(name: str) -> None:
    assert reserved_for_bots(name)
    assert refusal_code(name) == "reserved"


@pytest.mark.parametrize("language", ["en", "hu", "pl", "cs", "sk", "ru", "de"])
@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_every_name_the_site_gives_a_bot_is_reserved(language: str, level: str) -> None:
    with translation.override(language):
        names = [bot_entrant_name(level, number) for number in (1, 4, 10, 99)]
    for name in names:
        assert reserved_for_bots(name), name


@pytest.mark.parametrize(
    "name",
    ["Strong bot fan", "Bot 1", "Robot 5", "Strong", "Anna", "Botond", "Easy bot 10 again"],
)
def test_names_that_only_mention_bots_stay_free(name: str) -> None:
    assert not reserved_for_bots(name)
    assert refusal_code(name) is None


# -- where players meet the rules ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "language", "expected"),
    [
        ("Strong bot 1", "hu", "Az oldal így nevezi a botjait"),
        (LOOK_ALIKES[1], "ru", "Так сайт называет своих ботов"),  # full-width Normal bot 2
        ("Alice\u2800", "de", "unsichtbaren Zeichen"),
        ("Alice\u0336", "pl", "Akcent lub inny znak musi należeć do litery"),
    ],
)
def test_sign_up_refuses_in_the_players_language_and_creates_nothing(
    mailoutbox: list[mail.EmailMessage], name: str, language: str, expected: str
) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    response = sign_up(client, email="new@example.test", display_name=name)

    assert response.status_code == 200
    assert expected in response.content.decode()
    assert not User.objects.exists()
    assert mailoutbox == []


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Strong bot 3", "Alice\u2800", "Alice\u0336"])
def test_the_settings_refuse_them_and_keep_the_old_name(
    make_player: Callable[..., Any], name: str
) -> None:
    anna = make_player(display_name="Anna K")

    with pytest.raises(ValidationError) as raised:
        update_profile(anna, display_name=name, time_zone="UTC", language="en")

    assert "display_name" in raised.value.message_dict
    anna.refresh_from_db()
    assert anna.display_name == "Anna K"


@pytest.mark.django_db
def test_alice_with_a_braille_blank_or_a_stroke_cannot_sit_next_to_alice(
    make_player: Callable[..., Any],
) -> None:
    make_player(email="alice@example.test", display_name="Alice")
    for copy in ("Alice\u2800", "\u2800Alice", "Alice\u0336", "A\u0336lice"):
        response = sign_up(Client(), email="copy@example.test", display_name=copy)
        assert response.status_code == 200
        assert User.objects.count() == 1
