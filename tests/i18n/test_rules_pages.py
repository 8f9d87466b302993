"""A rules page per game in every language, written for the site, with the same sections."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from games.views.rules import rules_template_names

pytestmark = pytest.mark.django_db

LANGUAGES = [code for code, _name in settings.LANGUAGES]
SECTIONS = {
    "keltis": ["goal", "material", "setup", "turn", "tiles", "end", "scoring", "options",
               "on-this-site"],
    "keltis-cards": ["goal", "material", "setup", "turn", "draw", "end", "scoring", "options",
                     "on-this-site"],
}
TEMPLATES = Path(settings.BASE_DIR) / "templates" / "rules"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(SECTIONS))
def test_each_language_has_its_own_rules_with_every_section(
    client: Client, language: str, kind: str
) -> None:
    assert (TEMPLATES / language / f"{kind}.html").is_file()
    response = client.get(f"/rules/{kind}/", headers={"accept-language": language})
    assert response.status_code == 200
    page = response.content.decode()
    assert f'<html lang="{language}">' in page
    assert "rules-fallback" not in page
    assert re.findall(r'<h2 id="([\w-]+)"', page) == SECTIONS[kind]
    # two scoring tables, and no template syntax or inline script left in the text
    assert page.count("<table>") == 2
    assert "{%" not in page and "{{" not in page
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)  # base.html's own scripts have a src
    # every navigation landmark is named for a screen reader (the menu, the breadcrumb)
    navs = re.findall(r"<nav\b[^>]*>", page)
    assert len(navs) == 2 and all(re.search(r'aria-label="[^"]+"', nav) for nav in navs), navs


def test_the_texts_differ_by_language() -> None:
    for kind in SECTIONS:
        texts = {(TEMPLATES / lang / f"{kind}.html").read_text() for lang in LANGUAGES}
        assert len(texts) == len(LANGUAGES)


def test_a_language_without_its_own_text_falls_back_to_english() -> None:
    assert rules_template_names("keltis", "xx") == ["rules/xx/keltis.html", "rules/en/keltis.html"]
    assert rules_template_names("keltis", "en") == ["rules/en/keltis.html"]


def test_an_unknown_game_has_no_rules(client: Client) -> None:
    assert client.get("/rules/chess/").status_code == 404


def test_the_rules_link_to_a_new_game_of_that_kind(client: Client) -> None:
    page = client.get("/rules/keltis-cards/").content.decode()
    assert "/games/new/?kind=keltis-cards" in page
