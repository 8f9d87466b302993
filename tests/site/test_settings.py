"""The settings read the environment as documented.

Settings are evaluated once per process, so each case imports them in a fresh subprocess with
a controlled environment.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CACHE_URL",
    "EMAIL_URL",
    "DEFAULT_FROM_EMAIL",
    "SITE_URL",
    "SITE_NAME",
    "PORT",
    "TRUSTED_PROXY_COUNT",
    "DATABASE_SERVER_SIDE_BINDING",
)


def run_settings(**environment: str) -> subprocess.CompletedProcess[str]:
    """Import keltis_site.settings in a child process and print the values the tests check."""
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    # ENV_FILE names no file: a developer's .env must not leak into the cases.
    env.update(environment, DJANGO_SETTINGS_MODULE="keltis_site.settings", ENV_FILE="/nonexistent")
    code = (
        "import json; from django.conf import settings as s; print(json.dumps({"
        "'db': s.DATABASES['default'], 'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS,"
        "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL,"
        "'transport': getattr(s, 'CELERY_BROKER_TRANSPORT', None),"
        "'cache': s.CACHES['default'], 'email_backend': s.EMAIL_BACKEND,"
        "'email_file_path': s.EMAIL_FILE_PATH, 'email_host': s.EMAIL_HOST,"
        "'email_port': s.EMAIL_PORT, 'email_user': s.EMAIL_HOST_USER,"
        "'email_password': s.EMAIL_HOST_PASSWORD, 'email_tls': s.EMAIL_USE_TLS,"
        "'from': s.DEFAULT_FROM_EMAIL, 'protocol': s.ACCOUNT_DEFAULT_HTTP_PROTOCOL,"
        "'proxies': s.ALLAUTH_TRUSTED_PROXY_COUNT, 'site_url': s.SITE_URL}, default=str))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def settings_with(**environment: str) -> dict[str, Any]:
    result = run_settings(**environment)
    assert result.returncode == 0, result.stderr
    values: dict[str, Any] = json.loads(result.stdout)
    return values


def test_production_keeps_database_connections_open() -> None:
    url = "postgres://alice@db.example:5432/keltis"
    production = {"DEBUG": "False", "SECRET_KEY": "x" * 50}
    db = settings_with(DATABASE_URL=url, **production)["db"]
    assert (db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]) == (60, True)
    # the development server's thread per connection would only pile them up
    assert settings_with(DATABASE_URL=url)["db"]["CONN_MAX_AGE"] == 0
    # the URL's own setting wins
    own = settings_with(DATABASE_URL=f"{url}?conn_max_age=5", **production)["db"]
    assert own["CONN_MAX_AGE"] == 5


def test_postgresql_binds_parameters_on_the_server_unless_a_pooler_forbids() -> None:
    url = "postgres://alice@db.example:5432/keltis"
    assert settings_with(DATABASE_URL=url)["db"]["OPTIONS"] == {"server_side_binding": True}
    off = settings_with(DATABASE_URL=url, DATABASE_SERVER_SIDE_BINDING="False")["db"]
    assert off["OPTIONS"] == {"server_side_binding": False}
    assert "server_side_binding" not in settings_with()["db"].get("OPTIONS", {})  # SQLite


def test_default_database_is_sqlite_file_in_project_dir() -> None:
    db = settings_with()["db"]

    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(db["NAME"]) == REPO_ROOT / "db.sqlite3"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_postgres_url_selects_postgresql(scheme: str) -> None:
    db = settings_with(DATABASE_URL=f"{scheme}://alice:secret@db.example:5433/keltis")["db"]

    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("keltis", "alice", "secret")
    assert (db["HOST"], str(db["PORT"])) == ("db.example", "5433")


def test_without_broker_tasks_go_to_the_file_system_queue() -> None:
    """The embedded default needs no Redis: a real worker reads a folder under var/."""
    values = settings_with()

    assert values["broker"] == "filesystem://"
    assert values["transport"] == "keltis_site.celery_files:Transport"  # messages written whole
    assert values["eager"] is False


def test_with_broker_tasks_go_to_the_broker() -> None:
    values = settings_with(CELERY_BROKER_URL="redis://127.0.0.1:6379/0")

    assert values["broker"] == "redis://127.0.0.1:6379/0"
    assert values["transport"] is None  # the URL's scheme picks kombu's Redis transport
    assert values["eager"] is False


def test_production_requires_secret_key() -> None:
    result = run_settings(DEBUG="False")

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_an_empty_secret_key_counts_as_unset(tmp_path: Path) -> None:
    """docker-compose.yml passes SECRET_KEY=${SECRET_KEY:-}: empty must mean "not set". In a
    VAR_DIR of its own: after scripts/serve, the checkout's var/ holds the key it keeps, which
    DEBUG then reads (keltis_site.local_secret)."""
    assert "SECRET_KEY" in run_settings(DEBUG="False", SECRET_KEY="").stderr
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    env.update(DJANGO_SETTINGS_MODULE="keltis_site.settings", ENV_FILE="/nonexistent")
    result = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.SECRET_KEY)"],
        cwd=REPO_ROOT,
        env={**env, "DEBUG": "True", "SECRET_KEY": "", "VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("django-insecure-")


def test_production_reads_secret_key_and_hosts() -> None:
    values = settings_with(
        DEBUG="False", SECRET_KEY="x" * 50, ALLOWED_HOSTS="keltis.example,www.keltis.example"
    )

    assert values["debug"] is False
    assert values["hosts"] == ["keltis.example", "www.keltis.example"]


def test_default_cache_is_files_the_local_processes_share() -> None:
    cache = settings_with()["cache"]

    assert cache["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert cache["LOCATION"].endswith("/var/cache")


@pytest.mark.parametrize("scheme", ["rediscache", "redis"])
def test_cache_url_selects_redis_that_may_be_away(scheme: str) -> None:
    """Django's RedisCache, as keltis_site.cache makes it survive Redis being away."""
    cache = settings_with(CACHE_URL=f"{scheme}://127.0.0.1:6379/1")["cache"]

    assert cache["BACKEND"] == "keltis_site.cache.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/1"


def test_default_email_goes_to_files_in_var_mail() -> None:
    values = settings_with()

    assert values["email_backend"] == "django.core.mail.backends.filebased.EmailBackend"
    assert Path(values["email_file_path"]) == REPO_ROOT / "var" / "mail"
    assert values["from"] == "Keltis by mail <noreply@localhost>"
    assert values["protocol"] == "http"
    assert values["proxies"] == 0


def test_email_url_selects_smtp() -> None:
    values = settings_with(
        EMAIL_URL="smtp+tls://mailer:secret@mail.example:587",
        DEFAULT_FROM_EMAIL="Keltis <keltis@mail.example>",
    )

    assert values["email_backend"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (values["email_host"], values["email_port"]) == ("mail.example", 587)
    assert (values["email_user"], values["email_password"]) == ("mailer", "secret")
    assert values["email_tls"] is True
    assert values["from"] == "Keltis <keltis@mail.example>"


def test_https_site_url_makes_email_links_https() -> None:
    values = settings_with(SITE_URL="https://keltis.example", TRUSTED_PROXY_COUNT="1")

    assert values["protocol"] == "https"
    assert values["proxies"] == 1


def test_the_site_url_follows_the_port_the_local_site_runs_on() -> None:
    """scripts/serve passes PORT to the web server and to the worker that sends the turn
    emails: without a SITE_URL of its own, every link points at that port."""
    assert settings_with()["site_url"] == "http://127.0.0.1:8000"
    assert settings_with(PORT="8101")["site_url"] == "http://127.0.0.1:8101"
    # an operator's SITE_URL wins (a proxy in front of the site answers on another port)
    both = settings_with(PORT="8101", SITE_URL="https://keltis.example/")
    assert both["site_url"] == "https://keltis.example"


def test_admins_who_hear_of_frozen_games_come_from_the_environment() -> None:
    """ADMINS (games/integrity.py emails them): "Name <address>" or the address alone; their
    emails come from DEFAULT_FROM_EMAIL. Unset: nobody."""
    code = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps([s.ADMINS, s.SERVER_EMAIL, s.EMAIL_SUBJECT_PREFIX]))"
    )
    base = {k: v for k, v in os.environ.items() if k not in (*OUR_VARIABLES, "ADMINS")}
    base.update(DJANGO_SETTINGS_MODULE="keltis_site.settings", ENV_FILE="/nonexistent")

    def admins(**environment: str) -> list[Any]:
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO_ROOT, env={**base, **environment},
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        values: list[Any] = json.loads(result.stdout)
        return values

    assert admins()[0] == []
    assert admins(
        ADMINS="Anna Staff <anna@keltis.example>, ops@keltis.example",
        DEFAULT_FROM_EMAIL="Keltis <noreply@keltis.example>",
    ) == [
        [["Anna Staff", "anna@keltis.example"], ["ops@keltis.example", "ops@keltis.example"]],
        "Keltis <noreply@keltis.example>",
        "[Keltis by mail] ",
    ]
