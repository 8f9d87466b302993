"""kombu's file-system transport, the embedded default's broker, with each message written whole.

kombu writes a message by creating its file and then writing into it. A worker polling the
folder can take the file in between, read it empty, and the JSON error stops the worker for
good ("Unrecoverable error", kombu issue #1551, still open): seen here on the first beat task
after ``scripts/serve`` started, after which no bot moved and no email went out. Here a message
is written under a name the poller skips and renamed into place, so a file under a message's
name is always complete. A file that still does not parse (a disk error, a hand-made file) is
logged and dropped instead of stopping the worker; the periodic sweeps redo what it carried.

Settings select it with ``CELERY_BROKER_TRANSPORT`` while the URL stays ``filesystem://``.
"""

from __future__ import annotations

import logging
import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

log = logging.getLogger(__name__)

#: what a message's file is called while it is written: kombu's poller takes only names
#: ending in ``.<queue>.msg``
WRITING = ".part"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Write the message beside its final name, then rename it into place (atomic)."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + WRITING
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str) -> Any:
        """The next message, as kombu reads it; an unreadable one is logged and skipped."""
        try:
            return super()._get(queue)
        except ValueError:  # json.JSONDecodeError: the file is gone already
            log.error("unreadable task message dropped", extra={"queue": queue})
            raise Empty() from None


class Transport(filesystem.Transport):
    Channel = Channel

    @property
    def default_connection_params(self) -> dict[str, Any]:
        """No host: the queue is a folder. kombu's virtual transports default to "localhost",
        and kombu warns "No hostname was supplied" at every connection of a ``filesystem://``
        URL: a line in every log, and on the stdout of ``receive_mail``, a mail server's pipe."""
        return {"port": self.default_port}
