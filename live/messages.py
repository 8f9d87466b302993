"""The one message live pages are pushed: where a game stands, never what anyone holds.

Everything in it is on every visitor's page of the game (its move number, status, whose turn,
how many seats are taken); ``users`` (who sits at the table, also public) only routes the
message to the players' own streams and is never sent to a browser.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class GameChange:
    game: int
    seq: int
    status: str
    to_move: int | None
    seats: int
    users: tuple[int, ...] = ()
    #: a table talk message posted or hidden at this game (its id): the game's pages fetch
    #: their talk again though the game's mark did not change, the API's stream sends it
    message: int | None = None

    def encode(self) -> bytes:
        data: dict[str, object] = {
            "game": self.game, "seq": self.seq, "status": self.status,
            "to_move": self.to_move, "seats": self.seats, "users": list(self.users),
        }  # fmt: skip
        if self.message is not None:
            data["message"] = self.message
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes | str) -> GameChange:
        raw = json.loads(data)
        return cls(
            game=int(raw["game"]), seq=int(raw["seq"]), status=str(raw["status"]),
            to_move=None if raw["to_move"] is None else int(raw["to_move"]),
            seats=int(raw["seats"]), users=tuple(int(u) for u in raw["users"]),
            message=None if raw.get("message") is None else int(raw["message"]),
        )  # fmt: skip

    def public(self) -> dict[str, object]:
        """What a browser is sent (``users`` left out: routing only; a message's id, never its
        text: the page fetches what its reader may read)."""
        public: dict[str, object] = {
            "game": self.game, "seq": self.seq, "status": self.status,
            "to_move": self.to_move, "seats": self.seats,
        }  # fmt: skip
        if self.message is not None:
            public["message"] = self.message
        return public

    @property
    def mark(self) -> tuple[int, str, int]:
        """What a page of this game depends on: it changes with every action, seat or status."""
        return (self.seq, self.status, self.seats)


def state_id(marks: Iterable[tuple[int, tuple[int, str, int]]]) -> str:
    """A short fingerprint of the (game, mark) pairs a page depends on: the SSE event id.
    The page is rendered with it; a stream that finds another one tells the page to catch
    up (Last-Event-ID on a reconnect)."""
    text = ";".join(f"{g}:{s}:{st}:{n}" for g, (s, st, n) in sorted(marks))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
