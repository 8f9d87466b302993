"""gunicorn.conf.py plus cProfile (CPU clock) around each ``/act/`` POST and its after-response
work, for bench/profile_action.py ``--http``; written to ``PROFILE_OUT`` when the worker exits."""

from __future__ import annotations

import cProfile
import os
import time
from pathlib import Path
from typing import Any

_conf = Path(__file__).resolve().parent.parent / "gunicorn.conf.py"
exec(compile(_conf.read_text(), str(_conf), "exec"))  # the project's own file

_production_post_request = post_request  # noqa: F821  (defined by the file run above)
_profile = cProfile.Profile(time.process_time)
max_requests = 0  # one worker for the whole run: its profile is the run's


def pre_request(worker: Any, req: Any) -> None:
    if req.method == "POST" and req.path.endswith("/act/"):
        _profile.enable()


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    _production_post_request(worker, req, environ, resp)
    _profile.disable()


def worker_exit(server: Any, worker: Any) -> None:
    _profile.dump_stats(os.environ["PROFILE_OUT"])
