"""The secret key of a site run locally by scripts/serve: made once, kept under var/.

Without DEBUG Django needs a real SECRET_KEY, and every process of the site must share it:
the worker signs the action links of the turn emails that the web server checks, and a new
key at each start would log everybody out and kill every emailed link. So the first process
to start writes a random key to a file only its user can read, and the others read it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def persisted_secret_key(path: Path) -> str:
    """The key kept in ``path``, written there first (atomically) if there is none."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_urlsafe(50) + "\n")
    try:
        os.link(draft, path)  # fails if another process got there first: theirs is kept
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_text().strip()
