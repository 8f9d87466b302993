"""The footer's language menu names every language in its own name, whatever the page's language
(issue 32): a reader looks for their language as they write it, with its lang attribute."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings

OWN_NAMES = ["English", "Magyar", "Polski", "Čeština", "Slovenčina", "Русский", "Deutsch"]


@pytest.mark.django_db
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_language_menu_names_each_language_in_its_own(client: Any, language: str) -> None:
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    menu = html[html.index('id="language-menu"') :]
    menu = menu[: menu.index("</select>")]
    options = re.findall(r'<option value="(\w+)" lang="(\w+)"[^>]*>([^<]+)</option>', menu)
    assert [(code, lang) for code, lang, _ in options] == [
        (code, code) for code, _name in settings.LANGUAGES
    ]
    assert [name for _, _, name in options] == OWN_NAMES
