"""The hash chain that makes a game's event log tamper-evident.

Each event stores ``prev_hash`` (the hash of the event before it) and ``hash``: HMAC-SHA256 of
its own content and ``prev_hash`` under a server key (``settings.EVENT_CHAIN_KEYS``;
``Event.hash_key`` names the key by its id, so keys can be rotated: the first signs, every one
listed verifies). Events from before the keying (migration 0016) were hashed with plain SHA-256
(``event_hash``); that migration re-signed every intact chain, and no unkeyed hash is accepted
since, except by the one-off re-sign of a log restored from an older backup
(``resign_event_chains --unkeyed``). The first event chains from the game's genesis hash (plain
SHA-256, covered by the first event's keyed hash), which covers the game's immutable setup (the
deal), so a changed, removed, reordered or inserted event, or a changed deal, shows as a
mismatch when the chain is recomputed.

The hashing here is pure (plain values in, hex digests out), so the model, the migration's
backfill and the checker share one definition; ``verify_game_chain`` only feeds it the stored rows.
The game row keeps the head of its chain (``Game.chain_head``, the last event's hash): the next
event links to it without reading the event before, and the checker compares it with the
recomputed chain. Keyed, the chain is evidence against anyone who can write the database but not
read the key: rewriting the hashes after an edit needs the key. Someone who holds the key can
recompute a whole chain (docs/operations.md, "The move records: integrity").
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from django.db.models import QuerySet

#: versions the serialisations: a future format change gets a new tag and a rehash migration
GENESIS_TAG = "keltis-genesis-v1"
EVENT_TAG = "keltis-event-v1"
#: the keyed serialisation (HMAC-SHA256): its own tag, so no unkeyed content is ever signed alike
KEYED_EVENT_TAG = "keltis-event-v2-hmac"
#: ``Event.hash_key`` of an event hashed with plain SHA-256 (before migration 0016)
UNKEYED = ""
#: what a key's id is the HMAC of (its first 8 hex digits): the id says which key, not the key
KEY_ID_INPUT = b"keltis-event-chain-key-id"
#: what a default key is derived from SECRET_KEY with
DERIVE_INPUT = b"keltis-event-chain-key"

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
    #: the id of the key ``hash`` was made with (UNKEYED: plain SHA-256)
    key_id: str = UNKEYED


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
    """Plain SHA-256 (hex) of one event's content and the hash it links to: the unkeyed hash of
    the chains from before migration 0016 (which 0005's backfill still writes), that anyone can
    recompute. New events are signed with ``ChainKeys.sign``."""
    content = [
        EVENT_TAG, int(game_id), int(seq), int(seat), str(action), str(source),
        format_time(created_at), str(prev_hash),
    ]
    return hashlib.sha256(_canonical(content)).hexdigest()


def _keyed_content(
    game_id: int, seq: int, seat: int, action: str, source: str, created_at: datetime,
    prev_hash: str,
) -> bytes:
    # plain ints and strings in a list: JSON of them is canonical without _canonical's round trip
    return json.dumps([
        KEYED_EVENT_TAG, int(game_id), int(seq), int(seat), str(action), str(source),
        format_time(created_at), str(prev_hash),
    ], separators=(",", ":"), ensure_ascii=True).encode("ascii")  # fmt: skip


def event_mac(
    *,
    key: bytes,
    game_id: int,
    seq: int,
    seat: int,
    action: str,
    source: str,
    created_at: datetime,
    prev_hash: str,
) -> str:
    """HMAC-SHA256 (hex) under ``key`` of one event's content and the hash it links to."""
    content = _keyed_content(game_id, seq, seat, action, source, created_at, prev_hash)
    return hmac.digest(key, content, "sha256").hex()


def key_id(key: bytes) -> str:
    """The id a key is named by in ``Event.hash_key``: it reveals nothing of the key."""
    return hmac.new(key, KEY_ID_INPUT, hashlib.sha256).hexdigest()[:8]


def derive_key(secret: str) -> bytes:
    """A chain key derived from a Django secret key (the default when EVENT_CHAIN_KEYS is
    unset): its own value, so that no other use of SECRET_KEY produces it."""
    return hmac.new(secret.encode(), DERIVE_INPUT, hashlib.sha256).digest()


@dataclass(frozen=True)
class ChainKeys:
    """The keys a chain is signed and verified with: the first of ``keys`` signs, every one
    verifies. ``unkeyed``: also accept plain SHA-256 hashes (events from before the keying),
    only for re-signing a log restored from an old backup. No keys at all: sign unkeyed (the
    reverse of migration 0016)."""

    keys: Sequence[bytes]
    unkeyed: bool = False
    by_id: Mapping[str, bytes] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_id = {key_id(key): key for key in self.keys}
        if len(by_id) != len(self.keys):
            raise ValueError("two event chain keys are alike (or share an id)")
        object.__setattr__(self, "by_id", by_id)

    @property
    def signing_id(self) -> str:
        """The id of the key new hashes are made with (UNKEYED when there is none)."""
        return key_id(self.keys[0]) if self.keys else UNKEYED

    def sign(
        self, *, game_id: int, seq: int, seat: int, action: str, source: str,
        created_at: datetime, prev_hash: str,
    ) -> tuple[str, str]:
        """``(key id, hash)`` of one event under the signing key."""
        fields = dict(
            game_id=game_id, seq=seq, seat=seat, action=action, source=source,
            created_at=created_at, prev_hash=prev_hash,
        )  # fmt: skip
        if not self.keys:
            return UNKEYED, event_hash(**fields)
        return self.signing_id, event_mac(key=self.keys[0], **fields)

    def expected(self, game_id: int, row: ChainRow, prev_hash: str) -> str | None:
        """The hash ``row`` should have, linked to ``prev_hash``, under the key it names; None
        when that key is not one of these (an unknown key, or unkeyed and not accepted)."""
        fields = dict(
            game_id=game_id, seq=row.seq, seat=row.seat, action=row.action, source=row.source,
            created_at=row.created_at, prev_hash=prev_hash,
        )  # fmt: skip
        if row.key_id == UNKEYED:
            return event_hash(**fields) if self.unkeyed or not self.keys else None
        key = self.by_id.get(row.key_id)
        return None if key is None else event_mac(key=key, **fields)


@functools.lru_cache(maxsize=8)
def _keys_of(configured: tuple[str, ...], secrets: tuple[str, ...], unkeyed: bool) -> ChainKeys:
    derived = [derive_key(secret) for secret in secrets if secret]
    keys = list(dict.fromkeys([key.encode() for key in configured] + derived))
    if not keys:
        raise ValueError("no event chain key: set EVENT_CHAIN_KEYS or SECRET_KEY")
    return ChainKeys(keys, unkeyed=unkeyed)


def current_keys(*, unkeyed: bool = False) -> ChainKeys:
    """The keys of the settings: those of ``EVENT_CHAIN_KEYS`` (the first signs), then keys
    derived from SECRET_KEY and SECRET_KEY_FALLBACKS, which sign when EVENT_CHAIN_KEYS is
    empty and always verify: so the default key needs no spelling out to move off it, and
    Django's own key rotation carries it along."""
    from django.conf import settings

    configured = tuple(getattr(settings, "EVENT_CHAIN_KEYS", None) or ())
    secrets = (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))
    return _keys_of(configured, tuple(secrets), unkeyed)


def _hash_problem(game_id: int, row: ChainRow, keys: ChainKeys) -> ChainProblem | None:
    """``hash mismatch`` when the row's hash is not the one its content makes under its key."""
    expected = None if row.prev_hash is None else keys.expected(game_id, row, row.prev_hash)
    if expected is not None and hmac.compare_digest(expected, row.hash or ""):
        return None
    if row.prev_hash is not None and expected is None:
        detail = (
            "its hash is not keyed (from before migration 0016)" if row.key_id == UNKEYED
            else f"its hash is made with a key not configured (key id {row.key_id})"
        )
    else:
        detail = "content differs from its hash"
    return ChainProblem(game_id, row.seq, HASH_MISMATCH, detail)


def _missing(game_id: int, first: int, last: int) -> ChainProblem:
    seqs = f"seq {first} is" if first == last else f"seqs {first}-{last} are"
    return ChainProblem(game_id, first, MISSING, f"{seqs} not stored")


def check_chain(
    game_id: int,
    genesis: str,
    rows: Iterable[ChainRow],
    expected_count: int,
    head: str | None = None,
    keys: ChainKeys | None = None,
) -> list[ChainProblem]:
    """Every problem of one game's chain, reading ``rows`` (ordered by seq) once.

    A gap in the seqs is ``missing``; a row whose ``prev_hash`` is not the stored hash of the
    event before it (or the genesis) has lost or gained a neighbour (``broken link``); a row whose
    stored hash differs from its recomputed one was changed (``hash mismatch``). The last event
    links to nothing, so ``expected_count`` (the game's own count) catches a removed or an added
    last event, and ``head`` (the hash the game row keeps of its last event, "" before the
    first; None: not checked) catches a last event rewritten together with its hash. ``keys``:
    the keys hashes are checked with (None: the settings').
    """
    keys = current_keys() if keys is None else keys
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
        mismatch = _hash_problem(game_id, row, keys)
        if mismatch is not None:
            problems.append(mismatch)
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


#: the columns of a ChainRow, in its order
ROW_COLUMNS = ("seq", "seat", "action", "source", "created_at", "prev_hash", "hash", "hash_key")


def verify_game_chain(
    game: Any, chunk_size: int = 2000, keys: ChainKeys | None = None
) -> list[ChainProblem]:
    """Recompute ``game``'s chain from its stored events, streamed in seq order, and list every
    problem (empty: intact). ``game.seq`` is the number of events the game says it has."""
    rows = (
        ChainRow(*values)
        for values in game.events.order_by("seq")
        .values_list(*ROW_COLUMNS)
        .iterator(chunk_size=chunk_size)
    )
    return check_chain(game.pk, genesis_hash(game), rows, game.seq, game.chain_head, keys)


def check_link(
    game_id: int, seq: int, head: str, row: ChainRow | None, keys: ChainKeys | None = None
) -> list[ChainProblem]:
    """What an action checks before it links a new event to ``head`` (the game row's chain
    head, the game counting ``seq`` events): that the stored event ``seq`` (``row``; None: not
    stored) is the head and still hashes to it under its key. One row and one HMAC: the rest
    of the chain is the periodic check's (``integrity.check_running_chains``)."""
    keys = current_keys() if keys is None else keys
    if seq == 0:
        if head == "":
            return []
        return [ChainProblem(game_id, None, HEAD_MISMATCH, "a game without events has a head")]
    if row is None or row.seq != seq:
        return [_missing(game_id, seq, seq), ChainProblem(
            game_id, None, HEAD_MISMATCH, "the game's chain head is not its last event's hash"
        )]  # fmt: skip
    problems = []
    mismatch = _hash_problem(game_id, row, keys)
    if mismatch is not None:
        problems.append(mismatch)
    if not hmac.compare_digest(row.hash or "", head):
        problems.append(ChainProblem(
            game_id, None, HEAD_MISMATCH, "the game's chain head is not its last event's hash"
        ))  # fmt: skip
    return problems


# -- re-signing: after migration 0016's keying, and after a key rotation ------------------------
@dataclass(frozen=True)
class Relinked:
    """One event's new link: its row id, prev_hash, hash and key id."""

    pk: int
    prev_hash: str
    hash: str
    key_id: str


def relink(
    game_id: int,
    genesis: str,
    rows: Iterable[tuple[int, ChainRow]],
    expected_count: int,
    head: str,
    verify: ChainKeys,
    sign: ChainKeys,
) -> tuple[list[ChainProblem], list[Relinked]]:
    """Check a chain under ``verify`` and, when intact, sign it anew with ``sign``'s signing
    key: ``(problems, [])`` for a broken chain (never re-signed: that would launder an edit),
    else ``([], new links)``. ``rows``: ``(row id, ChainRow)`` in seq order."""
    stored: list[tuple[int, ChainRow]] = list(rows)
    problems = check_chain(
        game_id, genesis, (row for _, row in stored), expected_count, head, verify
    )
    if problems:
        return problems, []
    links: list[Relinked] = []
    prev = genesis
    for pk, row in stored:
        used, digest = sign.sign(
            game_id=game_id, seq=row.seq, seat=row.seat, action=row.action, source=row.source,
            created_at=row.created_at, prev_hash=prev,
        )  # fmt: skip
        links.append(Relinked(pk, prev, digest, used))
        prev = digest
    return [], links


TRIGGER = "games_event_append_only"


@contextmanager
def events_writable(connection: Any) -> Iterator[None]:
    """Inside a transaction: let this transaction rewrite event rows. On PostgreSQL the
    append-only trigger is disabled and enabled again (ALTER TABLE: it locks the events table
    until the transaction ends); a failure rolls the DISABLE back with everything else."""
    postgres = connection.vendor == "postgresql"
    if postgres:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE games_event DISABLE TRIGGER {TRIGGER}")
    yield
    if postgres:
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE games_event ENABLE TRIGGER {TRIGGER}")


def resign_game(
    game: Any, event_model: Any, verify: ChainKeys, sign: ChainKeys, using: str = "default"
) -> tuple[list[ChainProblem], int]:
    """Re-sign one game's chain (``game``: a model instance, live or historical, with kind,
    player_count, options, setup, seq and chain_head; ``event_model``'s plain manager must
    update). The caller holds the transaction, the game's lock and ``events_writable``.
    ``(problems, 0)`` when the chain does not verify under ``verify`` (nothing written), else
    ``([], events re-signed)``; the game row's chain_head is written too."""
    rows = (
        (values[0], ChainRow(*values[1:]))
        for values in event_model.objects.using(using)
        .filter(game_id=game.pk)
        .order_by("seq")
        .values_list("pk", *ROW_COLUMNS)
        .iterator(chunk_size=2000)
    )
    problems, links = relink(
        game.pk, genesis_hash(game), rows, game.seq, game.chain_head, verify, sign
    )
    if problems:
        return problems, 0
    updated = [
        event_model(pk=link.pk, prev_hash=link.prev_hash, hash=link.hash, hash_key=link.key_id)
        for link in links
    ]
    writer = QuerySet(event_model, using=using)  # a plain one: the live manager refuses updates
    for start in range(0, len(updated), 1000):
        writer.bulk_update(
            updated[start : start + 1000], ["prev_hash", "hash", "hash_key"]
        )
    head = links[-1].hash if links else ""
    type(game).objects.using(using).filter(pk=game.pk).update(chain_head=head)
    game.chain_head = head
    return [], len(links)
