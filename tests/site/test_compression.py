"""HTML compressed when the browser accepts gzip, with Django's BREACH mitigation (a random
length in every gzip header), and never a stream of events (keltis_site/compression.py)."""

from __future__ import annotations

import asyncio
import gzip
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.test import Client, RequestFactory

from keltis_site.compression import GZipMiddleware

pytestmark = pytest.mark.django_db

#: the masked CSRF token every page carries (the language menu's form): new in every answer
CSRF = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"')


def unmasked(html: bytes) -> bytes:
    return CSRF.sub(b'name="csrfmiddlewaretoken" value=""', html)


def gzip_file_name(body: bytes) -> bytes:
    """The FNAME field of a gzip member's header (RFC 1952), which Django fills at random."""
    assert body[:3] == b"\x1f\x8b\x08"
    assert body[3] == gzip.FNAME  # the only flag
    end = body.index(b"\x00", 10)
    return body[10:end]


def test_a_page_asked_for_gzip_comes_back_gzipped_and_whole(client: Client) -> None:
    plain = client.get("/")
    packed = client.get("/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")

    assert packed.status_code == 200
    assert packed["Content-Encoding"] == "gzip"
    assert int(packed["Content-Length"]) == len(packed.content) < len(plain.content) / 2
    assert "Accept-Encoding" in packed["Vary"]
    html = gzip.decompress(packed.content)
    assert b"<title>Keltis by mail</title>" in html
    assert unmasked(html) == unmasked(plain.content)


def test_the_same_page_compresses_to_a_different_length_every_time(client: Client) -> None:
    """The mitigation: the length of an answer no longer follows its content alone, so an
    attacker cannot read a secret off it. The page is the same each time (once its masked
    CSRF token is set aside); its gzip header's file name is 0-99 random bytes long."""
    answers = [client.get("/", HTTP_ACCEPT_ENCODING="gzip").content for _ in range(8)]

    pages = {unmasked(gzip.decompress(answer)) for answer in answers}
    assert len(pages) == 1
    assert len({len(answer) for answer in answers}) > 1
    names = [gzip_file_name(answer) for answer in answers]
    assert len({len(name) for name in names}) > 1
    assert all(set(name) <= {ord("a")} and len(name) < 100 for name in names)


def test_without_accept_encoding_the_page_is_plain_html(client: Client) -> None:
    response = client.get("/")

    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert b"<title>Keltis by mail</title>" in response.content
    assert "Accept-Encoding" in response["Vary"]  # a cache keeps the two forms apart


PAGE = b"<p>a page long enough to be worth compressing</p>" * 20
EVENTS = [b"retry: 1000\n\n", b"id: 1\nevent: move\ndata: {}\n\n", b": keep-alive\n\n"]


def sync_events() -> Iterator[bytes]:
    yield from EVENTS


async def async_events() -> AsyncIterator[bytes]:
    for event in EVENTS:
        yield event


def asked_with_gzip() -> HttpRequest:
    return RequestFactory().get("/live/events/", HTTP_ACCEPT_ENCODING="gzip")


@pytest.mark.parametrize("content_type", ["text/event-stream", "application/x-ndjson"])
def test_a_stream_of_events_is_never_compressed(content_type: str) -> None:
    """Each event must reach the page as it is written: gzip would hold a synchronous stream
    in its buffer, and make each event of an asynchronous one a gzip member of its own."""
    response = StreamingHttpResponse(sync_events(), content_type=content_type)

    answered = GZipMiddleware(lambda request: response)(asked_with_gzip())

    assert not answered.has_header("Content-Encoding")
    assert not answered.has_header("Vary")
    assert list(answered.streaming_content) == EVENTS


def test_under_asgi_an_event_stream_is_left_alone_and_a_page_compressed() -> None:
    """Under ASGI the middleware runs as a coroutine, the stream's events an async iterator."""

    async def stream(request: HttpRequest) -> HttpResponseBase:
        return StreamingHttpResponse(async_events(), content_type="text/event-stream")

    async def page(request: HttpRequest) -> HttpResponseBase:
        return HttpResponse(PAGE)

    async def run() -> tuple[HttpResponseBase, list[bytes], HttpResponseBase]:
        streamed = await GZipMiddleware(stream)(asked_with_gzip())
        events = [event async for event in streamed.streaming_content]
        return streamed, events, await GZipMiddleware(page)(asked_with_gzip())

    streamed, events, paged = asyncio.run(run())

    assert not streamed.has_header("Content-Encoding")
    assert events == EVENTS
    assert paged["Content-Encoding"] == "gzip"
    assert gzip.decompress(paged.content) == PAGE
