"""The shipped translations are complete, current, well formed and compiled."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import translation

from tests.i18n.catalogues import (
    PLACEHOLDER,
    SHIPPED,
    TAG,
    entry_key,
    live_entries,
    nplurals,
    po_path,
    translations,
)

ROOT = Path(settings.BASE_DIR)
#: what makemessages reads: the apps and the templates (not tests, bench or the venv)
SOURCES = [
    "manage.py", "keltis_site", "accounts", "games", "notifications", "tournaments", "live", "api",
    "friends", "talk",
    "templates",
]


def test_every_language_of_the_menu_has_a_catalogue() -> None:
    assert SHIPPED == ["hu", "pl", "cs", "sk", "ru", "de"]
    for language in SHIPPED:
        assert po_path(language).is_file(), f"no catalogue for {language}"


@pytest.mark.parametrize("language", SHIPPED)
def test_every_message_is_translated_and_none_is_fuzzy(language: str) -> None:
    forms = nplurals(language)
    problems = []
    for entry in live_entries(language):
        if "fuzzy" in entry.flags:
            problems.append(f"fuzzy: {entry.msgid!r}")
        texts = translations(entry)
        if entry.msgid_plural and len(texts) != forms:
            problems.append(f"{len(texts)} of {forms} plural forms: {entry.msgid!r}")
        if not all(text.strip() for text in texts):
            problems.append(f"untranslated: {entry.msgid!r}")
    assert not problems, f"{language}: {len(problems)} problems:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("language", SHIPPED)
def test_translations_keep_placeholders_and_markup(language: str) -> None:
    """A lost %(name)s breaks the page at run time; a lost tag breaks its markup."""
    problems = []
    for entry in live_entries(language):
        sources = [entry.msgid] + ([entry.msgid_plural] if entry.msgid_plural else [])
        allowed = {p for source in sources for p in PLACEHOLDER.findall(source)}
        # every form must keep what both English forms share (e.g. the count in each form)
        required = set.intersection(*(set(PLACEHOLDER.findall(s)) for s in sources))
        tags = Counter(TAG.findall(entry.msgid))
        for text in translations(entry):
            found = set(PLACEHOLDER.findall(text))
            if not found <= allowed or not required <= found:
                problems.append(f"placeholders {sorted(found)} in {text!r} for {entry.msgid!r}")
            if Counter(TAG.findall(text)) != tags:
                problems.append(f"markup differs in {text!r} for {entry.msgid!r}")
    assert not problems, f"{language}:\n" + "\n".join(problems[:40])


def test_catalogues_hold_exactly_the_messages_of_the_sources(tmp_path: Path) -> None:
    """Run makemessages on a copy of the sources: a message added to the code or the templates
    but missing from a catalogue (so shown in English), or one left over, fails here."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / "locale").mkdir()
    env = {**os.environ, "ENV_FILE": str(tmp_path / "no.env"), "DJANGO_SETTINGS_MODULE": ""}
    env.pop("DJANGO_SETTINGS_MODULE")
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "de", "--verbosity", "0"],
        cwd=tmp_path, env=env, check=True, capture_output=True,
    )
    extracted = polib.pofile(str(tmp_path / "locale" / "de" / "LC_MESSAGES" / "django.po"))
    wanted = {entry_key(entry) for entry in extracted if not entry.obsolete}
    assert len(wanted) > 500  # the extraction really read the sources
    for language in SHIPPED:
        have = {entry_key(entry) for entry in live_entries(language)}
        missing, stale = sorted(wanted - have), sorted(have - wanted)
        assert not missing, (
            f"{language}: {len(missing)} messages are not in the catalogue (run makemessages "
            f"and translate them): {[m[1] for m in missing[:15]]}"
        )
        assert not stale, f"{language}: messages no source uses: {[s[1] for s in stale[:15]]}"


@pytest.mark.parametrize("language", SHIPPED)
def test_the_compiled_catalogue_is_the_one_in_use(language: str) -> None:
    """scripts/setup compiles the catalogues; Django must find them (LOCALE_PATHS)."""
    [entry] = [e for e in live_entries(language) if e.msgid == "My games"]
    with translation.override(language):
        assert translation.gettext("My games") == entry.msgstr != "My games"
