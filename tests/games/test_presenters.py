"""Words and pictures of the game pages: action labels, event texts, SVG coordinates."""

from __future__ import annotations

import copy
import itertools
import math
import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games import presenters
from games.engine import game_class
from games.engine.base import SPECTATOR
from games.engine.board_layouts import END_STONE, STONE_VALUES
from games.engine.bots import GreedyBot, RandomBot
from games.engine.cards import COLOURS
from games.presenters.actions import target_place
from games.selectors import SeatInfo
from games.templatetags.board_drawing import board_drawing

BOARD, CARDS = "keltis", "keltis-cards"


def seats(n: int) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}", False, None, False, None, None) for i in range(n)]


def board_view(**changes: Any) -> dict[str, Any]:
    view = game_class(BOARD).new(4, {"seed": 5}).view(SPECTATOR)
    view.update(changes)
    return view


# -- labels -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "label"),
    [
        ("play r7 big", "Lay red 7 and start the red path with your big figure"),
        ("play r7 small", "Lay red 7 and start the red path with a small figure"),
        ("play r7", "Lay red 7 and move your red figure"),
        ("play r7 >g", "Lay red 7 and move your green figure instead"),
        ("play r7 >-", "Lay red 7 and move no figure"),
        ("discard r7", "Discard red 7"),
        ("clover g", "Use the clover: move your green figure"),
        ("clover pass", "Decline the clover"),
        ("draw deck", "Draw from the deck"),
        ("draw r", "Take the top card of the red pile"),
    ],
)
def test_board_labels(action: str, label: str) -> None:
    assert presenters.action_label(BOARD, action) == label


@pytest.mark.parametrize(
    ("action", "label"),
    [
        ("play r7", "Lay red 7 in your red row"),
        ("play rx", "Close your red row with red closing card"),
        ("play P7", "Lay point card 7 in your point row"),
        ("play P7 r", "Lay point card 7 at the end of your red row"),
        ("discard r7", "Discard red 7"),
        ("discard rx", "Discard red closing card"),
        ("discard P7", "Discard point card 7"),
        ("wish r5 P5", "Claim wishing stone 5 with red 5 + point card 5"),
        ("draw deck", "Draw from the deck"),
        ("draw r", "Take the top card of the red pile"),
        ("draw P", "Take the top card of the point pile"),
        ("done", "Done: lay no more cards"),
    ],
)
def test_card_game_labels(action: str, label: str) -> None:
    assert presenters.action_label(CARDS, action) == label


def test_labels_use_the_view_for_piles_and_stones() -> None:
    view = board_view(to_move=0)
    view["piles"]["r"] = ["r2", "r5"]
    view["players"][0]["figures"] = {"g": {"stone": 3, "big": False}}
    view["tiles"]["g"]["4"] = "clover"
    view["tiles"]["g"].pop("5", None)
    assert presenters.action_label(BOARD, "draw r", view) == "Take red 5 from the red pile"
    assert presenters.action_label(BOARD, "play g4", view) == (
        "Lay green 4 and move your green figure to stone 4 (worth 1, clover)"
    )
    view["players"][0]["figures"] = {"g": {"stone": 4, "big": False}}
    assert presenters.action_label(BOARD, "clover g", view) == (
        "Use the clover: move your green figure to stone 5 (worth 2)"
    )
    assert presenters.short_label(BOARD, "play g4", view) == "Lay: figure to stone 5 (worth 2)"
    cards = game_class(CARDS).new(2, {"seed": 1}).view(0)
    cards["players"][0]["rows"] = {"r": ["r3"]}
    cards["players"][0]["closed"] = {"r": True}
    assert presenters.action_label(CARDS, "play rx", cards) == (
        "Seal your red row with the second closing card"
    )
    assert presenters.action_label(CARDS, "play b4", cards) == "Lay blue 4 and start your blue row"
    cards["piles"]["P"] = ["P3"]
    assert presenters.action_label(CARDS, "draw P", cards) == (
        "Take point card 3 from the point pile"
    )


@pytest.mark.parametrize(
    ("kind", "action", "who", "drawn", "text"),
    [
        (BOARD, "play r7 big", "bela", None,
         "bela laid red 7 and started the red path with the big figure"),
        (BOARD, "play r7 small", None, None,
         "You laid red 7 and started the red path with a small figure"),
        (BOARD, "play r7", "bela", None, "bela laid red 7 and moved the red figure"),
        (BOARD, "play r7 >g", "bela", None, "bela laid red 7 and moved the green figure"),
        (BOARD, "play r7 >-", None, None, "You laid red 7 and moved no figure"),
        (BOARD, "discard r7", "bela", None, "bela discarded red 7"),
        (BOARD, "clover b", "bela", None, "bela used a clover to move the blue figure"),
        (BOARD, "clover pass", "bela", None, "bela declined a clover"),
        (BOARD, "draw deck", "bela", None, "bela drew from the deck"),
        (BOARD, "draw r", "bela", "r5", "bela took red 5 from the red pile"),
        (BOARD, "draw r", "bela", None, "bela took the top card of the red pile"),
        (CARDS, "play r7", "bela", None, "bela laid red 7 in the red row"),
        (CARDS, "play rx", None, None, "You laid red closing card at the end of your red row"),
        (CARDS, "play P7", "bela", None, "bela laid point card 7 in the point row"),
        (CARDS, "play P7 g", "bela", None, "bela laid point card 7 at the end of the green row"),
        (CARDS, "wish r5 P5", "bela", None,
         "bela claimed wishing stone 5 with red 5 + point card 5"),
        (CARDS, "draw P", "bela", "P3", "bela took point card 3 from the point pile"),
        (CARDS, "done", "bela", None, "bela laid no more cards"),
    ],
)
def test_event_texts(kind: str, action: str, who: str | None, drawn: str | None, text: str) -> None:
    assert presenters.event_text(kind, action, who, drawn) == text


def test_result_message_says_what_comes_next() -> None:
    game = game_class(BOARD).new(2, {"seed": 2})
    action = next(a for a in game.legal() if a.endswith(" big"))
    game.apply(action)
    colour = presenters.COLOUR_LABELS[action.split()[1][0]]
    message = presenters.result_message(BOARD, action, game.view(0), 0, ["anna", "bela"])
    assert f"Your {colour} figure is now on stone 1 (worth -4)." in message
    assert message.endswith(("Now draw a card.", "or decline."))
    while game.phase_name != "draw":
        game.apply("clover pass")
    game.apply("draw deck")
    message = presenters.result_message(BOARD, "draw deck", game.view(0), 0, ["anna", "bela"])
    assert message == "You drew from the deck. It is now bela's turn."


def first_move_that(won: str, seed: int = 3) -> tuple[str, int, dict, dict]:
    """A random board game up to the first action after which the mover holds more ``won``
    ("wishing_stones" or "tile_points"): (action, seat, view before, view after)."""
    game = game_class(BOARD).new(2, {"seed": seed})
    bot = RandomBot(seed)
    while not game.finished:
        seat, action = game.to_move, bot.choose(game)
        before = game.view(seat)
        game.apply(action, player=seat)
        after = game.view(seat)
        if after["players"][seat][won] > before["players"][seat][won]:
            return action, seat, before, after
    raise AssertionError(f"no action won {won} in the game of seed {seed}")


def test_result_message_names_the_wishing_stone_just_taken() -> None:
    action, seat, before, after = first_move_that("wishing_stones")
    names = ["anna", "bela"]
    message = presenters.result_message(BOARD, action, after, seat, names, before)
    held = after["players"][seat]["wishing_stones"]
    stones = "wishing stone" if held == 1 else "wishing stones"
    assert f"You took the wishing stone there: you now hold {held} {stones}." in message
    assert "point tile" not in message
    # without the view before the action nothing is claimed
    assert "wishing stone" not in presenters.result_message(BOARD, action, after, seat, names)


def test_result_message_names_the_point_tile_just_scored() -> None:
    action, seat, before, after = first_move_that("tile_points")
    message = presenters.result_message(BOARD, action, after, seat, ["anna", "bela"], before)
    value = after["players"][seat]["tile_points"] - before["players"][seat]["tile_points"]
    points = "point" if value == 1 else "points"
    assert f"The point tile {value} there scored you {value} {points}." in message
    assert "wishing stone" not in message


@pytest.mark.parametrize(
    ("language", "stones", "text"),
    [
        ("pl", 1, "masz teraz 1 kamień życzeń"),
        ("pl", 2, "masz teraz 2 kamienie życzeń"),
        ("pl", 5, "masz teraz 5 kamieni życzeń"),
        ("ru", 1, "вас теперь 1 камень желаний"),
        ("ru", 3, "вас теперь 3 камня желаний"),
        ("ru", 5, "вас теперь 5 камней желаний"),
        ("cs", 2, "máte teď 2 kameny přání"),
        ("cs", 5, "máte teď 5 kamenů přání"),
        ("hu", 2, "most 2 kívánságköved van"),
        ("de", 1, "du hast jetzt 1 Wunschstein"),
        ("de", 2, "du hast jetzt 2 Wunschsteine"),
    ],
)
def test_the_wishing_stone_won_is_counted_in_each_language(
    language: str, stones: int, text: str
) -> None:
    with translation.override(language):
        [won] = presenters.tiles_won({"wishing_stones": stones - 1}, {"wishing_stones": stones})
    assert text in won


def finished(kind: str, seed: int) -> dict[str, Any]:
    """The whole view of a greedy game of two played to its end."""
    game = game_class(kind).new(2, {"seed": seed})
    bot = GreedyBot(seed)
    while not game.finished:
        game.apply(bot.choose(game), player=game.to_move)
    return game.view(None)


def test_a_finished_card_game_never_says_more_rows_closed_than_end_it() -> None:
    """Seed 7: the deck ended the game, and the last lays closed rows up to six."""
    view = finished(CARDS, 7)
    assert view["closed_rows"] == 6
    table = presenters.table_view(CARDS, view, seats(2))
    html = render_to_string("games/_cards_table.html", {"table": table})
    assert "of the 5" not in html and "6 rows closed in all" in html
    running = game_class(CARDS).new(2, {"seed": 7}).view(None)
    assert presenters.table_view(CARDS, running, seats(2)).closed_rows_text == (
        "0 rows closed of the 5 that end the game"
    )


def test_the_final_board_marks_no_card_discarded_this_turn() -> None:
    """Seed 1: the last turn was a discard and the deck's last card: the game is over."""
    view = finished(BOARD, 1)
    assert view["end_reason"] == "deck" and view["discarded_this_turn"]
    table = presenters.table_view(BOARD, view, seats(2))
    assert not any(pile.fresh for pile in table.piles)
    assert "discarded this turn" not in render_to_string("games/_piles.html", {"table": table})
    # while a game runs the discard of the turn is still marked
    game = game_class(BOARD).new(2, {"seed": 1})
    game.apply(next(a for a in game.legal() if a.startswith("discard")))
    running = presenters.table_view(BOARD, game.view(SPECTATOR), seats(2))
    assert sum(pile.fresh for pile in running.piles) == 1


@pytest.mark.parametrize("kind", [BOARD, CARDS])
def test_every_position_gets_distinct_buttons(kind: str) -> None:
    """Through whole random games: every legal action has a button, no two alike."""
    for seed in range(3):
        game = game_class(kind).new(3, {"seed": seed})
        bot = RandomBot(seed)
        while not game.finished:
            view = game.view(game.to_move)
            groups = presenters.action_groups(kind, game.legal(), view)
            choices = [c for g in groups for c in g.choices]
            assert sorted(c.action for c in choices) == game.legal()
            labels = [c.label for c in choices]
            assert len(set(labels)) == len(labels), labels
            for group in groups:
                shorts = [c.short for c in group.choices]
                assert len(set(shorts)) == len(shorts), shorts
            for choice in choices:
                assert choice.label and choice.label != choice.action
            game.apply(bot.choose(game))


def test_actions_are_grouped_by_card() -> None:
    legal = ["discard r7", "discard g1", "play g1 big", "play g1 small", "play r7"]
    groups = presenters.action_groups(BOARD, legal, None)
    assert [g.title for g in groups] == ["green 1", "red 7"]
    assert [c.action for c in groups[0].choices] == ["play g1 big", "play g1 small", "discard g1"]
    assert [c.short for c in groups[0].choices] == [
        "Big figure starts", "Small figure starts", "Discard"
    ]
    draws = presenters.action_groups(BOARD, ["draw b", "draw deck"], None)
    assert [c.action for c in draws[0].choices] == ["draw deck", "draw b"]


def test_card_names_and_chips() -> None:
    assert presenters.card_name("y10") == "yellow 10"
    assert presenters.card_name("gx") == "green closing card"
    assert presenters.card_name("P0") == "point card 0"
    assert presenters.card_name("W9") == "wishing stone 9"
    assert presenters.chip("p3").css == "kcard-p" and presenters.chip("p3").text == "3"
    assert "kcard-closing" in presenters.chip("bx").css
    assert presenters.chip("P4").css == "kcard-P"


# -- the board's SVG ----------------------------------------------------------------------------
def test_every_stone_of_every_path_is_drawn() -> None:
    svg = presenters.board_svg(board_view(), ["a", "b", "c", "d"])
    drawn = {(s.colour, s.number) for s in svg.stones}
    assert drawn == {(c, n) for c in COLOURS for n in range(1, END_STONE + 1)}
    assert len(svg.stones) == 45
    assert len({(s.x, s.y) for s in svg.stones}) == 45
    for stone in svg.stones:
        assert stone.value == STONE_VALUES[stone.number]
        assert stone.goal == (stone.number >= 7)
        assert 0 < stone.x < svg.width and 0 < stone.y < svg.height
    # a path runs upwards: stone 1 at the bottom, stone 9 at the top
    green = sorted((s for s in svg.stones if s.colour == "g"), key=lambda s: s.number)
    assert all(a.y > b.y for a, b in itertools.pairwise(green))


def test_tiles_are_drawn_where_they_lie() -> None:
    view = board_view()
    svg = presenters.board_svg(view, ["a", "b", "c", "d"])
    tiles = {(s.colour, s.number): s.tile for s in svg.stones if s.tile}
    want = {(c, int(n)): t for c, stones in view["tiles"].items() for n, t in stones.items()}
    assert {k: t.kind if t.kind != "points" else t.text for k, t in tiles.items()} == want
    # a taken wishing stone is gone from the view, and so from the board
    colour, stone = next(k for k, t in want.items() if t == "wish")
    del view["tiles"][colour][str(stone)]
    svg = presenters.board_svg(view, ["a", "b", "c", "d"])
    assert next(s for s in svg.stones if (s.colour, s.number) == (colour, stone)).tile is None


def test_figures_on_one_stone_do_not_hide_each_other() -> None:
    view = board_view()
    for seat, player in enumerate(view["players"]):
        player["figures"] = {"r": {"stone": 3, "big": seat % 2 == 0}}
        player["on_start"] = {"big": int(seat % 2 == 1), "small": 3}
    svg = presenters.board_svg(view, ["a", "b", "c", "d"])
    on_stone = [f for f in svg.figures if f.colour == "r"]
    assert len(on_stone) == 4
    assert len({(f.x, f.y) for f in on_stone}) == 4
    for i, a in enumerate(on_stone):
        for b in on_stone[i + 1 :]:
            assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r
    # all beside their own stone, nearer to it than to any other stone
    stones = {(s.colour, s.number): s for s in svg.stones}
    for f in on_stone:
        own = stones["r", 3]
        nearest = min(svg.stones, key=lambda s: math.dist((s.x, s.y), (f.x, f.y)))
        assert nearest is own
    # the big figure is visibly bigger; every seat has its own look
    assert min(f.size for f in on_stone if f.big) > max(f.size for f in on_stone if not f.big)
    assert len({(f.shape, f.fill) for f in on_stone}) == 4
    # figures still on the start stone: each one drawn, none on top of another
    on_start = [f for f in svg.figures if f.colour is None]
    assert len(on_start) == 4 * 3 + 2
    assert len({(f.x, f.y) for f in on_start}) == len(on_start)


def test_seat_colours_are_not_path_colours() -> None:
    path_colours = {stroke for stroke, _ in presenters.PATH_COLOURS.values()}
    path_colours |= {fill for _, fill in presenters.PATH_COLOURS.values()}
    styles = presenters.SEAT_STYLES
    assert not {s.fill for s in styles} & path_colours
    assert len({s.fill for s in styles}) == len({s.shape for s in styles}) == 4


def test_table_view_hides_hands_unless_asked() -> None:
    game = game_class(CARDS).new(2, {"seed": 4})
    everything = game.view(None)
    table = presenters.table_view(CARDS, everything, seats(2))
    assert all(p.hand is None for p in table.players)
    table = presenters.table_view(CARDS, copy.deepcopy(everything), seats(2), show_hands=True)
    assert [len(p.hand or []) for p in table.players] == [8, 8]
    assert [p.key for p in table.piles] == [*COLOURS, "P"]
    assert len(table.wishing_stones) == 9 and all(s.free for s in table.wishing_stones)


@pytest.mark.parametrize("language", ["de", "hu", "ru"])
def test_svg_numbers_stay_numbers_in_every_language(language: str) -> None:
    """Languages with a decimal comma must not turn 138.0 into 138,0 inside the SVG."""
    svg = presenters.board_svg(board_view(), ["a", "b", "c", "d"])
    with translation.override(language):
        html = board_drawing(svg)
    numbers = re.findall(r'\s(?:x|y|cx|cy|x1|y1|x2|y2|r|rx|ry|width|height)="([^"]*)"', html)
    assert numbers and all(re.fullmatch(r"-?\d+(\.\d+)?", n) for n in numbers)
    assert re.findall(r"translate\(([^)]*)\)", html)
    for pair in re.findall(r"translate\(([^)]*)\)", html):
        assert "," not in pair


@pytest.mark.parametrize(
    ("kind", "action", "place"),
    [
        ("keltis-cards", "play r7", "row:r"),
        ("keltis-cards", "play rx", "row:r"),  # a closing card closes its own row
        ("keltis-cards", "play P3", "row:points"),
        ("keltis-cards", "play P3 g", "row:g"),  # laid at the end of the green row
        ("keltis-cards", "discard P3", "pile:P"),
        ("keltis-cards", "discard b4", "pile:b"),
        ("keltis", "discard y2", "pile:y"),
        ("keltis", "play y2", ""),  # the board game lights the stone (target_stone)
        ("keltis-cards", "draw deck", ""),
        ("keltis-cards", "wish W3", ""),
        ("keltis-cards", "wish r5 P5", "wish:W5"),  # a claim: the wishing stone it takes
        ("keltis-cards", "wish r3 r3", "wish:W3"),
        ("keltis-cards", "wish gx g5", ""),  # a closing card has no value: no stone
    ],
)
def test_a_card_action_names_where_its_card_goes(kind: str, action: str, place: str) -> None:
    assert target_place(kind, action) == place


def test_a_cards_words_are_kept_per_language() -> None:
    """card_name, chip and colour_label keep what they worded (issue 21): by language."""
    from games.presenters.cards import card_name, chip, colour_label

    def words() -> tuple[str, str, str]:
        return card_name("r7"), chip("rx").name, colour_label("b")

    with translation.override("en"):
        english = words()
    with translation.override("de"):
        german = words()
    with translation.override("en"):
        assert words() == english == ("red 7", "red closing card", "blue")
    assert all(g != e for g, e in zip(german, english, strict=True))
    assert card_name("??") == "??" and chip("??").css == "kcard-unknown"
