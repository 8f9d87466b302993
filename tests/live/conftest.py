"""A real stream server for live tests: uvicorn serving keltis_site.asgi in a thread of the test
process (it reads the test database, as the live server does), which a test may stop and start
again on the same port. Changes travel as they would in CI's deployment: the embedded default's
Unix socket on SQLite, Redis pub/sub (a channel of the test's own) on PostgreSQL."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

#: this part of the suite's ports
PORTS = range(8400, 8500)


def free_port(ports: range = PORTS) -> int:
    for port in ports:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in {ports}")


class StreamServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://localhost:{port}"
        self.server: Any = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from keltis_site.asgi import application

        config = uvicorn.Config(
            application, host="127.0.0.1", port=self.port, lifespan="on",
            log_level="warning", timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > end:
                raise RuntimeError("the stream server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        assert self.thread is not None
        self.thread.join(10)
        assert not self.thread.is_alive(), "the stream server did not stop"


class HttpStream:
    """A bare HTTP/1.1 GET of a stream on the server (what EventSource or a bot sends), its
    answer read up to marks as it comes."""

    def __init__(self, server: StreamServer, path: str, headers: str, timeout: float) -> None:
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=timeout)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n".encode())
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split()[1])
        self.head = head.decode()

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        part, self.buffer = self.buffer.split(mark, 1)
        return part

    def close(self) -> None:
        self.sock.close()


def serve_stream(
    settings: Any, tmp_path: Path, *, ports: range = PORTS, redis_db: int = 13, keepalive: int = 5
) -> StreamServer:
    """A started stream server on a free port of ``ports``, its changes on the embedded
    default's socket (SQLite) or a Redis channel of its own (``LIVE_TEST_REDIS_URL``, else
    db ``redis_db`` of the machine's Redis)."""
    if connection.vendor == "sqlite":
        settings.LIVE_PUBSUB_URL = f"unix://{tmp_path / 'live.sock'}"
    else:
        settings.LIVE_PUBSUB_URL = os.environ.get(
            "LIVE_TEST_REDIS_URL", f"redis://127.0.0.1:6379/{redis_db}"
        )
        settings.LIVE_CHANNEL = f"keltis:live:test:{uuid.uuid4().hex}"
    settings.LIVE_KEEPALIVE_SECONDS = keepalive
    server = StreamServer(free_port(ports))
    server.start()
    return server


def stop_stream(server: StreamServer) -> None:
    if server.thread is not None and server.thread.is_alive():
        server.stop()


@pytest.fixture
def stream_server(settings: Any, tmp_path: Path, live_server: Any) -> Iterator[StreamServer]:
    port = free_port()
    url = f"http://localhost:{port}"
    settings.LIVE_STREAM_URL = url
    settings.LIVE_ALLOWED_ORIGINS = [live_server.url]
    csp = {**settings.CONTENT_SECURITY_POLICY}
    csp["DIRECTIVES"] = {**csp["DIRECTIVES"], "connect-src": ["'self'", url]}
    settings.CONTENT_SECURITY_POLICY = csp
    server = serve_stream(settings, tmp_path, ports=range(port, PORTS.stop))
    yield server
    stop_stream(server)
