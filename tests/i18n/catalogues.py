"""Reading the site's translation catalogues (locale/<language>/LC_MESSAGES/django.po)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import polib
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
#: every language the site ships a catalogue for (English is the source language)
SHIPPED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]

PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|%[sdr]|\{\w*\}")
TAG = re.compile(r"</?[a-z][a-z0-9]*")


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


@cache
def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(po_path(language)))


def live_entries(language: str) -> list[polib.POEntry]:
    return [entry for entry in catalogue(language) if not entry.obsolete]


def nplurals(language: str) -> int:
    match = re.search(r"nplurals\s*=\s*(\d+)", catalogue(language).metadata["Plural-Forms"])
    assert match, f"{language}: the catalogue has no Plural-Forms header"
    return int(match.group(1))


def entry_key(entry: polib.POEntry) -> tuple[str, str, str]:
    return (entry.msgctxt or "", entry.msgid, entry.msgid_plural or "")


def translations(entry: polib.POEntry) -> list[str]:
    if entry.msgid_plural:
        return [entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural)]
    return [entry.msgstr]
