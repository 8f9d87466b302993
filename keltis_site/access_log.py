"""gunicorn's access line without the atoms its format does not name (gunicorn.conf.py's
``logger_class``).

For every request gunicorn's logger puts each request header, response header and WSGI environ
variable in the line's atoms (``{name}i``, ``{name}o``, ``{name}e``), about seventy entries, and
its wrapper copies them all again: close to a tenth of an action POST's CPU in the web worker
(sampled with py-spy, 2026-11-26), for a line that uses a dozen. Here those three groups are
added only when ``access_log_format`` names one of them; the other atoms are gunicorn's own, so
the line (and keltis_site.logging's JSON fields, read from the atoms) is the same.
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.glogging import Logger

#: the suffixes of the per-header and per-variable atoms in an access format
HEADER_ATOMS = ("}i", "}o", "}e")


class AccessLogger(Logger):
    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        if any(suffix in self.cfg.access_log_format for suffix in HEADER_ATOMS):
            return super().atoms(resp, req, environ, request_time)
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        method, protocol = environ["REQUEST_METHOD"], environ["SERVER_PROTOCOL"]
        seconds, micro = request_time.seconds, request_time.microseconds
        return {
            "h": environ.get("REMOTE_ADDR", "-"),
            "l": "-",
            "u": self._get_user(environ) or "-",
            "t": self.now(),
            "r": f"{method} {environ['RAW_URI']} {protocol}",
            "s": status,
            "m": method,
            "U": environ.get("PATH_INFO"),
            "q": environ.get("QUERY_STRING"),
            "H": protocol,
            "b": str(sent) if sent is not None else "-",
            "B": sent,
            "f": environ.get("HTTP_REFERER", "-"),
            "a": environ.get("HTTP_USER_AGENT", "-"),
            "T": seconds,
            "D": seconds * 1_000_000 + micro,
            "M": seconds * 1000 + int(micro / 1000),
            "L": f"{seconds}.{micro:06d}",
            "p": f"<{os.getpid()}>",
        }
