"""Hypothesis profiles for the engine's property tests.

"ci" (loaded when the environment variable CI is set) is derandomized, so that a CI run tests
the same examples every time, and keeps no example database; "dev" explores new examples on
every run and remembers failures in .hypothesis/. Neither has a deadline: a whole random game
is one example. Choose another with ``pytest --hypothesis-profile=NAME``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=50,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
