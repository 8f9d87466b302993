"""The settings page and accounts.services.update_profile behind it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.forms import COMMON_TIME_ZONES, time_zone_choices
from accounts.models import User
from accounts.services import update_profile

pytestmark = pytest.mark.django_db

URL = "/accounts/settings/"


@pytest.fixture
def player(make_player) -> User:
    return make_player(display_name="Anna K")


@pytest.fixture
def signed_in(client: Client, player: User) -> Client:
    client.force_login(player, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client


def test_settings_url(db: None) -> None:
    assert reverse("account_settings") == URL


def test_settings_need_a_signed_in_player(client: Client) -> None:
    response = client.get(URL)

    assert response.status_code == 302
    assert response.url == f"{reverse('account_login')}?next={URL}"


def test_settings_page_shows_the_current_values(signed_in: Client, player: User) -> None:
    response = signed_in.get(URL)

    assert response.status_code == 200
    assert [t.name for t in response.templates][:2] == ["accounts/settings.html", "base.html"]
    form = response.context["form"]
    assert form.initial == {"display_name": "Anna K", "time_zone": "UTC", "language": "en"}


def test_time_zone_select_lists_common_european_zones_first(signed_in: Client) -> None:
    (_, common), (_, others) = time_zone_choices()

    assert [zone for zone, _ in common] == list(COMMON_TIME_ZONES)
    assert [zone for zone, _ in others] == sorted(zone for zone, _ in others)
    assert "America/New_York" in dict(others)
    assert not {zone for zone, _ in common} & {zone for zone, _ in others}
    html = signed_in.get(URL).content.decode()
    assert html.index('value="Europe/Budapest"') < html.index('value="Africa/Abidjan"')


def test_posting_settings_saves_them(signed_in: Client, player: User) -> None:
    response = signed_in.post(
        URL, {"display_name": " Anna Kovács ", "time_zone": "Europe/Budapest", "language": "hu"}
    )

    assert response.status_code == 302
    assert response.url == URL
    player.refresh_from_db()
    assert (player.display_name, player.time_zone, player.language) == (
        "Anna Kovács",
        "Europe/Budapest",
        "hu",
    )
    page = signed_in.get(URL)
    # the confirmation, like the page, is in the language just chosen
    with translation.override("hu"):
        saved = translation.gettext("Your settings are saved.")
    assert saved != "Your settings are saved." and saved in page.content.decode()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("time_zone", "Europe/Atlantis"),
        ("time_zone", "localtime"),
        ("language", "xx"),
        ("display_name", "A"),
        ("display_name", "   "),
        ("display_name", "x" * 41),
        ("display_name", "anna@example.test"),
    ],
)
def test_invalid_settings_show_errors_and_change_nothing(
    signed_in: Client, player: User, field: str, value: str
) -> None:
    data = {"display_name": "New Name", "time_zone": "Europe/Warsaw", "language": "pl"}
    data[field] = value

    response = signed_in.post(URL, data)

    assert response.status_code == 200
    assert field in response.context["form"].errors
    player.refresh_from_db()
    assert (player.display_name, player.time_zone, player.language) == ("Anna K", "UTC", "en")


def test_settings_page_answers_only_get_and_post(signed_in: Client) -> None:
    assert signed_in.put(URL).status_code == 405


def test_update_profile_validates_everything_before_changing_anything(player: User) -> None:
    with pytest.raises(ValidationError) as raised:
        update_profile(player, display_name="Valid Name", time_zone="Mars/Olympus", language="en")

    assert set(raised.value.message_dict) == {"time_zone"}
    assert player.display_name == "Anna K"  # the object in memory is untouched too
    assert User.objects.get(pk=player.pk).display_name == "Anna K"


def test_update_profile_collects_all_errors(player: User) -> None:
    with pytest.raises(ValidationError) as raised:
        update_profile(player, display_name="", time_zone="Nowhere", language="xx")

    assert set(raised.value.message_dict) == {"display_name", "time_zone", "language"}


def test_update_profile_saves_stripped_values(player: User) -> None:
    update_profile(player, display_name="  Béla  ", time_zone="Europe/Prague", language="cs")

    player.refresh_from_db()
    assert (player.display_name, player.time_zone, player.language) == (
        "Béla",
        "Europe/Prague",
        "cs",
    )
