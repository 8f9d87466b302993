"""How many streams one visitor may hold open on a stream server, and open in a minute.

No login is needed to follow a public game, so without a bound one address could hold
thousands of idle streams (each costs the server memory) or open them in a loop (each opening
reads the database). Counted in the stream server's own memory, per process: the streams live
there and nowhere else, and a count that needs no round trip cannot fail with Redis. Behind a
load balancer spreading over several stream servers, a visitor may hold the cap on each.

- open streams per logged-in player (``LIVE_STREAMS_PER_USER``: their tabs and devices) and
  per client address (``LIVE_STREAMS_PER_ADDRESS``: a household or a club behind one NAT);
- streams opened per address in the last minute (``LIVE_STREAM_OPENS_PER_MINUTE``): a page
  reconnects with back-off, a player moving between pages opens one stream a page.

The address is the one allauth's limits read (``TRUSTED_PROXY_COUNT`` proxies skipped), an
IPv6 address counted by its /64 network, as allauth does, since one host holds a whole /64.
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, deque
from dataclasses import dataclass

from django.conf import settings

#: the window of LIVE_STREAM_OPENS_PER_MINUTE, in seconds
WINDOW = 60.0
#: the opening times of quiet addresses are forgotten once every so many openings
FORGET_EVERY = 1024


def address_key(ip: str) -> str:
    """The key an address is counted under: itself, or its /64 network for IPv6."""
    try:
        parsed = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


@dataclass(frozen=True)
class Refusal:
    """Why a stream was not opened, and when to try again (the Retry-After header)."""

    reason: str
    retry_after: int


class StreamLimits:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Nothing counted: the server starts, holding no streams."""
        self.by_user: Counter[int] = Counter()
        self.by_address: Counter[str] = Counter()
        self.opened: dict[str, deque[float]] = {}
        self._admitted = 0

    def admit(self, address: str) -> Refusal | None:
        """Count one more stream opened and open from ``address``, or say why not (nothing
        counted then). Checked before anything is read for the stream."""
        now = time.monotonic()
        self._admitted += 1
        if self._admitted % FORGET_EVERY == 0:
            self.forget_idle()
        recent = self.opened.setdefault(address, deque())
        while recent and recent[0] <= now - WINDOW:
            recent.popleft()
        if len(recent) >= settings.LIVE_STREAM_OPENS_PER_MINUTE:
            return Refusal("opens", retry_after=max(1, int(recent[0] + WINDOW - now) + 1))
        if self.by_address[address] >= settings.LIVE_STREAMS_PER_ADDRESS:
            return Refusal("open", retry_after=30)
        recent.append(now)
        self.by_address[address] += 1
        return None

    def admit_user(self, user_id: int) -> Refusal | None:
        """Count one more open stream of a logged-in player, or say why not."""
        if self.by_user[user_id] >= settings.LIVE_STREAMS_PER_USER:
            return Refusal("open", retry_after=30)
        self.by_user[user_id] += 1
        return None

    def release(self, *, user_id: int | None, address: str) -> None:
        """A stream admitted for them has ended (``user_id``: when ``admit_user`` counted it)."""
        _drop(self.by_address, address)
        if user_id is not None:
            _drop(self.by_user, user_id)

    def forget_idle(self) -> None:
        """Drop the opening times of addresses quiet for a minute (bounded memory)."""
        cutoff = time.monotonic() - WINDOW
        for address in [a for a, times in self.opened.items() if not times or times[-1] <= cutoff]:
            del self.opened[address]


def _drop(counter: Counter[int] | Counter[str], key: int | str) -> None:
    counter[key] -= 1  # type: ignore[index]
    if counter[key] <= 0:  # type: ignore[index]
        del counter[key]  # type: ignore[arg-type]


#: this process's limits (the stream server runs one event loop)
limits = StreamLimits()
