"""scripts/serve's web server: the gunicorn command line of the script, run as the script runs
it (DEBUG off, LOCAL_SERVE, PORT; everything else from gunicorn.conf.py), on a database and
files of its own, serves pages over HTTP, compressed when asked, to many clients at once.

Not runserver: Django's development server kept a player waiting 30 s during a burst."""

from __future__ import annotations

import gzip
import os
import random
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the embedded default's server: CI's SQLite run has it"
)

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVE = REPO_ROOT / "scripts" / "serve"
#: what the settings and gunicorn.conf.py read that this test sets, or must not inherit
OURS = {
    "DEBUG", "LOCAL_SERVE", "PORT", "LIVE_PORT", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL",
    "CACHE_URL", "CELERY_BROKER_URL", "EMAIL_URL", "VAR_DIR", "STATIC_ROOT", "SITE_URL",
    "WEB_CONCURRENCY", "GUNICORN_BIND", "GUNICORN_THREADS", "GUNICORN_TIMEOUT", "LOG_FORMAT",
    "LOG_LEVEL", "DJANGO_SETTINGS_MODULE",
}  # fmt: skip
#: the ports this test may serve on
PORTS = range(8750, 8800)


def gunicorn_command() -> list[str]:
    """The web server's command in scripts/serve (the site without --dev), as its words, with
    this interpreter's gunicorn."""
    for line in SERVE.read_text().splitlines():
        if line.strip().startswith(".venv/bin/gunicorn "):
            words = shlex.split(line, comments=True)
            args = words[1:-1] if words[-1] == "&" else words[1:]
            return [str(Path(sys.executable).with_name("gunicorn")), *args]
    raise AssertionError("scripts/serve runs no gunicorn")


def free_port() -> int:
    for port in random.sample(PORTS, len(PORTS)):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port in {PORTS}")


def embedded_env(tmp_path: Path, port: int) -> dict[str, str]:
    """What scripts/serve exports (DEBUG off, LOCAL_SERVE, PORT), with a database, var/ and
    static files in tmp_path; the rest of the embedded defaults as they are (no Redis)."""
    env = {k: v for k, v in os.environ.items() if k not in OURS}
    env.update(
        DEBUG="False",
        LOCAL_SERVE="True",
        PORT=str(port),
        ENV_FILE="/nonexistent",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        VAR_DIR=str(tmp_path / "var"),
        STATIC_ROOT=str(tmp_path / "static"),
    )
    return env


def get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(urllib.request.Request(url, headers=headers), timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@contextmanager
def serving(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """The embedded default's web server, migrated and its static files collected as
    scripts/serve does, answering when this yields; then stopped with TERM (as the script's
    trap does) and its output put in the list."""
    port = free_port()
    env = embedded_env(tmp_path, port)
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        subprocess.run(
            [sys.executable, "manage.py", *command, "--verbosity", "0"],
            cwd=REPO_ROOT, env=env, check=True, timeout=300,
        )  # fmt: skip
    server = subprocess.Popen(
        gunicorn_command(), cwd=REPO_ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url, output = f"http://127.0.0.1:{port}", []
    try:
        deadline = time.monotonic() + 60
        while server.poll() is None and time.monotonic() < deadline:
            try:
                get(f"{url}/healthz")
                break
            except OSError:
                time.sleep(0.2)
        yield url, output
    finally:
        server.send_signal(signal.SIGTERM)
        output.append(server.communicate(timeout=60)[0])
        output.append(f"exit {server.returncode}")


def test_the_embedded_default_serves_pages_to_many_at_once(tmp_path: Path) -> None:
    assert gunicorn_command()[1:] == ["--config", "gunicorn.conf.py"]  # the numbers: in there
    with serving(tmp_path) as (url, output):
        status, headers, body = get(f"{url}/", **{"Accept-Encoding": "gzip"})
        plain_status, _, plain = get(f"{url}/")
        with ThreadPoolExecutor(16) as pool:
            burst = list(pool.map(lambda path: get(f"{url}{path}")[0], ["/", "/games/"] * 24))

    log = output[0]
    assert (status, headers.get("Content-Encoding")) == (200, "gzip"), log
    assert b"<title>Keltis by mail</title>" in gzip.decompress(body)
    assert plain_status == 200 and b"<title>Keltis by mail</title>" in plain
    assert burst == [200] * 48
    assert f"Listening at: {url} " in log  # this machine only
    assert "Using worker: gthread" in log
    assert log.count("Booting worker") == 2
    assert "database is locked" not in log and "Traceback" not in log
    assert output[1] == "exit 0"  # stopped as the script's trap stops it
