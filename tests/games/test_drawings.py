"""The game page's drawings that change only with the position (the board's SVG, the hand, the
players' panels, the piles, the legend, the clock, the moves) are drawn once per position,
language and viewer and served from the cache: the same bytes as drawn afresh, a new drawing
after every move (or vacation, for the clock), nobody's hand, moves or "you" in an entry
someone else reads, and no request's CSRF token in any entry."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from games import selectors
from games.drawings import (
    CSRF_PLACEHOLDER,
    DRAWINGS,
    DRAWN_BY,
    code_version,
    digest,
    drawing_facts,
    drawing_key,
)
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
        names=[s.name for s in page.seats], facts=drawing_facts(name, page),
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
    """A lay when one is legal, else a random action: a lay always changes the board, while a
    discard drawn back from its pile can leave the position as it was."""
    game.refresh_from_db()
    engine = engine_state(game)
    lay = next((a for a in engine.legal() if a.startswith("play")), None)
    action_submit(
        game_id=game.pk, seat=game.to_move, action=lay or RandomBot(1).choose(engine),
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


#: games/_figure_icon.html as it was, included once per icon before figure_icon wrote it
FIGURE_ICON_TEMPLATE = (
    '{% load l10n %}{% localize off %}<svg class="figure-icon" viewBox="-11 -11 22 22" '
    'width="22" height="22" aria-hidden="true" focusable="false"><g class="figure'
    '{% if f.big %} figure-big{% endif %}">{% if f.shape == "circle" %}<circle r="{{ f.r }}" '
    'fill="{{ f.fill }}" stroke="{{ f.stroke }}"/>{% else %}<polygon points="{{ f.points }}" '
    'fill="{{ f.fill }}" stroke="{{ f.stroke }}"/>{% endif %}{% if f.big %}<circle r="2.6" '
    'fill="{{ f.mark }}"/>{% endif %}</g></svg>{% endlocalize %}\n'
)

#: games/_board_svg.html as it was, before board_drawing wrote the board in Python
BOARD_TEMPLATE = """{% load i18n l10n %}{% localize off %}
<figure class="board">
<svg class="board-svg" viewBox="0 0 {{ board.width }} {{ board.height }}" role="img" aria-labelledby="board-title" xmlns="http://www.w3.org/2000/svg">
  <title id="board-title">{% translate "The board: five paths of nine stones from the start stone" %}</title>
  <rect class="goal-band" x="4" y="{{ board.goal_top }}" width="{{ board.width|add:-8 }}" height="{{ board.goal_height }}" rx="12"/>
  <text class="goal-label" transform="translate(16 {{ board.goal_label_y }}) rotate(-90)">{% translate "goal area" %}</text>
  {% for l in board.lines %}<line class="path-line" x1="{{ l.x1 }}" y1="{{ l.y1 }}" x2="{{ l.x2 }}" y2="{{ l.y2 }}" stroke="{{ l.stroke }}"/>
  {% endfor %}
  {% for h in board.heads %}<text class="path-head" x="{{ h.x }}" y="{{ h.y }}" fill="{{ h.stroke }}">{{ h.label }}</text>
  {% endfor %}
  <ellipse class="start-stone" cx="{{ board.start_x }}" cy="{{ board.start_y }}" rx="{{ board.start_rx }}" ry="{{ board.start_ry }}"/>
  <text class="start-label" x="{{ board.start_label_x }}" y="{{ board.start_y }}">{% translate "start" %}</text>
  {% for s in board.stones %}
  <g class="stone{% if s.goal %} stone-goal{% endif %}{% if s.end %} stone-end{% endif %}" data-stone="{{ s.colour }}{{ s.number }}">
    <title>{{ s.title }}</title>
    <circle cx="{{ s.x }}" cy="{{ s.y }}" r="{{ s.r }}" fill="{{ s.fill }}" stroke="{{ s.stroke }}"/>
    <text class="stone-value" x="{{ s.x }}" y="{{ s.y }}">{{ s.value }}</text>
    {% if s.tile %}<g class="tile tile-{{ s.tile.kind }}" transform="translate({{ s.tile.x }} {{ s.tile.y }})"><title>{{ s.tile.title }}</title>
      {% if s.tile.kind == "wish" %}<polygon points="0,-10 8,0 0,10 -8,0"/><polygon class="tile-wish-shine" points="0,-10 3,-2 0,0 -3,-2"/>
      {% elif s.tile.kind == "clover" %}<line x1="0" y1="2" x2="1.5" y2="10"/><circle cx="0" cy="-4.5" r="4.3"/><circle cx="-4.6" cy="1.6" r="4.3"/><circle cx="4.6" cy="1.6" r="4.3"/>
      {% else %}<rect x="-9" y="-9" width="18" height="18" rx="3"/><text x="0" y="0.5">{{ s.tile.text }}</text>{% endif %}
    </g>{% endif %}
  </g>
  {% endfor %}
  <g class="figures">
  {% for f in board.figures %}
  <g class="figure{% if f.big %} figure-big{% endif %}" data-seat="{{ f.seat }}" transform="translate({{ f.x }} {{ f.y }})"><title>{{ f.title }}</title>
    {% if f.shape == "circle" %}<circle r="{{ f.r }}" fill="{{ f.fill }}" stroke="{{ f.stroke }}"/>{% else %}<polygon points="{{ f.points }}" fill="{{ f.fill }}" stroke="{{ f.stroke }}"/>{% endif %}
    {% if f.big %}<circle r="2.6" fill="{{ f.mark }}"/>{% endif %}
  </g>
  {% endfor %}
  </g>
</svg>
</figure>
{% endlocalize %}
"""  # noqa: E501  (the template's own lines)


def board_positions() -> list[dict[str, Any]]:
    """Views of 4-player board games along a random game: figures big and small, on the
    start stone and on every path, tiles taken."""
    from games.engine import game_class
    from games.engine.base import SPECTATOR

    game = game_class("keltis").new(4, {"seed": 11})
    bot, views = RandomBot(3), []
    for step in range(400):
        if game.finished:
            break
        if step % 40 == 0:
            views.append(game.view(SPECTATOR))
        game.apply(bot.choose(game))
    return [*views, game.view(SPECTATOR)]


@pytest.mark.parametrize("language", ["en", "hu", "pl", "cs", "sk", "ru", "de"])
def test_figures_and_the_board_written_in_python_are_the_templates_byte_for_byte(
    language: str,
) -> None:
    from django.template import Context, Template
    from django.utils import translation

    from games.presenters.board import board_svg, make_figure
    from games.templatetags.board_drawing import board_drawing
    from games.templatetags.figure_icons import figure_icon

    icon, board = Template(FIGURE_ICON_TEMPLATE), Template(BOARD_TEMPLATE)
    names = ["anna", "<b>bela</b>", "cecil & co", 'd"or']
    with translation.override(language):
        for seat in range(4):
            for big in (False, True):
                f = make_figure(seat, names[seat], "r", 4, big, 10.5, 3)
                assert figure_icon(f) == icon.render(Context({"f": f}))
        for view in board_positions():
            svg = board_svg(view, names)
            assert board_drawing(svg) == board.render(Context({"board": svg}))


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
PLAYERS = re.compile(r'<section class="players" id="players">.*?</section>', re.S)
YOU = '<span class="badge badge--you">you</span>'
ME = re.compile(r'<article class="player[^"]* player-me" data-seat="(\d+)">')


def whole(user: Any | None, game: Game, language: str = "en") -> str:
    """The whole page, its CSRF tokens aside (a new one every request, cached or not)."""
    return CSRF.sub('name="csrfmiddlewaretoken" value=""', page(user, game, language))


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_whole_page_from_the_cache_is_the_page_drawn_afresh(make_user: Any, kind: str) -> None:
    game, users = duel(make_user, kind)
    move(game, users)
    cecil = make_user("cecil")  # a visitor without a seat
    for viewer in (*users, cecil, None):
        for language in ("en", "hu"):
            cache.clear()
            drawn = whole(viewer, game, language)
            assert whole(viewer, game, language) == drawn  # every drawing a hit now
    # the page holds what was cached: the table, the piles, the players' panels
    assert '<section class="piles"' in drawn and '<article class="player' in drawn


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_each_player_is_you_in_their_own_panels_only(make_user: Any, kind: str) -> None:
    game, (anna, bela) = duel(make_user, kind)
    cecil = make_user("cecil")
    cache.clear()
    for _ in range(2):  # drawn, then read from the cache, in turns
        for seat, user in enumerate((anna, bela)):
            players = PLAYERS.search(page(user, game)).group(0)
            assert players.count(YOU) == 1
            assert ME.findall(players) == [str(seat)]  # their own panel, nobody else's
        for visitor in (cecil, None):
            assert YOU not in PLAYERS.search(page(visitor, game)).group(0)
    seated = cache.get(key_of("players" if kind == "keltis" else "cards_table", game, anna))
    shared = cache.get(key_of("players" if kind == "keltis" else "cards_table", game))
    assert YOU in seated and YOU not in shared


def test_a_move_or_a_seat_retired_draws_the_players_again(make_user: Any) -> None:
    from games.models import Seat

    game, users = duel(make_user)
    before = PLAYERS.search(page(users[0], game)).group(0)
    move(game, users)  # the panel of the player to move changes
    after = PLAYERS.search(page(users[0], game)).group(0)
    assert after != before
    cache.clear()
    assert after == PLAYERS.search(page(users[0], game)).group(0)  # as drawn afresh
    # a seat retired with no move (its last timeout ended the game early, say): drawn anew
    Seat.objects.filter(game=game, index=1).update(retired=True, timeouts=3)
    retired = PLAYERS.search(page(users[0], game)).group(0)
    assert "badge--retired" in retired and "badge--retired" not in after


#: the loop of games/_players.html over a panel's columns, before column_row wrote each row
COLUMN_ROWS_TEMPLATE = """{% load card_chips figure_icons i18n %}{% for col in p.columns %}
      <tr class="column column-{{ col.colour }}{% if not col.cards %} column-empty{% endif %}">
        <th scope="row"><span class="swatch swatch-{{ col.colour }}" aria-hidden="true"></span>{{ col.label }}</th>
        <td class="column-cards">{% for c in col.cards %}{{ c|card_chip }}{% empty %}<span class="muted">—</span>{% endfor %}</td>
        <td class="column-dir" title="{{ col.direction_text }}">{% if col.arrow %}<span aria-hidden="true">{{ col.arrow }}</span><span class="vh">{{ col.direction_text }}</span>{% endif %}
          {% if col.sealed %}<span class="badge">{% translate "sealed" %}</span>{% elif col.closed %}<span class="badge">{% translate "closed" %}</span>{% endif %}</td>
        {% if is_board %}<td class="column-figure" title="{{ col.figure_title }}">{% if col.figure_icon %}{{ col.figure_icon|figure_icon }} {{ col.figure }}{% endif %}</td>{% endif %}
      </tr>
      {% endfor %}"""  # noqa: E501  (the template's own lines)


@pytest.mark.parametrize("language", ["en", "hu", "de"])
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_a_column_row_written_in_python_is_the_templates_byte_for_byte(
    kind: str, language: str
) -> None:
    from django.template import Context, Template
    from django.utils import translation

    from games.engine import game_class
    from games.engine.base import SPECTATOR
    from games.presenters.table import table_view
    from games.selectors import SeatInfo

    rows = Template(COLUMN_ROWS_TEMPLATE)
    python = Template("{% load table_rows %}{% for col in p.columns %}{% column_row col %}{% endfor %}")  # fmt: skip  # noqa: E501
    seats = [SeatInfo(i, f"<p{i}>", False, None, False, None, None) for i in range(3)]
    game, bot, seen = game_class(kind).new(3, {"seed": 4}), RandomBot(5), set()
    with translation.override(language):
        for step in range(1000):
            if step % 25 == 0 or game.finished:
                for p in table_view(kind, game.view(SPECTATOR), seats).players:
                    context = {"p": p, "is_board": kind == "keltis"}
                    html = rows.render(Context(context))
                    assert python.render(Context(context)) == html
                    seen |= {c.direction for c in p.columns} | {
                        "sealed" for c in p.columns if c.sealed
                    } | {"closed" for c in p.columns if c.closed}
            if game.finished:
                break
            game.apply(bot.choose(game))
    assert {"", "open", "ascending", "descending"} <= seen  # every kind of row was compared


#: the loop of games/_actions.html over a group's moves, before action_forms wrote the forms
ACTION_FORMS_TEMPLATE = """{% load l10n %}{% for choice in group.choices %}
      <form method="post" action="{{ act_url }}" class="act-form">{% csrf_token %}
        <input type="hidden" name="action" value="{{ choice.action }}">
        <input type="hidden" name="seq" value="{{ game.seq|unlocalize }}">
        <button type="submit" class="act act-{{ choice.style }}"{% if choice.target %} data-target="{{ choice.target }}"{% endif %}{% if choice.place %} data-place="{{ choice.place }}"{% endif %}{% if choice.short != choice.label %} title="{{ choice.label }}"{% endif %}>{% if group.card %}<span class="vh">{{ group.title }}: </span>{% endif %}{{ choice.short }}</button>
      </form>
    {% endfor %}"""  # noqa: E501  (the template's own lines)


@pytest.mark.parametrize("language", ["en", "hu", "de"])
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_action_forms_written_in_python_are_the_templates_byte_for_byte(
    kind: str, language: str
) -> None:
    from types import SimpleNamespace

    from django.template import Context, Template
    from django.utils import translation

    from games.engine import game_class
    from games.presenters.actions import action_groups

    old = Template(ACTION_FORMS_TEMPLATE)
    new = Template("{% load action_forms %}{% action_forms group %}")
    game, bot, compared = game_class(kind).new(2, {"seed": 8}), RandomBot(2), 0
    with translation.override(language):
        for step in range(300):
            if game.finished:
                break
            if step % 15 == 0:
                view = game.view(game.to_move)
                for group in action_groups(kind, game.legal(), view):
                    context = {
                        "group": group, "act_url": "/games/7/act/", "csrf_token": "t<0>k",
                        "game": SimpleNamespace(seq=1234 + step),
                    }  # fmt: skip
                    assert new.render(Context(context)) == old.render(Context(context))
                    compared += 1
            game.apply(bot.choose(game))
    assert compared > 20


def test_a_page_reads_its_drawings_in_one_round_trip_and_stores_them_in_one(
    make_user: Any, monkeypatch: Any
) -> None:
    from games import drawings

    game, (anna, _bela) = duel(make_user)
    calls: list[tuple[str, int]] = []

    class Recorder:
        """The cache as games.drawings sees it, each call written down."""

        def __getattr__(self, name: str) -> Any:
            method = getattr(cache, name)

            def call(keys: Any, *args: Any, **kwargs: Any) -> Any:
                calls.append((name, 1 if isinstance(keys, str) else len(keys)))
                return method(keys, *args, **kwargs)

            return call

    monkeypatch.setattr(drawings, "cache", Recorder())
    cache.clear()
    # asked for: every drawing a page may show (the card game's table too, unused here; the
    # clock's and the moves' in their own templates) ...
    page(anna, game)
    # ... drawn and stored: the board, the piles, the players, the hand, the legend, the clock
    # and anna's moves (her turn)
    assert calls == [("get_many", len(DRAWINGS)), ("set_many", len(DRAWINGS) - 1)]
    calls.clear()
    page(anna, game)  # all from the cache
    assert calls == [("get_many", len(DRAWINGS))]


def test_a_release_that_draws_otherwise_reads_no_old_drawing(tmp_path: Any) -> None:
    """The key holds a digest of what draws (templates, presenters, tags, translations): any
    change there gives every position new keys; a change elsewhere keeps them."""
    (tmp_path / "templates" / "games").mkdir(parents=True)
    (tmp_path / "locale" / "hu" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "games").mkdir()
    template = tmp_path / "templates" / "games" / "_hand.html"
    catalogue = tmp_path / "locale" / "hu" / "LC_MESSAGES" / "django.mo"
    template.write_text("<div>{{ hand }}</div>")
    catalogue.write_bytes(b"\x00one")
    before = digest(tmp_path, DRAWN_BY)
    (tmp_path / "games" / "models.py").write_text("# not drawing code")
    assert digest(tmp_path, DRAWN_BY) == before
    template.write_text('<div class="hand">{{ hand }}</div>')
    after_template = digest(tmp_path, DRAWN_BY)
    catalogue.write_bytes(b"\x00two")
    assert len({before, after_template, digest(tmp_path, DRAWN_BY)}) == 3
    key = drawing_key("board", game_id=1, seq=1, language="en", names=["a"])
    assert key.startswith(f"drawing:{code_version()}:board:1:1:en:")


LEGEND = re.compile(r'<section class="legend".*?</section>', re.S)
CLOCK = re.compile(r'<section class="clock".*?</section>', re.S)
ACTIONS = re.compile(r'<section class="actions".*?</section>', re.S)
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
EMAILS_LINK = "How you hear about your turns"


def section(pattern: re.Pattern[str], html: str) -> str:
    found = pattern.search(html)
    return found.group(0) if found else ""


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_the_legend_clock_and_moves_are_served_from_their_entries_as_drawn_afresh(
    make_user: Any, kind: str
) -> None:
    game, (anna, _bela) = duel(make_user, kind)
    cache.clear()
    drawn = whole(anna, game)  # anna's turn: her moves are on the page
    cached = whole(anna, game)
    assert cached == drawn
    clock, actions = section(CLOCK, cached), section(ACTIONS, cached)
    assert 'class="clock-table"' in clock and 'class="act-form"' in actions
    # what the page shows is the entries' (the moves' with the request's token in)
    assert cache.get(key_of("clock", game, anna)) in clock
    entry = cache.get(key_of("actions", game, anna))
    assert TOKEN.sub('name="csrfmiddlewaretoken" value=""', entry).strip() == actions
    if kind == "keltis":
        assert cache.get(key_of("legend", game)).strip() == section(LEGEND, cached) != ""
    else:
        assert cache.get(key_of("legend", game)) is None and LEGEND.search(cached) is None


def test_no_entry_holds_a_request_s_csrf_token(make_user: Any) -> None:
    game, (anna, _bela) = duel(make_user, "keltis-cards")
    cache.clear()
    html = page(anna, game)
    token = TOKEN.search(section(ACTIONS, html)).group(1)
    assert token != CSRF_PLACEHOLDER
    entries = [cache.get(key_of(name, game, anna)) for name in DRAWINGS]
    assert any(CSRF_PLACEHOLDER in e for e in entries if e)
    assert not any(token in e for e in entries if e)
    assert CSRF_PLACEHOLDER not in html


def test_moves_read_from_the_cache_carry_the_request_s_own_valid_token(make_user: Any) -> None:
    game, (anna, _bela) = duel(make_user)
    cache.clear()
    page(anna, game)  # drawn and stored in another session of hers
    client = Client(enforce_csrf_checks=True)  # a browser of its own: its own CSRF cookie
    client.force_login(anna)
    html = client.get(f"/games/{game.pk}/").content.decode()
    actions = section(ACTIONS, html)
    form = re.search(
        r'<form method="post" action="([^"]+)" class="act-form">.*?name="csrfmiddlewaretoken" '
        r'value="([^"]+)">\s*<input type="hidden" name="action" value="([^"]+)">',
        actions, re.S,
    )  # fmt: skip
    assert form is not None and form.group(2) != CSRF_PLACEHOLDER
    seq = game.seq
    response = client.post(
        form.group(1),
        {"csrfmiddlewaretoken": form.group(2), "action": form.group(3), "seq": seq},
    )
    assert response.status_code == 303
    game.refresh_from_db()
    assert game.seq > seq  # the move was made


def test_the_moves_are_not_worked_out_when_their_drawing_is_cached(
    make_user: Any, monkeypatch: Any
) -> None:
    from games.presenters import page as page_presenter

    game, users = duel(make_user)
    calls = []
    original = page_presenter.action_groups
    monkeypatch.setattr(page_presenter, "action_groups", lambda *a: calls.append(1) or original(*a))
    cache.clear()
    first = section(ACTIONS, whole(users[0], game))
    assert first and calls == [1]
    assert section(ACTIONS, whole(users[0], game)) == first
    assert calls == [1]  # read from the cache: no buttons worked out
    assert section(ACTIONS, whole(users[1], game)) == "" and calls == [1]  # not bela's turn


@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_each_player_reads_their_own_clock_and_moves_and_a_visitor_neither(
    make_user: Any, kind: str
) -> None:
    game, (anna, bela) = duel(make_user, kind)
    cecil = make_user("cecil")
    cache.clear()
    for _ in range(2):  # drawn, then read from the cache, in turns
        for seat, user in enumerate((anna, bela)):
            html = page(user, game)
            clock = section(CLOCK, html)
            assert clock.count(YOU) == 1
            mine = re.search(rf'data-seat="{seat}">(?:(?!</tr>).)*badge--you', clock, re.S)
            assert mine is not None  # in their own row
            assert (section(ACTIONS, html) != "") == (seat == game.to_move)
        for visitor in (cecil, None):
            html = page(visitor, game)
            assert YOU not in section(CLOCK, html) and section(ACTIONS, html) == ""
            # one entry for both, the link to a player's email settings outside it
            assert (EMAILS_LINK in section(CLOCK, html)) == (visitor is not None)
    keys = {key_of("clock", game, user) for user in (anna, bela, None)}
    assert len(keys) == 3 and all(cache.get(k) for k in keys)
    assert EMAILS_LINK not in cache.get(key_of("clock", game))
    assert key_of("actions", game, anna) != key_of("actions", game, bela)
    assert cache.get(key_of("actions", game, bela)) is None  # never drawn: not bela's turn
    with pytest.raises(ValueError, match="viewer"):  # nobody's moves without a viewer
        key_of("actions", game)


def test_a_vacation_with_no_move_draws_the_clock_again(make_user: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import Vacation

    game, (anna, bela) = duel(make_user)
    cecil, dora = make_user("cecil"), make_user("dora", time_zone="Asia/Tokyo")
    viewers = (anna, bela, cecil, dora, None)
    before = {viewer: section(CLOCK, page(viewer, game)) for viewer in viewers}
    assert not any("vacation-note" in clock for clock in before.values())
    seq = game.seq
    now = timezone.now()
    Vacation.objects.create(
        user=bela, starts_at=now - timedelta(hours=1), ends_at=now + timedelta(days=3)
    )
    after = {viewer: section(CLOCK, page(viewer, game)) for viewer in viewers}
    game.refresh_from_db()
    assert game.seq == seq  # no move: the clock's own facts changed its key
    for viewer in viewers:
        assert "vacation-note" in after[viewer]
        cache.clear()
        assert section(CLOCK, page(viewer, game)) == after[viewer]  # as drawn afresh
    # each reader sees it in their own time zone, though both read the visitors' entry
    assert "(UTC)" in after[cecil] and "(Asia/Tokyo)" in after[dora]
