"""bench/scale.py's settings: the site's, its static files collected into var/bench/static (the
checkout's staticfiles/ is the test suite's)."""

from keltis_site.settings import *  # noqa: F403
from keltis_site.settings import BASE_DIR

STATIC_ROOT = BASE_DIR / "var" / "bench" / "static"
