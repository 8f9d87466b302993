"""The organisers' create-league page (staff only) and ``leagues.league_create``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tournaments import leagues
from tournaments.models import League

URL = "/leagues/new/"


@pytest.fixture
def staff_client(client: Client, make_user: Callable[..., User]) -> Client:
    client.force_login(make_user(is_staff=True))
    return client


def valid_data(**changes: str) -> dict[str, str]:
    data = {
        "name": "Autumn cards", "kind": "keltis-cards", "min_players": "2",
        "max_players": "3", "days_per_move": "5", "bank_increment_hours": "12",
        "bank_cap_hours": "48", "rating_min": "1400", "rating_max": "1700",
        "season_days": "60",
    }  # fmt: skip
    data.update(changes)
    return data


def test_the_url() -> None:
    assert reverse("league_create") == URL


@pytest.mark.django_db
def test_staff_create_a_league(staff_client: Client) -> None:
    assert staff_client.get(URL).status_code == 200
    response = staff_client.post(URL, valid_data(), follow=True)
    league = League.objects.get()
    assert response.redirect_chain == [(reverse("league_detail", args=[league.pk]), 302)]
    assert (
        league.name, league.kind, league.min_players, league.max_players, league.days_per_move,
        league.bank_increment_hours, league.bank_cap_hours, league.rating_min,
        league.rating_max, league.season_days, league.active,
    ) == ("Autumn cards", "keltis-cards", 2, 3, 5, 12, 48, 1400, 1700, 60, True)  # fmt: skip
    assert league.options == {"closing_may_open_row": False}  # the game's defaults
    messages = [str(m) for m in response.context["messages"]]
    assert messages == ["The league Autumn cards is open: players can join it now."]


@pytest.mark.django_db
def test_an_open_band_and_no_time_bank(staff_client: Client) -> None:
    data = valid_data(rating_min="", rating_max="", bank_increment_hours="0", bank_cap_hours="0")
    assert staff_client.post(URL, data).status_code == 302
    league = League.objects.get()
    assert (league.rating_min, league.rating_max, league.bank_cap_hours) == (None, None, 0)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"min_players": "4", "max_players": "2"}, "max_players", "A table cannot be smaller"),
        ({"rating_min": "1700", "rating_max": "1600"}, "rating_max", "The band's top is below"),
        ({"bank_increment_hours": "24", "bank_cap_hours": "12"}, "bank_cap_hours", "cap must"),
        ({"season_days": "6"}, "season_days", ""),
        ({"season_days": "366"}, "season_days", ""),
        ({"min_players": "5"}, "min_players", ""),
        ({"days_per_move": "4"}, "days_per_move", ""),
        ({"name": "  "}, "name", ""),
    ],
)
def test_invalid_input_creates_nothing(
    staff_client: Client, changes: dict[str, str], field: str, message: str
) -> None:
    response = staff_client.post(URL, valid_data(**changes))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert set(errors) == {field}
    assert message in " ".join(errors[field])
    assert "Please correct the marked choices." in response.content.decode()
    assert not League.objects.exists()


@pytest.mark.django_db
def test_the_service_holds_the_same_rules() -> None:
    with pytest.raises(leagues.LeagueError, match="smaller than the minimum"):
        leagues.league_create(name="X", kind="keltis-cards", min_players=4, max_players=2)
    with pytest.raises(leagues.LeagueError, match="band's top"):
        leagues.league_create(name="X", kind="keltis-cards", rating_min=1600, rating_max=1500)
    with pytest.raises(leagues.LeagueError, match="at least its increment"):
        leagues.league_create(
            name="X", kind="keltis-cards", bank_increment_hours=5, bank_cap_hours=4
        )
    with pytest.raises(leagues.LeagueError, match="unknown option"):
        leagues.league_create(name="X", kind="keltis-cards", options={"nope": True})
    with pytest.raises(leagues.LeagueError, match="name"):
        leagues.league_create(name=" ", kind="keltis-cards")
    assert not League.objects.exists()


@pytest.mark.django_db
def test_players_who_are_not_staff_are_forbidden(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user())
    assert client.get(URL).status_code == 403
    assert client.post(URL, valid_data()).status_code == 403
    assert not League.objects.exists()


@pytest.mark.django_db
def test_anonymous_visitors_go_to_login(client: Client) -> None:
    for response in (client.get(URL), client.post(URL, valid_data())):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("account_login"))
    assert not League.objects.exists()


@pytest.mark.django_db
def test_the_list_links_to_the_page_for_staff_only(
    client: Client, make_user: Callable[..., User]
) -> None:
    link = f'href="{URL}"'
    assert link not in client.get(reverse("league_list")).content.decode()
    client.force_login(make_user())
    assert link not in client.get(reverse("league_list")).content.decode()
    client.force_login(make_user(is_staff=True))
    html = client.get(reverse("league_list")).content.decode()
    assert link in html and "New league" in html
