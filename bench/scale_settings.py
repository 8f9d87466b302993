"""Settings of bench/scale.py: the site's own, read from the environment the script sets, with
the collected static files kept apart in var/bench/static (DEBUG off needs them collected; the
checkout's staticfiles/ is scanned by the test suite's whitenoise, so the benchmark leaves it
alone)."""

from keltis_site.settings import *  # noqa: F403
from keltis_site.settings import BASE_DIR

STATIC_ROOT = BASE_DIR / "var" / "bench" / "static"
