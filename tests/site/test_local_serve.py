"""scripts/serve's site (LOCAL_SERVE=True, DEBUG off): the site as players meet it, over
plain http on this machine, while production's https-only settings stay as they were.

Settings are evaluated once per process, so each case runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
#: the environment variables the settings read that these cases set themselves
OURS = {
    "DEBUG", "LOCAL_SERVE", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CACHE_URL", "PORT",
    "SITE_URL", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "BEHIND_PROXY", "LOG_FORMAT",
    "DJANGO_ALLOW_ASYNC_UNSAFE", "VAR_DIR",
}
SECURITY = [
    "DEBUG", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE", "LANGUAGE_COOKIE_SECURE", "LOG_FORMAT",
]


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OURS}
    env.update(
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        ENV_FILE="/nonexistent",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CACHE_URL="locmemcache://",
        **extra,
    )
    return env


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )


def security(tmp_path: Path, **extra: str) -> dict[str, Any]:
    code = (
        "import json; from django.conf import settings as s; "
        f"print(json.dumps({{n: getattr(s, n, None) for n in {SECURITY!r}}}))"
    )
    result = run(code, environment(tmp_path, **extra))
    assert result.returncode == 0, result.stderr
    values: dict[str, Any] = json.loads(result.stdout)
    return values


def test_the_local_site_runs_without_debug_over_plain_http(tmp_path: Path) -> None:
    values = security(tmp_path, DEBUG="False", LOCAL_SERVE="True", SECRET_KEY="k" * 50)

    assert values["DEBUG"] is False
    assert values["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert not values["SESSION_COOKIE_SECURE"]
    assert not values["CSRF_COOKIE_SECURE"]
    assert not values["LANGUAGE_COOKIE_SECURE"]
    assert values["LOG_FORMAT"] == "plain"  # the terminal scripts/serve writes to


def test_production_keeps_https_only(tmp_path: Path) -> None:
    values = security(tmp_path, DEBUG="False", SECRET_KEY="k" * 50, ALLOWED_HOSTS="example.org")

    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] == 31536000
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["LANGUAGE_COOKIE_SECURE"] is True
    assert values["ALLOWED_HOSTS"] == ["example.org"]
    assert values["LOG_FORMAT"] == "json"


def test_the_secret_key_is_made_once_and_kept_for_the_owner_only(tmp_path: Path) -> None:
    from keltis_site.local_secret import persisted_secret_key

    path = tmp_path / "var" / "secret_key"

    key = persisted_secret_key(path)

    assert len(key) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert persisted_secret_key(path) == key  # the worker reads the web server's key
    assert [p.name for p in path.parent.iterdir()] == ["secret_key"]  # no draft left over


def test_a_key_already_kept_is_never_replaced(tmp_path: Path) -> None:
    from keltis_site.local_secret import persisted_secret_key

    path = tmp_path / "secret_key"
    path.write_text("the key the site has signed its links with\n")

    assert persisted_secret_key(path) == "the key the site has signed its links with"


def test_without_a_secret_key_the_local_site_uses_the_kept_one(tmp_path: Path) -> None:
    """Every process of scripts/serve (web, worker) reads the same key from var/."""
    var = tmp_path / "var"
    env = environment(tmp_path, DEBUG="False", LOCAL_SERVE="True", VAR_DIR=str(var))
    code = "from django.conf import settings; print(settings.SECRET_KEY)"

    first, second = run(code, env), run(code, env)

    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert first.stdout.strip() == (var / "secret_key").read_text().strip()


SERVE = textwrap.dedent(
    """
    import django
    from django.conf import settings

    settings.STATIC_ROOT = {static_root!r}
    django.setup()
    import re
    from django.core.management import call_command
    from django.test import Client

    call_command("collectstatic", "--noinput", verbosity=0)
    client = Client(HTTP_HOST="127.0.0.1:8101", HTTP_ACCEPT_LANGUAGE="de")
    home = client.get("/")
    print("home", home.status_code, home.get("Location", ""), home.get("Strict-Transport-Security"))
    if home.status_code == 200:
        cookie = home.cookies["csrftoken"]
        print("cookie secure", repr(cookie["secure"]))
        css = re.search(r'href="(/static/games/site\\.[0-9a-f]+\\.css)"', home.content.decode())
        print("css", css and client.get(css.group(1)).status_code)
        icon = client.get("/favicon.ico", follow=True)
        print("icon", icon.status_code, b"".join(icon.streaming_content)[:4])
        missing = client.get("/no-such-page/")
        print("404", missing.status_code, "Seite nicht gefunden" in missing.content.decode())
    """
)


def serve(tmp_path: Path, **extra: str) -> str:
    script = SERVE.format(static_root=str(tmp_path / "static"))
    result = run(script, environment(tmp_path, DEBUG="False", SECRET_KEY="k" * 50, **extra))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_local_site_answers_http_with_its_static_files_and_its_own_pages(
    tmp_path: Path,
) -> None:
    out = serve(tmp_path, LOCAL_SERVE="True")

    assert "home 200  None" in out  # no redirect to https, no HSTS
    assert "cookie secure ''" in out  # the browser sends it back over http
    assert "css 200" in out  # collected, hashed and served by whitenoise
    assert "icon 200 b'\\x00\\x00\\x01\\x00'" in out  # /favicon.ico: an ICO file
    assert "404 404 True" in out  # the site's page, in the browser's language


def test_without_local_serve_plain_http_is_sent_to_https(tmp_path: Path) -> None:
    out = serve(tmp_path, ALLOWED_HOSTS="127.0.0.1")

    assert "home 301 https://127.0.0.1:8101/" in out


def test_a_command_beside_the_local_site_signs_with_its_key(tmp_path: Path) -> None:
    """manage.py receive_mail, run by hand next to scripts/serve (DEBUG, no LOCAL_SERVE),
    reads the reply addresses the local site's worker signed: it uses the kept key."""
    code = "from django.conf import settings as s; print(s.SECRET_KEY)"
    base = {
        key: value
        for key, value in os.environ.items()
        if key not in {"SECRET_KEY", "DEBUG", "LOCAL_SERVE", "DJANGO_SETTINGS_MODULE"}
    }
    base.update(
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        ENV_FILE="/nonexistent",
        VAR_DIR=str(tmp_path),
    )

    def key(**environment: str) -> str:
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO_ROOT, env={**base, **environment},
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return result.stdout.strip()

    assert key() == "django-insecure-local-development-only"  # no local site yet
    served = key(LOCAL_SERVE="True", DEBUG="False")
    assert served != "django-insecure-local-development-only"
    assert key() == served == (tmp_path / "secret_key").read_text().strip()
