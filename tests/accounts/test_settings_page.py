"""The settings page and accounts.services.update_profile behind it."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
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
    assert form.initial == {
        "display_name": "Anna K",
        "time_zone": "UTC",
        "language": "en",
        "talk_in_records": False,  # issue 29: may their table talk be in game records
    }


def test_time_zone_select_lists_common_european_zones_first(signed_in: Client) -> None:
    (_, common), *regions = time_zone_choices()

    assert [zone for zone, _ in common] == list(COMMON_TIME_ZONES)
    others = [zone for _, zones in regions for zone, _ in zones]
    assert "America/New_York" in others
    assert not {zone for zone, _ in common} & set(others)
    assert len(others) == len(set(others))
    html = signed_in.get(URL).content.decode()
    assert html.index('value="Europe/Budapest"') < html.index('value="Africa/Abidjan"')


def test_time_zones_are_grouped_by_region(signed_in: Client) -> None:
    groups = {str(label): dict(zones) for label, zones in time_zone_choices()}

    assert list(groups)[:4] == ["Common", "Europe", "America", "Asia"]
    assert list(groups)[-1] == "Other"
    assert groups["Europe"]["Europe/Amsterdam"] == "Amsterdam"
    assert groups["America"]["America/Argentina/Buenos_Aires"] == "Argentina/Buenos Aires"
    assert groups["Pacific Ocean"]["Pacific/Auckland"] == "Auckland"
    assert {"Etc/GMT+1", "US/Eastern"} <= set(groups["Other"])
    for label, zones in groups.items():
        if label not in ("Common", "Other"):
            assert list(zones) == sorted(zones), label
    html = signed_in.get(URL).content.decode()
    assert '<optgroup label="Europe">' in html and '<optgroup label="America">' in html
    # the page's own language names the regions
    signed_in.post(URL, {"display_name": "Anna K", "time_zone": "UTC", "language": "hu"})
    assert '<optgroup label="Európa">' in signed_in.get(URL).content.decode()


def test_the_time_zones_can_be_searched(signed_in: Client) -> None:
    """A search box the page's script shows and wires to the select: hidden without it, and
    the script is a file of the site's (the CSP allows no inline script)."""
    html = signed_in.get(URL).content.decode()

    assert re.search(r'<div class="time-zone-search" id="time-zone-search" hidden>', html)
    assert '<label for="time-zone-search-input">Find a time zone</label>' in html
    script = re.search(r'<script src="([^"]+)" data-select="id_time_zone"[^>]*>', html)
    assert script is not None and script.group(1) == "/static/accounts/time_zone_search.js"
    assert 'data-search="time-zone-search"' in script.group(0)
    assert finders.find("accounts/time_zone_search.js")


@pytest.mark.parametrize(
    "zone", ["America/Argentina/Buenos_Aires", "Pacific/Auckland", "Etc/GMT+1"]
)
def test_a_zone_from_any_group_saves(signed_in: Client, player: User, zone: str) -> None:
    data = {"display_name": "Anna K", "time_zone": zone, "language": "en"}
    response = signed_in.post(URL, data)

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.time_zone == zone
    assert f'<option value="{zone}" selected>' in signed_in.get(URL).content.decode()


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
