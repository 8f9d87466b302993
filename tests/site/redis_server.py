"""A real redis-server for a test, which the test can stop and start again (an outage).

Each server takes the next free port of REDIS_TEST_PORTS, so every test of a run talks to a
Redis address of its own: what a process remembers of one address's outage
(keltis_site.cache) never carries over into the next test.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis

#: the ports these tests may use (the range given to this part of the suite)
REDIS_TEST_PORTS = range(7100, 7200)
_ports: Iterator[int] = iter(REDIS_TEST_PORTS)


def next_free_port() -> int:
    for port in _ports:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port left in {REDIS_TEST_PORTS}")


class RedisServer:
    """``redis-server`` on 127.0.0.1:``port``, keeping its data file in ``folder``."""

    def __init__(self, folder: Path) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.executable = executable
        self.folder = folder
        self.port = next_free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it (loading the data file a ``stop(keep_data=True)`` saved) and wait until it
        answers PING."""
        self.process = subprocess.Popen(
            [
                self.executable,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--dir", str(self.folder),
                "--dbfilename", "dump.rdb",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2, socket_timeout=1)
        deadline = time.monotonic() + 10
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        raise
                    time.sleep(0.02)  # waiting for the server to listen, not for a result
        finally:
            client.close()

    def stop(self, keep_data: bool = False) -> None:
        """Stop it; with ``keep_data`` its keys are saved first and come back on ``start``
        (Redis that was away, not Redis that lost everything)."""
        if self.process is None:
            return
        if keep_data:
            client = redis.Redis(port=self.port)
            client.save()
            client.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process = None

    def stored_keys(self) -> list[str]:
        client = redis.Redis(port=self.port)
        try:
            return sorted(key.decode() for key in client.keys("*"))
        finally:
            client.close()
