"""Rule tests for Keltis, the board game: one group per rule of rules.md §1 (and records.md).

Every test starts from a small hand-written record: the cards that matter are named, the builders
fill in the rest. Players discard "spare" cards (high blue/pink cards nobody names) when their
turn does not matter to the rule under test.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine.board import BoardGame, wish_score
from games.engine.board_layouts import DEFAULT_LAYOUT, TILES, check_layout
from games.engine.errors import IllegalAction, MalformedAction, RecordError
from games.engine.records import read_record, replay, start_game
from tests.engine.builders import COLOURS, QUIET_TILES, board_record

STONE_VALUES = [-4, -3, -2, 1, 2, 3, 6, 7, 10]  # rules.md: stone k = 1..9


# -- helpers ------------------------------------------------------------------------------------
def spare_cards(named: list[str]) -> Iterator[str]:
    """Cards nobody named, from the high blue/pink end of the deck, each copy once."""
    left = Counter(BoardGame.ALL_CARDS) - Counter(named)
    for card in reversed(BoardGame.ALL_CARDS):
        if left[card] > 0:
            left[card] -= 1
            yield card


def tiles(clear: str = "", **placed: str) -> dict[str, dict[str, str]]:
    """A valid tile set with the ``placed`` tiles (``r3="wish"``); every other tile goes on the
    end stones, then from stone 8 downwards. ``clear="r8 g6"`` keeps stones 1..8 of red and 1..6
    of green free (except for placed tiles). Stones 1..4 stay free unless the tiles run short.
    """
    board: dict[str, dict[str, str]] = {c: {} for c in COLOURS}
    bag = list(TILES)
    for key, tile in placed.items():
        board[key[0]][key[1:]] = tile
        bag.remove(tile)
    keep_free = {spec[0]: int(spec[1:]) for spec in clear.split()}
    slots = [(c, 9) for c in COLOURS] + [
        (c, s) for s in range(8, 0, -1) for c in COLOURS if s > keep_free.get(c, 0)
    ]
    for colour, stone in slots:
        if bag and str(stone) not in board[colour]:
            board[colour][str(stone)] = bag.pop(0)
    assert not bag, "the tiles do not fit"
    return board


def make_record(
    *hands: str, deck: str = "", actions: Any = (), tiles: Any = None, options: Any = None
) -> dict[str, Any]:
    """A record whose hands (seat order) hold the named cards plus spare cards."""
    named = [h.split() for h in hands]
    spare = spare_cards([c for h in named for c in h] + deck.split())
    full = [h + [next(spare) for _ in range(8 - len(h))] for h in named]
    return board_record(
        hands=full, deck=deck.split(), actions=list(actions), tiles=tiles, options=options
    )


def make_game(*hands: str, **kwargs: Any) -> BoardGame:
    game = replay(read_record(make_record(*hands, **kwargs)))
    assert isinstance(game, BoardGame)
    return game


def scripted_record(
    *turns: list[str], keep: tuple[str, ...] = (), tiles: Any = None, options: Any = None
) -> dict[str, Any]:
    """A record in which player i takes ``turns[i][k]`` on their k-th turn, each followed by
    ``draw deck``. A turn is actions joined by '; ' ('play r0 small; clover g'); '-' discards a
    spare card. Turns go round the table and stop at the first player with no turn left. Each
    player's cards arrive in time (8 dealt, then one drawn per turn); ``keep[i]`` names cards
    player i still holds at the end.
    """
    n = len(turns)
    kept = [k.split() for k in keep] + [[] for _ in range(n - len(keep))]
    named = [t.split("; ")[0].split()[1] for ts in turns for t in ts if t != "-"]
    spare = spare_cards(named + [c for k in kept for c in k])
    queues: list[list[str]] = []
    plays: list[list[list[str]]] = []
    for i, player_turns in enumerate(turns):
        actions = [(f"discard {next(spare)}" if t == "-" else t).split("; ") for t in player_turns]
        plays.append(actions)
        queues.append([a[0].split()[1] for a in actions] + kept[i])
    order: list[tuple[int, int]] = []
    k = 0
    while True:
        for i in range(n):
            if k >= len(plays[i]):
                break
            order.append((i, k))
        else:
            k += 1
            continue
        break
    for i in range(n):
        taken = sum(1 for j, _ in order if j == i)
        assert len(queues[i]) <= 8 + taken, f"player {i}'s cards cannot all arrive"
    hands = [q[:8] + [next(spare) for _ in range(8 - len(q[:8]))] for q in queues]
    deck = [queues[i][k + 8] if k + 8 < len(queues[i]) else next(spare) for i, k in order]
    actions = [a for i, k in order for a in (*plays[i][k], "draw deck")]
    return board_record(hands=hands, deck=deck, actions=actions, tiles=tiles, options=options)


def scripted(*turns: list[str], **kwargs: Any) -> BoardGame:
    game = replay(read_record(scripted_record(*turns, **kwargs)))
    assert isinstance(game, BoardGame)
    return game


def idle(n: int) -> list[str]:
    return ["-"] * n


def walk(colour: str, first: int, count: int, size: str = "small") -> list[str]:
    """Turns that start ``colour`` with value ``first`` and lay count-1 ascending cards."""
    return [f"play {colour}{first} {size}"] + [
        f"play {colour}{v}" for v in range(first + 1, first + count)
    ]


def legal_for(game: BoardGame, card: str) -> list[str]:
    """The legal actions that use ``card``."""
    return [a for a in game.legal() if a.split()[1:2] == [card]]


def do(game: BoardGame, *actions: str) -> None:
    for action in actions:
        game.apply(action)


def player(game: BoardGame, p: int) -> dict[str, Any]:
    return game.view()["players"][p]


def idle_turn(game: BoardGame) -> None:
    """The player to move discards their last card (in hand order) and draws from the deck."""
    hand = player(game, game.to_move)["hand"]
    do(game, f"discard {hand[-1]}", "draw deck")


def snapshot(game: BoardGame) -> tuple[Any, ...]:
    return game.view(), game.legal(), list(game.actions), game.phase_name, game.to_move


def rejected(game: BoardGame, action: Any, code: str, player: int | None = None) -> str:
    """Apply an action that must fail with ``code``; the state must not change. The message."""
    before = snapshot(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(action, player)
    assert info.value.code == code, str(info.value)
    assert snapshot(game) == before
    return str(info.value)


def seeded(n_players: int, seed: int = 7) -> BoardGame:
    record = {
        "format": 1,
        "game": "keltis",
        "players": [f"p{i}" for i in range(n_players)],
        "setup": {"seed": seed},
    }
    game = start_game(read_record(record))
    assert isinstance(game, BoardGame)
    return game


# -- material and setup (rules.md §1 Material, Board, Setup) ------------------------------------
def test_material_110_cards_0_to_10_twice_and_25_tiles() -> None:
    """Material: each colour has values 0..10 twice; 9 wish, 9 clover, point tiles 1,1,2,2,2,3,3."""
    assert Counter(BoardGame.ALL_CARDS) == {f"{c}{v}": 2 for c in "gyrpb" for v in range(11)}
    assert Counter(TILES) == {"wish": 9, "clover": 9, "1": 2, "2": 3, "3": 2}


@pytest.mark.parametrize(("n", "deck", "removed"), [(2, 64, 30), (3, 86, 0), (4, 78, 0)])
def test_setup_deals_8_cards_each_and_the_rest_is_the_deck(n: int, deck: int, removed: int) -> None:
    """Setup: deal 8 to each player; the rest is the deck; with 2 players 30 cards are removed."""
    game = seeded(n)
    view = game.view()
    assert [len(p["hand"]) for p in view["players"]] == [8] * n
    assert view["deck_count"] == len(view["deck"]) == deck
    assert view["removed_count"] == len(view["removed"]) == removed
    assert sorted(game.cards_everywhere()) == sorted(BoardGame.ALL_CARDS)
    assert (game.to_move, game.phase_name) == (0, "play")


def test_two_player_removed_cards_are_unseen() -> None:
    """Setup: with 2 players the 30 removed cards are set aside unseen (no player's view)."""
    game = seeded(2)
    for p in (0, 1):
        view = game.view(p)
        assert "removed" not in view and "deck" not in view
        assert view["removed_count"] == 30 and view["deck_count"] == 64
        assert view["players"][1 - p]["hand"] is None
        assert view["players"][1 - p]["hand_count"] == 8
        assert len(view["players"][p]["hand"]) == 8


def test_turn_order_is_seating_order() -> None:
    """Setup: turn order is the seating order."""
    game = make_game("", "", "", "")
    seen = []
    for _ in range(6):
        seen.append(game.to_move)
        idle_turn(game)
    assert seen == [0, 1, 2, 3, 0, 1]


def test_same_seed_deals_the_same_setup() -> None:
    """records.md: a record may be dealt from a seed with the project's own shuffle."""
    assert BoardGame.deal(3, 42) == BoardGame.deal(3, 42)
    assert seeded(3, 42).view() == seeded(3, 42).view()
    assert len({str(BoardGame.deal(3, seed)) for seed in range(5)}) > 1


@pytest.mark.parametrize("seed", [0, 1, 2, 12345])
def test_seeded_tiles_lie_on_the_default_dark_stones_and_end_stones(seed: int) -> None:
    """Board: the 25 tiles go one on each dark stone (default layout) and each end stone."""
    board = BoardGame.deal(2, seed)["tiles"]
    stones = {c: sorted(int(s) for s in board[c]) for c in COLOURS}
    assert stones == {c: [*sorted(DEFAULT_LAYOUT[c]), 9] for c in COLOURS}
    assert Counter(t for c in COLOURS for t in board[c].values()) == Counter(TILES)
    assert seeded(2, seed).view()["tiles"] == board


def test_default_layout_has_four_dark_stones_per_path_and_passes_the_check() -> None:
    """Board: the default has four dark stones on each path, never the end stone (20 in all)."""
    assert all(len(DEFAULT_LAYOUT[c]) == 4 and 9 not in DEFAULT_LAYOUT[c] for c in COLOURS)
    check_layout(DEFAULT_LAYOUT)


@pytest.mark.parametrize(
    ("path", "stones", "why"),
    [
        ("g", (2, 4, 6), "19 dark stones"),
        ("g", (2, 4, 6, 8, 1), "21 dark stones"),
        ("g", (2, 4, 6, 9), "a dark end stone"),
        ("g", (2, 2, 4, 6, 8), "a stone twice"),
        ("g", (2, 2, 4, 6), "a stone twice, 20 in all"),
    ],
)
def test_check_layout_rejects_layouts_without_20_dark_stones(
    path: str, stones: tuple[int, ...], why: str
) -> None:
    """Board: any layout must give 20 dark stones (1..8) plus the 5 end stones."""
    layout = {**DEFAULT_LAYOUT, path: stones}
    with pytest.raises(ValueError):
        check_layout(layout)


# -- a turn: play, then draw (rules.md §1 A turn) -----------------------------------------------
def test_a_turn_is_play_then_draw_and_the_draw_passes_the_turn() -> None:
    """A turn is: play one card, then draw one card; then the next player is to move."""
    game = make_game("r5 g3", "y2", deck="g9")
    game.apply("discard r5")
    assert (game.to_move, game.phase_name) == (0, "draw")
    assert player(game, 0)["hand_count"] == 7
    assert game.legal() == ["draw deck", "draw r"]
    game.apply("draw deck")
    assert (game.to_move, game.phase_name) == (1, "play")
    assert player(game, 0)["hand_count"] == 8
    assert "g9" in player(game, 0)["hand"]


def test_drawing_before_playing_is_rejected() -> None:
    """A turn starts with playing a card: a draw first is must_play."""
    game = make_game("r5 g3", "y2")
    assert not [a for a in game.legal() if a.startswith("draw")]
    message = rejected(game, "draw deck", "must_play")
    assert "first play a card" in message


@pytest.mark.parametrize("action", ["discard g3", "play g3 big", "clover g"])
def test_playing_again_during_the_draw_is_rejected(action: str) -> None:
    """A turn plays one card, then draws: during the draw another play is must_draw."""
    game = make_game("r5 g3", "y2")
    game.apply("discard r5")
    message = rejected(game, action, "must_draw")
    assert "draw one" in message


# -- first card of a colour: big or small figure ------------------------------------------------
def test_first_card_of_a_colour_offers_big_and_small() -> None:
    """Lay, first card of a colour: the player freely chooses the big or a small figure."""
    game = make_game("r3 g5", "y2")
    assert legal_for(game, "r3") == ["discard r3", "play r3 big", "play r3 small"]
    assert game.legal() == sorted(set(game.legal()))


def test_two_copies_of_a_card_are_listed_once() -> None:
    """records.md: legal lists every distinct legal action once (two copies are one card)."""
    game = make_game("r3 r3 g5", "y2")
    assert legal_for(game, "r3") == ["discard r3", "play r3 big", "play r3 small"]
    game.apply("discard r3")
    assert "r3" in player(game, 0)["hand"]


def test_first_card_with_the_big_figure_moves_it_to_stone_1() -> None:
    """Lay, first card: the chosen figure leaves the start stone for stone 1 of that path."""
    game = make_game("r3 g5", "y2")
    game.apply("play r3 big")
    me = player(game, 0)
    assert me["figures"] == {"r": {"stone": 1, "big": True}}
    assert me["on_start"] == {"big": 0, "small": 4}
    assert me["columns"] == {"r": ["r3"]}
    assert game.pos[0][COLOURS.index("r")] == 1


def test_once_the_big_figure_is_used_only_small_is_offered() -> None:
    """Lay, first card: a size is listed only while a figure of that size is on the start stone."""
    game = make_game("r3 g5", "y2")
    game.apply("play r3 big")
    game.apply("draw deck")
    idle_turn(game)
    assert legal_for(game, "g5") == ["discard g5", "play g5 small"]
    message = rejected(game, "play g5 big", "figure_not_on_start")
    assert "no big figure left on the start stone" in message


def test_after_four_small_figures_only_the_big_one_is_offered() -> None:
    """Lay, first card: five figures for five paths; after 4 smalls the big one is left."""
    game = scripted(
        ["play g0 small", "play y0 small", "play r0 small", "play p0 small"],
        idle(4),
        keep=("b0",),
    )
    assert player(game, 0)["on_start"] == {"big": 1, "small": 0}
    assert legal_for(game, "b0") == ["discard b0", "play b0 big"]
    message = rejected(game, "play b0 small", "figure_not_on_start")
    assert "no small figure left" in message
    game.apply("play b0 big")
    assert player(game, 0)["figures"]["b"] == {"stone": 1, "big": True}


def test_first_card_without_a_figure_size_is_rejected() -> None:
    """records.md: the first card of a colour is always written with big or small."""
    game = make_game("r3 g5", "y2")
    message = rejected(game, "play r3", "figure_choice_needed")
    assert "first red card" in message and "big or small" in message


@pytest.mark.parametrize("action", ["play r5 big", "play r5 small"])
def test_figure_size_on_a_started_column_is_rejected(action: str) -> None:
    """Lay, later cards: the column's figure is already on its path; no new figure starts."""
    game = make_game("r3 r5", "y2")
    game.apply("play r3 small")
    game.apply("draw deck")
    idle_turn(game)
    assert legal_for(game, "r5") == ["discard r5", "play r5"]
    message = rejected(game, action, "figure_already_on_path")
    assert "red figure is already on its path" in message and "'r5'" in message


# -- the column's order ---------------------------------------------------------------------------
def test_one_distinct_value_leaves_both_directions_open() -> None:
    """Column order: with one distinct value so far either direction is open (equal values too)."""
    game = scripted(["play r5 small", "play r5"], idle(2), keep=("r2 r8",))
    assert player(game, 0)["directions"] == {"r": None}
    assert legal_for(game, "r2") == ["discard r2", "play r2"]
    assert legal_for(game, "r8") == ["discard r8", "play r8"]


def test_first_higher_value_fixes_the_column_ascending() -> None:
    """Column order: the first different value fixes the direction (here ascending)."""
    game = scripted(["play r5 small", "play r8"], idle(2), keep=("r2 r8 r10",))
    assert player(game, 0)["directions"] == {"r": "ascending"}
    assert legal_for(game, "r2") == ["discard r2"]
    assert legal_for(game, "r10") == ["discard r10", "play r10"]
    message = rejected(game, "play r2", "column_ascending")
    assert message == "Your red column is ascending: 2 is lower than its last card 8."


def test_first_lower_value_fixes_the_column_descending() -> None:
    """Column order: the first different value fixes the direction (here descending)."""
    game = scripted(["play r9 small", "play r5"], idle(2), keep=("r7 r0",))
    assert player(game, 0)["directions"] == {"r": "descending"}
    assert legal_for(game, "r7") == ["discard r7"]
    assert legal_for(game, "r0") == ["discard r0", "play r0"]
    message = rejected(game, "play r7", "column_descending")
    assert message == "Your red column is descending: 7 is higher than its last card 5."


def test_equal_values_are_always_allowed() -> None:
    """Column order: equal values are always allowed, also once the direction is fixed."""
    game = scripted(["play r9 small", "play r5"], idle(2), keep=("r5",))
    assert legal_for(game, "r5") == ["discard r5", "play r5"]
    game.apply("play r5")
    assert player(game, 0)["columns"]["r"] == ["r9", "r5", "r5"]
    assert player(game, 0)["directions"] == {"r": "descending"}


def test_each_column_has_its_own_direction() -> None:
    """Column order: one column per colour; each column has its own direction."""
    turns = ["play r9 small", "play r5", "play g2 small", "play g6"]
    game = scripted(turns, idle(4), keep=("g8 r3",))
    assert player(game, 0)["directions"] == {"r": "descending", "g": "ascending"}
    assert legal_for(game, "g8") == ["discard g8", "play g8"]
    assert legal_for(game, "r3") == ["discard r3", "play r3"]


def test_one_card_moves_one_stone_whatever_its_number() -> None:
    """Lay: the card's number never changes the distance: one card, one stone."""
    game = scripted(["play r0 small"], idle(1), keep=("r10",))
    assert game.pos[0][COLOURS.index("r")] == 1
    game.apply("play r10")
    assert game.pos[0][COLOURS.index("r")] == 2
    assert player(game, 0)["figures"]["r"] == {"stone": 2, "big": False}


# -- the figure on its end stone: move another figure, or none ---------------------------------
def end_stone_game() -> BoardGame:
    """Player 0: red and green small figures on stone 9, the big one on yellow stone 1, pink and
    blue not started; holds r9, r7 and y5. Yellow stone 2 carries a point tile 3."""
    turns = [*walk("r", 0, 9), *walk("g", 0, 9), "play y0 big"]
    game = scripted(turns, idle(len(turns)), keep=("r9 r7 y5",), tiles=tiles("r8 g8 y1", y2="3"))
    assert [game.pos[0][COLOURS.index(c)] for c in COLOURS] == [9, 1, 9, 0, 0]
    assert (game.to_move, game.phase_name) == (0, "play")
    return game


def test_figure_on_end_stone_offers_other_figures_on_a_path_and_none() -> None:
    """Lay: with the column's figure on its end stone, move another own figure on a path (not on
    the start, not on an end stone) or nothing: one 'play X >c' per such figure, and '>-'."""
    game = end_stone_game()
    assert legal_for(game, "r9") == ["discard r9", "play r9 >-", "play r9 >y"]


def test_plain_play_with_the_figure_on_its_end_stone_is_rejected() -> None:
    """records.md: when the column's figure is on stone 9 the play is always written with '>'."""
    game = end_stone_game()
    message = rejected(game, "play r9", "figure_at_end_choose")
    assert "end stone" in message and "'>-'" in message


def test_redirect_moves_the_other_figure_and_triggers_its_tile() -> None:
    """Lay: the redirected move is a normal move: the tile reached triggers (point tile 3)."""
    game = end_stone_game()
    before = player(game, 0)["tile_points"]
    game.apply("play r9 >y")
    me = player(game, 0)
    assert me["figures"]["y"] == {"stone": 2, "big": True}
    assert me["figures"]["r"]["stone"] == 9
    assert me["columns"]["r"][-1] == "r9"
    assert me["tile_points"] == before + 3
    assert game.phase_name == "draw"


def test_redirect_to_nothing_moves_no_figure() -> None:
    """Lay: with the figure on its end stone the player may move nothing ('>-')."""
    game = end_stone_game()
    figures = player(game, 0)["figures"]
    game.apply("play r9 >-")
    assert player(game, 0)["figures"] == figures
    assert player(game, 0)["columns"]["r"][-1] == "r9"
    assert game.phase_name == "draw"


@pytest.mark.parametrize(
    ("target", "where"), [("p", "on the start stone"), ("g", "on stone 9"), ("r", "itself")]
)
def test_redirect_to_a_figure_not_on_a_path_or_at_its_end_is_rejected(
    target: str, where: str
) -> None:
    """Lay: only a figure on a path, not on the start stone and not on an end stone, may move."""
    game = end_stone_game()
    message = rejected(game, f"play r9 >{target}", "figure_cannot_move")
    assert "cannot move" in message


def test_redirect_still_follows_the_column_order() -> None:
    """Column order applies to the card also when its figure is on the end stone."""
    game = end_stone_game()
    assert legal_for(game, "r7") == ["discard r7"]
    message = rejected(game, "play r7 >y", "column_ascending")
    assert "7 is lower than its last card 8" in message


def test_redirect_when_the_figure_is_not_at_its_end_is_rejected() -> None:
    """Lay: '>' is only for a column whose figure is on its end stone."""
    game = end_stone_game()
    assert legal_for(game, "y5") == ["discard y5", "play y5"]
    rejected(game, "play y5 >-", "figure_not_at_end")


# -- tiles ----------------------------------------------------------------------------------------
def test_point_tile_scores_at_once_not_doubled_and_stays_for_later_arrivals() -> None:
    """Point tile: the player scores its value at once (the big figure does not double it); the
    tile stays and scores again for every later arrival."""
    game = make_game("r0 g1", "r0 g2", tiles=tiles(r1="3"))
    game.apply("play r0 big")
    me = player(game, 0)
    assert me["tile_points"] == 3
    assert me["score"] == 2 * -4 + 3 + -4  # big on stone 1, the tile, no wishing stone
    game.apply("draw deck")
    game.apply("play r0 small")
    assert player(game, 1)["tile_points"] == 3
    assert player(game, 0)["tile_points"] == 3
    assert game.view()["tiles"]["r"]["1"] == "3"


def test_wishing_stone_is_taken_and_the_stone_is_then_empty() -> None:
    """Wishing stone: the player takes it; the stone is then empty (the next arrival gets none)."""
    game = make_game("r0 g1", "r0 g2", tiles=tiles(r1="wish"))
    game.apply("play r0 small")
    assert player(game, 0)["wishing_stones"] == 1
    assert "1" not in game.view()["tiles"]["r"]
    game.apply("draw deck")
    game.apply("play r0 small")
    assert player(game, 1)["wishing_stones"] == 0
    assert player(game, 0)["wishing_stones"] == 1
    assert game.phase_name == "draw"


def test_several_players_figures_may_stand_on_one_stone() -> None:
    """Tiles, last point: several players' figures may stand on the same stone."""
    game = make_game("r0", "r0", actions=["play r0 small", "draw deck", "play r0 big"])
    assert player(game, 0)["figures"] == {"r": {"stone": 1, "big": False}}
    assert player(game, 1)["figures"] == {"r": {"stone": 1, "big": True}}


CLOVER_TILES = {"r1": "clover", "r2": "clover", "r3": "wish"}


def clover_game() -> BoardGame:
    """Player 0 has a small figure on green stone 1 and now lays r0 onto a clover (red 1);
    player 1 holds the other r0."""
    game = scripted(["play g0 small"], idle(1), keep=("r0", "r0"), tiles=tiles(**CLOVER_TILES))
    game.apply("play r0 small")
    return game


def test_clover_offers_every_own_figure_on_a_path_and_pass() -> None:
    """Clover: the player may move any own figure already on a path (the same one included)."""
    game = clover_game()
    assert (game.to_move, game.phase_name) == (0, "clover")
    assert game.legal() == ["clover g", "clover pass", "clover r"]


def test_clover_moves_another_figure_one_stone() -> None:
    """Clover: any own figure on a path moves one stone forward; the clover tile stays."""
    game = clover_game()
    game.apply("clover g")
    assert [game.pos[0][COLOURS.index(c)] for c in "gr"] == [2, 1]
    assert game.phase_name == "draw"
    assert game.view()["tiles"]["r"]["1"] == "clover"


def test_clover_chains_through_the_tiles_reached() -> None:
    """Clover: the tile reached by the clover's move triggers too (clover -> clover -> wish)."""
    game = clover_game()
    game.apply("clover r")
    assert game.pos[0][COLOURS.index("r")] == 2
    assert game.legal() == ["clover g", "clover pass", "clover r"]
    game.apply("clover r")
    assert game.pos[0][COLOURS.index("r")] == 3
    assert player(game, 0)["wishing_stones"] == 1
    assert game.phase_name == "draw"


def test_clover_may_be_declined() -> None:
    """Clover: declining is allowed; nothing moves."""
    game = clover_game()
    game.apply("clover pass")
    assert [game.pos[0][COLOURS.index(c)] for c in "gr"] == [1, 1]
    assert game.phase_name == "draw"


def test_clover_stays_for_the_next_player() -> None:
    """Clover: the tile stays; another player arriving may use it (on their own figures)."""
    game = clover_game()
    do(game, "clover pass", "draw deck")
    game.apply("play r0 small")
    assert (game.to_move, game.phase_name) == (1, "clover")
    assert game.legal() == ["clover pass", "clover r"]


@pytest.mark.parametrize("target", ["y", "b"])
def test_clover_on_a_figure_on_the_start_stone_is_rejected(target: str) -> None:
    """Clover: only a figure already on a path may move."""
    game = clover_game()
    message = rejected(game, f"clover {target}", "figure_cannot_move")
    assert "cannot move" in message


@pytest.mark.parametrize("action", ["draw deck", "discard r0"])
def test_clover_must_be_decided_before_anything_else(action: str) -> None:
    """Clover: the decision (use or pass) comes before the draw."""
    game = clover_game()
    rejected(game, action, "must_clover")


def test_clover_with_no_figure_able_to_move_asks_nothing() -> None:
    """records.md: when every own figure on a path stands on stone 9 the clover asks nothing."""
    game = scripted(walk("r", 0, 8), idle(8), keep=("r8",), tiles=tiles("r8", r9="clover"))
    game.apply("play r8")
    assert game.pos[0][COLOURS.index("r")] == 9
    assert (game.to_move, game.phase_name) == (0, "draw")
    assert all(a.startswith("draw ") for a in game.legal())


# -- end of game: the fifth figure in the goal area -----------------------------------------------
def goal_race(y7: str) -> BoardGame:
    """Two players walk red and green to stone 7 (goal figures 1..4: red 7 has point tile 3,
    green 7 a wishing stone); player 0's big yellow figure stands on stone 6, with y6 in hand."""
    p0 = [*walk("r", 0, 7), *walk("g", 0, 7), *walk("y", 0, 6, "big")]
    p1 = [*walk("r", 0, 7), *walk("g", 0, 7), *idle(6)]
    game = scripted(p0, p1, keep=("y6",), tiles=tiles("r6 g6 y6", r7="3", g7="wish", y7=y7))
    assert (game.to_move, game.phase_name) == (0, "play")
    assert game.pos[0][COLOURS.index("y")] == 6
    return game


def test_goal_figures_before_the_fifth_trigger_their_tiles() -> None:
    """End: entering the goal area as the 4th figure or earlier is a normal move: its tile works
    (the point tile scores for both players, the wishing stone goes to the first arrival)."""
    game = goal_race("wish")
    view = game.view()
    assert view["goal_count"] == 4
    assert [(p["tile_points"], p["wishing_stones"]) for p in view["players"]] == [(3, 1), (3, 0)]
    assert view["tiles"]["r"]["7"] == "3" and "7" not in view["tiles"]["g"]
    assert not game.finished


@pytest.mark.parametrize("y7", ["wish", "3"])
def test_fifth_figure_in_the_goal_area_ends_the_game_at_once(y7: str) -> None:
    """End: immediately when the fifth figure (any players) enters the goal area: no draw."""
    game = goal_race(y7)
    deck_count = game.deck_count
    game.apply("play y6")
    view = game.view()
    assert game.finished and game.to_move is None and game.legal() == []
    assert (game.phase_name, view["end_reason"], view["goal_count"]) == ("finished", "goal", 5)
    assert view["players"][0]["hand_count"] == 7
    assert view["deck_count"] == deck_count
    rejected(game, "draw deck", "game_over")


@pytest.mark.parametrize("y7", ["wish", "3"])
def test_tile_under_the_fifth_goal_figure_is_not_executed(y7: str) -> None:
    """End: the tile under the fifth figure is not executed (no wishing stone, no points)."""
    game = goal_race(y7)
    game.apply("play y6")
    me = player(game, 0)
    assert (me["tile_points"], me["wishing_stones"]) == (3, 1)
    assert game.view()["tiles"]["y"]["7"] == y7
    # red 7 + green 7 (small) + yellow 7 (big, doubled) + point tile 3 + one wishing stone
    assert game.scores() == [6 + 6 + 2 * 6 + 3 - 3, 6 + 6 + 3 - 4]
    assert game.winners() == [0]


# -- end of game: the deck's last card ------------------------------------------------------------
def play_until_one_deck_card(game: BoardGame) -> int:
    """Idle turns (discard, draw from the deck) until one deck card is left; how many."""
    turns = 0
    while game.deck_count > 1:
        assert not game.finished
        idle_turn(game)
        turns += 1
    return turns


def test_game_ends_right_after_the_last_deck_card_is_drawn() -> None:
    """End: after the turn in which the last card of the deck is drawn (records.md: the moment
    the deck's last card is drawn the game ends); drawing from a pile does not end it."""
    game = make_game("", "")
    assert play_until_one_deck_card(game) == 63
    hand = player(game, game.to_move)["hand"]
    do(game, f"discard {hand[-1]}", f"draw {hand[-1][0]}")
    assert not game.finished and game.deck_count == 1
    last_player = game.to_move
    hand = player(game, last_player)["hand"]
    game.apply(f"discard {hand[-1]}")
    assert not game.finished and "draw deck" in game.legal()
    game.apply("draw deck")
    view = game.view()
    assert game.finished and game.to_move is None and game.legal() == []
    assert (view["end_reason"], view["deck_count"]) == ("deck", 0)
    assert view["players"][last_player]["hand_count"] == 8
    rejected(game, "discard g0", "game_over")


# -- drawing ---------------------------------------------------------------------------------------
def test_draw_offers_the_deck_and_every_non_empty_pile() -> None:
    """Draw: the top of the deck, or the top card of any discard pile (records.md spelling)."""
    game = make_game("r5 g1", "y3 g2")
    do(game, "discard r5", "draw deck", "discard y3")
    assert game.legal() == ["draw deck", "draw r", "draw y"]


def test_draw_from_a_pile_takes_its_top_card() -> None:
    """Draw: only the top card of a discard pile is takeable."""
    game = make_game("r5 g1", "r3 g2")
    do(game, "discard r5", "draw deck", "discard r3", "draw deck", "discard g1")
    assert game.view()["piles"]["r"] == ["r5", "r3"]
    game.apply("draw r")
    assert game.view()["piles"]["r"] == ["r5"]
    assert "r3" in player(game, 0)["hand"]
    assert (game.to_move, game.phase_name) == (1, "play")


def test_draw_from_an_empty_pile_is_rejected() -> None:
    """Draw: a pile can only be drawn from while it has a card."""
    game = make_game("r5 g1", "r3 g2")
    game.apply("discard r5")
    message = rejected(game, "draw g", "pile_empty")
    assert message == "The green discard pile is empty."


def test_own_discard_may_be_taken_back_by_default() -> None:
    """Draw: option no_redraw_own_discard is off by default: the own discard may be taken back."""
    game = make_game("r5 g1", "r3 g2")
    game.apply("discard r5")
    assert "draw r" in game.legal()
    game.apply("draw r")
    assert "r5" in player(game, 0)["hand"]
    assert game.view()["piles"]["r"] == []


def test_no_redraw_own_discard_forbids_taking_back_this_turns_discard() -> None:
    """Draw: with no_redraw_own_discard the card discarded this turn may not be taken back;
    other piles stay open."""
    game = make_game("r5 g1", "g2", options={"no_redraw_own_discard": True})
    do(game, "discard g1", "draw deck", "discard g2")
    assert game.legal() == ["draw deck"]
    message = rejected(game, "draw g", "pile_own_discard")
    assert message == "You cannot take back g2, which you discarded this turn."
    do(game, "draw deck", "discard r5")
    assert game.legal() == ["draw deck", "draw g"]
    rejected(game, "draw r", "pile_own_discard")
    game.apply("draw g")
    assert "g2" in player(game, 0)["hand"]


def test_no_redraw_own_discard_allows_a_pile_the_player_discarded_to_earlier() -> None:
    """Draw: the rule forbids only the card discarded this turn, not older own discards."""
    game = make_game("r5 g1", "", options={"no_redraw_own_discard": True})
    do(game, "discard r5", "draw deck")
    idle_turn(game)
    game.apply("play g1 small")
    assert "draw r" in game.legal()
    game.apply("draw r")
    assert "r5" in player(game, 0)["hand"]


# -- scoring ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("size", "factor"), [("small", 1), ("big", 2)])
def test_stone_values_and_the_big_figure_doubling(size: str, factor: int) -> None:
    """Scoring: stone k is worth -4 -3 -2 1 2 3 6 7 10; the big figure doubles it, negative
    values too; the start stone scores 0; no wishing stone is -4; point tile 2 on stone 9."""
    record = scripted_record(walk("r", 0, 9, size), idle(8), tiles=tiles("r8", r9="2"))
    actions = record["actions"]
    game = start_game(read_record({**record, "actions": []}))
    assert game.scores() == [-4, -4]
    seen = []
    for action in actions:
        game.apply(action)
        if action.startswith("play r"):
            seen.append(game.scores()[0])
    expected = [factor * v - 4 for v in STONE_VALUES]
    expected[-1] += 2
    assert seen == expected
    assert game.scores()[1] == -4


def test_big_figure_on_stone_1_scores_minus_8() -> None:
    """Scoring: the big figure doubles negative values too (big on stone 1 = -8)."""
    game = make_game("r0", "", actions=["play r0 big"])
    assert player(game, 0)["score"] == -8 + wish_score(0) == -12


@pytest.mark.parametrize(
    ("stones", "score"), [(0, -4), (1, -3), (2, 2), (3, 3), (4, 6), (5, 10), (6, 10), (9, 10)]
)
def test_wishing_stone_table(stones: int, score: int) -> None:
    """Scoring: wishing stones 0 -> -4, 1 -> -3, 2 -> 2, 3 -> 3, 4 -> 6, 5 or more -> 10."""
    assert wish_score(stones) == score


def test_wishing_stones_collected_in_play_are_scored() -> None:
    """Scoring: the wishing stones taken during play score by the table."""
    wishes = {f"r{k}": "wish" for k in range(1, 7)}
    record = scripted_record(walk("r", 0, 6), idle(5), tiles=tiles(**wishes))
    game = start_game(read_record({**record, "actions": []}))
    seen = []
    for action in record["actions"]:
        game.apply(action)
        if action.startswith("play r"):
            seen.append((player(game, 0)["wishing_stones"], game.scores()[0]))
    assert seen == [(1, -4 - 3), (2, -3 + 2), (3, -2 + 3), (4, 1 + 6), (5, 2 + 10), (6, 3 + 10)]


def test_scores_before_the_end_are_as_if_it_ended_now_and_nobody_has_won() -> None:
    """records.md: before the end, scores are as if the game ended now; winners is []."""
    game = make_game("r0 g5", "b0", tiles=tiles(r1="3"))
    do(game, "play r0 small", "draw deck", "play b0 big", "draw deck")
    assert game.scores() == [-4 + 3 - 4, -8 - 4]
    assert [p["score"] for p in game.view()["players"]] == game.scores()
    assert game.winners() == []
    assert not game.finished


def test_tied_players_all_win() -> None:
    """Scoring: highest total wins; tied players all win (no tie-break)."""
    game = make_game("", "")
    play_until_one_deck_card(game)
    idle_turn(game)
    assert game.finished
    assert game.scores() == [-4, -4]
    assert game.winners() == [0, 1]


def test_a_three_player_tie_for_first_leaves_the_last_out() -> None:
    """Scoring: all players tied for the highest total win; the others do not."""
    game = make_game("", "", "r0")
    idle_turn(game)
    idle_turn(game)
    do(game, "play r0 big", "draw deck")
    while not game.finished:
        idle_turn(game)
    assert game.scores() == [-4, -4, -12]
    assert game.winners() == [0, 1]


# -- malformed and out-of-turn input --------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "code", "text"),
    [
        ("play r11 big", "unknown_card", "'r11' is not a card of this game."),
        ("discard g42", "unknown_card", "'g42' is not a card of this game."),
        ("jump", "unknown_action", "'jump' is not an action of this game."),
        ("play r5 huge", "unknown_action", "is not an action"),
        ("play  r5 big", "unknown_action", "is not an action"),
        ("PLAY r5 big", "unknown_action", "is not an action"),
        ("", "empty_action", "The action is empty."),
        ("   ", "empty_action", "The action is empty."),
        ("play r7 big", "card_not_in_hand", "You do not hold r7."),
        ("discard y2", "card_not_in_hand", "You do not hold y2."),
    ],
)
def test_malformed_or_impossible_actions_are_rejected_unchanged(
    action: str, code: str, text: str
) -> None:
    """records.md: an illegal or malformed action says why; the game is unchanged."""
    game = make_game("r5 g3", "y2")
    message = rejected(game, action, code)
    assert text in message


@pytest.mark.parametrize("action", [None, 42, ["play r5 big"], {"play": "r5"}])
def test_non_string_actions_are_malformed(action: Any) -> None:
    """records.md: actions are text; anything else is malformed and changes nothing."""
    game = make_game("r5 g3", "y2")
    before = snapshot(game)
    with pytest.raises(MalformedAction):
        game.apply(action)
    assert snapshot(game) == before


def test_acting_for_the_wrong_player_is_rejected() -> None:
    """Turn order: only the player to move may act."""
    game = make_game("r5 g3", "y2")
    message = rejected(game, "discard y2", "not_your_turn", player=1)
    assert message == "It is player 0's turn, not player 1's."
    game.apply("discard r5", player=0)
    assert game.phase_name == "draw"


def test_acting_in_a_finished_game_is_rejected() -> None:
    """End: once the game is over no more actions can be taken."""
    game = make_game("", "")
    while not game.finished:
        idle_turn(game)
    hand = player(game, 0)["hand"]
    for action in ("draw deck", f"discard {hand[0]}", "clover pass"):
        assert "game is over" in rejected(game, action, "game_over")
    rejected(game, "draw deck", "game_over", player=0)


# -- bad records -----------------------------------------------------------------------------------
def base_record() -> dict[str, Any]:
    return copy.deepcopy(make_record("r5 r5 g3", "y2", tiles=QUIET_TILES))


def _card_twice(rec: dict[str, Any]) -> None:
    rec["setup"]["deck"][0] = "r5"


def _unknown_card(rec: dict[str, Any]) -> None:
    rec["setup"]["deck"][0] = "r11"


def _seven_in_hand(rec: dict[str, Any]) -> None:
    rec["setup"]["deck"].append(rec["setup"]["hands"][0].pop())


def _nine_in_hand(rec: dict[str, Any]) -> None:
    rec["setup"]["hands"][1].append(rec["setup"]["deck"].pop())


def _29_removed(rec: dict[str, Any]) -> None:
    rec["setup"]["deck"].append(rec["setup"]["removed"].pop())


def _24_tiles(rec: dict[str, Any]) -> None:
    del rec["setup"]["tiles"]["r"]["5"]


def _26_tiles(rec: dict[str, Any]) -> None:
    rec["setup"]["tiles"]["r"]["1"] = "wish"


def _no_end_stone_tile(rec: dict[str, Any]) -> None:
    rec["setup"]["tiles"]["r"]["4"] = rec["setup"]["tiles"]["r"].pop("9")


def _no_tiles(rec: dict[str, Any]) -> None:
    del rec["setup"]["tiles"]


def _unknown_option(rec: dict[str, Any]) -> None:
    rec["options"] = {"no_redraw": True}


def _string_option(rec: dict[str, Any]) -> None:
    rec["options"] = {"no_redraw_own_discard": "yes"}


def _number_option(rec: dict[str, Any]) -> None:
    rec["options"] = {"no_redraw_own_discard": 1}


def _unknown_game(rec: dict[str, Any]) -> None:
    rec["game"] = "keltis-dice"


def _more_hands_than_players(rec: dict[str, Any]) -> None:
    rec["players"] = ["anna", "bela", "csilla"]


@pytest.mark.parametrize(
    "spoil",
    [
        _card_twice,
        _unknown_card,
        _seven_in_hand,
        _nine_in_hand,
        _29_removed,
        _24_tiles,
        _26_tiles,
        _no_end_stone_tile,
        _no_tiles,
        _unknown_option,
        _string_option,
        _number_option,
        _unknown_game,
        _more_hands_than_players,
    ],
)
def test_malformed_records_are_rejected(spoil: Any) -> None:
    """records.md: every card exactly once, 8 per hand, 30 removed with 2 players, 25 tiles of
    the rules' counts with every end stone covered, known boolean options, a known game."""
    record = base_record()
    start_game(read_record(copy.deepcopy(record)))  # the record is valid before the change
    spoil(record)
    with pytest.raises(RecordError) as info:
        start_game(read_record(record))
    assert info.value.code == "bad_record"
    assert str(info.value).startswith("The record is not valid: ")


@pytest.mark.parametrize("n", [1, 5])
def test_records_with_1_or_5_players_are_rejected(n: int) -> None:
    """Setup: a game has 2 to 4 players."""
    record = board_record(hands=[[f"{c}{v}" for v in range(8)] for c in COLOURS[:n]])
    with pytest.raises(RecordError) as info:
        start_game(read_record(record))
    assert "2 to 4 players" in str(info.value)


def test_three_player_record_with_removed_cards_is_rejected() -> None:
    """Setup: only a 2-player game removes 30 cards."""
    record = make_record("", "", "")
    setup = record["setup"]
    setup["removed"], setup["deck"] = setup["deck"][:30], setup["deck"][30:]
    with pytest.raises(RecordError):
        start_game(read_record(record))
