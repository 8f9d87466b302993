"""Properties every game of the engine keeps, whatever is played (records.md, rules.md).

Every test runs for every game in ``GAMES``, with the seed, the number of players and the
options drawn by hypothesis, and random legal play from ``RandomBot``. The scores are recomputed
here from the final view, independently of the engine's scoring code.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import GAMES, IllegalAction, Record, base, read_record, replay
from games.engine.base import Game
from games.engine.bots import RandomBot, play_out
from games.engine.errors import MESSAGES

COLOURS = "gyrpb"
#: ``view(SPECTATOR)``: what anyone may see (no hand at all)
SPECTATOR: int | None = getattr(base, "SPECTATOR", None)
#: No game may take longer than this many actions under random legal play. A board game has
#: at most 86 deck cards and random play ends in under 1,000 actions; a game that goes on far
#: beyond that is stuck.
MAX_ACTIONS = 10_000

players = st.integers(min_value=2, max_value=4)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
#: Points of a game to look at, in thousandths of its length.
points = st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=3)


def options_for(cls: type[Game]) -> st.SearchStrategy[dict[str, bool]]:
    return st.fixed_dictionaries({key: st.booleans() for key in sorted(cls.OPTIONS)})


# -- helpers ------------------------------------------------------------------------------------
def view_json(game: Game, player: int | None = None) -> str:
    """The view as canonical JSON: a value that cannot change behind our back."""
    return json.dumps(game.view(player), sort_keys=True)


def played_actions(cls: type[Game], n: int, seed: int, options: dict[str, bool]) -> list[str]:
    """The actions of a whole game of random legal play (deal and bot from ``seed``)."""
    game = cls.new(n, {"seed": seed}, options)
    play_out(game, [RandomBot(seed)] * n, max_actions=MAX_ACTIONS)
    assert game.finished
    return list(game.actions)


def positions(
    cls: type[Game],
    n: int,
    seed: int,
    options: dict[str, bool],
    permille: list[int],
    rng: random.Random | None = None,
) -> Iterator[Game]:
    """The game after a random game's first k actions, for k at the given fractions of it.

    With ``rng``, also one position (chosen by ``rng``) of every phase the game went through,
    so that rare phases (a clover, the card game's last lays) are looked at too. The finished
    game (all its actions) is always among them, last.
    """
    actions = played_actions(cls, n, seed, options)
    stops = {p * len(actions) // 1000 for p in permille} | {len(actions)}
    if rng is not None:
        by_phase: dict[Any, list[int]] = {}
        game = cls.new(n, {"seed": seed}, options)
        for k, action in enumerate(actions):
            phase = getattr(game, "phase_name", None) or game.view().get("phase")
            by_phase.setdefault(phase, []).append(k)
            game.apply(action)
        stops |= {rng.choice(ks) for _, ks in sorted(by_phase.items(), key=str)}
    game = cls.new(n, {"seed": seed}, options)
    done = 0
    for stop in sorted(stops):
        for action in actions[done:stop]:
            game.apply(action)
        done = stop
        yield game


def strings_in(data: Any) -> Iterator[str]:
    """Every whitespace-separated token of every string (keys included) in JSON data."""
    if isinstance(data, str):
        yield from data.split()
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from strings_in(key)
            yield from strings_in(value)
    elif isinstance(data, list | tuple):
        for item in data:
            yield from strings_in(item)


def keys_in(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from keys_in(value)
    elif isinstance(data, list | tuple):
        for item in data:
            yield from keys_in(item)


# -- scoring, recomputed from the view (rules.md) ------------------------------------------------
STONE_VALUES = {1: -4, 2: -3, 3: -2, 4: 1, 5: 2, 6: 3, 7: 6, 8: 7, 9: 10}
BOARD_WISH = [-4, -3, 2, 3, 6, 10]  # index: wishing stones held, 5 or more -> 10
CARD_ROW = {1: -4, 2: -3, 3: -2, 4: 1, 5: 2, 6: 3, 7: 6, 8: 7, 9: 10}  # 9 or more -> 10
CARD_WISH = [-4, -1, 0, 4, 6, 10]


def board_scores(view: dict[str, Any]) -> list[int]:
    scores = []
    for player in view["players"]:
        total = 0
        for figure in player["figures"].values():
            stone = figure["stone"]
            if stone:
                total += STONE_VALUES[stone] * (2 if figure["big"] else 1)
        total += player["tile_points"]
        total += BOARD_WISH[min(player["wishing_stones"], 5)]
        scores.append(total)
    return scores


def _count(value: Any) -> int:
    """A count shown either as a number or as the list of the things counted."""
    return value if isinstance(value, int) else len(value)


def card_scores(view: dict[str, Any]) -> list[int]:
    # The card game's view is defined by games/engine/cardgame.py: rows per colour, the point
    # row and the wishing-stone cards of each player.
    scores = []
    for player in view["players"]:
        total = 0
        for row in player["rows"].values():
            if row:
                total += CARD_ROW[min(len(row), 9)]
        total += _count(player["point_row"])
        total += CARD_WISH[min(_count(player["wishing_stones"]), 5)]
        scores.append(total)
    return scores


RECOMPUTE: dict[str, Callable[[dict[str, Any]], list[int]]] = {
    "keltis": board_scores,
    "keltis-cards": card_scores,
}


def recompute(name: str, game: Game) -> list[int]:
    if name not in RECOMPUTE:
        pytest.fail(f"no independent score recomputation for {name!r}: add one to RECOMPUTE")
    return RECOMPUTE[name](game.view())


# -- the well-formed actions of each game (records.md notation) ---------------------------------
def _card_key(card: str) -> tuple[int, int]:
    """records.md order: g, y, r, p, b, then point cards; within one, by value."""
    return ("gyrpbP".index(card[0]), int(card[1:]))


def board_universe(cls: type[Game]) -> set[str]:
    out = {"clover pass", "draw deck"}
    out |= {f"clover {c}" for c in COLOURS} | {f"draw {c}" for c in COLOURS}
    for card in set(cls.ALL_CARDS):
        out |= {f"play {card} big", f"play {card} small", f"play {card}", f"play {card} >-"}
        out |= {f"play {card} >{c}" for c in COLOURS}
        out.add(f"discard {card}")
    return out


def card_universe(cls: type[Game]) -> set[str]:
    out = {"draw deck", "draw P", "done"} | {f"draw {c}" for c in COLOURS}
    cards = set(cls.ALL_CARDS)
    for card in cards:
        out |= {f"play {card}", f"discard {card}"}
        if card.startswith("P"):
            out |= {f"play {card} {c}" for c in COLOURS}
    valued = sorted((c for c in cards if c[1:].isdigit()), key=_card_key)
    for i, first in enumerate(valued):
        out |= {f"wish {first} {second}" for second in valued[i:]}
    return out


UNIVERSES: dict[str, Callable[[type[Game]], set[str]]] = {
    "keltis": board_universe,
    "keltis-cards": card_universe,
}


def canonical_universe(name: str) -> set[str]:
    """Every well-formed action of the game in canonical spelling, written from records.md."""
    if name not in UNIVERSES:
        pytest.fail(f"no action universe for {name!r}: add one to UNIVERSES")
    return UNIVERSES[name](GAMES[name])


def engine_table(cls: type[Game]) -> set[str]:
    """The engine module's own parse table (``ACTIONS``), when it exposes one."""
    table = getattr(sys.modules[cls.__module__], "ACTIONS", None)
    return {a for a in table if isinstance(a, str)} if isinstance(table, dict) else set()


MALFORMED = [
    "", " ", "play", "play r11", "PLAY r7", "play R7", "play  r7", " play r7", "play r7 ",
    "play r07", "play r-1", "play r7\n", "play\tr7", "r7", "draw", "draw deck deck", "draw x",
    "draw r7", "discard", "discard r7 r7", "clover", "clover r7", "clover pass pass",
    "play r7 >", "play r7 >x", "play r7 > g", "play r7 huge", "play r7 big small", "wish",
    "wish r5", "wish r5 r5 r5", "wish gx gx", "done now", "pass", "play Z7", "discard P11",
    "play W5", "discard W5", "play P7 P", "play P7 x", "draw W",
]  # fmt: skip
VOCABULARY = [
    "play", "discard", "draw", "clover", "wish", "done", "deck", "pass", "big", "small", ">-",
    ">g", ">b", "g", "r", "P", "r7", "y10", "b0", "gx", "P7", "P0", "W5", "r11", "x",
]  # fmt: skip
near_misses = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=4).map(" ".join)
junk = st.lists(st.text(max_size=12) | near_misses, max_size=12)


def accepted_alias(action: str, legal: set[str]) -> bool:
    """``wish A B`` may also be read as ``wish B A`` (records.md): not an illegal action."""
    tokens = action.split(" ")
    return len(tokens) == 3 and tokens[0] == "wish" and f"wish {tokens[2]} {tokens[1]}" in legal


# -- properties ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, data=st.data())
def test_random_play_keeps_the_invariants_at_every_step(
    name: str, n: int, seed: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    all_cards = Counter(cls.ALL_CARDS)
    universe = canonical_universe(name)
    game = cls.new(n, {"seed": seed}, options)
    bot = RandomBot(seed)
    for step in range(MAX_ACTIONS + 1):
        assert Counter(game.cards_everywhere()) == all_cards, f"cards lost or made at {step}"
        to_move = game.to_move
        assert (to_move is None) == game.finished
        legal = game.legal()
        scores = game.scores()
        assert len(scores) == n
        assert scores == recompute(name, game), f"scores at step {step}"
        if game.finished:
            assert legal == []
            assert game.winners(), "a finished game has winners"
            break
        assert to_move in range(n)
        assert legal, f"no legal action at step {step}"
        assert legal == sorted(legal)
        assert len(set(legal)) == len(legal)
        assert set(legal) <= universe, f"not canonical: {sorted(set(legal) - universe)}"
        assert game.winners() == []
        action = bot.choose(game)
        game.apply(action, player=to_move)
        assert game.actions[-1] == action
        assert len(game.actions) == step + 1
    else:
        pytest.fail(f"the game did not end within {MAX_ACTIONS} actions")


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, data=st.data())
def test_final_scores_and_winners_follow_from_the_final_position(
    name: str, n: int, seed: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    game = cls.new(n, {"seed": seed}, data.draw(options_for(cls), label="options"))
    play_out(game, [RandomBot(seed)] * n, max_actions=MAX_ACTIONS)
    assert game.finished
    scores = recompute(name, game)
    assert game.scores() == scores
    best = max(scores)
    assert game.winners() == [p for p in range(n) if scores[p] == best]


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, stop=st.integers(min_value=0, max_value=1000), data=st.data())
def test_replaying_the_record_gives_the_same_game(
    name: str, n: int, seed: int, stop: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    setup = cls.deal(n, seed)
    assert cls.deal(n, seed) == setup, "deal is a function of the seed"
    game = cls.new(n, json.loads(json.dumps(setup)), options)
    play_out(game, [RandomBot(seed)] * n, max_actions=MAX_ACTIONS)
    names = [f"player{i}" for i in range(n)]
    part = cls.new(n, setup, options)
    for action in game.actions[: stop * len(game.actions) // 1000]:
        part.apply(action)
    # the finished game, and the game stopped part-way
    for original in (game, part):
        actions = list(original.actions)
        explicit = Record(name, names, setup, dict(options), list(actions))
        from_seed = Record(name, names, {"seed": seed}, dict(options), list(actions))
        # through JSON too, as a record is stored and read back
        stored = read_record(json.loads(json.dumps(explicit.to_dict())))
        for record in (explicit, from_seed, stored):
            replayed = replay(record)
            assert view_json(replayed) == view_json(original)
            assert replayed.scores() == original.scores()
            assert replayed.winners() == original.winners()
            assert replayed.to_move == original.to_move
            assert replayed.legal() == original.legal()
            assert replayed.actions == list(actions)


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, permille=points, pick=seeds, extra=junk, data=st.data())
def test_actions_outside_legal_are_rejected_and_change_nothing(
    name: str,
    n: int,
    seed: int,
    permille: list[int],
    pick: int,
    extra: list[str],
    data: st.DataObject,
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    universe = sorted(canonical_universe(name) | engine_table(cls))
    all_cards = set(cls.ALL_CARDS)
    cards_of = {a: set(a.split()[1:]) & all_cards for a in universe}
    rng = random.Random(pick)
    for game in positions(cls, n, seed, options, permille, rng):
        legal = game.legal()
        legal_set = set(legal)
        before = view_json(game)
        state = copy.deepcopy(game.snapshot())  # every field of the state, not only the view
        cards_before = Counter(game.cards_everywhere())
        n_actions = len(game.actions)
        to_move = game.to_move
        hand = set(game.view(to_move)["players"][to_move]["hand"]) if to_move is not None else set()
        # every action that names no card; a sample of those about the cards in hand (the near
        # misses) and of all the others; the malformed ones
        cardless = [a for a in universe if not cards_of[a]]
        near = [a for a in universe if hand & cards_of[a]]
        candidates = cardless + rng.sample(near, min(len(near), 100)) + rng.sample(universe, 60)
        candidates += MALFORMED + extra
        rejected = 0
        for action in candidates:
            if action in legal_set or accepted_alias(action, legal_set):
                continue
            with pytest.raises(IllegalAction) as caught:
                game.apply(action)
            assert caught.value.code in MESSAGES
            assert str(caught.value)
            if to_move is None:
                assert caught.value.code == "game_over"
            assert game.snapshot() == state, f"{action!r} was rejected but changed the state"
            assert game.legal() == legal
            assert game.to_move == to_move
            assert len(game.actions) == n_actions
            rejected += 1
        assert rejected > 50
        assert view_json(game) == before
        assert Counter(game.cards_everywhere()) == cards_before
        if to_move is None:
            continue
        # a legal action, but by another player
        with pytest.raises(IllegalAction) as caught:
            game.apply(legal[0], player=(to_move + 1) % n)
        assert caught.value.code == "not_your_turn"
        assert view_json(game) == before
        # every legal action applies (on a copy)
        for action in legal:
            trial = game.copy()
            trial.apply(action, player=to_move)
            assert trial.actions[-1] == action
            assert Counter(trial.cards_everywhere()) == cards_before
        assert view_json(game) == before
        assert game.legal() == legal


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, permille=points, pick=seeds, data=st.data())
def test_a_view_shows_no_other_hand_nor_the_deck(
    name: str, n: int, seed: int, permille: list[int], pick: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    all_cards = set(cls.ALL_CARDS)
    for game in positions(cls, n, seed, options, permille, random.Random(pick)):
        full = game.view()
        json.dumps(full)
        hands = [full["players"][p]["hand"] for p in range(n)]
        deck, removed = full["deck"], full["removed"]
        assert Counter(card for hand in hands for card in hand) + Counter(deck) + Counter(
            removed
        ) <= Counter(game.cards_everywhere())
        for q in range(n):
            view = game.view(q)
            text = json.dumps(view)
            assert len(view["players"]) == n
            for p, player in enumerate(view["players"]):
                if p == q:
                    assert Counter(player["hand"]) == Counter(hands[q])
                else:
                    assert player.get("hand") is None, f"player {q} sees hand {p}"
                if "hand_count" in player:
                    assert player["hand_count"] == len(hands[p])
            secret_keys = {"deck", "removed", "hands"} & set(keys_in(view))
            assert not secret_keys, f"view of {q} has {secret_keys}: {text[:200]}"
            assert view["deck_count"] == len(deck)
            assert view["removed_count"] == len(removed)
            # cards q cannot know of: every copy is in another hand, the deck or removed
            hidden = Counter(deck) + Counter(removed)
            for p in range(n):
                if p != q:
                    hidden += Counter(hands[p])
            public = Counter(game.cards_everywhere()) - hidden
            unseen = {card for card in all_cards if public[card] == 0}
            leaked = unseen & set(strings_in(view))
            assert not leaked, f"player {q} sees {sorted(leaked)}, which only others hold"
        # a spectator sees no hand at all
        if SPECTATOR is not None:
            view = game.view(SPECTATOR)
            assert all(player.get("hand") is None for player in view["players"])
            assert not {"deck", "removed", "hands"} & set(keys_in(view))
            assert view["deck_count"] == len(deck)
            hidden = Counter(deck) + Counter(removed)
            for hand in hands:
                hidden += Counter(hand)
            public = Counter(game.cards_everywhere()) - hidden
            leaked = {c for c in all_cards if public[c] == 0} & set(strings_in(view))
            assert not leaked, f"a spectator sees {sorted(leaked)}"
        for bad in (-2, n, n + 1):
            with pytest.raises(IllegalAction) as caught:
                game.view(bad)
            assert caught.value.code == "bad_player"


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, permille=points, pick=seeds, data=st.data())
def test_copy_is_independent(
    name: str, n: int, seed: int, permille: list[int], pick: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    for game in positions(cls, n, seed, options, permille, random.Random(pick)):
        before, legal, actions = view_json(game), game.legal(), list(game.actions)
        state = copy.deepcopy(game.snapshot())
        to_move = game.to_move
        # the copy plays on: the original does not move
        ahead = game.copy()
        assert view_json(ahead) == before
        assert ahead.legal() == legal
        play_out(ahead, [RandomBot(seed + 1)] * n, max_actions=MAX_ACTIONS)
        assert view_json(game) == before
        assert game.snapshot() == state
        assert game.legal() == legal
        assert game.actions == actions
        assert game.to_move == to_move
        # the original plays on (here a second copy of it): an earlier copy does not move
        kept, mover = game.copy(), game.copy()
        for action in ahead.actions[len(actions) :]:
            mover.apply(action)
        assert view_json(kept) == before
        assert kept.snapshot() == state
        assert kept.legal() == legal
        # a copy is complete: the same actions lead to the same state
        assert view_json(mover) == view_json(ahead)
        assert mover.snapshot() == ahead.snapshot()
        assert mover.scores() == ahead.scores()
        assert mover.winners() == ahead.winners()


@pytest.mark.parametrize("name", sorted(GAMES))
@given(n=players, seed=seeds, permille=points, pick=seeds, data=st.data())
def test_a_snapshot_through_json_restores_an_equal_game(
    name: str, n: int, seed: int, permille: list[int], pick: int, data: st.DataObject
) -> None:
    cls = GAMES[name]
    options = data.draw(options_for(cls), label="options")
    actions = played_actions(cls, n, seed, options)
    for game in positions(cls, n, seed, options, permille, random.Random(pick)):
        stored = json.dumps(game.snapshot())
        restored = cls.restore(json.loads(stored))
        assert view_json(restored) == view_json(game)
        assert restored.legal() == game.legal()
        assert restored.to_move == game.to_move
        assert restored.scores() == game.scores()
        assert restored.actions == game.actions
        assert Counter(restored.cards_everywhere()) == Counter(cls.ALL_CARDS)
        # the restored game plays on exactly as the original
        follower, rest = game.copy(), actions[len(game.actions) :]
        for action in rest:
            restored.apply(action)
            follower.apply(action)
        assert view_json(restored) == view_json(follower)
        assert restored.winners() == follower.winners()
        assert json.dumps(game.snapshot()) == stored, "the snapshot left the game unchanged"
