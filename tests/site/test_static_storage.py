"""The production storage of static files works each URL out once, as whitenoise's would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from whitenoise.storage import CompressedManifestStaticFilesStorage

from keltis_site.static_storage import StaticStorage


def _storage(tmp_path: Path) -> StaticStorage:
    storage = StaticStorage(location=str(tmp_path), base_url="/static/")
    storage.hashed_files = {"site.css": "site.0123abcd.css", "app.js": "app.89ef4567.js"}
    return storage


def test_each_url_is_whitenoises_and_worked_out_once(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEBUG = False
    storage = _storage(tmp_path)
    plain = CompressedManifestStaticFilesStorage(location=str(tmp_path), base_url="/static/")
    plain.hashed_files = storage.hashed_files
    calls: list[str] = []
    parent_url = CompressedManifestStaticFilesStorage.url

    def counted(self: Any, name: str, force: bool = False) -> str:
        calls.append(name)
        return parent_url(self, name, force)

    monkeypatch.setattr(CompressedManifestStaticFilesStorage, "url", counted)
    for _ in range(3):
        assert storage.url("site.css") == plain.url("site.css") == "/static/site.0123abcd.css"
        assert storage.url("app.js") == "/static/app.89ef4567.js"
    assert calls.count("site.css") == 1 + 3  # once for the storage, each time for the plain one
    assert calls.count("app.js") == 1


def test_debug_is_part_of_the_key(tmp_path: Path, settings: Any) -> None:
    storage = _storage(tmp_path)
    settings.DEBUG = False
    assert storage.url("site.css") == "/static/site.0123abcd.css"
    settings.DEBUG = True  # the manifest storage gives the plain name then
    assert storage.url("site.css") == "/static/site.css"


def test_a_name_not_in_the_manifest_still_raises(tmp_path: Path, settings: Any) -> None:
    settings.DEBUG = False
    storage = _storage(tmp_path)
    for _ in range(2):  # a failure is not remembered as a URL
        with pytest.raises(ValueError):
            storage.url("missing.css")
