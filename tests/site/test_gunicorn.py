"""The web service: gunicorn with gunicorn.conf.py serves the site and writes only JSON lines,
and the container's health probe (keltis_site/healthcheck.py) reads /healthz."""

from __future__ import annotations

import http.server
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from keltis_site import healthcheck

REPO_ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CELERY_", "LOG_", "SECURE_", "GUNICORN_"))
        and k
        not in {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CACHE_URL", "VAR_DIR"}
    }
    env.update(
        ENV_FILE="/nonexistent",
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="keltis.example",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CELERY_BROKER_URL="memory://",
        # its own cache and files: the repository's var/ may hold the heartbeats of a local
        # scripts/serve, which would make /healthz answer otherwise
        VAR_DIR=str(tmp_path / "var"),
        **extra,
    )
    return env


@pytest.mark.parametrize(
    ("allowed", "host"),
    [
        ("keltis.example,www.keltis.example", "keltis.example"),
        (" .keltis.example", "keltis.example"),
        ("*", "localhost"),
        ("", "localhost"),
        (None, "localhost"),
    ],
)
def test_the_probe_sends_a_host_django_accepts(allowed: str | None, host: str) -> None:
    assert healthcheck.probe_host(allowed) == host


@pytest.fixture
def fake_healthz() -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    """A server answering like /healthz: 200 for Host keltis.example, 503 otherwise. It keeps
    the Host and Authorization headers of each request."""
    seen: list[tuple[str, str | None]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.headers["Host"], self.headers["Authorization"]))
            ok = self.headers["Host"] == "keltis.example"
            self.send_response(200 if ok else 503)
            self.end_headers()
            self.wfile.write(b'{"ok": true}' if ok else b'{"ok": false}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/healthz", seen
    server.shutdown()
    server.server_close()


def test_the_probe_passes_on_200_and_fails_on_503(
    fake_healthz: tuple[str, list[tuple[str, str | None]]],
) -> None:
    url, seen = fake_healthz

    assert healthcheck.check(url, "keltis.example") == (True, '{"ok": true}')
    assert healthcheck.check(url, "other.example") == (False, '503: {"ok": false}')
    assert seen == [("keltis.example", None), ("other.example", None)]


def test_the_probe_sends_the_health_token_when_there_is_one(
    fake_healthz: tuple[str, list[tuple[str, str | None]]],
) -> None:
    """So that /healthz tells the container's log what is degraded, not just up or down."""
    url, seen = fake_healthz

    healthcheck.check(url, "keltis.example", "a-token")

    assert seen == [("keltis.example", "Bearer a-token")]


def test_the_probe_fails_when_nothing_answers() -> None:
    healthy, said = healthcheck.check(f"http://127.0.0.1:{free_port()}/healthz", "localhost")

    assert not healthy
    assert said.startswith("no answer")


@dataclass
class Served:
    """A gunicorn run: its address and environment; its output once it has stopped."""

    url: str
    env: dict[str, str]
    stdout: str = ""
    stderr: str = ""


@contextmanager
def gunicorn(tmp_path: Path) -> Iterator[Served]:
    """gunicorn as the image runs it (everything from gunicorn.conf.py), answering when this
    yields; stopped with SIGTERM afterwards, its output then on the ``Served``."""
    port = free_port()
    env = production_env(
        tmp_path, GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="1", HEALTH_TOKEN="t0ken"
    )
    server = subprocess.Popen(
        [str(GUNICORN)],  # everything else from gunicorn.conf.py, as the image's CMD
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    served = Served(f"http://127.0.0.1:{port}", env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            _, said = healthcheck.check(f"{served.url}/healthz", "keltis.example")
            if not said.startswith("no answer"):
                break
            time.sleep(0.2)
        yield served
    finally:
        server.send_signal(signal.SIGTERM)
        served.stdout, served.stderr = server.communicate(timeout=30)


def test_gunicorn_serves_the_site_and_writes_json_lines(tmp_path: Path) -> None:
    with gunicorn(tmp_path) as served:
        url = f"{served.url}/healthz"
        healthy, said = healthcheck.check(url, "keltis.example")
        # Django answered: no worker or sweep heartbeat in this lone process (degraded), but
        # it can serve, so the probe passes
        probe = subprocess.run(
            [sys.executable, "keltis_site/healthcheck.py"],
            cwd=REPO_ROOT,
            env={**served.env, "HEALTHCHECK_URL": url},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    assert healthy, (said, served.stderr)
    assert json.loads(said) == {"status": "up"}  # the public sees up or down, no checks
    assert probe.returncode == 0
    said_to_probe = json.loads(probe.stdout)  # it has the token: every check
    assert said_to_probe["status"] == "degraded"
    assert said_to_probe["checks"]["worker"] == "no worker heartbeat recorded"
    entries = [json.loads(line) for line in served.stdout.splitlines()]  # every line is JSON
    loggers = {entry["logger"] for entry in entries}
    assert {"gunicorn.error", "gunicorn.access"} <= loggers
    access = [e for e in entries if e["logger"] == "gunicorn.access"]
    assert {(e["path"], e["status"]) for e in access} == {("/healthz", "200")}
    assert "t0ken" not in served.stdout
    assert any(e["message"].startswith("Booting worker") for e in entries)
    assert "Traceback" not in served.stderr


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer to look at, not to follow."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def test_an_emailed_links_token_never_reaches_the_access_log_whole(tmp_path: Path) -> None:
    """The token of an emailed link is in the path of its request (here answered by the
    redirect to https) and in the referer of the next request; every line keeps its first
    characters only. (Django's own "Bad Request" warning: tests/site/test_logging.py.)"""
    token = "WzEsMCw0LDQsImRyYXcgZGVjayJd:1xWYDI:0b6Pyi3rsiMoMja229iR02WSf8eJGplRVlLbF0xDxqA"
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect)
    with gunicorn(tmp_path) as served:
        host = {"Host": "keltis.example"}
        with pytest.raises(urllib.error.HTTPError) as redirected:
            direct.open(urllib.request.Request(f"{served.url}/t/{token}/", headers=host))
        referer = {**host, "Referer": f"https://keltis.example/t/{token}/"}
        with direct.open(urllib.request.Request(f"{served.url}/healthz", headers=referer)) as up:
            assert up.status == 200

    assert redirected.value.code == 301
    assert token[6:20] not in served.stdout + served.stderr
    masked = f"/t/{token[:6]}…/"
    access = [
        entry
        for entry in map(json.loads, served.stdout.splitlines())
        if entry["logger"] == "gunicorn.access"
    ]
    assert (masked, "301") in {(e["path"], e["status"]) for e in access}
    assert any(masked in e["message"] for e in access if e["path"] == "/healthz")  # referer


def _tracked(objects: list[list[int]]) -> int:
    """How many of ``objects`` the collector still looks at (frozen ones it does not)."""
    import gc

    ids = {id(o) for o in objects}
    return sum(1 for o in gc.get_objects() if id(o) in ids)


def test_workers_collect_cycles_between_requests_not_during_them() -> None:
    """gunicorn.conf.py's hooks: after loading, the app's objects are frozen and automatic
    collection is off; each response is followed by a collection, a deeper one every 10th and
    a full one every 100th, after which what survived is frozen too."""
    import gc
    import runpy
    from types import SimpleNamespace

    conf = runpy.run_path(str(REPO_ROOT / "gunicorn.conf.py"))
    worker = SimpleNamespace()
    try:
        conf["post_worker_init"](worker)
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
        before = [s["collections"] for s in gc.get_stats()]
        kept = [[n] for n in range(50)]  # made by a request, alive after it
        for _ in range(99):
            conf["post_request"](worker, None, {}, None)
        # frozen objects leave ``gc.get_objects()``; counting the permanent generation instead
        # is unsteady, as frozen objects still die of their references going
        assert _tracked(kept) == len(kept)  # the young collections froze nothing
        conf["post_request"](worker, None, {}, None)
        after = [s["collections"] for s in gc.get_stats()]
        assert [a - b for a, b in zip(after, before, strict=True)] == [90, 9, 1]
        assert _tracked(kept) == 0  # what survived the full collection is frozen
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_access_line_is_gunicorns_own_with_only_the_atoms_its_format_names() -> None:
    """keltis_site.access_log builds no per-header atoms unless the format names one, and the
    line is gunicorn's, byte for byte; a format naming a header still gets it."""
    from datetime import timedelta
    from types import SimpleNamespace

    from gunicorn.config import Config
    from gunicorn.glogging import Logger, SafeAtoms

    from keltis_site.access_log import AccessLogger

    cfg = Config()
    lean, full = AccessLogger(cfg), Logger(cfg)
    lean.now = full.now = lambda: "[26/Nov/2026:18:00:00 +0000]"  # type: ignore[method-assign]
    resp = SimpleNamespace(status="303 See Other", sent=0, headers=[("Location", "/games/7/")])
    req = SimpleNamespace(headers=[("USER-AGENT", 'a "quoted" agent'), ("HOST", "x")])
    environ = {
        "REMOTE_ADDR": "10.0.0.1", "REQUEST_METHOD": "POST", "RAW_URI": "/games/7/act/?x=1",
        "SERVER_PROTOCOL": "HTTP/1.1", "PATH_INFO": "/games/7/act/", "QUERY_STRING": "x=1",
        "HTTP_USER_AGENT": 'a "quoted" agent', "HTTP_REFERER": "http://x/games/7/",
    }  # fmt: skip
    took = timedelta(microseconds=4_321)
    atoms = lean.atoms(resp, req, environ, took)
    assert not any(key.startswith("{") for key in atoms)
    assert atoms == {k: v for k, v in full.atoms(resp, req, environ, took).items() if k in atoms}
    line = cfg.access_log_format
    assert line % SafeAtoms(atoms) == line % SafeAtoms(full.atoms(resp, req, environ, took))
    cfg.set("access_log_format", '%(h)s "%({location}o)s" "%({host}i)s"')
    with_headers = SafeAtoms(lean.atoms(resp, req, environ, took))
    assert cfg.access_log_format % with_headers == '10.0.0.1 "/games/7/" "x"'
