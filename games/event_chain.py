"""The hash chain that makes a game's event log tamper-evident.

Each event stores ``prev_hash`` (the hash of the event before it) and ``hash`` (SHA-256 of its own
content and ``prev_hash``). The first event chains from the game's genesis hash, which covers the
game's immutable setup (the deal), so a changed, removed, reordered or inserted event, or a
changed deal, shows as a mismatch when the chain is recomputed.

The hashing here is pure (plain values in, hex digests out), so the model, the migration's
backfill and the checker share one definition; ``verify_game_chain`` only feeds it the stored rows.
The game row keeps the head of its chain (``Game.chain_head``, the last event's hash): the next
event links to it without reading the event before, and the checker compares it with the
recomputed chain. A chain is evidence against partial edits, not against someone who rewrites
every hash after the edit and the head with them: that would need the head hashes kept
somewhere else as well.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

#: versions the serialisations: a future format change gets a new tag and a rehash migration
GENESIS_TAG = "keltis-genesis-v1"
EVENT_TAG = "keltis-event-v1"

#: problem kinds reported by ``check_chain``
MISSING = "missing"
HASH_MISMATCH = "hash mismatch"
BROKEN_LINK = "broken link"
COUNT_MISMATCH = "count mismatch"
BAD_SEQ = "bad seq"
HEAD_MISMATCH = "head mismatch"


class GameLike(Protocol):
    """What the genesis needs of a game: the live model and the migration's historical one."""

    pk: Any
    kind: str
    player_count: int
    options: Any
    setup: Any


@dataclass(frozen=True)
class ChainRow:
    """One stored event as the checker reads it."""

    seq: int
    seat: int
    action: str
    source: str
    created_at: datetime
    prev_hash: str | None
    hash: str | None


@dataclass(frozen=True)
class ChainProblem:
    """One thing wrong with a game's chain: ``seq`` is the event concerned (None for the game)."""

    game_id: int
    seq: int | None
    kind: str
    detail: str

    def __str__(self) -> str:
        where = f"game {self.game_id}" + (f" seq {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.kind}: {self.detail}"


def _canonical(value: Any) -> bytes:
    """One byte string per value: JSON with sorted keys and no spaces. The value is first
    round-tripped through JSON so that tuples, and the JSONField's own reading of what it
    stored, serialise alike."""
    plain = json.loads(json.dumps(value, allow_nan=False))
    return json.dumps(
        plain, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def format_time(value: datetime) -> str:
    """The event time in UTC to the microsecond, which both databases store exactly."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("an event time must be timezone-aware")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def genesis_hash(game: GameLike) -> str:
    """The value a game's first event chains from: its id and everything fixed when it was
    dealt (kind, player count, options and the explicit setup), so a changed deal is detected."""
    content = [
        GENESIS_TAG, int(game.pk), str(game.kind), int(game.player_count), game.options, game.setup
    ]
    return hashlib.sha256(_canonical(content)).hexdigest()


def event_hash(
    *,
    game_id: int,
    seq: int,
    seat: int,
    action: str,
    source: str,
    created_at: datetime,
    prev_hash: str,
) -> str:
    """SHA-256 (hex) of one event's content and the hash it links to."""
    content = [
        EVENT_TAG, int(game_id), int(seq), int(seat), str(action), str(source),
        format_time(created_at), str(prev_hash),
    ]
    return hashlib.sha256(_canonical(content)).hexdigest()


def row_hash(game_id: int, row: ChainRow, prev_hash: str) -> str:
    """``event_hash`` of a stored row, linked to ``prev_hash``."""
    return event_hash(
        game_id=game_id, seq=row.seq, seat=row.seat, action=row.action, source=row.source,
        created_at=row.created_at, prev_hash=prev_hash,
    )


def _missing(game_id: int, first: int, last: int) -> ChainProblem:
    seqs = f"seq {first} is" if first == last else f"seqs {first}-{last} are"
    return ChainProblem(game_id, first, MISSING, f"{seqs} not stored")


def check_chain(
    game_id: int,
    genesis: str,
    rows: Iterable[ChainRow],
    expected_count: int,
    head: str | None = None,
) -> list[ChainProblem]:
    """Every problem of one game's chain, reading ``rows`` (ordered by seq) once.

    A gap in the seqs is ``missing``; a row whose ``prev_hash`` is not the stored hash of the
    event before it (or the genesis) has lost or gained a neighbour (``broken link``); a row whose
    stored hash differs from its recomputed one was changed (``hash mismatch``). The last event
    links to nothing, so ``expected_count`` (the game's own count) catches a removed or an added
    last event, and ``head`` (the hash the game row keeps of its last event, "" before the
    first; None: not checked) catches a last event rewritten together with its hash.
    """
    problems: list[ChainProblem] = []
    expected_prev = genesis
    last_seq = 0
    last_hash = ""
    for row in rows:
        if row.seq <= last_seq:  # only seq 0 can come first: seqs are unique per game
            problems.append(ChainProblem(game_id, row.seq, BAD_SEQ, "seqs start at 1"))
            continue
        if row.seq > last_seq + 1:
            problems.append(_missing(game_id, last_seq + 1, row.seq - 1))
        if row.prev_hash != expected_prev:
            what = "the game's genesis" if row.seq == 1 else "the hash of the event before"
            problems.append(
                ChainProblem(game_id, row.seq, BROKEN_LINK, f"prev_hash is not {what}")
            )
        if row.prev_hash is None or row.hash != row_hash(game_id, row, row.prev_hash):
            problems.append(
                ChainProblem(game_id, row.seq, HASH_MISMATCH, "content differs from its hash")
            )
        expected_prev = row.hash or ""
        last_seq, last_hash = row.seq, row.hash or ""
    if last_seq < expected_count:
        problems.append(_missing(game_id, last_seq + 1, expected_count))
    elif last_seq > expected_count:
        problems.append(
            ChainProblem(
                game_id, expected_count + 1, COUNT_MISMATCH,
                f"the game counts {expected_count} event(s), events up to seq {last_seq} are "
                "stored",
            )
        )
    if head is not None and head != last_hash:
        problems.append(
            ChainProblem(
                game_id, None, HEAD_MISMATCH, "the game's chain head is not its last event's hash"
            )
        )
    return problems


def verify_game_chain(game: Any, chunk_size: int = 2000) -> list[ChainProblem]:
    """Recompute ``game``'s chain from its stored events, streamed in seq order, and list every
    problem (empty: intact). ``game.seq`` is the number of events the game says it has."""
    rows = (
        ChainRow(*values)
        for values in game.events.order_by("seq")
        .values_list("seq", "seat", "action", "source", "created_at", "prev_hash", "hash")
        .iterator(chunk_size=chunk_size)
    )
    return check_chain(game.pk, genesis_hash(game), rows, game.seq, game.chain_head)
