"""The event hash chain: every event links to the one before (the first to the game's genesis),
so any change to a stored event, a removed or reordered one, or a changed deal is detected."""

from __future__ import annotations

import importlib
import io
import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.utils import DatabaseError

from games.engine import game_class
from games.engine.bots import RandomBot
from games.event_chain import (
    BROKEN_LINK,
    COUNT_MISMATCH,
    HASH_MISMATCH,
    HEAD_MISMATCH,
    MISSING,
    ChainKeys,
    ChainRow,
    check_chain,
    current_keys,
    event_hash,
    event_mac,
    genesis_hash,
    verify_game_chain,
)
from games.maintenance import verify_event_chains
from games.models import AppendOnlyError, Event, Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state
from tests.games.tampering import raw_events

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("games.migrations.0005_event_hash_chain")
BEFORE = ("games", "0004_game_rated")
CHAIN = ("games", "0005_event_hash_chain")
KEYING = importlib.import_module("games.migrations.0016_event_chain_keys")
KEYED = ("games", "0016_event_chain_keys")
HEADS = importlib.import_module("games.migrations.0008_game_chain_head")


def started_game(make_user: Any, kind: str = "keltis") -> Game:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game


def play(game: Game, moves: int | None) -> Game:
    """``moves`` random legal actions (None: to the end) through the one submit path."""
    bot = RandomBot(7)
    for _ in range(5000):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING or (moves is not None and game.seq >= moves):
            break
        action = bot.choose(engine_state(game))
        action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return game


@pytest.fixture
def played(make_user: Any) -> Game:
    """A running game with exactly six events. A move after which the only step left is taken
    for the player (the deck as the only pile) adds two events, so a deal may overshoot six:
    then another deal."""
    for _ in range(30):
        game = play(started_game(make_user), 6)
        if game.seq == 6:
            return game
        discard(game)  # tests that count the games checked see only the one kept
    raise AssertionError("thirty deals overshot six events")


def discard(game: Game) -> None:
    """Remove a deal that overshot, events first (they are append-only and protect the game)."""
    with raw_events() as cursor:
        cursor.execute("DELETE FROM games_event WHERE game_id = %s", [game.pk])
    game.delete()


def run_verify(*args: Any) -> tuple[str, CommandError | None]:
    """The command's output, and the error it exited with (None: exit status 0)."""
    out = io.StringIO()
    try:
        call_command("verify_event_chains", *args, stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def kinds_at(problems: list[Any]) -> set[tuple[int | None, str]]:
    return {(p.seq, p.kind) for p in problems}


# -- an untouched chain -------------------------------------------------------------------------
def test_first_event_links_to_the_genesis_and_each_to_the_one_before(played: Game) -> None:
    events = list(Event.objects.filter(game=played).order_by("seq"))
    assert events[0].prev_hash == genesis_hash(played)
    for before, event in itertools.pairwise(events):
        assert event.prev_hash == before.hash
    keys = current_keys()
    for event in events:
        assert len(event.hash) == 64 and int(event.hash, 16) >= 0
        assert event.hash_key == keys.signing_id  # keyed: HMAC under the signing key
        assert event.hash == event_mac(
            key=keys.keys[0],
            game_id=played.pk, seq=event.seq, seat=event.seat, action=event.action,
            source=event.source, created_at=event.created_at, prev_hash=event.prev_hash,
        )  # fmt: skip
    assert len({e.hash for e in events}) == len(events)


def test_a_whole_played_game_verifies_clean(make_user: Any) -> None:
    game = play(started_game(make_user, kind="keltis-cards"), None)
    assert game.status == GameStatus.FINISHED and game.seq > 20
    assert verify_game_chain(game) == []
    out, error = run_verify()
    assert error is None
    assert "checked 1 game(s), 0 with a broken chain" in out


def test_a_game_without_events_verifies_clean(make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=3)
    assert verify_game_chain(game) == []


def test_the_genesis_covers_the_game_id_and_the_deal(played: Game) -> None:
    genesis = genesis_hash(played)
    other_deal = game_class(played.kind).deal(played.player_count, 12345)
    same = {"kind": played.kind, "player_count": 2, "options": played.options}
    assert genesis_hash(Game(pk=played.pk, setup=other_deal, **same)) != genesis
    assert genesis_hash(Game(pk=played.pk + 1, setup=played.setup, **same)) != genesis
    # what the database gives back hashes as what was dealt
    assert genesis_hash(Game.objects.get(pk=played.pk)) == genesis


def test_event_hash_depends_on_every_field() -> None:
    base: dict[str, Any] = dict(
        game_id=1, seq=1, seat=0, action="play r1", source="player",
        created_at=datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC), prev_hash="0" * 64,
    )  # fmt: skip
    changed = [
        {"game_id": 2}, {"seq": 2}, {"seat": 1}, {"action": "play r2"}, {"source": "bot"},
        {"created_at": base["created_at"] + timedelta(microseconds=1)}, {"prev_hash": "1" * 64},
    ]  # fmt: skip
    hashes = {event_hash(**base)} | {event_hash(**(base | change)) for change in changed}
    assert len(hashes) == 1 + len(changed)
    with pytest.raises(ValueError, match="timezone-aware"):
        event_hash(**(base | {"created_at": datetime(2025, 1, 2)}))  # noqa: DTZ001


# -- every creator links -------------------------------------------------------------------------
def test_event_needs_its_predecessor(played: Game) -> None:
    with pytest.raises(AppendOnlyError, match="no event 7"):
        Event.objects.create(game=played, seq=8, seat=0, action="x")


def test_caller_supplied_hashes_are_overwritten(played: Game) -> None:
    event = Event.objects.create(
        game=played, seq=7, seat=0, action="x", prev_hash="f" * 64, hash="f" * 64
    )
    assert event.prev_hash == Event.objects.get(game=played, seq=6).hash
    assert event.hash != "f" * 64


def test_bulk_create_links_within_the_batch_and_to_the_stored_log(played: Game) -> None:
    Event.objects.bulk_create(
        [Event(game=played, seq=seq, seat=seq % 2, action="x") for seq in (9, 7, 8)]
    )
    last = Event.objects.get(game=played, seq=9).hash
    Game.objects.filter(pk=played.pk).update(seq=9, chain_head=last)
    played.refresh_from_db()
    assert verify_game_chain(played) == []


# -- tampering is detected -------------------------------------------------------------------------
def _set(column: str, value: Any, seq: int = 3) -> Callable[[Any, Game], None]:
    def change(cursor: Any, game: Game) -> None:
        cursor.execute(
            f"UPDATE games_event SET {column} = %s WHERE game_id = %s AND seq = %s",
            [value, game.pk, seq],
        )

    return change


def _other_seat(cursor: Any, game: Game) -> None:
    seat = Event.objects.get(game=game, seq=3).seat
    _set("seat", 1 - seat)(cursor, game)


def _later(cursor: Any, game: Game) -> None:
    when = Event.objects.get(game=game, seq=3).created_at + timedelta(seconds=1)
    _set("created_at", when)(cursor, game)


def _delete(seq: int) -> Callable[[Any, Game], None]:
    def change(cursor: Any, game: Game) -> None:
        cursor.execute("DELETE FROM games_event WHERE game_id = %s AND seq = %s", [game.pk, seq])

    return change


def _swap_3_and_4(cursor: Any, game: Game) -> None:
    for old, new in ((3, 1000), (4, 3), (1000, 4)):
        cursor.execute(
            "UPDATE games_event SET seq = %s WHERE game_id = %s AND seq = %s", [new, game.pk, old]
        )


def _rehashed_action(seq: int, *, with_key: bool = False) -> Callable[[Any, Game], None]:
    """Change an action and recompute that event's own hash, as a careful forger would: without
    the server key only in the plain SHA-256 of the unkeyed chains (marked so); ``with_key``:
    one who has read the settings, which the keying cannot stop."""

    def change(cursor: Any, game: Game) -> None:
        event = Event.objects.get(game=game, seq=seq)
        fields: dict[str, Any] = dict(
            game_id=game.pk, seq=seq, seat=event.seat, action="forged", source=event.source,
            created_at=event.created_at, prev_hash=event.prev_hash,
        )  # fmt: skip
        key_id, forged = (
            current_keys().sign(**fields) if with_key else ("", event_hash(**fields))
        )
        cursor.execute(
            "UPDATE games_event SET action = %s, hash = %s, hash_key = %s "
            "WHERE game_id = %s AND seq = %s",
            ["forged", forged, key_id, game.pk, seq],
        )

    return change


TAMPERING = {
    "action": (_set("action", "forged"), {(3, HASH_MISMATCH)}),
    "seat": (_other_seat, {(3, HASH_MISMATCH)}),
    "time": (_later, {(3, HASH_MISMATCH)}),
    "source": (_set("source", "timeout"), {(3, HASH_MISMATCH)}),
    "deleted event": (_delete(3), {(3, MISSING), (4, BROKEN_LINK)}),
    "deleted last event": (_delete(6), {(6, MISSING), (None, HEAD_MISMATCH)}),
    "reordered events": (
        _swap_3_and_4,
        {
            (3, BROKEN_LINK), (3, HASH_MISMATCH), (4, BROKEN_LINK), (4, HASH_MISMATCH),
            (5, BROKEN_LINK),
        },
    ),
    # without the key, a recomputed hash is no valid one: the event itself tells
    "rehashed action": (_rehashed_action(3), {(3, HASH_MISMATCH), (4, BROKEN_LINK)}),
    "rehashed last action": (_rehashed_action(6), {(6, HASH_MISMATCH), (None, HEAD_MISMATCH)}),
    # with the key: the next link tells; nothing links to the last event: only the head
    "rehashed action, key read": (_rehashed_action(3, with_key=True), {(4, BROKEN_LINK)}),
    "rehashed last action, key read": (
        _rehashed_action(6, with_key=True), {(None, HEAD_MISMATCH)}
    ),
}


@pytest.mark.parametrize("name", list(TAMPERING))
def test_tampering_is_detected_and_the_command_fails(played: Game, name: str) -> None:
    change, expected = TAMPERING[name]
    with raw_events() as cursor:
        change(cursor, played)

    assert kinds_at(verify_game_chain(played)) == expected
    out, error = run_verify()
    assert error is not None and error.returncode == 1
    assert f"with a broken event chain: {played.pk}" in str(error)
    for seq, kind in expected:
        where = f"game {played.pk}" + (f" seq {seq}" if seq is not None else "")
        assert f"{where}: {kind}" in out
    assert "checked 1 game(s), 1 with a broken chain" in out


def test_a_changed_deal_breaks_the_first_link(played: Game) -> None:
    setup = dict(played.setup)
    setup["hands"] = [setup["hands"][1], setup["hands"][0]]
    Game.objects.filter(pk=played.pk).update(setup=setup)
    assert kinds_at(verify_game_chain(Game.objects.get(pk=played.pk))) == {(1, BROKEN_LINK)}


def test_an_event_added_behind_the_games_count_is_detected(played: Game) -> None:
    Event.objects.create(game=played, seq=7, seat=0, action="x")  # game.seq stays 6
    assert kinds_at(verify_game_chain(played)) == {(7, COUNT_MISMATCH), (None, HEAD_MISMATCH)}


def test_the_command_checks_one_game_or_all(make_user: Any, played: Game) -> None:
    intact = play(started_game(make_user), 3)
    with raw_events() as cursor:
        _set("action", "forged", seq=2)(cursor, played)

    out, error = run_verify("--game", str(intact.pk))
    assert error is None and "checked 1 game(s), 0 with a broken chain" in out
    out, error = run_verify("--game", str(played.pk))
    assert error is not None and f"game {played.pk} seq 2: {HASH_MISMATCH}" in out
    out, error = run_verify()
    assert error is not None and "checked 2 game(s), 1 with a broken chain" in out
    assert f"game {intact.pk}" not in out
    _, error = run_verify("--game", str(intact.pk + played.pk + 100))
    assert error is not None and "no game with id" in str(error)


def test_verify_reports_every_broken_game(make_user: Any, played: Game) -> None:
    other = play(started_game(make_user), 2)
    with raw_events() as cursor:
        _delete(1)(cursor, other)
    report = verify_event_chains()
    assert report.checked == 2 and set(report.broken) == {other.pk}


def test_check_chain_streams_rows_once() -> None:
    """check_chain takes any iterable, so the command never needs a game's whole log at once."""
    when = datetime(2025, 1, 1, tzinfo=UTC)
    keys = ChainKeys([b"k" * 32])
    prev, rows = "g" * 64, []
    for seq in (1, 2, 3):
        key_id, digest = keys.sign(game_id=5, seq=seq, seat=0, action="a", source="player",
                                   created_at=when, prev_hash=prev)  # fmt: skip
        rows.append(ChainRow(seq, 0, "a", "player", when, prev, digest, key_id))
        prev = digest
    assert check_chain(5, "g" * 64, iter(rows), expected_count=3, keys=keys) == []
    assert kinds_at(check_chain(5, "h" * 64, iter(rows), expected_count=3, keys=keys)) == {
        (1, BROKEN_LINK)
    }


# -- the migration's backfill ----------------------------------------------------------------------
def historical(target: tuple[str, str]) -> Any:
    """The app registry as the migrations leave it at ``target``: plain managers that update."""
    return MigrationExecutor(connection).loader.project_state(target).apps


class _Editor:
    """What ``backfill`` uses of a schema editor: Django's own cannot be opened inside the
    test's transaction on SQLite."""

    connection = connection

    def execute(self, sql: str, params: Any = None) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def test_backfill_links_existing_events_as_new_ones_are_linked(
    make_user: Any, played: Game
) -> None:
    other = play(started_game(make_user, kind="keltis-cards"), 4)
    stored = dict(Event.objects.values_list("pk", "hash"))
    # right after inserts in the same transaction (pending deferred FK checks on PostgreSQL,
    # where ALTER TABLE needs none): 0005's backfill links with plain SHA-256 hashes, and
    # 0016's keying (which adds hash_key as "") re-signs them into what save() stored
    MIGRATION.backfill(historical(CHAIN), _Editor())
    with raw_events() as cursor:
        cursor.execute("UPDATE games_event SET hash_key = ''")
    assert dict(Event.objects.values_list("pk", "hash")) != stored
    HEADS.set_heads(historical(KEYED), _Editor())  # as 0008 set the heads after 0005
    KEYING.keyed(historical(KEYED), _Editor())
    assert dict(Event.objects.values_list("pk", "hash")) == stored

    with raw_events() as cursor:
        cursor.execute("UPDATE games_event SET prev_hash = '', hash = '', hash_key = ''")
    assert verify_game_chain(played) and verify_game_chain(other)

    MIGRATION.backfill(historical(CHAIN), _Editor())  # on PostgreSQL: past the trigger
    HEADS.set_heads(historical(KEYED), _Editor())  # as 0008 set the heads after 0005
    # plain SHA-256 hashes are no longer accepted: every event is "not keyed"
    problems = verify_game_chain(Game.objects.get(pk=played.pk))
    assert {p.kind for p in problems} == {HASH_MISMATCH}
    assert all("not keyed" in p.detail for p in problems)
    KEYING.keyed(historical(KEYED), _Editor())

    assert verify_game_chain(played) == [] and verify_game_chain(other) == []
    assert dict(Event.objects.values_list("pk", "hash")) == stored
    if connection.vendor == "postgresql":  # and the trigger guards the log again
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            _set("action", "x")(connection.cursor(), played)


def test_backfill_writes_in_batches(
    monkeypatch: pytest.MonkeyPatch, make_user: Any, played: Game
) -> None:
    other = play(started_game(make_user), 3)
    monkeypatch.setattr(MIGRATION, "BATCH", 4)  # six events: a full batch and a partial one
    apps = historical(CHAIN)
    with raw_events() as cursor:
        cursor.execute("UPDATE games_event SET prev_hash = '', hash = '', hash_key = ''")
        linked = MIGRATION.link_events(
            apps.get_model("games", "Game"), apps.get_model("games", "Event")
        )
    assert linked == 9
    HEADS.set_heads(historical(KEYED), _Editor())  # as 0008 set the heads after 0005
    KEYING.keyed(historical(KEYED), _Editor())
    assert verify_game_chain(played) == [] and verify_game_chain(other) == []


@pytest.mark.django_db(transaction=True)
def test_migration_backfills_a_database_of_the_previous_schema() -> None:
    """Migrate back to 0004, store events without hashes, migrate forward: every chain is
    intact, and on PostgreSQL the append-only trigger is enabled again."""
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate([BEFORE])
    try:
        apps = historical(BEFORE)
        old_game = apps.get_model("games", "Game")
        old_event = apps.get_model("games", "Event")
        game_ids = []
        for kind, count in (("keltis", 2), ("keltis-cards", 3)):
            setup = game_class(kind).deal(count, 7)
            game = old_game.objects.create(
                kind=kind, player_count=count, setup=setup, status="running", seq=5
            )
            start = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
            for seq in range(1, 6):
                old_event.objects.create(
                    game=game, seq=seq, seat=(seq - 1) % count, action=f"move {seq}",
                    created_at=start + timedelta(minutes=seq), source="player",
                )  # fmt: skip
            game_ids.append(game.pk)
        old_game.objects.create(kind="keltis", player_count=2, setup={}, seq=0)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaves)

    for game in Game.objects.filter(pk__in=game_ids):
        assert verify_game_chain(game) == []
        first = Event.objects.get(game=game, seq=1)
        assert first.prev_hash == genesis_hash(game)
    assert verify_event_chains().broken == {}
    if connection.vendor == "postgresql":  # the trigger guards the log again
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute("UPDATE games_event SET action = 'x'")
