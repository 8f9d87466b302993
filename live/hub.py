"""The stream server's side: one subscription per process, fanned out to its open streams.

A process holds thousands of streams but subscribes once (``transport.Listener``); each change
goes, in memory, to the streams of the game's page and of the players at its table.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from .messages import GameChange
from .transport import Listener

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Subscription:
    """One open stream: a page of ``game_id`` (or none), seen by ``user_id`` (or a visitor).
    ``None`` in the queue ends the stream (the server is stopping)."""

    user_id: int | None
    game_id: int | None
    queue: asyncio.Queue[GameChange | None] = field(default_factory=asyncio.Queue)


class Hub:
    def __init__(self) -> None:
        self.by_game: dict[int, set[Subscription]] = {}
        self.by_user: dict[int, set[Subscription]] = {}
        self._listener: Listener | None = None
        self._starting = asyncio.Lock()

    async def start(self) -> None:
        """Subscribe (once per process; later calls do nothing)."""
        async with self._starting:
            if self._listener is None:
                listener = Listener(self.deliver)
                await listener.start()
                self._listener = listener

    async def stop(self) -> None:
        """Unsubscribe and end every stream (their pages reconnect, to another server)."""
        if self._listener is not None:
            await self._listener.stop()
            self._listener = None
        for subs in [*self.by_game.values(), *self.by_user.values()]:
            for sub in subs:
                sub.queue.put_nowait(None)
        self.by_game.clear()
        self.by_user.clear()
        self._starting = asyncio.Lock()  # a later start may run on another event loop

    def subscribe(self, *, user_id: int | None, game_id: int | None) -> Subscription:
        sub = Subscription(user_id=user_id, game_id=game_id)
        if game_id is not None:
            self.by_game.setdefault(game_id, set()).add(sub)
        if user_id is not None:
            self.by_user.setdefault(user_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        for index, key in ((self.by_game, sub.game_id), (self.by_user, sub.user_id)):
            if key is not None and key in index:
                index[key].discard(sub)
                if not index[key]:
                    del index[key]

    def deliver(self, data: bytes) -> None:
        """A message from the transport: to every stream it concerns, once."""
        try:
            change = GameChange.decode(data)
        except (ValueError, KeyError, TypeError):
            log.warning("live message not understood")
            return
        targets = set(self.by_game.get(change.game, ()))
        for user_id in change.users:
            targets.update(self.by_user.get(user_id, ()))
        for sub in targets:
            sub.queue.put_nowait(change)

    @property
    def stream_count(self) -> int:
        return len({s for subs in [*self.by_game.values(), *self.by_user.values()] for s in subs})


#: this process's hub (the stream server runs one event loop)
hub = Hub()
