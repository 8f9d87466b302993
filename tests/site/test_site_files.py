"""What browsers and crawlers ask every site for: a favicon, robots.txt and a description of
each page, in the visitor's language."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.robotparser import RobotFileParser

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

_DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')
_ICONS = re.compile(r'<link rel="icon" href="([^"]+)"')


def description(response: Any) -> str:
    assert response.status_code == 200
    found = _DESCRIPTION.findall(response.content.decode())
    assert len(found) == 1, found
    return html.unescape(found[0])


# -- the favicon ---------------------------------------------------------------------------
def test_favicon_ico_answers_with_the_sites_icon(client: Client) -> None:
    """(tests/site/test_local_serve.py fetches it from the collected static files.)"""
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"] == static("games/favicon.ico")
    icon = finders.find("games/favicon.ico")
    assert icon is not None
    with open(icon, "rb") as file:
        assert file.read(4) == b"\x00\x00\x01\x00"  # an ICO file: reserved 0, type 1


def test_every_page_links_an_svg_and_an_ico_icon(client: Client) -> None:
    page = client.get(reverse("home")).content.decode()

    icons = _ICONS.findall(page)
    assert [icon.rsplit(".", 1)[-1] for icon in icons] == ["ico", "svg"]
    svg = finders.find("games/favicon.svg")
    assert svg is not None
    with open(svg) as file:
        assert file.read().startswith("<svg")


# -- robots.txt ----------------------------------------------------------------------------
PUBLIC = [
    "/",
    reverse("lobby"),
    reverse("game_detail", args=[1]),
    reverse("rules_index"),
    reverse("rules", args=["keltis-cards"]),
    reverse("leaderboard", args=["keltis"]),
    reverse("tournament_list"),
    reverse("league_list"),
    reverse("player_profile", args=["anna"]),
]
PRIVATE = [
    reverse("email_action", args=["a-signed-token"]),  # an emailed action link
    reverse("email_unsubscribe", args=["a-signed-token"]),
    reverse("email_preferences"),
    reverse("account_login"),
    reverse("account_signup"),
    reverse("account_confirm_email", args=["a-key"]),
    reverse("account_reset_password"),
    reverse("account_settings"),
    reverse("game_create"),
    reverse("my_games"),
    reverse("admin:index"),
    "/admin/login/",
    reverse("healthz"),
]


def test_robots_txt_allows_the_public_pages_and_nothing_personal(client: Client) -> None:
    response = client.get("/robots.txt")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    robots = RobotFileParser()
    robots.parse(response.content.decode().splitlines())
    for path in PUBLIC:
        assert robots.can_fetch("*", path), path
    for path in PRIVATE:
        assert not robots.can_fetch("*", path), path


# -- the pages' descriptions ---------------------------------------------------------------
PAGES = [
    reverse("lobby"),
    reverse("rules_index"),
    reverse("rules", args=["keltis"]),
    reverse("leaderboard", args=["keltis-cards"]),
    reverse("tournament_list"),
    reverse("league_list"),
]


def test_the_home_page_describes_the_site(client: Client) -> None:
    text = description(client.get("/"))

    assert "Keltis" in text
    assert "email" in text


@pytest.mark.parametrize("path", PAGES)
def test_each_public_page_has_a_description_of_its_own(client: Client, path: str) -> None:
    default = description(client.get("/"))

    own = description(client.get(path))

    assert own and own != default


def test_a_players_page_is_described_by_their_name(client: Client, make_user: Any) -> None:
    anna = make_user("anna", display_name="Anna K")

    text = description(client.get(reverse("player_profile", args=[anna.username])))

    assert text.startswith("Anna K:")


@pytest.mark.parametrize("path", ["/", *PAGES])
def test_descriptions_are_in_the_visitors_language(path: str) -> None:
    english = description(Client(HTTP_ACCEPT_LANGUAGE="en").get(path))
    hungarian = description(Client(HTTP_ACCEPT_LANGUAGE="hu").get(path))

    assert hungarian and hungarian != english
