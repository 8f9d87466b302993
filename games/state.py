"""Reading the engine state of a game: from its snapshot when current, else by replaying its log.

Both sides of play use these reads: ``services`` (the writes) and ``selectors`` (the pages'
reads), and beside them maintenance, the bots and the deadline sweep. They live here, below
both, so neither imports the other for them (``selectors`` used to reach them through
``services``, which reaches everything an action makes due).
"""

from __future__ import annotations

from games.engine import Game as EngineGame
from games.engine import game_class

from .integrity import LogNotReplayable
from .models import Event, Game, Snapshot


def engine_start(game: Game) -> EngineGame:
    """The engine at the game's start, from its stored setup; ``LogNotReplayable`` (seq 0)
    when the engine refuses that setup."""
    try:
        return game_class(game.kind).new(game.player_count, game.setup, game.options)
    except Exception as exc:  # the engine is pure: whatever it raises, the stored data is bad
        raise LogNotReplayable(game.pk, 0, exc) from exc


def apply_stored(engine: EngineGame, game_id: int, seq: int, seat: int, action: str) -> None:
    """Apply one stored event in a replay; ``LogNotReplayable`` when the engine refuses it (a
    forged event, or a log that no longer fits the engine's code)."""
    try:
        engine.apply(action, player=seat)
    except Exception as exc:  # the engine is pure: whatever it raises, the stored data is bad
        raise LogNotReplayable(game_id, seq, exc) from exc


def engine_replay(game: Game, upto: int | None = None) -> EngineGame:
    """The engine state rebuilt from the event log alone (after ``upto`` events, default all);
    ``LogNotReplayable`` when the log does not replay."""
    engine = engine_start(game)
    events = Event.objects.filter(game=game).order_by("seq")
    if upto is not None:
        events = events.filter(seq__lte=upto)
    for seq, seat, action in events.values_list("seq", "seat", "action"):
        apply_stored(engine, game.pk, seq, seat, action)
    return engine


def engine_state(game: Game) -> EngineGame:
    """The engine state after all of the game's events: from the snapshot when it is current.

    A snapshot the game was read with (``select_related("snapshot")``) saves a query; one
    that is not current (the game moved on since) is read again before falling back to a
    replay of the events.
    """
    cls = game_class(game.kind)
    snap = _loaded_snapshot(game)
    if snap is None or snap.seq != game.seq:
        snap = Snapshot.objects.filter(game=game).first()
    if snap is not None and snap.seq == game.seq:
        return cls.restore(snap.data)
    return engine_replay(game)


def _loaded_snapshot(game: Game) -> Snapshot | None:
    """The snapshot already read with the game, if it was (no query)."""
    if not Game.snapshot.related.is_cached(game):
        return None
    return Game.snapshot.related.get_cached_value(game)


def snapshot_rebuild(game: Game) -> Snapshot:
    """Recompute the snapshot from the event log (after a change of engine code, or a doubt)."""
    engine = engine_replay(game)
    snap, _ = Snapshot.objects.update_or_create(
        game=game, defaults={"seq": len(engine.actions), "data": engine.snapshot()}
    )
    return snap
