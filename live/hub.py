"""The stream server's side: one subscription per process, fanned out to its open streams.

A process holds thousands of streams but subscribes once (``transport.Listener``); each change
goes, in memory, to the streams of the game's page and of the players at its table, and, when
it concerns the lobby (a game open, or one that was open and is no longer), to the lobby's
streams.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from games.models import GameStatus

from .messages import GameChange
from .transport import Listener

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Subscription:
    """One open stream: a page of ``game_id`` (or none), seen by ``user_id`` (or a visitor).
    ``None`` in the queue ends the stream (the server is stopping)."""

    user_id: int | None
    game_id: int | None
    #: a lobby page: it also hears every open game, and each one that stops being open
    lobby: bool = False
    queue: asyncio.Queue[GameChange | None] = field(default_factory=asyncio.Queue)


class Hub:
    def __init__(self) -> None:
        self.by_game: dict[int, set[Subscription]] = {}
        self.by_user: dict[int, set[Subscription]] = {}
        self.lobby: set[Subscription] = set()
        #: the games the lobby's streams know open: a change of one of them concerns the lobby
        #: even when it is no longer open (it started, or was cancelled). Seeded by each lobby
        #: stream from the database (``lobby_seen``), kept by the changes while one is open.
        self.lobby_games: set[int] = set()
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
        for sub in self.lobby:
            sub.queue.put_nowait(None)
        self.by_game.clear()
        self.by_user.clear()
        self.lobby.clear()
        self.lobby_games.clear()
        self._starting = asyncio.Lock()  # a later start may run on another event loop

    def subscribe(
        self, *, user_id: int | None, game_id: int | None, lobby: bool = False
    ) -> Subscription:
        sub = Subscription(user_id=user_id, game_id=game_id, lobby=lobby)
        if lobby:
            self.lobby.add(sub)
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
        self.lobby.discard(sub)
        if not self.lobby:
            self.lobby_games.clear()  # the next lobby stream seeds it afresh

    def lobby_seen(self, game_ids: set[int]) -> None:
        """Open games a lobby stream read from the database (after subscribing)."""
        if self.lobby:
            self.lobby_games.update(game_ids)

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
        if self.lobby and self._concerns_lobby(change):
            targets.update(self.lobby)
        for sub in targets:
            sub.queue.put_nowait(change)

    def _concerns_lobby(self, change: GameChange) -> bool:
        if change.message is not None:
            return False  # table talk: the lobby shows none
        if change.status == GameStatus.OPEN:
            self.lobby_games.add(change.game)
            return True
        if change.game in self.lobby_games:
            self.lobby_games.discard(change.game)
            return True
        return False

    @property
    def stream_count(self) -> int:
        groups = [*self.by_game.values(), *self.by_user.values(), self.lobby]
        return len({s for subs in groups for s in subs})


#: this process's hub (the stream server runs one event loop)
hub = Hub()
