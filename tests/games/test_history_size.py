"""The history page of a long game is as small as a short one's (issue 32): the server draws one
position and one page of the move list; every position and every move are data for replay.js.
And the positions it steps through are the ones the server's own table draws."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import selectors
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.presenters.board import BoardSvg, board_svg, narrow_board
from games.presenters.cards import BOARD
from games.presenters.history import MOVES_PAGE, move_window
from games.presenters.messages import phase_text
from games.presenters.replay import replay_data
from games.presenters.table import table_view
from games.services import action_submit
from games.state import engine_state
from tests.browser.page_checkers import SQLITE_RUN_ONLY
from tests.games.test_replay import table

#: the history's size and drawing are the same on both databases, and building its long games
#: takes the better part of a minute: CI's SQLite run has them (tests/browser/page_checkers.py)
pytestmark = [pytest.mark.django_db, SQLITE_RUN_ONLY]

#: a three-player board game dealt from this seed runs past 600 actions with random moves
LONG_DEAL = 30
#: the most elements the history page may have, whatever the game's length
MOST_ELEMENTS = 1500
#: what a long game's page may have more of than a short one's at the same position: the move
#: list's pager (a nav, two links, the words between)
PAGER_ELEMENTS = 5


dealt = table  # a game dealt from a seed, all its seats taken (tests/games/test_replay.py)


def play_until(game: Game, users: list[Any], events: int, seed: int) -> Game:
    """Random legal moves through the services, as players would send them."""
    bot = RandomBot(seed)
    while game.status == GameStatus.RUNNING and game.seq < events:
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
        game.refresh_from_db()
    return game


def history(client: Client, game: Game, step: int | None = None) -> str:
    params = {} if step is None else {"step": step}
    response = client.get(reverse("game_history", args=[game.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def elements(html: str) -> int:
    """The elements of a page: its start tags (the replay's JSON holds none: json_script
    escapes every "<")."""
    return len(re.findall(r"<[a-zA-Z][^\s>/]*", html))


def replay_json(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found, "the history page holds the replay as data"
    return json.loads(found.group(1))


def test_the_page_does_not_grow_with_the_number_of_moves(client: Client, make_user: Any) -> None:
    """The same deal played by the same random players, once for 20 actions and once for
    600: at the same position the pages differ by the move list's pager only."""
    short, users = dealt(make_user, "keltis", 3, LONG_DEAL)
    short = play_until(short, users, 20, seed=LONG_DEAL)
    long, users = dealt(make_user, "keltis", 3, LONG_DEAL)
    long = play_until(long, users, 600, seed=LONG_DEAL)
    assert short.seq >= 20 and long.seq >= 600
    client.force_login(users[0])

    at_20 = {game.pk: history(client, game, step=20) for game in (short, long)}
    assert elements(at_20[short.pk]) <= elements(at_20[long.pk])
    assert elements(at_20[long.pk]) - elements(at_20[short.pk]) <= PAGER_ELEMENTS
    assert at_20[long.pk].count('<tr id="move-') == MOVES_PAGE
    for step in (None, 0, 300, long.seq):
        html = history(client, long, step)
        assert elements(html) <= MOST_ELEMENTS, (step, elements(html))
        assert html.count('<tr id="move-') == MOVES_PAGE  # one page of the list, not 600 lines
    # every move and every position is data for replay.js, all of it
    data = replay_json(history(client, long))
    assert len(data["moves"]) == long.seq and len(data["frames"]) == long.seq + 1


def test_each_page_of_the_move_list_has_its_url(client: Client, make_user: Any) -> None:
    """Without JavaScript, the page at a step lists the page of moves that holds it, and the
    pager's links go to the pages before and after."""
    game, users = dealt(make_user, "keltis-cards", 2, 3)
    game = play_until(game, users, 3 * MOVES_PAGE + 5, seed=3)
    total = game.seq
    assert move_window(0, total).first == 1 and move_window(MOVES_PAGE, total).last == MOVES_PAGE
    assert move_window(MOVES_PAGE + 1, total).first == MOVES_PAGE + 1
    html = history(client, game, step=MOVES_PAGE + 3)
    rows = [int(n) for n in re.findall(r'<tr id="move-(\d+)"', html)]
    assert rows == list(range(MOVES_PAGE + 1, 2 * MOVES_PAGE + 1))
    assert f'href="?step={MOVES_PAGE}#history-title"' in html  # the page before
    assert f'href="?step={2 * MOVES_PAGE + 1}#history-title"' in html  # the page after
    assert f"Moves {MOVES_PAGE + 1}–{2 * MOVES_PAGE} of {total}" in html  # noqa: RUF001
    first = history(client, game, step=0)
    assert re.findall(r'<tr id="move-(\d+)"', first)[0] == "1"
    assert 'class="step-link moves-earlier disabled"' in first


def _reference_player(kind: str, panel: Any) -> dict[str, Any]:
    """A player's part of a frame as the server's own table (``table_view``) words it."""
    columns = {}
    for col in panel.columns:
        badge = "s" if col.sealed else "c" if col.closed else ""
        icon = col.figure_icon
        stone, big = (icon.stone, int(icon.big)) if icon is not None else (-1, 0)
        cards = " ".join(c.card for c in col.cards)
        columns[col.colour] = [cards, col.direction, badge, stone, big]
    score = f"{panel.score} point{'s' if panel.score != 1 else ''}"
    player: dict[str, Any] = {"score": score, "cols": columns, "in_hand": panel.hand_count}
    if kind == BOARD:
        player.update(wish=panel.wishing_stones, tiles=panel.tile_points, start=panel.on_start)
    else:
        player["points"] = " ".join(c.card for c in panel.point_row)
        player["stones"] = " ".join(c.card for c in panel.stone_cards)
    if panel.hand is not None:
        player["hand"] = " ".join(c.card for c in panel.hand)
    return player


def _whole_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every frame whole, as replay.js merges them: frame 0, then each one's changes."""
    state = json.loads(json.dumps(frames[0]))
    whole = [json.loads(json.dumps(state))]
    for change in frames[1:]:
        for key, value in change.items():
            if key == "players":
                for index, fields in value.items():
                    player = state["players"][int(index)]
                    fields = dict(fields)
                    player["cols"].update(fields.pop("cols", {}))
                    player.update(fields)
            elif key == "piles":
                state["piles"].update(value)
            else:
                state[key] = value
        whole.append(json.loads(json.dumps(state)))
    return whole


def placed(
    figures: list[list[Any]], layout: dict[str, Any], drawing: BoardSvg
) -> list[tuple[int, bool, float, float, float, str]]:
    """A frame's figures where replay.js draws them on ``drawing``: a stone's centre (as the
    drawing has it) plus the seat's slot of the layout, or the seat's next place on the start
    stone; at the layout's size."""
    centres = {f"{s.colour}{s.number}": (s.x, s.y) for s in drawing.stones}
    waiting: dict[int, int] = {}
    out = []
    for seat, big, colour, stone in figures:
        if colour:
            x, y = centres[f"{colour}{stone}"]
            dx, dy = layout["slots"][seat]
            x, y = x + dx, y + dy
        else:
            i = waiting[seat] = waiting.get(seat, -1) + 1
            x, y = layout["start"][seat][i]
        r, points = layout["shapes"][f"{seat}-{big}"]
        out.append((seat, bool(big), x, y, r, points))
    return out


@pytest.mark.parametrize(
    ("kind", "players", "seed"), [("keltis", 4, 11), ("keltis", 2, 7), ("keltis-cards", 3, 5)]
)
@pytest.mark.parametrize("finished", [False, True])
def test_every_frame_is_the_position_the_table_draws(
    make_user: Any, kind: str, players: int, seed: int, finished: bool
) -> None:
    """The frames are made from the engine's views without the table's presenters (a 600-step
    game in milliseconds): step by step they say what ``table_view`` and ``board_svg`` draw."""
    game, users = dealt(make_user, kind, players, seed)
    game = play_until(game, users, 10_000 if finished else 80, seed=seed)
    assert (game.status == GameStatus.FINISHED) == finished
    page = selectors.game_history(game=game)
    data = replay_data(kind, page.views, page.seats, show_hands=page.shows_hands)
    frames = _whole_frames(data["frames"])
    assert len(frames) == len(page.views) == game.seq + 1
    for step, (view, frame) in enumerate(zip(page.views, frames, strict=True)):
        table = table_view(kind, view, page.seats, show_hands=page.shows_hands)
        assert frame["players"] == [_reference_player(kind, p) for p in table.players], step
        assert frame["piles"] == {p.key: [p.top.card if p.top else "", p.size] for p in table.piles}
        assert frame["fresh"] == [p.key for p in table.piles if p.fresh], step
        assert frame["deck"] == table.deck_count and frame["to_move"] == view.get("to_move")
        phase = view.get("phase")
        said = phase_text(kind, phase, view) if phase != "finished" else ""
        assert data["phases"][frame["phase"]] == said, step
        named = {top for top, _size in frame["piles"].values() if top} | set(frame.get("free", []))
        for player in frame["players"]:
            named.update(c for col in player["cols"].values() for c in col[0].split())
            for key in ("points", "stones", "hand"):
                named.update((player.get(key) or "").split())
        assert named <= set(data["cards"]), step  # each card named is worded for replay.js
        if kind == BOARD:
            board = board_svg(view, [s.name for s in page.seats])
            assert frame["figures"] == [
                [f.seat, int(f.big), f.colour or "", f.stone] for f in board.figures
            ], step
            # placed as replay.js places them, on either drawing, where the server draws them
            for name, drawn in (("wide", board), ("narrow", narrow_board(board))):
                assert placed(frame["figures"], data["boards"][name], drawn) == [
                    (f.seat, f.big, f.x, f.y, f.r, f.points) for f in drawn.figures
                ], (step, name)
            assert frame["tiles"] == [f"{s.colour}{s.number}" for s in board.stones if s.tile]
            assert frame["goal"] == (table.goal_count or 0)
        else:
            assert frame["free"] == [s.chip.card for s in table.wishing_stones if s.free]
            assert frame["closed"] == table.closed_rows_text, step


def test_the_replay_data_cannot_end_its_script() -> None:
    """Names and moves are the players' words: the data escapes what could close the script
    or open a comment in it, and still reads back the same."""
    from games.presenters.replay import replay_json

    words = {"names": ["</script><script>alert(1)</script>", "<!-- & -->"], "n": [1, "é"]}
    text = replay_json(words)
    assert not set("<>&") & set(text)
    assert json.loads(text) == words
