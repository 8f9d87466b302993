"""The game page's drawings that change only with the position (the board's SVG, the hand, the
players' panels, the piles) are drawn once per position, language and viewer and served from
the cache: the same bytes as drawn afresh, a new drawing after every move, and nobody's hand
(nor anyone's "you") in an entry someone else reads."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from games import selectors
from games.drawings import drawing_key, page_facts
from games.engine.bots import RandomBot
from games.models import Game
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db

BOARD = re.compile(r'<figure class="board">.*?</figure>', re.S)
HAND = re.compile(r'<div class="hand" data-hand-seat="\d+">.*?</div>', re.S)


def key_of(name: str, game: Game, viewer: Any | None = None, language: str = "en") -> str:
    """The key the page files drawing ``name`` of the game's current position under."""
    game.refresh_from_db()
    page = selectors.game_page(game=game, user=viewer)
    seat = page.viewer_seat if viewer is not None else None
    return drawing_key(
        name, game_id=game.pk, seq=game.seq, language=language,
        names=[s.name for s in page.seats], facts=page_facts(game.status, page.seats),
        viewer_seat=seat, viewer_user=viewer.pk if seat is not None else None,
    )  # fmt: skip


def duel(make_user: Any, kind: str = "keltis") -> tuple[Game, list[Any]]:
    anna, bela = make_user("anna"), make_user("bela")
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    game.refresh_from_db()
    return game, [anna, bela]


def page(user: Any | None, game: Game, language: str = "en") -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def fragments(html: str) -> tuple[str, list[str]]:
    board = BOARD.search(html)
    return (board.group(0) if board else ""), HAND.findall(html)


def fresh(user: Any | None, game: Game, language: str = "en") -> tuple[str, list[str]]:
    """The drawings as drawn with nothing cached."""
    cache.clear()
    return fragments(page(user, game, language))


def move(game: Game, users: list[Any]) -> None:
    game.refresh_from_db()
    action_submit(
        game_id=game.pk, seat=game.to_move, action=RandomBot(1).choose(engine_state(game)),
        expected_seq=game.seq, user=users[game.to_move],
    )
    game.refresh_from_db()


def test_a_cached_drawing_is_the_fresh_one_byte_for_byte(make_user: Any) -> None:
    game, (anna, _bela) = duel(make_user)
    drawn = fresh(anna, game)
    assert drawn[0].startswith('<figure class="board">') and len(drawn[1]) == 1
    cached = fragments(page(anna, game))  # a hit now
    assert cached == drawn
    assert drawn[0] in cache.get(key_of("board", game))


def test_every_move_draws_the_new_position(make_user: Any) -> None:
    game, users = duel(make_user)
    before = fragments(page(users[0], game))
    while game.seq < 4:
        move(game, users)
    after = fragments(page(users[0], game))
    assert after != before
    assert after == fresh(users[0], game)  # what the new position looks like, drawn afresh


def test_each_player_reads_their_own_hand_and_a_visitor_none(make_user: Any) -> None:
    game, (anna, bela) = duel(make_user, kind="keltis-cards")
    own = {user.pk: fresh(user, game)[1] for user in (anna, bela)}
    assert own[anna.pk] != own[bela.pk]
    cache.clear()
    for user in (anna, bela, anna, bela):  # each reads after the other has filled the cache
        assert fragments(page(user, game))[1] == own[user.pk]
    assert fragments(page(None, game))[1] == []
    # and the entries: each holds its own player's hand only
    for user in (anna, bela):
        assert own[user.pk][0] in cache.get(key_of("hand", game, user))


def test_each_language_has_its_own_board(make_user: Any) -> None:
    game, _users = duel(make_user)
    english = fragments(page(None, game, "en"))[0]
    german = fragments(page(None, game, "de"))[0]
    assert english != german
    assert german == fresh(None, game, "de")[0]


def test_a_hand_cannot_be_keyed_without_its_viewer() -> None:
    with pytest.raises(ValueError, match="viewer"):
        drawing_key("hand", game_id=1, seq=1, language="en", names=["a"], viewer_seat=0)


#: games/_card.html as it was, included once per card before card_chip wrote the chip in Python
CARD_TEMPLATE = (
    '<span class="kcard {{ c.css }}" title="{{ c.name }}" data-card="{{ c.card }}">'
    '<span class="vh">{{ c.name }}</span><span aria-hidden="true">{{ c.text }}</span></span>'
)


@pytest.mark.parametrize("language", ["en", "hu", "pl", "cs", "sk", "ru", "de"])
def test_a_card_chip_written_in_python_is_the_templates_byte_for_byte(language: str) -> None:
    from django.template import Context, Template
    from django.utils import translation

    from games.engine.cards import CARDS
    from games.presenters.cards import chip
    from games.templatetags.card_chips import card_chip

    template = Template(CARD_TEMPLATE)
    with translation.override(language):
        for code in [*CARDS, "W3", "??"]:
            c = chip(code)
            assert card_chip(c) == template.render(Context({"c": c})), code


def test_a_cached_board_is_not_worked_out_again(make_user: Any, monkeypatch: Any) -> None:
    from games.presenters import table

    game, (anna, _bela) = duel(make_user)
    page(anna, game)  # drawn and stored
    calls = []
    original = table.board_svg
    monkeypatch.setattr(table, "board_svg", lambda *a: calls.append(1) or original(*a))
    page(anna, game)
    assert calls == []  # the cached drawing needs no coordinates
    move(game, [anna, _bela])
    page(anna, game)
    assert calls == [1]  # a new position: worked out once
