"""gzip for the pages (a long game history is 224 KiB of HTML), BREACH minded, never for a
stream of events.

BREACH: an attacker who can put text of theirs into a page and watch the compressed length of
the answers guesses a secret on the same page (the CSRF token) a byte at a time. Since 4.2
Django's ``GZipMiddleware`` mitigates it ("Heal The Breach"): every compressed answer carries a
file name of random length, 0-99 bytes, in its gzip header (in the installed 5.2.19:
``max_random_bytes = 100`` in django/middleware/gzip.py; ``compress_string`` and
``compress_sequence`` in django/utils/text.py set the FNAME flag and write
``b"a" * secrets.randbelow(100)``), so the length no longer follows the content alone.
Django's CSRF tokens are masked afresh for every answer as well.

Never for the live streams (``text/event-stream``, the API's ``application/x-ndjson``): Django
would compress a synchronous stream through one ``GzipFile``, whose buffer holds the events
until kilobytes have gathered (the page would see nothing), and an asynchronous one chunk by
chunk, each event a gzip member of its own with its own header: bigger, not smaller. The
stream server answers its streams without the pages' middleware (live/handler.py); this holds
wherever else a stream is answered through it. Static files never reach this middleware:
WhiteNoise, above it, answers them with the gzip and brotli copies made at collectstatic.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware

#: the content types of streams whose events must reach the client as each is written
STREAMS = frozenset({"text/event-stream", "application/x-ndjson"})


class GZipMiddleware(DjangoGZipMiddleware):
    """Django's, with its BREACH mitigation, except for the live streams."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        content_type = response.get("Content-Type", "").partition(";")[0].strip().lower()
        if content_type in STREAMS:
            return response
        return super().process_response(request, response)
