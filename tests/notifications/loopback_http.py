"""A webhook receiver on loopback for the tests: a small threaded HTTP server."""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class Receiver:
    """A small HTTP server on loopback: answers each POST with ``status`` (and ``headers``,
    ``body``), keeps what it received; ``hold`` makes it wait before answering."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 204
        self.headers: dict[str, str] = {}
        self.body = b""
        self.hold = threading.Event()
        self.hold.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                data = self.rfile.read(length)
                receiver.requests.append((self.path, dict(self.headers), data))
                receiver.hold.wait(10)
                self.send_response(receiver.status)
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(receiver.body)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the client read what it wanted and left
                    self.wfile.write(receiver.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str = "/hook", host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def close(self) -> None:
        self.hold.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(name="receiver")
def receiver_fixture() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()
