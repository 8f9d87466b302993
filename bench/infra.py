"""The benchmarks' local services on loopback (a private Redis, a counting SMTP server, Celery
workers and beat, web servers), each stopped through its own handle."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from bench.common import ROOT as REPO
from bench.common import create_database, production_env
from bench.measure import tree_cpu_ms

LOOPBACK = "127.0.0.1"

#: the loopback ports the services started here take (``use_ports``); None: any free one
_ports: range | None = None
_ports_taken: set[int] = set()
_ports_lock = threading.Lock()


def use_ports(ports: range) -> None:
    """Start every later service on a port of ``ports`` (each person's own range)."""
    global _ports
    _ports = ports


def port_free(port: int) -> bool:
    """Nobody listens on ``port`` (closing connections do not count: SO_REUSEADDR)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port(ports: range | None = None) -> int:
    """A loopback port nothing listens on: of ``ports``, of ``use_ports``'s range, or any."""
    ports = ports or _ports
    if ports is None:
        with socket.socket() as s:
            s.bind((LOOPBACK, 0))
            return s.getsockname()[1]
    with _ports_lock:
        for port in ports:
            if port not in _ports_taken and port_free(port):
                _ports_taken.add(port)
                return port
    raise RuntimeError(f"no free port left in {ports.start}-{ports.stop - 1}")


def parse_ports(text: str) -> range:
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def wait_until(
    check: Callable[[], Any], timeout: float, what: str = "a condition", step: float = 0.1
) -> Any:
    """Poll ``check`` until it returns something truthy: real processes take real time."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if value := check():
            return value
        time.sleep(step)
    raise TimeoutError(f"timed out waiting for {what}")


def loopback_address(host: str) -> str:
    """The loopback IP ``host`` names; anything else is refused (no traffic leaves)."""
    addresses = [info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]
    if not addresses or not all(ipaddress.ip_address(a).is_loopback for a in addresses):
        raise ValueError(f"{host} is not a loopback address ({addresses})")
    # IPv4 first: "localhost" may resolve to ::1 as well, and test servers bind 127.0.0.1
    return sorted(addresses, key=lambda a: ":" in a)[0]


# -- PostgreSQL and the site's environment -------------------------------------------------------
def pg_url(server: str, name: str) -> str:
    loopback_address(urlsplit(server).hostname or "")
    return f"{server.rstrip('/')}/{name}"


def recreate_database(server: str, name: str) -> str:
    """Drop and create one of the benchmarks' own databases; its URL."""
    url = pg_url(server, name)
    create_database(server, name, drop=True)
    return url


def site_env(
    *, database_url: str, broker_url: str, smtp_port: int, site_url: str, **extra: str
) -> dict[str, str]:
    """Production-like settings for every process of a benchmark (web, workers, itself)."""
    return {
        **os.environ,
        **production_env(),
        "DJANGO_SETTINGS_MODULE": "keltis_site.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "CELERY_TASK_ALWAYS_EAGER": "False",
        "EMAIL_URL": f"smtp://{LOOPBACK}:{smtp_port}",
        "SITE_URL": site_url,
        "PYTHONPATH": str(REPO),
        # players act seconds apart: their turn emails would wait (notifications/quiet.py)
        "NOTIFICATION_QUIET_MINUTES": "0",
        **extra,
    }


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip


class Service:
    """A service with ``start`` and ``stop``, usable as a context manager (an ExitStack's)."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- Redis -----------------------------------------------------------------------------------------
class PrivateRedis(Service):
    """A redis-server of our own on a free loopback port, without persistence; with a
    ``folder``, ``stop(keep_data=True)`` saves its keys for ``start`` to load."""

    def __init__(self, folder: Path | None = None) -> None:
        self.port = free_port()
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://{LOOPBACK}:{self.port}/{db}"

    def start(self) -> Self:
        binary = shutil.which("redis-server")
        if not binary:
            raise RuntimeError("redis-server is needed (apt-get install redis-server)")
        args = [binary, "--port", str(self.port), "--bind", LOOPBACK, "--save", "",
                "--appendonly", "no"]  # fmt: skip
        if self.folder is not None:
            args += ["--dir", str(self.folder), "--dbfilename", "dump.rdb"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._answers, 10, "redis-server")
        return self

    def _answers(self) -> bool:
        try:
            return self.command("PING") == b"+PONG"
        except OSError:
            return False

    def command(self, *words: str) -> bytes:
        """One inline command's first reply line, e.g. ``command("LLEN", "celery")``."""
        with socket.create_connection((LOOPBACK, self.port), timeout=2) as s:
            s.sendall(" ".join(words).encode() + b"\r\n")
            return s.recv(512).split(b"\r\n", 1)[0]

    def queue_length(self, queue: str = "celery") -> int:
        return int(self.command("LLEN", queue).lstrip(b":"))

    def stop(self, keep_data: bool = False) -> None:
        if keep_data and self.proc is not None and self.proc.poll() is None:
            self.command("SAVE")
        stop_process(self.proc)
        self.proc = None


# -- SMTP ------------------------------------------------------------------------------------------
_MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


class SmtpCounter(Service):
    """An aiosmtpd server that only counts: per recipient, per Message-ID and connections; with
    ``delay`` it answers each message that late."""

    def __init__(self, delay: float = 0.0) -> None:
        self.port = free_port()
        self.delay = delay
        self.lock = threading.Lock()
        self.recipients: Counter[str] = Counter()
        self.message_ids: Counter[str] = Counter()
        self.peers: set[Any] = set()
        self.first_at: float | None = None
        self._controller: Any = None

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)  # a slow mail server: sends overlap
        found = _MESSAGE_ID.search(envelope.content.split(b"\r\n\r\n", 1)[0])
        now = time.monotonic()
        with self.lock:
            self.recipients.update(envelope.rcpt_tos)
            self.message_ids[found.group(1).decode() if found else ""] += 1
            self.peers.add(session.peer)
            self.first_at = self.first_at or now
        return "250 OK"

    @property
    def count(self) -> int:
        with self.lock:
            return sum(self.message_ids.values())

    def start(self) -> Self:
        from aiosmtpd.controller import Controller

        # a log line per SMTP command would cost more than the counting
        logging.getLogger("mail.log").setLevel(logging.WARNING)
        self._controller = Controller(self, hostname=LOOPBACK, port=self.port)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


# -- processes -------------------------------------------------------------------------------------
def stop_process(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop one process this benchmark started: TERM, then KILL."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def serve(
    command: list[str], env: dict[str, str], log: Path, port: int, cwd: Path = REPO
) -> subprocess.Popen[bytes]:
    """Start a server process (output into ``log``) and wait until ``port`` answers."""
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT
    )

    def answers() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"{command[2]} exited ({proc.returncode}); see {log}")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return True
        except OSError:
            return False

    try:
        wait_until(answers, 60, f"{command[2]} ({log})", step=0.2)
    except BaseException:
        stop_process(proc)
        raise
    return proc


class _Process(Service):
    """A process of ours with its log (``start`` makes ``proc``)."""

    name = ""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def _celery(self, *args: str) -> Self:
        self.log.write_text("")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "keltis_site", *args, "--loglevel", "INFO"],
            cwd=REPO, env=self.env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        return self

    def _logged(self, line: str) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited; see {self.log}")
        return line in self.log.read_text()

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None


class CeleryWorker(_Process):
    """``celery worker`` in its own process, the solo pool."""

    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        super().__init__(env, log)
        self.name = name

    def start(self) -> Self:
        return self._celery(
            "worker", "--pool", "solo", "-n", f"{self.name}@%h", "--without-gossip",
            "--without-mingle", "--without-heartbeat",
        )  # fmt: skip

    def ready(self) -> bool:
        return self._logged("ready.")

    def tasks_done(self, name: str = "") -> int:
        """Tasks (whose name contains ``name``) this worker has finished, from its log."""
        return sum(
            1 for line in self.log.read_text().splitlines()
            if name in line and (" succeeded in " in line or " raised " in line)
        )  # fmt: skip

    def idle(self) -> bool:
        """Every task this worker received has finished (it logs both)."""
        text = self.log.read_text()
        return text.count("] received") == text.count(" succeeded in ") + text.count(" raised ")

    def cpu_seconds(self) -> float:
        return 0.0 if self.proc is None else tree_cpu_ms(self.proc.pid) / 1000


class CeleryBeat(_Process):
    """``celery beat``, its schedule file under the VAR_DIR of ``env``."""

    name = "beat"

    def start(self) -> Self:
        return self._celery("beat")

    def ready(self) -> bool:
        return self._logged("beat: Starting...")


class WebServer(_Process):
    """gunicorn (a dependency of the site) with ``workers`` processes of 4 threads."""

    name = "the web server"

    def __init__(self, env: dict[str, str], log: Path, workers: int) -> None:
        super().__init__(env, log)
        self.port = free_port()
        self.description = f"gunicorn, {workers} workers x 4 threads"
        self.command = [
            sys.executable, "-m", "gunicorn", "keltis_site.wsgi:application", "--bind",
            f"{LOOPBACK}:{self.port}", "--workers", str(workers), "--threads", "4",
            "--access-logfile", "-",
        ]  # fmt: skip

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "not started"
        return self.proc.pid

    def start(self) -> Self:
        self.proc = serve(self.command, self.env, self.log, self.port)
        return self
