"""The production storage of static files: whitenoise's (names with a hash of the content,
gzip and brotli copies), each file's URL worked out once a process.

Every page names a dozen static files (``{% static %}``), and the manifest storage worked each
URL out anew: the hashed name, then joining it to STATIC_URL, about 3% of a game page read
again (py-spy, 2026-11-29). The manifest is read once, when the storage is made, and the
storage is made again whenever the static settings change (Django's ``setting_changed``), so
the URL of a name cannot change while an instance lives; ``DEBUG``, which the manifest
storage reads at each call, is part of the key.
"""

from __future__ import annotations

from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[tuple[str, bool, bool], str] = {}

    def url(self, name: str, force: bool = False) -> str:
        key = (name, force, settings.DEBUG)
        found = self._urls.get(key)
        if found is None:
            found = self._urls[key] = super().url(name, force)
        return found
