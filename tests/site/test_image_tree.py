"""The image without Docker (this machine has no engine): the files the Dockerfile copies, and
only those, run its build step and then serve the site under its command.

A module left out of the Dockerfile's COPY lines would be imported from the checkout here
(the project is installed in editable mode), so the probe also checks that every module of
the project the site loads comes from the copied tree.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.site.image import REPO_ROOT, copies, dockerfile

VENV_BIN = Path(sys.executable).parent

PROBE = """
import json, os, sys
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")  # as manage.py does
django.setup()
from django.core.management import get_commands, load_command_class
from django.urls import get_resolver
import keltis_site.wsgi
from keltis_site.celery import app
get_resolver().url_patterns  # every view module
app.loader.import_default_modules()  # every tasks module
for name, owner in get_commands().items():
    if not owner.startswith("django."):
        load_command_class(owner, name)
repo, venv = os.environ["CHECKOUT"] + os.sep, sys.prefix + os.sep  # the venv may be inside
print(json.dumps(sorted(
    name for name, module in list(sys.modules.items())
    if (path := getattr(module, "__file__", None) or "").startswith(repo)
    and not path.startswith(venv)
)))
"""


def image_tree(app: Path) -> None:
    """WORKDIR as the COPY lines fill it (Python caches left behind, as .dockerignore does)."""
    for source, destination in copies():
        src = REPO_ROOT / source
        target = app / destination / src.name if destination.endswith(("./", "/")) else (
            app / destination
        )
        if src.is_dir():
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)


def image_env(app: Path, tmp: Path) -> dict[str, str]:
    """The container's environment: the image's PYTHONPATH, production settings from the
    compose file's kind, a database of its own; nothing of the checkout's."""
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CELERY_", "LOG_", "SECURE_", "GUNICORN_", "PYTHON"))
        and k not in {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CACHE_URL"}
    }
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(app),
        ENV_FILE="/nonexistent",
        DEBUG="False",
        SECRET_KEY="image-tree-test-" + "x" * 40,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="False",
        DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
        CELERY_BROKER_URL="memory://",
        CHECKOUT=str(REPO_ROOT),
    )
    return env


def run(command: str | list[str], app: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        command, cwd=app, env=env, shell=isinstance(command, str),
        capture_output=True, text=True, timeout=180, check=False,
    )
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-4000:])
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


def test_the_copied_files_alone_build_and_serve_the_site(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    image_tree(app)
    env = image_env(app, tmp_path)
    steps = dockerfile()

    # the build step that runs the app (translations, static files), as the Dockerfile words it
    [build] = [args for instruction, args in steps if instruction == "RUN" and "manage.py" in args]
    run(build, app, env)
    assert list((app / "locale").glob("*/LC_MESSAGES/django.mo"))
    assert (app / "staticfiles" / "staticfiles.json").is_file()

    from_checkout = json.loads(run([sys.executable, "-c", PROBE], app, env))
    assert from_checkout == [], "imported from the checkout, not copied into the image"

    # the web service: migrate, then the image's CMD
    run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"], app, env)
    [cmd] = [json.loads(args) for instruction, args in steps if instruction == "CMD"]
    port = free_port()
    server = subprocess.Popen(
        cmd, cwd=app, env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, page = get(port, "/")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "gunicorn died"
                time.sleep(0.2)
        stylesheet = re.search(r'href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', page)
        css_status = get(port, stylesheet.group(1))[0] if stylesheet else None
        rules_status = get(port, "/rules/")[0]
    finally:
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=30)

    assert status == 200, stderr[-2000:]
    assert stylesheet, "no hashed stylesheet on the home page"
    assert css_status == 200
    assert rules_status == 200
    assert "Traceback" not in stderr
