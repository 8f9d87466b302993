"""Display names are unique as players read them (accounts.display_names): not two that differ
only in case, width or look-alike letters (Unicode TR39 skeletons), and none with invisible,
control or text-direction characters or odd spacing. At sign-up, in the settings, in the
admin, and in the database itself (unique keys), so that a race cannot get past it."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts import forms, selectors, services
from accounts.display_names import SIMILAR_NAME, name_keys, settle
from accounts.models import User, validate_display_name
from accounts.services import update_profile
from tests.accounts.helpers import sign_up

CYRILLIC_A = "\u0410"
#: "Alice" as it looks, spelt in other characters than the Latin letters of "Alice"
LOOK_ALIKES = [
    "alice",  # case
    "ALICE",
    f"{CYRILLIC_A}lice",  # Cyrillic capital A
    f"{CYRILLIC_A}LICE",  # both
    "AIice",  # capital I for small l
    "\uff21\uff4c\uff49\uff43\uff45",  # full-width letters
    "\U0001d400lice",  # mathematical bold capital A
]
SIMILAR = "This name is too similar to another player&#x27;s name."  # as the HTML escapes it


def read_alike(a: str, b: str) -> bool:
    keys_a, keys_b = name_keys(a), name_keys(b)
    return (
        keys_a.skeleton == keys_b.skeleton or keys_a.folded_skeleton == keys_b.folded_skeleton
    )


# -- the keys --------------------------------------------------------------------------------


@pytest.mark.parametrize("other", LOOK_ALIKES)
def test_look_alikes_of_a_name_share_a_key_with_it(other: str) -> None:
    assert read_alike("Alice", other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Stra\u00dfe", "STRASSE"),  # case folding: sharp s
        ("Player1", "Playerl"),  # digit one and small L
        ("Kov\u00e1cs B\u00e9la", "Kova\u0301cs Be\u0301la"),  # composed and decomposed accents
        ("Anna K", "Anna\u00a0K"),  # a no-break space (refused anyway, see below)
    ],
)
def test_other_spellings_that_read_alike_share_a_key(one: str, other: str) -> None:
    assert read_alike(one, other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("\u041c\u0430\u0440\u0438\u044f", "Maria"),  # Russian in Cyrillic, German in Latin
        ("\u0418\u0432\u0430\u043d", "Ivan"),
        ("\u0410\u043d\u043d\u0430", "Anna"),
        ("Kov\u00e1cs B\u00e9la", "Kovacs Bela"),  # accents make another name
        ("Anna K", "Anna_K"),
        ("Anna", "Anna K"),
    ],
)
def test_names_that_are_different_keep_different_keys(one: str, other: str) -> None:
    assert not read_alike(one, other)


# -- characters and spacing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Anna\u200bK", "characters"),  # zero-width space
        ("Anna\u200dK", "characters"),  # zero-width joiner
        ("\u202eAnna K", "characters"),  # right-to-left override
        ("Anna \u2067K\u2069", "characters"),  # right-to-left isolate
        ("Anna\u200fK", "characters"),  # right-to-left mark
        ("Anna\nK", "characters"),  # line feed
        ("Anna\r\nK", "characters"),
        ("Anna\u2028K", "characters"),  # line separator
        ("Anna\tK", "characters"),  # tab (a control character)
        ("Anna\u00adK", "characters"),  # soft hyphen
        ("Anna\u3164", "characters"),  # Hangul filler: a letter one cannot see
        ("Anna\ufe0fK", "characters"),  # variation selector
        ("Anna\ue000", "characters"),  # private use
        ("Anna\U000e0041", "characters"),  # tag character
        ("Anna  K", "spaces"),  # two spaces
        (" Anna K", "spaces"),
        ("Anna K ", "spaces"),
        ("Anna\u00a0K", "spaces"),  # no-break space
        ("Anna\u3000K", "spaces"),  # ideographic space
    ],
)
def test_invisible_characters_and_odd_spacing_are_refused(name: str, code: str) -> None:
    with pytest.raises(ValidationError) as raised:
        validate_display_name(name)

    assert [error.code for error in raised.value.error_list] == [code]


@pytest.mark.parametrize(
    "name",
    [
        "Anna K",
        "Kov\u00e1cs B\u00e9la",
        "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
        "J\u00fcrgen Gro\u00df",
        "O'Brien",
        "Ana-Mar\u00eda",
        "\u674e\u5c0f\u9f99",
        "\u0645\u062d\u0645\u062f",  # Arabic letters: right-to-left text, no controls
        "Zo\u00eb \U0001f3b2",  # an emoji
    ],
)
def test_names_in_any_script_are_accepted(name: str) -> None:
    validate_display_name(name)


# -- sign-up ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("other", LOOK_ALIKES)
def test_signup_refuses_a_name_that_reads_like_another_players(
    make_player: Callable[..., User], mailoutbox: list[mail.EmailMessage], other: str
) -> None:
    make_player(email="alice@example.test", display_name="Alice")

    response = sign_up(Client(), email="mallory@example.test", display_name=other)

    assert response.status_code == 200
    codes = [e.code for e in response.context["form"].errors.as_data()["display_name"]]
    assert codes == ["similar"]
    assert SIMILAR in response.content.decode()
    assert User.objects.count() == 1
    assert mailoutbox == []


@pytest.mark.django_db
def test_signup_refuses_invisible_characters(mailoutbox: list[mail.EmailMessage]) -> None:
    response = sign_up(Client(), display_name="Anna\u200bK")

    assert response.status_code == 200
    codes = [e.code for e in response.context["form"].errors.as_data()["display_name"]]
    assert codes == ["characters"]
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["hu", "pl", "cs", "sk", "ru", "de"])
def test_the_error_is_in_the_players_language(
    make_player: Callable[..., User], mailoutbox: list[mail.EmailMessage], language: str
) -> None:
    make_player(email="alice@example.test", display_name="Alice")

    response = sign_up(
        Client(HTTP_ACCEPT_LANGUAGE=language), email="m@example.test", display_name="ALICE"
    )

    [error] = response.context["form"].errors["display_name"]
    with translation.override(language):
        assert error == str(SIMILAR_NAME)
    assert error != "This name is too similar to another player's name."


@pytest.mark.django_db
def test_a_russian_and_a_german_name_that_differ_may_both_be_taken(
    mailoutbox: list[mail.EmailMessage],
) -> None:
    names = ["\u041c\u0430\u0440\u0438\u044f", "Maria", "\u0418\u0432\u0430\u043d", "Ivan"]
    for number, name in enumerate(names):
        assert sign_up(Client(), email=f"p{number}@example.test", display_name=name).status_code
    assert sorted(User.objects.values_list("display_name", flat=True)) == sorted(names)


def first_check_misses(real: Callable[..., bool]) -> Callable[..., bool]:
    """display_name_taken as it is when another player's name commits just after the check:
    the first call finds nothing, later ones find the name."""
    calls = []

    def check(name: str, **kwargs: Any) -> bool:
        calls.append(name)
        return False if len(calls) == 1 else real(name, **kwargs)

    return check


@pytest.mark.django_db(transaction=True)
def test_a_name_taken_during_the_signup_gets_the_form_back_not_an_error_page(
    make_player: Callable[..., User],
    mailoutbox: list[mail.EmailMessage],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_player(email="alice@example.test", display_name="Alice")
    monkeypatch.setattr(
        forms, "display_name_taken", first_check_misses(selectors.display_name_taken)
    )

    response = sign_up(Client(), email="mallory@example.test", display_name="ALICE")

    assert response.status_code == 200
    codes = [e.code for e in response.context["form"].errors.as_data()["display_name"]]
    assert codes == ["similar"]
    assert list(User.objects.values_list("email", flat=True)) == ["alice@example.test"]
    assert mailoutbox == []


# -- settings --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("other", LOOK_ALIKES)
def test_a_player_cannot_rename_to_another_players_name(
    make_player: Callable[..., User], other: str
) -> None:
    make_player(email="alice@example.test", display_name="Alice")
    mallory = make_player(email="mallory@example.test", display_name="Mallory")
    client = Client()
    client.force_login(mallory)

    response = client.post(
        "/accounts/settings/", {"display_name": other, "time_zone": "UTC", "language": "en"}
    )

    assert response.status_code == 200
    assert SIMILAR in response.content.decode()
    assert User.objects.get(pk=mallory.pk).display_name == "Mallory"


@pytest.mark.django_db
def test_a_player_may_change_the_case_of_their_own_name(make_player: Callable[..., User]) -> None:
    anna = make_player(display_name="Anna K")

    update_profile(anna, display_name="ANNA K", time_zone="UTC", language="en")

    assert User.objects.get(pk=anna.pk).display_name == "ANNA K"


@pytest.mark.django_db(transaction=True)
def test_a_name_taken_during_the_rename_is_refused_and_changes_nothing(
    make_player: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_player(email="alice@example.test", display_name="Alice")
    mallory = make_player(email="mallory@example.test", display_name="Mallory")
    monkeypatch.setattr(
        services, "display_name_taken", first_check_misses(selectors.display_name_taken)
    )

    with pytest.raises(ValidationError) as raised:
        update_profile(mallory, display_name="AIice", time_zone="Europe/Prague", language="cs")

    assert raised.value.message_dict == {"display_name": [str(SIMILAR_NAME)]}
    assert (mallory.display_name, mallory.time_zone, mallory.language) == ("Mallory", "UTC", "en")
    assert mallory.display_name_skeleton == name_keys("Mallory").skeleton
    stored = User.objects.get(pk=mallory.pk)
    assert (stored.display_name, stored.time_zone, stored.language) == ("Mallory", "UTC", "en")


# -- the database ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("other", LOOK_ALIKES)
def test_the_database_refuses_a_name_that_reads_like_another(
    make_player: Callable[..., User], other: str
) -> None:
    make_player(email="alice@example.test", display_name="Alice")

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="mallory", email="m@example.test", display_name=other)


@pytest.mark.django_db
def test_players_without_a_display_name_are_no_duplicates(make_user: Callable[..., User]) -> None:
    make_user("one")
    make_user("two")

    assert list(User.objects.values_list("display_name_skeleton", flat=True)) == ["", ""]


@pytest.mark.django_db
def test_keys_follow_a_name_saved_with_update_fields(make_player: Callable[..., User]) -> None:
    anna = make_player(display_name="Anna K")
    anna.display_name = "Anna Kov\u00e1cs"
    anna.save(update_fields=["display_name"])

    stored = User.objects.get(pk=anna.pk)
    assert (stored.display_name_skeleton, stored.display_name_folded_skeleton) == name_keys(
        "Anna Kov\u00e1cs"
    )


# -- the admin -------------------------------------------------------------------------------


@pytest.fixture
def staff(db: None) -> Client:
    admin = User.objects.create_superuser(
        username="root", email="root@example.test", password="a long pass phrase"
    )
    client = Client()
    client.force_login(admin, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.django_db
def test_the_admin_cannot_add_a_player_whose_name_reads_like_another(
    staff: Client, make_player: Callable[..., User]
) -> None:
    make_player(email="alice@example.test", display_name="Alice")

    response = staff.post(
        reverse("admin:accounts_user_add"),
        {
            "username": "mallory",
            "email": "mallory@example.test",
            "display_name": f"{CYRILLIC_A}lice",
            "usable_password": "false",
        },
    )

    assert response.status_code == 200
    assert SIMILAR in response.content.decode()
    assert not User.objects.filter(username="mallory").exists()


@pytest.mark.django_db
def test_the_admin_cannot_rename_a_player_to_a_name_like_another(
    staff: Client, make_player: Callable[..., User]
) -> None:
    make_player(email="alice@example.test", display_name="Alice")
    mallory = make_player(email="mallory@example.test", display_name="Mallory")
    data = {
        "username": mallory.username,
        "email": mallory.email,
        "is_active": "on",
        "date_joined_0": "2025-01-01",
        "date_joined_1": "12:00:00",
        "time_zone": "UTC",
        "language": "en",
    }
    url = reverse("admin:accounts_user_change", args=[mallory.pk])

    refused = staff.post(url, {**data, "display_name": "ALICE"})
    kept = staff.post(url, {**data, "display_name": "Mallory M"})

    assert refused.status_code == 200
    assert SIMILAR in refused.content.decode()
    assert kept.status_code == 302  # saved: the form is otherwise complete
    assert User.objects.get(pk=mallory.pk).display_name == "Mallory M"


@pytest.mark.django_db
def test_the_admin_refuses_invisible_characters(
    staff: Client, make_player: Callable[..., User]
) -> None:
    response = staff.post(
        reverse("admin:accounts_user_add"),
        {
            "username": "mallory",
            "email": "mallory@example.test",
            "display_name": "Mallory\u202e",
            "usable_password": "false",
        },
    )

    assert response.status_code == 200
    assert not User.objects.filter(username="mallory").exists()


# -- names stored before the rules (the migration) --------------------------------------------


def test_settle_keeps_the_oldest_name_and_numbers_newer_look_alikes() -> None:
    stored = [
        (1, "Alice"),
        (2, "ALICE"),
        (3, f"{CYRILLIC_A}lice"),
        (4, "Bob\u200b"),
        (5, "Anna  K\n"),
        (6, "\u202eX"),
        (7, ""),
        (8, "x" * 40),
        (9, "X" * 40),
    ]

    settled = {id_: name for id_, name, _ in settle(stored)}

    assert settled == {
        1: "Alice",
        2: "ALICE 2",
        3: f"{CYRILLIC_A}lice 3",  # "...lice 2" reads like "ALICE 2"
        4: "Bob",
        5: "Anna K",
        6: "",  # too short once tidied: the player's username shows
        7: "",
        8: "x" * 40,
        9: "X" * 38 + " 2",  # still at most 40 characters
    }
    for name in settled.values():
        if name:
            validate_display_name(name)


@pytest.mark.django_db(transaction=True)
def test_the_migration_settles_the_names_of_the_players_there_are() -> None:
    """Back to the schema before the keys, players with look-alike and untidy names, then
    forward: names settled, keys filled, and the constraints hold from then on."""
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate([("accounts", "0004_vacations_end")])
    try:
        old_user = executor.loader.project_state(("accounts", "0004_vacations_end")).apps
        stored = ["Alice", "ALICE", f"{CYRILLIC_A}lice", "Bob\u200b", "Anna  K\n", ""]
        for number, name in enumerate(stored):
            old_user.get_model("accounts", "User").objects.create(
                username=f"p{number}", email=f"p{number}@example.test", display_name=name
            )
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)

    rows = User.objects.order_by("pk").values_list(
        "display_name", "display_name_skeleton", "display_name_folded_skeleton"
    )
    names = ["Alice", "ALICE 2", f"{CYRILLIC_A}lice 3", "Bob", "Anna K", ""]
    assert list(rows) == [(name, *name_keys(name)) for name in names]
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="m", email="m@example.test", display_name="alice")


@pytest.mark.django_db
def test_refreshing_the_keys_settles_names_that_came_to_read_alike(
    make_player: Callable[..., User],
) -> None:
    """As after an ICU upgrade whose confusables data maps a character anew: two stored names
    whose keys differed now read alike; the command numbers the newer one."""
    make_player(email="alice@example.test", display_name="Alice")
    newer = make_player(email="mallory@example.test", display_name="Mallory")
    # a name that reads like Alice's, with the keys an older ICU might have given it (written
    # past save(), which would compute the current ones)
    User.objects.filter(pk=newer.pk).update(
        display_name="ALICE", display_name_skeleton="old", display_name_folded_skeleton="old"
    )
    out = StringIO()

    call_command("refresh_display_name_keys", stdout=out)

    newer.refresh_from_db()
    assert newer.display_name == "ALICE 2"
    assert (newer.display_name_skeleton, newer.display_name_folded_skeleton) == name_keys(
        "ALICE 2"
    )
    assert f"{newer.username}: 'ALICE' -> 'ALICE 2'" in out.getvalue()
    assert "1 display name(s) changed" in out.getvalue()
