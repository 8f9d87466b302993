"""The lobby, the create-game form, joining and leaving, my games, profiles and the layout."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import listings
from games.engine.registry import GAMES
from games.forms import GameCreateForm
from games.models import Game, GameStatus, Seat
from games.services import game_create, game_join

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def logged_in(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def create_data(**overrides: Any) -> dict[str, Any]:
    data = {"kind": "keltis", "player_count": "2", "days_per_move": "3"}
    data.update(overrides)
    return data


# -- the lobby ----------------------------------------------------------------------------------
def test_lobby_lists_open_games_and_running_ones_apart(client: Client, make_user: Any) -> None:
    anna, bela, cili = make_user("anna", display_name="Anna K"), make_user("bela"), make_user()
    waiting = game_create(
        creator=anna,
        kind="keltis-cards",
        player_count=3,
        options={"closing_may_open_row": True},
        days_per_move=7,
    )
    running = game_create(creator=bela, kind="keltis", player_count=2)
    game_join(game_id=running.pk, user=cili)

    response = logged_in(client, cili).get(reverse("lobby"))

    assert response.status_code == 200
    assert [row.game.pk for row in response.context["open_games"]] == [waiting.pk]
    assert [row.game.pk for row in response.context["running_games"]] == [running.pk]
    page = response.content.decode()
    assert "1 of 3 players seated" in page
    assert "Closing cards may start a row" in page
    assert "7 days per move" in page
    assert "Anna K" in page and "anna@example.test" not in page
    assert reverse("game_join", args=[waiting.pk]) in page
    assert f'href="/games/{running.pk}/"' in page


def test_lobby_offers_leave_or_cancel_on_own_games(client: Client, make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3)
    game_join(game_id=game.pk, user=bela)
    leave_url = reverse("game_leave", args=[game.pk])

    page_anna = logged_in(client, anna).get(reverse("lobby")).content.decode()
    assert leave_url in page_anna and "Cancel game" in page_anna
    page_bela = logged_in(Client(), bela).get(reverse("lobby")).content.decode()
    assert leave_url in page_bela and "Leave" in page_bela
    assert reverse("game_join", args=[game.pk]) not in page_bela


def test_lobby_for_anonymous_visitors_has_no_join_form(client: Client, make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=2)
    page = client.get(reverse("lobby")).content.decode()
    assert reverse("game_join", args=[game.pk]) not in page
    assert "Log in to join" in page


def test_lobby_queries_do_not_grow_with_the_games(client: Client, make_user: Any) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("lobby"))
        return len(queries)

    game_create(creator=make_user(), kind="keltis", player_count=3, bots=["random"])
    before = count()
    for _ in range(4):
        game_create(creator=make_user(), kind="keltis-cards", player_count=4, bots=["greedy"])
    assert count() == before


def test_the_lobby_pages_its_compiled_lists_in_five_queries(
    client: Client, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open games, a few of each creator and newest first, a page at a time with their
    count, and the latest running games: each list a query compiled once, the seats of both
    lists one query more, and the live marks the page follows (``live_lobby``)."""
    monkeypatch.setattr(listings, "LOBBY_PAGE_SIZE", 2)
    anna, bela = make_user("anna"), make_user("bela")
    anna_1, anna_2 = (game_create(creator=anna, kind="keltis", player_count=3) for _ in "12")
    bela_1 = game_create(creator=bela, kind="keltis-cards", player_count=2)
    anna_3 = game_create(creator=anna, kind="keltis", player_count=4)
    running = []
    for kind in ("keltis", "keltis-cards"):
        game = game_create(creator=make_user(), kind=kind, player_count=2)
        game_join(game_id=game.pk, user=make_user())
        running.append(game.pk)

    def lobby(page: int) -> Any:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("lobby"), {"page": page})
        assert response.status_code == 200
        assert len(queries) == 5, [q["sql"] for q in queries]
        return response.context

    first, second = lobby(1), lobby(2)
    assert [r.game.pk for r in first["open_games"]] == [anna_3.pk, bela_1.pk]
    assert [r.game.pk for r in second["open_games"]] == [anna_2.pk]  # anna_1: one too many
    assert [r.more_by_creator for r in second["open_games"]] == [1]
    assert first["pager"].page.paginator.count == 3 and first["pager"].next_url
    assert [r.seated for r in first["open_games"]] == [1, 1]
    assert [r.players[0].username for r in first["open_games"]] == ["anna", "bela"]
    assert [r.kind for r in first["open_games"]] == ["Keltis", "Keltis: the card game"]
    assert [r.game.pk for r in first["running_games"]] == running[::-1]
    assert [len(r.players) for r in first["running_games"]] == [2, 2]
    assert lobby(99)["open_games"] == second["open_games"]  # past the end: the last page
    assert anna_1.pk not in {r.game.pk for r in first["open_games"] + second["open_games"]}


def test_a_games_name_is_djangos_own_in_every_language() -> None:
    from django.utils import translation

    field = Game._meta.get_field("kind")
    for language in ("en", "hu", "pl", "cs", "sk", "ru", "de"):
        with translation.override(language):
            for kind in ("keltis", "keltis-cards", "unknown"):
                game = Game(kind=kind)
                assert game.get_kind_display() == game._get_FIELD_display(field)


# -- creating a game ----------------------------------------------------------------------------
def test_create_form_makes_an_open_game_with_options_and_bots(
    client: Client, make_user: Any
) -> None:
    anna = make_user()
    data = create_data(
        kind="keltis",
        player_count="4",
        days_per_move="14",
        keltis__no_redraw_own_discard="on",
        seat_1="",
        seat_2="normal",
        seat_3="",
    )
    response = logged_in(client, anna).post(reverse("game_create"), data, follow=True)

    game = Game.objects.get()
    assert response.redirect_chain[-1][0] == reverse("lobby")
    assert "waits for 2 more players" in " ".join(messages_of(response))
    assert game.status == GameStatus.OPEN and game.kind == "keltis"
    assert game.player_count == 4 and game.days_per_move == 14
    assert game.options == {"no_redraw_own_discard": True}
    # bots sit right after the creator, people fill the rest
    assert [(s.index, s.user, s.bot) for s in game.seats.order_by("index")] == [
        (0, anna, ""),
        (1, None, "normal"),
    ]


def test_create_form_full_of_bots_starts_the_game(
    client: Client, make_user: Any, celery_eager: None
) -> None:
    anna = make_user()
    data = create_data(
        kind="keltis-cards",
        player_count="3",
        closing_may_open_row="",
        seat_1="easy",
        seat_2="strong",
    )
    response = logged_in(client, anna).post(reverse("game_create"), data)

    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.status == GameStatus.RUNNING
    assert game.options == {"closing_may_open_row": False}
    assert [s.bot for s in game.seats.order_by("index")] == ["", "easy", "strong"]


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"kind": "keltis", "keltis_cards__closing_may_open_row": "on"},
         "keltis_cards__closing_may_open_row"),
        ({"kind": "keltis-cards", "keltis__no_redraw_own_discard": "on"},
         "keltis__no_redraw_own_discard"),
        ({"player_count": "2", "seat_1": "easy", "seat_2": "easy"}, "seat_2"),
        ({"player_count": "3", "seat_3": "normal"}, "seat_3"),
        ({"seat_1": "clever"}, "seat_1"),
        # the engine's names are not levels a player chooses
        ({"seat_1": "greedy"}, "seat_1"),
        ({"seat_1": "random"}, "seat_1"),
        ({"days_per_move": "4"}, "days_per_move"),
        ({"player_count": "5"}, "player_count"),
        ({"player_count": "1"}, "player_count"),
        ({"kind": "chess"}, "kind"),
    ],
)  # fmt: skip
def test_invalid_create_forms_create_nothing(
    client: Client, make_user: Any, overrides: dict[str, str], field: str
) -> None:
    response = logged_in(client, make_user()).post(reverse("game_create"), create_data(**overrides))

    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert 'class="errorlist' in response.content.decode()
    assert not Game.objects.exists()


def test_form_passes_only_the_chosen_games_options() -> None:
    form = GameCreateForm(
        create_data(kind="keltis-cards", keltis_cards__closing_may_open_row="on", seat_1="easy")
    )
    assert form.is_valid(), form.errors
    assert form.game_create_kwargs() == {
        "kind": "keltis-cards",
        "player_count": 2,
        "options": {"closing_may_open_row": True},
        "days_per_move": 3,
        "bots": ["easy"],
        "bank_increment_hours": 0,
        "bank_cap_hours": 0,
        "private": False,
    }


def test_every_engine_option_has_words() -> None:
    for kind, cls in GAMES.items():
        assert set(listings.OPTION_TEXTS[kind]) == set(cls.OPTIONS), kind


def test_create_page_shows_both_games_options(client: Client, make_user: Any) -> None:
    page = logged_in(client, make_user()).get(reverse("game_create")).content.decode()
    assert "No taking back your own discard" in page
    assert "Closing cards may start a row" in page
    assert page.count('name="seat_') == 3


# -- joining and leaving ------------------------------------------------------------------------
def test_join_takes_a_seat_and_leave_gives_it_back(client: Client, make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3)
    client = logged_in(client, bela)

    response = client.post(reverse("game_join", args=[game.pk]), follow=True)
    assert "You joined" in " ".join(messages_of(response))
    assert list(game.seats.values_list("user", flat=True)) == [anna.pk, bela.pk]

    response = client.post(reverse("game_leave", args=[game.pk]), follow=True)
    assert "You left" in " ".join(messages_of(response))
    assert list(game.seats.values_list("user", flat=True)) == [anna.pk]


def test_join_that_fills_the_table_goes_to_the_game(client: Client, make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=2)
    response = logged_in(client, make_user()).post(reverse("game_join", args=[game.pk]))
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING


def test_creator_leaving_cancels_the_game(client: Client, make_user: Any) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    response = logged_in(client, anna).post(
        reverse("game_leave", args=[game.pk]), {"next": reverse("my_games")}
    )
    assert response["Location"] == reverse("my_games")
    game.refresh_from_db()
    assert game.status == GameStatus.CANCELLED


def test_joining_a_full_game_or_twice_gives_a_message(client: Client, make_user: Any) -> None:
    anna, bela, cili = make_user(), make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)

    late = logged_in(client, cili).post(reverse("game_join", args=[game.pk]), follow=True)
    assert "no longer open" in " ".join(messages_of(late))
    assert 'class="message message--error"' in late.content.decode()
    again = logged_in(Client(), bela).post(reverse("game_join", args=[game.pk]), follow=True)
    assert "no longer open" in " ".join(messages_of(again))

    open_game = game_create(creator=cili, kind="keltis", player_count=3)
    twice = logged_in(client, cili).post(reverse("game_join", args=[open_game.pk]), follow=True)
    assert "already have a seat" in " ".join(messages_of(twice))
    assert Seat.objects.filter(game__in=[game, open_game]).count() == 3


def test_leaving_a_game_without_a_seat_gives_a_message(client: Client, make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=3)
    response = logged_in(client, make_user()).post(
        reverse("game_leave", args=[game.pk]), follow=True
    )
    assert "You do not play this seat." in messages_of(response)


@pytest.mark.parametrize("name", ["game_join", "game_leave"])
def test_join_and_leave_answer_get_with_405(client: Client, make_user: Any, name: str) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=3)
    assert logged_in(client, make_user()).get(reverse(name, args=[game.pk])).status_code == 405


def test_join_of_an_unknown_game_is_404(client: Client, make_user: Any) -> None:
    assert logged_in(client, make_user()).post(reverse("game_join", args=[999])).status_code == 404


def test_anonymous_users_are_sent_to_log_in(client: Client, make_user: Any) -> None:
    game = game_create(creator=make_user(), kind="keltis", player_count=3)
    for response in (
        client.get(reverse("game_create")),
        client.post(reverse("game_create"), create_data()),
        client.post(reverse("game_join", args=[game.pk])),
        client.post(reverse("game_leave", args=[game.pk])),
        client.get(reverse("my_games")),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    assert Game.objects.count() == 1 and game.seats.count() == 1


# -- my games -----------------------------------------------------------------------------------
def test_my_games_puts_my_turns_first(client: Client, make_user: Any) -> None:
    me, other = make_user("me"), make_user("other", display_name="Olga")
    games = []
    for _ in range(4):
        game = game_create(creator=other, kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=me)
        games.append(game)
    # to_move is what the engine says; set it here to a known mix, with known waiting times
    # (and deadlines to match: 10 days per move)
    now = timezone.now()
    for game, to_move, days in zip(games, [0, 1, 0, 1], [1, 2, 5, 9], strict=True):
        started = now - timedelta(days=days, hours=1)
        Game.objects.filter(pk=game.pk).update(
            to_move=to_move, turn_started_at=started, deadline=started + timedelta(days=10)
        )
    waiting = game_create(creator=me, kind="keltis-cards", player_count=3)
    finished = game_create(creator=me, kind="keltis", player_count=2)
    game_join(game_id=finished.pk, user=other)
    Game.objects.filter(pk=finished.pk).update(
        status=GameStatus.FINISHED, finished_at=now, to_move=None
    )
    Seat.objects.filter(game=finished, user=me).update(score=17, place=2)
    Seat.objects.filter(game=finished, user=other).update(score=23, place=1)

    response = logged_in(client, me).get(reverse("my_games"))

    rows = response.context["running_games"]
    # my turns first (least time left first), then the others' turns (longest waiting first)
    assert [row.game.pk for row in rows] == [games[3].pk, games[1].pk, games[2].pk, games[0].pk]
    assert [row.is_subject_turn for row in rows] == [True, True, False, False]
    assert [row.game.pk for row in response.context["open_games"]] == [waiting.pk]
    [done] = response.context["finished_games"]
    assert (done.seat.place, done.seat.score, [w.name for w in done.winners]) == (2, 17, ["Olga"])
    page = response.content.decode()
    assert "9 days ago" in page and "Waiting for Olga since" in page
    assert page.index(f'href="/games/{games[3].pk}/"') < page.index(f'href="/games/{games[2].pk}/"')
    assert listings.user_turn_count(user=me) == 2


def test_my_turn_ordering_is_one_query_for_many_games(make_user: Any) -> None:
    me = make_user()
    for _ in range(3):
        game = game_create(creator=make_user(), kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=me)
    with CaptureQueriesContext(connection) as queries:
        listings.game_lists(user=me, statuses=[GameStatus.RUNNING])
    assert len(queries) == 2  # the games (ordered in SQL), their seats with users


def test_a_players_lists_are_what_the_orm_lists_for_every_viewer(make_user: Any) -> None:
    """A player's lists (compiled queries from their seats, one for each kind of viewer, and
    one read of the seats) are the rows of what the ORM's querysets of the same builders give,
    in their order, for the player, a visitor, a stranger and a player of the private table:
    turns with and without deadlines, a frozen game, private tables, and more finished games
    than are shown."""
    me, olga, bot_game_maker = make_user("me"), make_user("olga"), make_user()
    now = timezone.now()
    for index, (to_move, days, deadline, frozen) in enumerate(
        [(0, 1, True, False), (1, 2, True, False), (0, 5, False, False), (1, 9, True, True),
         (0, 3, True, False), (1, 3, True, False)]
    ):  # fmt: skip
        game = game_create(creator=olga, kind=("keltis", "keltis-cards")[index % 2],
                           player_count=2, private=index == 4)  # fmt: skip
        game_join(game_id=game.pk, user=me, admitted=True)
        started = now - timedelta(days=days, hours=index)
        Game.objects.filter(pk=game.pk).update(
            to_move=to_move, turn_started_at=started,
            deadline=started + timedelta(days=10) if deadline else None,
            frozen_at=now if frozen else None,
        )  # fmt: skip
    game_create(creator=me, kind="keltis-cards", player_count=3)
    game_create(creator=bot_game_maker, kind="keltis", player_count=2)  # not mine
    for index in range(listings.FINISHED_GAMES_SHOWN + 2):
        game = game_create(creator=me, kind="keltis", player_count=2)
        game_join(game_id=game.pk, user=olga)
        Game.objects.filter(pk=game.pk).update(
            status=GameStatus.FINISHED, to_move=None, finished_at=now - timedelta(hours=index % 5)
        )
        Seat.objects.filter(game=game, user=me).update(score=index, place=1 + index % 2)

    def by_the_orm(viewer: Any) -> list[list[listings.GameRow]]:
        def seen(status: str) -> Any:
            seats = listings._own_seats(me.pk, status)
            if viewer is None or viewer == me:
                return seats
            if not viewer.is_authenticated:
                return seats.filter(game__private=False)
            return listings._seen_by_player(seats, viewer.pk)

        orders = (listings._running_first, listings._newest_first, listings._latest_finished)
        statuses = (GameStatus.RUNNING, GameStatus.OPEN, GameStatus.FINISHED)
        lists = [list(order(seen(s))) for order, s in zip(orders, statuses, strict=True)]
        return listings._seat_lists(lists, viewer=viewer or me, subject=me)

    statuses = [GameStatus.RUNNING, GameStatus.OPEN, GameStatus.FINISHED]
    with CaptureQueriesContext(connection) as queries:
        own = listings.user_game_lists(user=me)
    assert len(queries) == 4  # three lists, the seats of all their games
    assert [len(rows) for rows in own] == [6, 1, listings.FINISHED_GAMES_SHOWN]
    private = Game.objects.get(private=True)
    seated = Seat.objects.exclude(user=me).get(game=private).user  # olga
    for viewer in (None, me, AnonymousUser(), make_user("stranger"), seated):
        listed = listings.game_lists(user=me, viewer=viewer, statuses=statuses)
        expected = by_the_orm(viewer)
        for compiled, orm in zip(listed, expected, strict=True):
            assert [row.game.pk for row in compiled] == [row.game.pk for row in orm]
            assert compiled == orm  # every field of every row: seats, turn, deadline, words
        shown = {row.game.pk for row in listed[0]}
        assert (private.pk in shown) == (viewer in (None, me, seated)), viewer
    assert list(own) == listings.game_lists(user=me, viewer=me, statuses=statuses)
    # I hold seat 1: three games wait for me, one of them frozen (it waits for nobody)
    assert [row.is_subject_turn for row in own[0]].count(True) == 2
    assert own[0][-1].frozen  # frozen games last
    assert listings.user_game_lists(user=make_user()) == ([], [], [])


def test_home_says_in_how_many_games_it_is_my_turn(client: Client, make_user: Any) -> None:
    me = make_user()
    game = game_create(creator=make_user(), kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=me)
    Game.objects.filter(pk=game.pk).update(to_move=1)
    page = logged_in(client, me).get(reverse("home")).content.decode()
    assert "It is your turn in 1 game." in page and reverse("my_games") in page


# -- profiles -----------------------------------------------------------------------------------
def test_profile_shows_games_and_counts_but_never_the_email(client: Client, make_user: Any) -> None:
    anna = make_user("anna", display_name="Anna the Bold")
    bela = make_user("bela")
    running = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=running.pk, user=bela)
    won = game_create(creator=anna, kind="keltis-cards", player_count=2)
    game_join(game_id=won.pk, user=bela)
    Game.objects.filter(pk=won.pk).update(status=GameStatus.FINISHED, finished_at=timezone.now())
    Seat.objects.filter(game=won, user=anna).update(score=30, place=1)
    Seat.objects.filter(game=won, user=bela).update(score=12, place=2)

    response = client.get(reverse("player_profile", args=["anna"]))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Anna the Bold" in page
    assert "anna@example.test" not in page and "@example" not in page
    assert response.context["counts"] == {"played": 1, "won": 1}
    assert [r.game.pk for r in response.context["running_games"]] == [running.pk]
    assert [r.game.pk for r in response.context["finished_games"]] == [won.pk]
    assert "Anna the Bold (30)" in page  # the winner with the score


def test_profile_of_an_unknown_player_is_404(client: Client, make_user: Any) -> None:
    make_user("anna", is_active=False)
    assert client.get(reverse("player_profile", args=["nobody"])).status_code == 404
    assert client.get(reverse("player_profile", args=["anna"])).status_code == 404


# -- the layout ---------------------------------------------------------------------------------
def test_layout_nav_for_a_logged_in_player(client: Client, make_user: Any) -> None:
    anna = make_user("anna", display_name="Anna K")
    page = logged_in(client, anna).get(reverse("lobby")).content.decode()
    assert f'href="{reverse("player_profile", args=["anna"])}">Anna K</a>' in page
    assert 'href="/accounts/settings/"' in page
    assert re.search(r'<form[^>]*method="post"[^>]*action="/accounts/logout/"', page)
    assert 'href="/accounts/login/' not in page
    assert '<html lang="en">' in page
    assert "/static/games/site.css" in page


def test_layout_shows_messages(client: Client, make_user: Any) -> None:
    anna = make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    response = logged_in(client, anna).post(reverse("game_leave", args=[game.pk]), follow=True)
    assert 'class="message message--success"' in response.content.decode()


def test_layout_for_anonymous_visitors(client: Client) -> None:
    page = client.get(reverse("lobby")).content.decode()
    assert 'href="/accounts/login/?next=/games/"' in page
    assert 'href="/accounts/signup/"' in page
    assert "/accounts/logout/" not in page


def test_stylesheet_is_found_by_staticfiles() -> None:
    assert finders.find("games/site.css")


@pytest.mark.parametrize(
    "name",
    [
        "base.html",
        "home.html",
        "games/lobby.html",
        "games/create.html",
        "games/my_games.html",
        "tournaments/players/profile.html",
    ],
)
def test_templates_have_no_inline_script_or_style(name: str) -> None:
    """A strict Content-Security-Policy is coming: no inline scripts, handlers or styles."""
    text = (TEMPLATES / name).read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", text)
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", text)
