"""Production settings: `check --deploy` is clean and whitenoise serves hashed static files.

Settings are evaluated once per process, so each case runs in a subprocess with production
environment variables (and no .env file).
"""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import sys
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = {
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CACHE_URL",
    "EMAIL_URL",
    "DEFAULT_FROM_EMAIL",
    "SITE_URL",
    "TRUSTED_PROXY_COUNT",
    "BEHIND_PROXY",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
}


#: what production shares between its hosts (docker-compose.yml's services); `check` only
#: reads the settings, it connects to none of them
SHARED_SERVICES = {
    "CACHE_URL": "rediscache://redis:6379/1",
    "CELERY_BROKER_URL": "redis://redis:6379/0",
    "EMAIL_URL": "smtp+tls://keltis:secret@mail.example:587",
}


def production_env(tmp_path: Path, *, shared: bool = True, **extra: str) -> dict[str, str]:
    """Production settings; without ``shared`` on the embedded default's broker, cache and
    email (files under VAR_DIR)."""
    # DJANGO_ALLOW_ASYNC_UNSAFE is a test-only switch (the browser tests set it): never deployed
    skip = {*OUR_VARIABLES, "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in skip}
    key = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(50))
    env.update(
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        ENV_FILE="/nonexistent",
        DEBUG="False",
        SECRET_KEY=key,
        ALLOWED_HOSTS="example.org,testserver",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        VAR_DIR=str(tmp_path / "var"),
        **{**(SHARED_SERVICES if shared else {}), **extra},
    )
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_is_clean_under_production_settings(tmp_path: Path) -> None:
    result = run(["manage.py", "check", "--deploy"], production_env(tmp_path))

    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "System check identified no issues" in output, output
    assert "WARNING" not in output


def test_check_deploy_warns_of_state_kept_on_one_host(tmp_path: Path) -> None:
    """The embedded default's broker queue, cache and emails live on this host: with more than
    one web server or worker each would have its own (see tests/load/test_two_hosts.py)."""
    result = run(["manage.py", "check", "--deploy"], production_env(tmp_path, shared=False))

    output = result.stdout + result.stderr
    assert result.returncode == 0, output  # warnings: the site runs, on one machine
    assert "System check identified 3 issues" in output, output
    cache = tmp_path / "var" / "cache"
    assert f"(keltis_site.W001) CACHE_URL keeps the cache in files on this host ({cache})" in output
    assert "(keltis_site.W002) CELERY_BROKER_URL filesystem:// keeps the task queue" in output
    assert "(keltis_site.W003) EMAIL_URL sends no email, it writes them to files" in output


def test_check_deploy_warns_of_a_cache_in_process_memory(tmp_path: Path) -> None:
    env = production_env(tmp_path, CACHE_URL="locmemcache://")

    output = run(["manage.py", "check", "--deploy"], env).stderr

    assert "(keltis_site.W001) CACHE_URL keeps the cache in each process's memory" in output
    assert "W002" not in output and "W003" not in output


def test_check_deploy_is_clean_with_hsts_preload_and_behind_a_proxy(tmp_path: Path) -> None:
    env = production_env(tmp_path, SECURE_HSTS_PRELOAD="True", BEHIND_PROXY="True")

    result = run(["manage.py", "check", "--deploy"], env)

    assert result.returncode == 0, result.stderr
    assert "identified no issues (0 silenced)" in result.stdout + result.stderr


def test_whitenoise_serves_hashed_static_files_in_production(tmp_path: Path) -> None:
    static_root = tmp_path / "static"
    script = textwrap.dedent(
        f"""
        import django
        from django.conf import settings

        settings.STATIC_ROOT = {str(static_root)!r}
        django.setup()
        from django.core.management import call_command
        from django.templatetags.static import static
        from django.test import Client

        call_command("collectstatic", "--noinput", verbosity=0)
        url = static("admin/css/base.css")
        assert url != "/static/admin/css/base.css", url  # a hashed name
        client = Client()
        response = client.get(url, secure=True, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200, response.status_code
        assert response["Content-Encoding"] == "gzip", dict(response.headers)
        assert "immutable" in response["Cache-Control"], response["Cache-Control"]
        print("served", url)
        """
    )

    result = run(["-c", script], production_env(tmp_path))

    assert result.returncode == 0, result.stderr
    assert "served /static/admin/css/base." in result.stdout
