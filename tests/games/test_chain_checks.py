"""Issue 33, integrity: the chain is checked where it matters (an action checks the link it
extends, a periodic task every running game's whole chain, shown in the admin) and keyed with
a server secret (HMAC-SHA256, keys rotatable and re-signed by ``resign_event_chains``)."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

from games import tasks
from games.engine.bots import RandomBot
from games.event_chain import HASH_MISMATCH, HEAD_MISMATCH, current_keys, event_hash, event_mac
from games.integrity import check_running_chains
from games.models import Event, Game
from games.services import GameFrozen, action_submit
from games.state import engine_state
from tests.games.tampering import raw_events, set_action
from tests.games.test_event_chain import kinds_at, play, started_game

pytestmark = pytest.mark.django_db

OLD_KEY = "o" * 40
NEW_KEY = "n" * 40


def running(make_user: Any, moves: int = 4) -> Game:
    game = play(started_game(make_user), moves)
    assert game.seq >= moves and game.status == "running"
    return game


def frozen(game: Game) -> bool:
    game.refresh_from_db()
    return game.frozen_at is not None


def next_move(game: Game) -> dict[str, Any]:
    game.refresh_from_db()
    action = RandomBot(3).choose(engine_state(game))
    return {"game_id": game.pk, "seat": game.to_move, "action": action, "expected_seq": game.seq}


def events(game: Game) -> int:
    return Event.objects.filter(game=game).count()


# -- (a) an action checks the link it extends ----------------------------------------------------
def test_an_action_on_a_changed_last_event_freezes_the_game_and_adds_nothing(
    make_user: Any, caplog: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = running(make_user)
    set_action(game, game.seq, "forged")  # the snapshot is current: no replay would tell
    count = events(game)

    with (
        caplog.at_level(logging.ERROR),
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(GameFrozen),
    ):
        action_submit(**next_move(game))
    assert frozen(game) and f"game {game.pk} seq {game.seq}: {HASH_MISMATCH}" in game.frozen_reason
    assert events(game) == count  # refused: nothing built on the changed log
    assert any(r.name == "games.integrity" and r.game_id == game.pk for r in caplog.records)


@pytest.mark.parametrize("how", ["deleted", "head moved"])
def test_an_action_whose_head_is_not_the_last_event_freezes_the_game(
    make_user: Any, how: str
) -> None:
    game = running(make_user)
    if how == "deleted":
        with raw_events() as cursor:
            cursor.execute(
                "DELETE FROM games_event WHERE game_id = %s AND seq = %s", [game.pk, game.seq]
            )
    else:
        Game.objects.filter(pk=game.pk).update(chain_head="f" * 64)
    count = events(game)

    with pytest.raises(GameFrozen):
        action_submit(**next_move(game))
    assert frozen(game) and HEAD_MISMATCH in game.frozen_reason
    assert events(game) == count


def test_an_action_on_an_intact_chain_reads_one_more_row(make_user: Any) -> None:
    """The link check is one indexed read of the last event (the action's other queries are
    unchanged): this pins the action's count, so a second read would show. It names the event
    by its game and number, the unique index's columns: a join on the game's count let
    PostgreSQL without statistics walk every event of the game on every action."""
    game = running(make_user)
    move = next_move(game)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        action_submit(**move)
    reads = [q["sql"] for q in queries if 'FROM "games_event"' in q["sql"]]
    assert len(reads) == 1 and "JOIN" not in reads[0].upper()
    assert f'"games_event"."seq" = {move["expected_seq"]}' in reads[0]
    assert not frozen(game)


# -- (b) the periodic check of every running game ------------------------------------------------
def test_beat_runs_the_chain_check() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["verify-event-chains"]
    assert entry["task"] == "games.tasks.verify_running_chains"


def test_the_periodic_check_freezes_a_broken_game_once_and_records_every_result(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    intact, broken = running(make_user), running(make_user)
    set_action(broken, 2, "forged")  # not the last event: no action's link check sees it

    with override_settings(ADMINS=[("Staff", "staff@example.org")]):
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.verify_running_chains() == {"checked": 2, "broken": 1, "frozen": 1}
        assert len(mail.outbox) == 1 and str(broken.pk) in mail.outbox[0].subject
        # idempotent: found again, frozen already, nobody told twice
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.verify_running_chains() == {"checked": 2, "broken": 1, "frozen": 0}
        assert len(mail.outbox) == 1
    assert frozen(broken) and not frozen(intact)
    intact.refresh_from_db()
    assert broken.chain_intact is False and intact.chain_intact is True
    assert broken.chain_checked_at is not None and intact.chain_checked_at is not None


def test_the_periodic_check_passes_finished_and_open_games_by(make_user: Any) -> None:
    game = play(started_game(make_user, kind="keltis-cards"), None)
    assert game.status == "finished"
    assert check_running_chains()["checked"] == 0


def test_the_admin_shows_the_last_check(client: Client, make_user: Any) -> None:
    _, broken = running(make_user), running(make_user)
    set_action(broken, 2, "forged")
    check_running_chains()
    client.force_login(make_user("root", is_staff=True, is_superuser=True))

    listing = client.get(reverse("admin:games_game_changelist")).content.decode()
    assert "chain intact" in listing.lower() and "chain checked at" in listing.lower()
    assert 'alt="True"' in listing and 'alt="False"' in listing
    broken_only = client.get(reverse("admin:games_game_changelist"), {"chain_intact__exact": "0"})
    assert list(broken_only.context["cl"].result_list) == [Game.objects.get(pk=broken.pk)]


# -- (c) the keyed chain -------------------------------------------------------------------------
def _rewrite_unkeyed(game: Game) -> None:
    """A forger who writes the database but cannot read the key: a changed action and every
    hash after it recomputed in the (public) plain SHA-256 scheme, the head too."""
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    prev = rows[0].prev_hash
    with raw_events() as cursor:
        for row in rows:
            action = "forged" if row.seq == 2 else row.action
            digest = event_hash(
                game_id=game.pk, seq=row.seq, seat=row.seat, action=action, source=row.source,
                created_at=row.created_at, prev_hash=prev,
            )  # fmt: skip
            cursor.execute(
                "UPDATE games_event SET action = %s, prev_hash = %s, hash = %s, hash_key = '' "
                "WHERE id = %s",
                [action, prev, digest, row.pk],
            )
            prev = digest
    Game.objects.filter(pk=game.pk).update(chain_head=prev)


def test_a_chain_rewritten_without_the_key_does_not_verify(make_user: Any) -> None:
    game = running(make_user)
    _rewrite_unkeyed(game)
    game.refresh_from_db()
    problems = check_running_chains()
    assert problems["broken"] == 1 and frozen(game)
    assert "not keyed" in game.frozen_reason
    # and an action on it is refused at once (its link is not keyed either)
    Game.objects.filter(pk=game.pk).update(frozen_at=None)
    with pytest.raises(GameFrozen):
        action_submit(**next_move(game))


def test_a_chain_signed_with_another_key_does_not_verify(make_user: Any) -> None:
    game = running(make_user)
    last = Event.objects.get(game=game, seq=game.seq)
    forged = event_mac(
        key=b"a key the forger made up, long enough", game_id=game.pk, seq=last.seq,
        seat=last.seat, action=last.action, source=last.source, created_at=last.created_at,
        prev_hash=last.prev_hash,
    )  # fmt: skip
    with raw_events() as cursor:
        cursor.execute("UPDATE games_event SET hash = %s WHERE id = %s", [forged, last.pk])
    Game.objects.filter(pk=game.pk).update(chain_head=forged)
    with pytest.raises(GameFrozen):
        action_submit(**next_move(game))
    assert frozen(game)


def test_the_default_key_is_derived_from_secret_key_and_follows_its_fallbacks(
    make_user: Any,
) -> None:
    assert settings.EVENT_CHAIN_KEYS == []
    game = running(make_user)
    first = Event.objects.get(game=game, seq=1)
    assert first.hash_key == current_keys().signing_id
    assert SECRET_KEY_CHANGED_BREAKS(game)
    with override_settings(SECRET_KEY="y" * 50, SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]):
        assert kinds_at(_verify(game)) == set()


def SECRET_KEY_CHANGED_BREAKS(game: Game) -> bool:
    with override_settings(SECRET_KEY="y" * 50):
        return bool(_verify(game))


def _verify(game: Game) -> list[Any]:
    from games.event_chain import verify_game_chain

    return verify_game_chain(Game.objects.get(pk=game.pk))


def run_resign(*args: str) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command("resign_event_chains", *args, stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def test_a_key_is_rotated_by_listing_it_first_and_re_signing(make_user: Any) -> None:
    with override_settings(EVENT_CHAIN_KEYS=[OLD_KEY]):
        game = running(make_user)
        old_id = current_keys().signing_id
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY]):
        assert _verify(game)  # the old key dropped too early: broken
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY, OLD_KEY]):
        assert _verify(game) == []  # every listed key verifies
        action_submit(**next_move(game))  # and an action extends an old-key link
        new_id = current_keys().signing_id
        assert Event.objects.get(game=game, seq=game.seq + 1).hash_key == new_id

        out, error = run_resign()
        assert error is None and f"game {game.pk}: " in out
        assert set(Event.objects.filter(game=game).values_list("hash_key", flat=True)) == {
            new_id
        }
        out, error = run_resign()  # repeatable: nothing left to do
        assert error is None and "re-signed 0 game(s), 1 signed with the first key" in out
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY]):
        assert _verify(game) == []  # the old key can go
        action_submit(**next_move(game))
    assert old_id != new_id


def test_re_signing_refuses_a_broken_chain(make_user: Any) -> None:
    with override_settings(EVENT_CHAIN_KEYS=[OLD_KEY]):
        game = running(make_user)
    set_action(game, 2, "forged")
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY, OLD_KEY]):
        out, error = run_resign()
        assert error is not None and f"broken event chain: {game.pk}" in str(error)
        assert f"game {game.pk} seq 2: {HASH_MISMATCH}" in out
        assert frozen(game)
        assert _verify(game)  # not laundered
        old_id = current_keys().by_id and list(current_keys().by_id)[1]
        assert set(Event.objects.filter(game=game).values_list("hash_key", flat=True)) == {
            old_id
        }


def test_a_restored_unkeyed_log_is_re_signed_only_when_asked_for(make_user: Any) -> None:
    game = running(make_user)
    stored = dict(Event.objects.filter(game=game).values_list("pk", "hash"))
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    prev = rows[0].prev_hash
    with raw_events() as cursor:  # as restored from a backup made before the keying
        for row in rows:
            digest = event_hash(
                game_id=game.pk, seq=row.seq, seat=row.seat, action=row.action,
                source=row.source, created_at=row.created_at, prev_hash=prev,
            )  # fmt: skip
            cursor.execute(
                "UPDATE games_event SET prev_hash = %s, hash = %s, hash_key = '' WHERE id = %s",
                [prev, digest, row.pk],
            )
            prev = digest
    Game.objects.filter(pk=game.pk).update(chain_head=prev)
    assert _verify(game)

    _, error = run_resign("--unkeyed")
    assert error is not None and "--unkeyed needs --game" in str(error)
    _, error = run_resign("--game", str(game.pk), "--unkeyed")
    assert error is None and _verify(game) == []
    assert dict(Event.objects.filter(game=game).values_list("pk", "hash")) == stored


def test_moving_off_the_default_key_needs_only_the_new_one(make_user: Any) -> None:
    game = running(make_user)  # signed with the key derived from SECRET_KEY
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY]):
        assert _verify(game) == []  # the derived key still verifies
        _, error = run_resign()
        assert error is None
        new_id = current_keys().signing_id
        assert set(Event.objects.filter(game=game).values_list("hash_key", flat=True)) == {
            new_id
        }
    with override_settings(EVENT_CHAIN_KEYS=[NEW_KEY], SECRET_KEY="z" * 50):
        assert _verify(game) == []  # SECRET_KEY rotated away: nothing depends on it now
