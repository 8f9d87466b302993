"""Rule tests for Keltis: Das Kartenspiel: one group per rule of rules.md §2 (and records.md).

Every test starts from a small hand-written record: the cards that matter are named, the shared
``fill_setup`` deals the rest. Players who only pass their turn discard named cards of colours
nobody else uses; draws come from the named deck top, so every hand is known.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.engine.bots import RandomBot, play_out
from games.engine.cardgame import CardGame, row_score, wish_score
from games.engine.cardgame_greedy import greedy_action
from games.engine.cards import sort_cards
from games.engine.errors import IllegalAction, MalformedAction, RecordError
from games.engine.records import read_record, replay
from tests.engine.card_builders import card_game, card_record, turn

REPO_ROOT = Path(__file__).resolve().parents[2]


# -- helpers ------------------------------------------------------------------------------------
def rejects(game: CardGame, action: str, code: str, message: str | None = None) -> IllegalAction:
    """``action`` is not legal, is refused with ``code`` (and ``message``) and changes nothing."""
    before, legal, actions = game.view(), game.legal(), list(game.actions)
    assert action not in legal
    with pytest.raises(IllegalAction) as caught:
        game.apply(action)
    assert caught.value.code == code, str(caught.value)
    if message is not None:
        assert str(caught.value) == message
    assert game.view() == before
    assert game.legal() == legal
    assert game.actions == actions
    return caught.value


def do(game: CardGame, *actions: str) -> None:
    for action in actions:
        game.apply(action)


def plays(game: CardGame) -> list[str]:
    return [a for a in game.legal() if a.startswith("play ")]


def hand(game: CardGame, player: int) -> list[str]:
    return game.view()["players"][player]["hand"]


def player_view(game: CardGame, player: int) -> dict[str, Any]:
    return game.view()["players"][player]


# Player 1 in many tests: spends turns discarding yellow/pink cards nobody else needs.
PASSER = ["y1", "y2", "y3", "y4", "p1", "p2", "p3", "p4"]
#: deck cards that only the passer's idle draws or harmless hands receive
FILLER = ["y5", "y6", "y7", "y8", "y9", "y10", "p5", "p6", "p7", "p8", "p9", "p10"]


def passing(k: int) -> list[str]:
    """Player 1's k-th idle turn: discard a card of PASSER, draw from the deck."""
    return turn(f"discard {PASSER[k]}")


# -- material and setup (§2 Material, Setup) ----------------------------------------------------
def test_material_is_101_cards_and_the_wishing_stones_are_not_dealt() -> None:
    # §2 Material: 80 number cards (0,1,2,8,9,10 once, 3..7 twice), 2 closing cards per colour,
    # point cards 0..10; the 9 wishing-stone cards lie beside the deck
    cards = Counter(CardGame.ALL_CARDS)
    assert sum(cards.values()) == 101
    for colour in "gyrpb":
        for value in range(11):
            assert cards[f"{colour}{value}"] == (2 if 3 <= value <= 7 else 1)
        assert cards[f"{colour}x"] == 2
    assert all(cards[f"P{v}"] == 1 for v in range(11))
    assert not any(card.startswith("W") for card in cards)
    assert sum(n for card, n in cards.items() if card[1:].isdigit() and card[0] != "P") == 80


@pytest.mark.parametrize(("n", "deck", "removed"), [(2, 55, 30), (3, 77, 0), (4, 69, 0)])
def test_deal_gives_eight_cards_and_removes_thirty_with_two(
    n: int, deck: int, removed: int
) -> None:
    # §2 Setup: 8 cards each, the rest is the deck; with 2 players 30 cards are removed unseen
    game = CardGame.new(n, {"seed": 3})
    view = game.view()
    assert [p["hand_count"] for p in view["players"]] == [8] * n
    assert view["deck_count"] == deck
    assert view["removed_count"] == removed
    assert view["wishing_stones"] == [f"W{v}" for v in range(1, 10)]
    assert view["phase"] == "play" and game.to_move == 0 and not game.finished
    assert Counter(game.cards_everywhere()) == Counter(CardGame.ALL_CARDS)


def _bad(record: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as caught:
        replay(read_record(record))
    return str(caught.value)


def test_bad_records_are_refused() -> None:
    # records.md: every card exactly once in hands + deck + removed; no wishing stones dealt;
    # 30 removed with two players; unknown options make a record malformed
    hands = [[f"g{v}" for v in range(8)], [f"b{v}" for v in range(8)]]
    assert replay(read_record(card_record(hands=hands))).to_move == 0

    twice = card_record(hands=hands)
    twice["setup"]["hands"][1][0] = "g0"  # g0 twice, b0 nowhere
    assert "b0 appears 0 times" in _bad(twice)

    wish = card_record(hands=hands)
    wish["setup"]["hands"][0][0] = "W5"
    assert "'W5' is not a card of keltis-cards" in _bad(wish)

    short = card_record(hands=hands)
    short["setup"]["deck"].append(short["setup"]["removed"].pop())
    assert "a 2-player game has 30 removed cards, not 29" in _bad(short)

    three = card_record(hands=[*hands, [f"r{v}" for v in range(8)]])
    three["setup"]["removed"] = three["setup"]["deck"][-30:]
    del three["setup"]["deck"][-30:]
    assert "a 3-player game has 0 removed cards, not 30" in _bad(three)

    option = card_record(hands=hands)
    option["options"] = {"no_redraw_own_discard": True}
    assert "unknown option no_redraw_own_discard" in _bad(option)

    tiles = card_record(hands=hands)
    tiles["setup"]["tiles"] = {}
    assert "unknown setup key tiles" in _bad(tiles)

    with pytest.raises(RecordError):
        CardGame.new(2, {"seed": 1}, {"closing_may_open_row": "yes"})


# -- discarding and drawing (§2 A turn 1, Draw) ------------------------------------------------
DISCARDER = ["r7", "g1", "g2", "g3", "g4", "y2", "y3", "P7"]
TAKER = ["y10", "b2", "b3", "b4", "b5", "p2", "p3", "P8"]


def test_discard_onto_the_colour_pile_then_draw_but_not_the_card_just_discarded() -> None:
    # §2 A turn 1 + Draw: a discard goes onto its colour pile; draw from the deck or any pile,
    # never the card you discarded this turn
    game = card_game(hands=[DISCARDER, TAKER], deck=["b6", "b7"], actions=["discard r7"])
    assert game.view()["piles"]["r"] == ["r7"]
    assert game.view()["discarded_this_turn"] == ["r"]
    assert game.phase_name == "draw" and game.to_move == 0
    assert game.legal() == ["draw deck"]
    rejects(
        game,
        "draw r",
        "pile_own_discard",
        "You cannot take back r7, which you discarded this turn.",
    )
    rejects(game, "draw g", "pile_empty", "The green discard pile is empty.")
    rejects(game, "draw P", "pile_empty", "The point discard pile is empty.")
    rejects(game, "play g1", "must_draw", "You have played your card: now draw one.")
    rejects(game, "discard g1", "must_draw")
    game.apply("draw deck")
    assert "b6" in hand(game, 0) and game.to_move == 1 and game.phase_name == "play"
    # the next player may take the discarded card
    rejects(game, "draw r", "must_play", "You must first play a card (lay it or discard it).")
    rejects(game, "done", "no_end_phase")
    game.apply("discard P8")
    assert game.legal() == ["draw deck", "draw r"]
    game.apply("draw r")
    assert "r7" in hand(game, 1) and game.view()["piles"]["r"] == []


def test_point_cards_have_their_own_pile() -> None:
    # §2 A turn 1: five colour piles and one pile for point cards (written P)
    game = card_game(
        hands=[DISCARDER, TAKER], deck=["b6", "b7", "b8"],
        actions=[*turn("discard P7"), *turn("discard y10")],
    )  # fmt: skip
    assert game.view()["piles"]["P"] == ["P7"]
    game.apply("discard g1")
    assert game.legal() == ["draw P", "draw deck", "draw y"]
    game.apply("draw P")
    assert "P7" in hand(game, 0) and game.view()["piles"]["P"] == []


def test_discarding_a_closing_card_uses_its_colour_pile() -> None:
    # §2 A turn 1: the colour piles take number and closing cards of that colour
    game = card_game(hands=[["gx", *DISCARDER[1:]], TAKER], actions=["discard gx"])
    assert game.view()["piles"]["g"] == ["gx"]
    rejects(game, "discard gx", "must_draw")
    rejects(game, "discard W5", "unknown_card", "'W5' is not a card of this game.")


# -- claiming a wishing stone (§2 A turn 2) -----------------------------------------------------
WISHER = ["r5", "P5", "g5", "r3", "r3", "b9", "gx", "r4"]
OTHER = ["y1", "y5", "b5", "P9", "y7", "y8", "p8", "p9"]


def test_wish_lists_each_pair_of_equal_values_once_in_canonical_order() -> None:
    # §2 A turn 2 + records.md canonical spelling: each unordered pair once, A before B in
    # g, y, r, p, b, P order; two copies of one card: 'wish r3 r3'; closing cards have no value
    game = card_game(hands=[WISHER, OTHER])
    wishes = [a for a in game.legal() if a.startswith("wish")]
    assert wishes == ["wish g5 P5", "wish g5 r5", "wish r3 r3", "wish r5 P5"]
    assert game.legal() == sorted(game.legal())


def test_wish_claims_the_stone_discards_both_and_draws_two() -> None:
    # §2 A turn 2 + Draw: discard two cards of one value, take that stone, then draw two, never
    # one of the two discarded cards; the engine accepts the two cards in either order
    game = card_game(
        hands=[WISHER, OTHER], deck=["g9", "g10", "p10", "b10"],
        actions=[*turn("discard b9"), *turn("discard y1")],
    )  # fmt: skip
    game.apply("wish P5 r5")
    assert game.actions[-1] == "wish r5 P5"
    me = player_view(game, 0)
    assert me["wishing_stones"] == ["W5"]
    assert game.view()["wishing_stones"] == [f"W{v}" for v in range(1, 10) if v != 5]
    assert game.view()["piles"]["r"] == ["r5"] and game.view()["piles"]["P"] == ["P5"]
    assert game.view()["draws_left"] == 2
    assert game.legal() == ["draw b", "draw deck", "draw y"]
    rejects(
        game,
        "draw r",
        "pile_own_discard",
        "You cannot take back r5, which you discarded this turn.",
    )
    rejects(game, "draw P", "pile_own_discard")
    rejects(game, "discard g5", "must_draw_n", "Now draw a card (2 still to draw).")
    game.apply("draw deck")
    assert game.to_move == 0 and game.phase_name == "draw"
    assert game.legal() == ["draw b", "draw deck", "draw y"]
    rejects(game, "draw r", "pile_own_discard")
    game.apply("draw y")
    assert game.to_move == 1 and player_view(game, 0)["hand_count"] == 8
    assert sorted(hand(game, 0)) == sorted(["g5", "r3", "r3", "gx", "r4", "p10", "y1", "g9"])
    # one stone held scores -1 instead of -4
    assert game.scores() == [-1, -4]


def test_a_taken_wishing_stone_cannot_be_claimed_again() -> None:
    # §2 A turn 2: the stone must still be in the row
    game = card_game(
        hands=[WISHER, OTHER], deck=["g9", "g10", "p10", "b10"],
        actions=["wish r5 P5", "draw deck", "draw deck"],
    )  # fmt: skip
    assert game.to_move == 1
    assert [a for a in game.legal() if a.startswith("wish")] == ["wish p9 P9", "wish y8 p8"]
    rejects(game, "wish y5 b5", "wish_taken", "The wishing stone 5 has already been taken.")


def test_wrong_wishes_are_refused_with_the_reason() -> None:
    # §2 A turn 2: same value, number or point cards only, values 1..9, both cards in hand
    game = card_game(hands=[WISHER, OTHER])
    rejects(
        game, "wish gx g5", "wish_no_value", "gx has no value and cannot claim a wishing stone."
    )
    rejects(
        game,
        "wish r3 b9",
        "wish_values_differ",
        "A wishing stone needs two cards of the same value.",
    )
    rejects(
        game,
        "wish P0 r0",
        "wish_no_stone",
        "There is no wishing stone 0: the stones are numbered 1 to 9.",
    )
    rejects(game, "wish y10 P10", "wish_no_stone")
    rejects(game, "wish r4 r4", "wish_same_card", "You hold only one r4.")
    rejects(game, "wish y7 P7", "cards_not_in_hand", "You do not hold both y7 and P7.")
    rejects(game, "wish b9 P9", "card_not_in_hand", "You do not hold P9.")
    rejects(game, "wish W5 W5", "unknown_card")
    rejects(game, "wish r5", "unknown_action")


# -- laying number cards (§2 A turn 3) ----------------------------------------------------------
LAYER = ["r5", "r5", "r7", "r3", "b9", "b4", "b6", "g0"]


def test_any_number_card_may_start_a_row() -> None:
    # §2 A turn 3: a row may start with any number card (one row per colour)
    game = card_game(hands=[LAYER, PASSER])
    assert plays(game) == sorted(f"play {c}" for c in set(LAYER))
    game.apply("play g0")
    assert player_view(game, 0)["rows"] == {"g": ["g0"]}
    assert player_view(game, 0)["directions"] == {"g": None}


def test_number_cards_follow_the_ascending_or_descending_order() -> None:
    # §2 A turn 3: the first different value fixes the order; equal values are always allowed
    game = card_game(
        hands=[LAYER, PASSER], deck=FILLER,
        actions=[
            *turn("play r5"), *passing(0),
            *turn("play r5"), *passing(1),  # equal value: still undecided
        ],
    )  # fmt: skip
    assert player_view(game, 0)["directions"] == {"r": None}
    assert "play r3" in plays(game) and "play r7" in plays(game)
    do(game, *turn("play r7"), *passing(2))
    assert player_view(game, 0)["directions"] == {"r": "ascending"}
    rejects(
        game,
        "play r3",
        "row_ascending",
        "Your red row is ascending: 3 is lower than its last card 7.",
    )
    do(game, *turn("play b9"), *passing(3), *turn("play b4"), *passing(4))
    assert player_view(game, 0)["directions"] == {"r": "ascending", "b": "descending"}
    rejects(
        game,
        "play b6",
        "row_descending",
        "Your blue row is descending: 6 is higher than its last card 4.",
    )
    assert player_view(game, 0)["rows"] == {"r": ["r5", "r5", "r7"], "b": ["b9", "b4"]}
    # scores as if the game ended now: 3 cards -2, 2 cards -3, no stone -4
    assert game.scores()[0] == -9
    rejects(game, "play r9", "card_not_in_hand", "You do not hold r9.")


# -- closing cards (§2 A turn 4) ----------------------------------------------------------------
CLOSER = ["r5", "r7", "rx", "rx", "r8", "P7", "bx", "g2"]


def test_a_closing_card_ends_an_existing_row_and_only_the_second_may_follow() -> None:
    # §2 A turn 4: a closing card goes at the end of the row of its colour whatever its order;
    # after it only the second closing card; the second seals the row
    game = card_game(hands=[CLOSER, PASSER], deck=FILLER)
    rejects(game, "play bx", "row_not_started", "You have no blue row yet: bx cannot start one.")
    rejects(game, "play rx", "row_not_started")
    do(game, *turn("play r5"), *passing(0), *turn("play r7"), *passing(1))
    assert "play rx" in plays(game)
    do(game, *turn("play rx"), *passing(2))
    me = player_view(game, 0)
    assert me["rows"]["r"] == ["r5", "r7", "rx"]
    assert me["closed"] == {"r": True} and me["sealed"] == {"r": False}
    assert game.view()["closed_rows"] == 1
    rejects(
        game,
        "play r8",
        "row_after_closing",
        "After a closing card only the second red closing card may follow.",
    )
    assert "play rx" in plays(game)
    do(game, *turn("play rx"), *passing(3))
    me = player_view(game, 0)
    assert me["sealed"] == {"r": True}
    assert game.view()["closed_rows"] == 1  # the second closing card does not count again
    rejects(
        game, "play r8", "row_closed", "Your red row is closed: nothing more can be laid on it."
    )
    # four cards, closing cards included: 1 point
    assert game.scores()[0] == 1 - 4


def test_option_closing_may_open_row() -> None:
    # §2 A turn 4, option closing_may_open_row (default off): a closing card may start a row
    game = card_game(hands=[CLOSER, PASSER], options={"closing_may_open_row": True})
    assert "play bx" in plays(game)
    game.apply("play bx")
    assert player_view(game, 0)["rows"] == {"b": ["bx"]}
    assert game.view()["closed_rows"] == 1
    assert game.view()["options"] == {"closing_may_open_row": True}


# -- point cards (§2 A turn 5) ------------------------------------------------------------------
POINTER = ["r5", "r7", "P7", "P3", "g4", "r6", "r8", "P0"]


def test_point_cards_go_into_the_point_row_in_any_order() -> None:
    # §2 A turn 5: the own point row takes any values in any order; each card scores 1
    game = card_game(hands=[POINTER, PASSER], deck=FILLER)
    assert "play P3" in plays(game) and "play P3 r" not in plays(game)
    do(game, *turn("play P7"), *passing(0), *turn("play P0"), *passing(1), *turn("play P3"))
    assert player_view(game, 0)["point_row"] == ["P7", "P0", "P3"]
    assert game.scores()[0] == 3 - 4


def test_a_point_card_may_end_a_row_whose_last_card_has_its_value() -> None:
    # §2 A turn 5: at the end of a colour row whose last card has the same value; it then counts
    # as a row card (and the row's order goes on from that value); it cannot start a row
    game = card_game(hands=[POINTER, PASSER], deck=FILLER)
    rejects(game, "play P7 r", "row_not_started", "You have no red row yet: P7 cannot start one.")
    do(game, *turn("play r5"), *passing(0), *turn("play r7"), *passing(1))
    assert "play P7 r" in plays(game) and "play P7" in plays(game)
    do(game, *turn("play g4"), *passing(2))
    rejects(
        game,
        "play P7 g",
        "point_no_match",
        "P7 can only end your green row when its last card has the value 7.",
    )
    do(game, *turn("play P7 r"), *passing(3))
    me = player_view(game, 0)
    assert me["rows"]["r"] == ["r5", "r7", "P7"] and me["point_row"] == []
    rejects(
        game,
        "play r6",
        "row_ascending",
        "Your red row is ascending: 6 is lower than its last card 7.",
    )
    do(game, *turn("play r8"))
    # red: 4 cards (1), green: 1 card (-4), no point, no stone (-4)
    assert game.scores()[0] == 1 - 4 - 4


def test_a_point_card_cannot_follow_a_closing_card() -> None:
    # §2 A turn 4/5: after a closing card only the second closing card may follow
    game = card_game(
        hands=[["r7", "rx", "P7", "g1", "g2", "g3", "g4", "g5"], PASSER], deck=FILLER,
        actions=[*turn("play r7"), *passing(0), *turn("play rx"), *passing(1)],
    )  # fmt: skip
    rejects(game, "play P7 r", "row_after_closing")
    assert "play P7" in plays(game)


# -- end of the game (§2 End of game) -----------------------------------------------------------
CLOSING_HANDS = [
    ["g1", "y1", "r1", "gx", "gx", "yx", "rx", "P4"],
    ["p1", "b1", "px", "bx", "P2", "P3", "y9", "b9"],
]
CLOSING_DECK = ["P6", "g9", "p9", "g8", "p8", "g10", "b10", "y8", "b8", "y10", "p10", "r9"]
CLOSING_TURNS = [
    *turn("play g1"), *turn("play p1"), *turn("play y1"), *turn("play b1"),
    *turn("play r1"), *turn("play px"),  # closed rows: 1
    *turn("play gx"), *turn("play bx"),  # 3
    *turn("play gx"),  # the second green closing card: still 3
    *turn("discard y9"),
    *turn("play yx"),  # 4
    *turn("discard b9"),
]  # fmt: skip


def closing_game(
    hands: list[list[str]] = CLOSING_HANDS, deck: list[str] = CLOSING_DECK
) -> CardGame:
    """Player 0 is about to lay the fifth closing card (rx); both rows of player 1 are closed."""
    return card_game(hands=hands, deck=deck, actions=CLOSING_TURNS)


def test_the_fifth_closed_row_ends_the_game_and_the_last_lays_begin() -> None:
    # §2 End of game: a closing card at the end of the fifth row in total (all players' rows; a
    # row with two closing cards counts once); the player who ended does not draw; then each
    # player from the next one on may lay up to two cards; `finished` stays false meanwhile
    game = closing_game()
    assert game.view()["closed_rows"] == 4
    game.apply("play rx")
    view = game.view()
    assert view["closed_rows"] == 5
    assert view["phase"] == "end" and view["end_reason"] == "closing" and view["ended_by"] == 0
    assert not game.finished and game.winners() == []
    assert game.to_move == 1
    assert player_view(game, 0)["hand_count"] == 7  # no draw for the one who ended
    assert view["deck_count"] == 55 - 12
    assert game.legal() == ["done", "play P2", "play P3"]
    assert game.scores() == [-12, -10]  # as if the game ended now


def test_in_the_last_lays_no_discard_no_draw_no_wish_no_new_row() -> None:
    # §2 End of game: only lays into existing colour rows or the point row
    game = closing_game()
    game.apply("play rx")
    rejects(
        game,
        "discard P2",
        "end_phase_no_discard",
        "At the end of the game cards can only be laid, not discarded.",
    )
    rejects(
        game,
        "play g9",
        "end_phase_new_row",
        "At the end of the game cards go only onto your existing rows: you have no green row.",
    )
    rejects(game, "draw deck", "must_lay_or_done", "The game is ending: lay a card or say 'done'.")
    rejects(
        game,
        "wish g8 y8",
        "end_phase_no_wish",
        "At the end of the game no wishing stone can be claimed.",
    )
    rejects(game, "play r9", "end_phase_new_row")
    rejects(game, "play b10", "card_not_in_hand")


def test_done_stops_early_and_ties_share_the_win() -> None:
    # §2 End of game + Scoring: 'done' stops early; after the player who ended the game it is
    # finished; equal totals share the win
    game = closing_game()
    do(game, "play rx", "done")
    assert game.to_move == 0
    assert game.legal() == ["done", "play P4", "play P6"]
    game.apply("play P4")
    assert game.to_move == 0 and game.legal() == ["done", "play P6"]
    game.apply("play P6")
    assert game.finished and game.to_move is None and game.legal() == []
    assert game.view()["phase"] == "finished"
    # player 0: green 3 cards (-2), yellow and red 2 cards (-3 each), 2 points, no stone (-4)
    # player 1: pink and blue 2 cards (-3 each), no stone (-4)
    assert game.scores() == [-10, -10]
    assert game.winners() == [0, 1]
    rejects(game, "done", "game_over")


def test_after_two_cards_the_next_player_is_asked_without_an_action() -> None:
    # §2 End of game: up to two cards, one at a time; records.md: then the next player is asked
    game = closing_game()
    do(game, "play rx", "play P2")
    assert game.to_move == 1 and game.view()["end_phase_laid"] == 1
    game.apply("play P3")
    assert game.to_move == 0 and game.view()["end_phase_laid"] == 0
    game.apply("done")
    assert game.finished
    assert game.scores() == [-12, -8] and game.winners() == [1]
    assert player_view(game, 1)["point_row"] == ["P2", "P3"]


def test_a_player_with_nothing_to_lay_is_not_asked() -> None:
    # records.md: a player is asked only while they hold a card they may lay
    hands = [CLOSING_HANDS[0], ["p1", "b1", "px", "bx", "g2", "g3", "y9", "b9"]]
    game = closing_game(hands=hands)
    game.apply("play rx")
    assert game.to_move == 0 and game.legal() == ["done", "play P4", "play P6"]
    # nobody can lay at all: the game is finished at once
    hands = [["g1", "y1", "r1", "gx", "gx", "yx", "rx", "r3"], hands[1]]
    game = closing_game(hands=hands, deck=["r4", *CLOSING_DECK[1:]])
    game.apply("play rx")
    assert game.finished and game.to_move is None
    assert game.scores() == [-12, -10] and game.winners() == [1]


def drain(game: CardGame, leave: int) -> None:
    """Both players discard their newest card and draw from the deck until ``leave`` remain."""
    while game.deck_count > leave:
        do(game, f"discard {game.hands[game.current][-1]}", "draw deck")


DECK_END_HANDS = [
    ["r5", "P5", "r6", "r7", "g2", "y2", "b2", "p2"],
    ["g3", "g4", "gx", "P1", "y3", "b3", "p3", "r3"],
]


def deck_end_game() -> CardGame:
    """Player 0 to play, one card left in the deck; player 0 has a red row, player 1 green."""
    game = card_game(
        hands=DECK_END_HANDS, bottom=["y8", "y9", "y10"],
        actions=[*turn("play r6"), *turn("play g3")],
    )  # fmt: skip
    drain(game, 1)
    assert game.to_move == 0 and game.phase_name == "play"
    return game


def test_drawing_the_last_deck_card_ends_the_game_and_a_second_draw_is_skipped() -> None:
    # §2 End of game: when the last deck card is drawn (records.md: a second draw owed after a
    # wish is then skipped); that player does not draw any more
    game = deck_end_game()
    assert "wish r5 P5" in game.legal()
    do(game, "wish r5 P5", "draw deck")
    view = game.view()
    assert view["deck_count"] == 0 and view["phase"] == "end" and view["end_reason"] == "deck"
    assert player_view(game, 0)["hand_count"] == 7
    assert hand(game, 0) == ["g2", "y2", "y8", "y10", "r7", "p2", "b2"]
    assert game.to_move == 1
    assert game.legal() == ["done", "play P1", "play g4", "play gx"]


def test_the_last_deck_card_after_a_single_play() -> None:
    # §2 End of game: a plain turn that draws the last card ends the game with a full hand
    game = deck_end_game()
    do(game, "discard g2", "draw deck")
    assert game.phase_name == "end" and player_view(game, 0)["hand_count"] == 8
    assert game.to_move == 1


def test_a_closing_card_may_end_an_existing_row_in_the_last_lays() -> None:
    # §2 End of game: lays "by the normal rules" onto existing rows: a closing card included,
    # after which the row takes no number card; the point row may still be empty
    game = deck_end_game()
    do(game, "wish r5 P5", "draw deck", "play gx")
    assert game.to_move == 1 and game.legal() == ["done", "play P1"]
    rejects(game, "play g4", "row_after_closing")
    game.apply("play P1")
    assert game.to_move == 0 and game.legal() == ["done", "play r7"]
    game.apply("play r7")  # nothing more to lay: the game is finished
    assert game.finished
    # player 0: red 2 cards (-3), one stone (-1); player 1: green 2 cards (-3), 1 point, no stone
    assert game.scores() == [-4, -6] and game.winners() == [0]
    assert game.view()["closed_rows"] == 1


def test_the_last_lays_go_round_from_the_next_player_to_the_one_who_ended() -> None:
    # §2 End of game: in turn order starting with the next player (three players); a closing
    # card may not start a row in the last lays even with closing_may_open_row
    hands = [
        ["gx", "yx", "P0", "b1", "b2", "b3", "b4", "b5"],
        ["gx", "rx", "P1", "bx", "b6", "b7", "b8", "b9"],
        ["yx", "P2", "p1", "p2", "p3", "p4", "p5", "p6"],
    ]
    game = card_game(
        hands=hands, deck=["p7", "p8", "p9", "p10", "b10"], options={"closing_may_open_row": True},
        actions=[
            *turn("play gx"), *turn("play gx"), *turn("play yx"),
            *turn("play yx"), "play rx",
        ],
    )  # fmt: skip
    assert game.view()["closed_rows"] == 5 and game.view()["ended_by"] == 1
    assert game.to_move == 2 and game.legal() == ["done", "play P2"]
    game.apply("play P2")  # nothing else to lay: the next player is asked
    assert game.to_move == 0 and game.legal() == ["done", "play P0"]
    game.apply("play P0")
    assert game.to_move == 1 and game.legal() == ["done", "play P1"]
    rejects(game, "play bx", "end_phase_new_row")
    game.apply("done")
    assert game.finished
    # one-card rows -4 each (two for players 0 and 1, one for player 2), points, no stones
    assert game.scores() == [-8 + 1 - 4, -8 - 4, -4 + 1 - 4]
    assert game.winners() == [2]


# -- scoring (§2 Scoring) -----------------------------------------------------------------------
def test_scoring_tables() -> None:
    # §2 Scoring: rows by their number of cards; wishing-stone cards held
    table = {1: -4, 2: -3, 3: -2, 4: 1, 5: 2, 6: 3, 7: 6, 8: 7, 9: 10, 10: 10, 14: 10}
    assert {n: row_score(n) for n in table} == table
    assert [wish_score(k) for k in range(8)] == [-4, -1, 0, 4, 6, 10, 10, 10]


def test_a_long_row_with_point_and_closing_cards_scores_by_its_length() -> None:
    # §2 Scoring: number, point and closing cards all count; a colour without a row scores 0
    deck = [
        "r6", "y5", "r7", "y6", "r8", "y7", "g9", "y8", "g10", "y9",
        "g8", "y10", "b10", "p5", "b9", "p6", "b8", "p7",
    ]  # fmt: skip
    lays = ["r1", "r2", "r3", "r4", "r5", "P5 r", "r6", "r7", "r8", "rx"]
    passes = [*PASSER, "y5"]
    actions: list[str] = []
    for k, lay in enumerate(lays):
        actions += turn(f"play {lay}")
        if k < len(passes):
            actions += turn(f"discard {passes[k]}")
    game = card_game(
        hands=[["r1", "r2", "r3", "r4", "r5", "P5", "rx", "rx"], PASSER],
        deck=deck, actions=actions[:-1],  # the last lay without its draw
    )  # fmt: skip
    row = player_view(game, 0)["rows"]["r"]
    assert row == ["r1", "r2", "r3", "r4", "r5", "P5", "r6", "r7", "r8", "rx"]
    assert game.view()["closed_rows"] == 1 and game.phase_name == "draw"
    assert game.scores() == [10 - 4, -4]  # 9 or more cards: 10


# -- views (records.md) -------------------------------------------------------------------------
def test_a_player_view_hides_other_hands_the_deck_and_the_removed_cards() -> None:
    # records.md: no other hand, no deck order, no removed cards (counts only); piles are public
    game = card_game(hands=[WISHER, OTHER], deck=["g9"], actions=[*turn("discard b9")])
    full = game.view()
    assert len(full["deck"]) == full["deck_count"] == 54 and len(full["removed"]) == 30
    assert "g9" in full["players"][0]["hand"]
    seen = game.view(1)
    assert seen["players"][0]["hand"] is None and seen["players"][0]["hand_count"] == 8
    assert seen["players"][1]["hand"] == sort_cards(OTHER)
    assert "deck" not in seen and "removed" not in seen
    assert seen["deck_count"] == full["deck_count"] and seen["removed_count"] == 30
    assert seen["piles"]["b"] == ["b9"]
    assert seen["wishing_stones"] == full["wishing_stones"]
    with pytest.raises(IllegalAction):
        game.view(2)
    json.dumps(full)


def test_cards_everywhere_and_copy() -> None:
    # records.md: every card of the game lies somewhere; a copy is independent
    game = closing_game()
    assert Counter(game.cards_everywhere()) == Counter(CardGame.ALL_CARDS)
    other = game.copy()
    other.apply("play rx")
    assert game.phase_name == "play" and other.phase_name == "end"
    assert Counter(other.cards_everywhere()) == Counter(CardGame.ALL_CARDS)


def test_malformed_actions() -> None:
    # records.md notation: anything else is refused as malformed
    game = card_game(hands=[WISHER, OTHER])
    for action in ("", "play", "play r11", "play P7 x", "draw W", "Play r5", "play r5 "):
        before = game.view()
        with pytest.raises(MalformedAction):
            game.apply(action)
        assert game.view() == before
    rejects(game, "play r11", "unknown_card", "'r11' is not a card of this game.")
    rejects(game, "play W5", "unknown_card")


# -- bots ----------------------------------------------------------------------------------------
def test_random_games_end_and_keep_every_card() -> None:
    # the engine under random legal play: it always ends, no card is lost or made
    for seed in range(6):
        n = 2 + seed % 3
        game = play_out(CardGame.new(n, {"seed": seed}), [RandomBot(seed + i) for i in range(n)])
        assert game.finished and game.winners()
        assert Counter(game.cards_everywhere()) == Counter(CardGame.ALL_CARDS)


def test_greedy_chooses_legal_actions_and_lays_well_in_the_end_phase() -> None:
    import random

    game = closing_game()
    assert greedy_action(game, random.Random(1)) in game.legal()
    game.apply("play rx")
    assert greedy_action(game, random.Random(1)) in ("play P2", "play P3")
    game = CardGame.new(3, {"seed": 4})
    rng = random.Random(4)
    while not game.finished:
        action = greedy_action(game, rng)
        assert action in game.legal()
        game.apply(action)


# -- the command line (records.md) ---------------------------------------------------------------
def run_cli(tmp_path: Path, record: dict[str, Any], *args: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay", str(path), *args],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return proc.returncode, json.loads(proc.stdout)


def test_cli_replays_a_card_game_record(tmp_path: Path) -> None:
    record = card_record(
        hands=CLOSING_HANDS, deck=CLOSING_DECK, actions=[*CLOSING_TURNS, "play rx", "done"]
    )
    code, out = run_cli(tmp_path, record)
    assert code == 0
    assert out["game"] == "keltis-cards" and out["finished"] is False and out["to_move"] == 0
    assert out["legal"] == ["done", "play P4", "play P6"]
    assert out["scores"] == [-12, -10] and out["winners"] == []
    assert out["state"]["phase"] == "end" and len(out["state"]["removed"]) == 30
    code, seen = run_cli(tmp_path, record, "--as", "1")
    assert code == 0 and seen["legal"] == []
    assert seen["state"]["players"][0]["hand"] is None
    assert Counter(seen["state"]["players"][1]["hand"]) == Counter(
        ["g9", "g8", "g10", "y8", "y10", "r9", "P2", "P3"]
    )
    assert "deck" not in seen["state"] and "removed" not in seen["state"]
    code, mine = run_cli(tmp_path, record, "--as", "0")
    assert code == 0 and mine["legal"] == ["done", "play P4", "play P6"]


def test_cli_reports_an_illegal_card_game_action(tmp_path: Path) -> None:
    record = card_record(
        hands=[LAYER, PASSER], deck=FILLER,
        actions=[*turn("play r5"), *passing(0), *turn("play r7"), *passing(1), "play r5"],
    )  # fmt: skip
    code, out = run_cli(tmp_path, record)
    assert code == 2
    assert out["action_index"] == 8 and out["action"] == "play r5"
    assert out["error"] == "Your red row is ascending: 5 is lower than its last card 7."
    bad = dict(record, options={"unknown": True})
    code, out = run_cli(tmp_path, bad)
    assert code == 2 and out["action_index"] is None and "unknown option" in out["error"]
