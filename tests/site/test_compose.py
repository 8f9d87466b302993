"""docker-compose.yml, Dockerfile and .env.example agree with each other and with the site.

Most tests read the files as data. ``interpolate`` does what compose does to ``${VAR}``,
``${VAR:-default}`` and ``${VAR-default}`` (nested too), so the stack's defaults can be checked
against the settings that read them; the tests at the end run the real ``docker compose
config`` (Compose v2, which ``scripts/ensure-compose`` installs; it needs no Docker engine) and
check that compose reads the file as these tests do. No image is built: that needs an engine.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import environ
import pytest
import yaml

from tests.site.image import dockerfile

REPO_ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "beat", "smtpd")


def load_compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    return data


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = compose["services"]
    return found


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's variable substitution of one string."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("${", i):
            depth, j = 1, i + 2
            while depth:  # to the brace that closes this one, past nested ${...}
                if text.startswith("${", j):
                    depth, j = depth + 1, j + 2
                    continue
                if text[j] == "}":
                    depth -= 1
                j += 1
            body = text[i + 2 : j - 1]
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)(.*))?", body, re.S)
            assert match, f"a form of ${{...}} these tests do not know: ${{{body}}}"
            name, op, default = match.groups()
            value = env.get(name)
            if value is None or (op == ":-" and value == ""):
                value = interpolate(default, env) if op else ""
            out.append(value)
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def variables(text: str) -> set[str]:
    """Every variable name ``${...}`` refers to, nested defaults included ($$ is no variable)."""
    return set(re.findall(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)", text.replace("$$", "")))


def documented() -> set[str]:
    """The names .env.example sets or shows (a commented ``# NAME=value`` line counts)."""
    text = (REPO_ROOT / ".env.example").read_text()
    return set(re.findall(r"^#? ?([A-Z][A-Z0-9_]*)=", text, re.M))


def app_environment(services: dict[str, Any], env: dict[str, str]) -> dict[str, str]:
    return {k: interpolate(str(v), env) for k, v in services["web"]["environment"].items()}


def test_interpolate_does_what_compose_does() -> None:
    env = {"SET": "x", "EMPTY": ""}
    assert interpolate("${SET}-${UNSET}", env) == "x-"
    assert interpolate("${EMPTY:-d} ${EMPTY-d} ${UNSET-d}", env) == "d  d"
    assert interpolate("${UNSET:-a${UNSET:-b}c}", env) == "abc"
    assert interpolate("$${NOT_A_VARIABLE}", env) == "${NOT_A_VARIABLE}"
    assert variables("${A:-${B}} $${C}") == {"A", "B"}


def test_the_stack_has_its_services(services: dict[str, Any]) -> None:
    assert set(services) == {
        "web", "worker", "beat", "smtpd", "postgres", "redis", "mailpit", "live"
    }


def test_smtpd_runs_the_reply_listener_on_the_port_it_publishes(
    services: dict[str, Any],
) -> None:
    """The MX points at port 25; the listener runs unprivileged on 2525 inside."""
    words = shlex.split(services["smtpd"]["command"])
    assert words[:3] == ["python", "manage.py", "smtpd"]
    port = words[words.index("--port") + 1]
    assert services["smtpd"]["ports"] == [f"25:{port}"]
    assert words[words.index("--host") + 1] == "0.0.0.0"


def test_exactly_one_beat_with_one_replica(services: dict[str, Any]) -> None:
    def runs_beat(service: dict[str, Any]) -> bool:
        words = shlex.split(str(service.get("command", "")))
        return "beat" in words or "-B" in words or "--beat" in words

    beats = [name for name, service in services.items() if runs_beat(service)]

    assert beats == ["beat"]
    assert services["beat"]["deploy"]["replicas"] == 1
    assert "worker" in shlex.split(services["worker"]["command"])


def test_web_migrates_then_runs_gunicorn_with_its_config(services: dict[str, Any]) -> None:
    command = services["web"]["command"]

    assert "runserver" not in command
    migrate, gunicorn = command.index("manage.py migrate"), command.index("gunicorn --config")
    assert migrate < gunicorn
    assert "&& exec gunicorn --config gunicorn.conf.py" in " ".join(command.split())
    assert (REPO_ROOT / "gunicorn.conf.py").is_file()


def test_the_web_health_check_runs_the_probe_on_healthz(services: dict[str, Any]) -> None:
    check = services["web"]["healthcheck"]

    assert check["test"] == ["CMD", "python", "keltis_site/healthcheck.py"]
    probe = (REPO_ROOT / "keltis_site" / "healthcheck.py").read_text()
    assert 'DEFAULT_URL = "http://127.0.0.1:8000/healthz"' in probe


def test_app_services_share_one_definition_and_wait_for_their_backing_services(
    services: dict[str, Any],
) -> None:
    for name in APP_SERVICES:
        service = services[name]
        assert service["build"] == "."
        assert service["env_file"] == [{"path": ".env", "required": False}]
        assert service["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        assert service["environment"] == services["web"]["environment"]


def test_postgres_has_a_health_check_and_a_volume(
    compose: dict[str, Any], services: dict[str, Any]
) -> None:
    postgres = services["postgres"]

    assert "pg_isready" in postgres["healthcheck"]["test"][1]
    assert "postgres-data:/var/lib/postgresql/data" in postgres["volumes"]
    assert "postgres-data" in compose["volumes"]
    assert "POSTGRES_HOST_AUTH_METHOD" not in postgres["environment"]  # a password, not trust


def test_redis_has_a_health_check(services: dict[str, Any]) -> None:
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_mailpit_catches_the_stacks_email_by_default(services: dict[str, Any]) -> None:
    mailpit = services["mailpit"]

    assert mailpit["image"].split(":")[0] == "axllent/mailpit"
    assert mailpit["ports"] == ["127.0.0.1:8025:8025"]  # the web UI, on this machine only
    assert app_environment(services, {})["EMAIL_URL"] == "smtp://mailpit:1025"
    email = environ.Env.email_url_config("smtp://mailpit:1025")
    assert (email["EMAIL_HOST"], email["EMAIL_PORT"]) == ("mailpit", 1025)


def test_the_defaults_point_the_app_at_the_stacks_own_services(services: dict[str, Any]) -> None:
    env = app_environment(services, {})

    database = environ.Env.db_url_config(env["DATABASE_URL"])
    postgres = {k: interpolate(str(v), {}) for k, v in services["postgres"]["environment"].items()}
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["NAME"]) == ("postgres", postgres["POSTGRES_DB"])
    assert (database["USER"], database["PASSWORD"]) == (
        postgres["POSTGRES_USER"],
        postgres["POSTGRES_PASSWORD"],
    )
    assert env["CELERY_BROKER_URL"].startswith("redis://redis:6379/")
    assert env["CACHE_URL"].startswith("rediscache://redis:6379/")  # shared: see /healthz
    assert env["LOG_FORMAT"] == "json"
    assert env["SECRET_KEY"] == ""  # no key baked into the file: settings refuse it without DEBUG


def test_one_postgres_password_sets_the_database_and_the_apps_url(
    services: dict[str, Any],
) -> None:
    env = {"POSTGRES_PASSWORD": "s3cret"}

    url = app_environment(services, env)["DATABASE_URL"]

    assert environ.Env.db_url_config(url)["PASSWORD"] == "s3cret"
    assert interpolate(services["postgres"]["environment"]["POSTGRES_PASSWORD"], env) == "s3cret"
    # and an operator's own DATABASE_URL wins
    assert (
        app_environment(services, {"DATABASE_URL": "postgres://elsewhere/db"})["DATABASE_URL"]
        == "postgres://elsewhere/db"
    )


def strings(node: Any) -> list[str]:
    """Every string of the loaded YAML (compose interpolates values, never comments)."""
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in (*strings(key), *strings(value))]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return [node] if isinstance(node, str) else []


def test_every_compose_variable_is_documented_in_env_example(compose: dict[str, Any]) -> None:
    used = {name for text in strings(compose) for name in variables(text)}

    assert used, "the compose file reads no variables?"
    assert used - documented() == set()


def test_every_setting_read_from_the_environment_is_documented_in_env_example() -> None:
    settings_text = (REPO_ROOT / "keltis_site" / "settings.py").read_text()
    read = set(re.findall(r'env(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]*)"', settings_text))
    gunicorn_text = (REPO_ROOT / "gunicorn.conf.py").read_text()
    read |= set(re.findall(r'os\.environ\.get\(\s*"([A-Z][A-Z0-9_]*)"', gunicorn_text))

    assert {"SECRET_KEY", "DATABASE_URL", "LOG_LEVEL", "WEB_CONCURRENCY"} <= read
    assert read - documented() == set()


def test_the_image_runs_gunicorn_as_a_user_that_is_not_root() -> None:
    steps = dockerfile()

    users = [args for instruction, args in steps if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")
    [cmd] = [args for instruction, args in steps if instruction == "CMD"]
    assert cmd == '["gunicorn", "--config", "gunicorn.conf.py"]'


def test_the_image_compiles_translations_and_collects_static_files() -> None:
    steps = dockerfile()
    runs = [(i, args) for i, (instruction, args) in enumerate(steps) if instruction == "RUN"]

    copied_locale = steps.index(("COPY", "locale locale"))
    assert any("install" in args and "gettext" in args for _, args in runs)
    [(build, args)] = [(i, a) for i, a in runs if "compilemessages" in a]
    assert build > copied_locale
    assert "collectstatic --noinput" in args
    assert "DEBUG=False" in args and "SECRET_KEY=" in args
    assert (REPO_ROOT / "locale").is_dir()


def test_every_copied_path_exists_and_is_not_docker_ignored() -> None:
    ignored = {
        line.strip()
        for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for instruction, args in dockerfile():
        if instruction != "COPY":
            continue
        *sources, _ = args.split()
        for source in sources:
            assert (REPO_ROOT / source).exists(), source
            assert source not in ignored, source
    assert {".env", ".git", ".venv"} <= ignored  # secrets and bulk never reach the image


def compose_command() -> list[str]:
    """Docker Compose v2: the docker plugin, a docker-compose on PATH, or .venv/bin's."""
    candidates = [
        ["docker", "compose"],
        ["docker-compose"],
        [str(REPO_ROOT / ".venv/bin/docker-compose")],
    ]
    for command in candidates:
        if shutil.which(command[0]) is None:
            continue
        version = subprocess.run([*command, "version"], capture_output=True, text=True)
        if version.returncode == 0 and re.search(r"version v?2\.", version.stdout):
            return command
    pytest.fail("Docker Compose v2 is missing: run scripts/ensure-compose")


def compose_config(project: Path, env_file: str | None = None) -> subprocess.CompletedProcess[str]:
    """``docker compose config`` on a copy of the stack in ``project``, with only PATH and HOME
    in the environment (so the caller's DATABASE_URL and the like do not leak in), and with
    ``env_file`` as the project's .env when given."""
    shutil.copy(REPO_ROOT / "docker-compose.yml", project / "docker-compose.yml")
    if env_file is not None:
        (project / ".env").write_text(env_file)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(project)}
    return subprocess.run(
        [*compose_command(), "config", "--format", "json"],
        cwd=project, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def validated(project: Path, env_file: str | None = None) -> dict[str, Any]:
    done = compose_config(project, env_file)
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = json.loads(done.stdout)
    return config


def test_docker_compose_config_validates_the_stack_with_no_env_file(
    tmp_path: Path, services: dict[str, Any]
) -> None:
    config = validated(tmp_path)

    assert set(config["services"]) == set(services)
    assert config["services"]["beat"]["deploy"]["replicas"] == 1
    for name in APP_SERVICES:  # compose's own interpolation is what these tests assume
        assert config["services"][name]["environment"] == app_environment(services, {})
    assert "postgres-data" in config["volumes"]


def test_docker_compose_config_takes_the_operators_settings_from_env(tmp_path: Path) -> None:
    example = (REPO_ROOT / ".env.example").read_text()
    file_values = dict(re.findall(r"^([A-Z][A-Z0-9_]*)=(.*)$", example, re.M))

    config = validated(tmp_path, example)

    web = config["services"]["web"]["environment"]
    for name in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "SITE_URL", "EMAIL_URL", "LOG_LEVEL"):
        assert web[name] == file_values[name], name
    password = file_values["POSTGRES_PASSWORD"]
    assert environ.Env.db_url_config(web["DATABASE_URL"])["PASSWORD"] == password
    assert config["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == password


def test_docker_compose_config_refuses_a_broken_file(tmp_path: Path) -> None:
    """The validation can fail: a service key compose does not know is refused."""
    text = (REPO_ROOT / "docker-compose.yml").read_text()
    broken = text.replace("  beat:\n", "  beat:\n    replicaz: 2\n", 1)
    assert broken != text
    (tmp_path / "broken.yml").write_text(broken)

    done = subprocess.run(
        [*compose_command(), "-f", "broken.yml", "config", "--quiet"],
        cwd=tmp_path, env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert done.returncode != 0
    assert "replicaz" in done.stderr
