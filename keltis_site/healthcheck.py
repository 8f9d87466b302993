"""The web container's health probe: GET /healthz from inside the container, exit 0 on 200.

``python keltis_site/healthcheck.py`` (docker-compose.yml's healthcheck). Standard library
only and no Django start-up, because it runs every 30 s. Django answers 400 to a Host header
that is not in ALLOWED_HOSTS, and in production that list names the public host, not
127.0.0.1, so the probe sends the first usable name from ALLOWED_HOSTS as its Host header.
With HEALTH_TOKEN set it sends the token too, so /healthz answers with every check (what is
degraded, or why it is down) and `docker inspect` shows it; without, it shows up or down.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8000/healthz"
TIMEOUT = 5.0  # seconds


def probe_host(allowed_hosts: str | None) -> str:
    """A Host header Django accepts: the first ALLOWED_HOSTS entry ('.example.org' stands for
    its subdomains, so 'example.org' itself qualifies); 'localhost' when unset or '*'."""
    for entry in (allowed_hosts or "").split(","):
        name = entry.strip().lstrip(".")
        if name and name != "*":
            return name
    return "localhost"


def check(url: str, host: str, token: str | None = None) -> tuple[bool, str]:
    """(healthy, what /healthz said or why it could not be asked)."""
    headers = {"Host": host}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status == 200, response.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:  # 503: down (with the token, it says why)
        return False, f"{exc.code}: {exc.read().decode(errors='replace')}"
    except OSError as exc:  # refused, timed out: the server is not answering
        return False, f"no answer: {exc}"


def main() -> int:
    url = os.environ.get("HEALTHCHECK_URL", DEFAULT_URL)
    healthy, said = check(
        url, probe_host(os.environ.get("ALLOWED_HOSTS")), os.environ.get("HEALTH_TOKEN")
    )
    print(said)  # docker keeps the probe's output: `docker inspect` shows why it failed
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
