"""Rating pages: the leaderboard per game, the profile's ratings and their SVG chart."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games.models import Event, Game, GameStatus, Seat
from games.services import game_create, game_join
from tournaments import rating_selectors, ratings
from tournaments.models import Rating, RatingChange
from tournaments.rating_chart import MAX_MARKERS, rating_chart

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def rated(user: User, rating: float, games: int, kind: str = "keltis") -> Rating:
    return Rating.objects.create(
        user=user, kind=kind, rating=rating, highest=max(rating, 1500), games=games
    )


def play_rated(users: list[User], places: list[int], kind: str = "keltis") -> Game:
    """A finished game between ``users`` with these places, rated by the service."""
    game = game_create(creator=users[0], kind=kind, player_count=len(users))
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    for seq, index in enumerate(range(len(users)), start=1):
        Event.objects.create(game=game, seq=seq, seat=index, action="x", source="player")
    for index, place in enumerate(places):
        Seat.objects.filter(game=game, index=index).update(place=place, score=10 - place)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED, finished_at=timezone.now())
    assert ratings.rate_game(game_id=game.pk)
    return game


def rows_of(html: str) -> list[tuple[str, bool]]:
    """(username, provisional) per leaderboard row, top to bottom."""
    return [
        (m.group(1), bool(m.group(2)))
        for m in re.finditer(r'<tr data-player="([^"]+)"( data-provisional)?>', html)
    ]


def svgs_of(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)]


def polyline_points(svg: ET.Element) -> list[tuple[float, float]]:
    line = svg.find(f"{SVG}polyline")
    assert line is not None
    return [tuple(map(float, pair.split(","))) for pair in line.get("points", "").split()]


# -- the leaderboard -----------------------------------------------------------------------------
def test_ratings_redirects_to_the_board_games_leaderboard(client: Client) -> None:
    response = client.get("/ratings/")
    assert response.status_code == 302
    assert response["Location"] == reverse("leaderboard", args=["keltis"]) == "/ratings/keltis/"


def test_an_unknown_game_has_no_leaderboard(client: Client) -> None:
    assert client.get("/ratings/chess/").status_code == 404


def test_the_leaderboard_is_ordered_and_marks_provisional_players(
    client: Client, make_user: Any, settings: Any
) -> None:
    settings.ELO_PROVISIONAL_GAMES = 30
    anna, bela, cleo, dora = (make_user(n) for n in ("anna", "bela", "cleo", "dora"))
    rated(anna, 1612.4, 45)
    rated(bela, 1720.0, 12)  # the best rating, but provisional
    rated(cleo, 1488.0, 30)  # exactly 30 games: established
    rated(dora, 1555.0, 29)
    response = client.get("/ratings/keltis/")
    assert response.status_code == 200
    html = response.content.decode()
    assert rows_of(html) == [("bela", True), ("anna", False), ("dora", True), ("cleo", False)]
    assert ">1612<" in html and ">1720<" in html  # whole points on the page
    assert html.count(">provisional</span>") == 2
    assert 'href="/players/anna/"' in html


def test_each_game_has_its_own_leaderboard(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    rated(anna, 1600, 40, kind="keltis")
    rated(bela, 1700, 40, kind="keltis-cards")
    rated(anna, 1400, 40, kind="keltis-cards")
    board = client.get("/ratings/keltis/").content.decode()
    cards = client.get("/ratings/keltis-cards/").content.decode()
    assert [name for name, _ in rows_of(board)] == ["anna"]
    assert [name for name, _ in rows_of(cards)] == ["bela", "anna"]
    assert 'href="/ratings/keltis-cards/" aria-current="page"' in cards


def test_the_leaderboard_leaves_out_inactive_and_unrated_players(
    client: Client, make_user: Any
) -> None:
    rated(make_user("anna"), 1600, 40)
    rated(make_user("gone", is_active=False), 1900, 40)
    rated(make_user("fresh"), 1500, 0)  # a row without a rated game
    html = client.get("/ratings/keltis/").content.decode()
    assert [name for name, _ in rows_of(html)] == ["anna"]


def test_the_leaderboard_without_players_says_so(client: Client) -> None:
    assert "No rated game has finished yet." in client.get("/ratings/keltis/").content.decode()


def test_equal_ratings_share_a_rank_and_the_limit_holds(make_user: Any) -> None:
    for value in (1600, 1550, 1550, 1500):
        rated(make_user(), value, 40)
    rows = rating_selectors.leaderboard("keltis")
    assert [r.rank for r in rows] == [1, 2, 2, 4]
    assert len(rating_selectors.leaderboard("keltis", limit=2)) == 2


def test_the_leaderboard_page_takes_the_same_queries_for_more_players(
    client: Client, make_user: Any, django_assert_max_num_queries: Any
) -> None:
    for value in range(3):
        rated(make_user(), 1500 + value, 40)
    with django_assert_max_num_queries(3) as first:
        client.get("/ratings/keltis/")
    for value in range(20):
        rated(make_user(), 1400 + value, 40)
    with django_assert_max_num_queries(len(first.captured_queries)):
        client.get("/ratings/keltis/")


def test_the_site_navigation_links_the_ratings(client: Client) -> None:
    assert 'href="/ratings/"' in client.get("/").content.decode()


def test_current_ratings_default_to_the_start(make_user: Any) -> None:
    anna, bela = make_user(), make_user()
    rated(anna, 1640, 10)
    assert rating_selectors.current_ratings([anna.pk, bela.pk], "keltis") == {
        anna.pk: 1640,
        bela.pk: 1500,
    }


# -- the profile ---------------------------------------------------------------------------------
def test_the_profile_shows_the_rating_and_a_chart_of_its_history(
    client: Client, make_user: Any
) -> None:
    anna, bela, cleo = make_user("anna"), make_user("bela"), make_user("cleo")
    play_rated([anna, bela], [1, 2])
    play_rated([anna, cleo, bela], [3, 1, 2])
    play_rated([cleo, anna], [2, 1])
    play_rated([anna, bela], [1, 1])
    history = list(RatingChange.objects.filter(user=anna, kind="keltis").order_by("pk"))
    current = Rating.objects.get(user=anna, kind="keltis")

    html = client.get("/players/anna/").content.decode()
    assert f'<strong class="rating-value">{round(current.rating)}</strong>' in html
    assert "provisional" in html  # 4 rated games
    (svg,) = svgs_of(html)  # no card game rated: one chart

    expected = [history[0].before, *(c.after for c in history)]
    points = polyline_points(svg)
    assert len(points) == len(history) + 1
    # x: evenly spaced, one step per rated game
    steps = {round(b[0] - a[0], 1) for a, b in itertools.pairwise(points)}
    assert max(steps) - min(steps) <= 0.11
    # y: the lowest rating on the bottom edge, the highest on the top edge, linear between
    axis_x, axis_y = (svg.findall(f"{SVG}line")[i] for i in (1, 2))
    top, bottom = float(axis_x.get("y1", "")), float(axis_y.get("y1", ""))
    low, high = min(expected), max(expected)
    for (_x, y), rating in zip(points, expected, strict=True):
        assert low + (bottom - y) / (bottom - top) * (high - low) == pytest.approx(rating, abs=0.5)
    # a marker per point, with the rating rounded, and the labels
    markers = svg.findall(f"{SVG}circle[@class='rating-chart__point']")
    assert [int(m.get("data-rating", "")) for m in markers] == [round(r) for r in expected]
    assert [(float(m.get("cx", "")), float(m.get("cy", ""))) for m in markers] == points
    texts = {t.get("class"): t.text for t in svg.findall(f"{SVG}text")}
    assert texts["rating-chart__max"] == str(round(high))
    assert texts["rating-chart__min"] == str(round(low))
    assert texts["rating-chart__last-label"] == str(round(current.rating))
    title = svg.find(f"{SVG}title")
    assert title is not None and "over 4 rated games" in (title.text or "")


def test_a_profile_without_rated_games(client: Client, make_user: Any) -> None:
    make_user("anna")
    html = client.get("/players/anna/").content.decode()
    assert "No rated game yet." in html and "<svg" not in html


def test_the_profile_charts_each_game_apart(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    play_rated([anna, bela], [1, 2], kind="keltis")
    play_rated([bela, anna], [1, 2], kind="keltis-cards")
    html = client.get("/players/anna/").content.decode()
    assert [s.get("aria-labelledby") for s in svgs_of(html)] == [
        "rating-chart-keltis",
        "rating-chart-keltis-cards",
    ]
    assert '<strong class="rating-value">1520</strong>' in html
    assert '<strong class="rating-value">1480</strong>' in html


# -- the chart's geometry ------------------------------------------------------------------------
def test_no_chart_without_a_rated_game() -> None:
    assert rating_chart([]) is None
    assert rating_chart([1500]) is None


def test_the_chart_spans_the_plot() -> None:
    chart = rating_chart([1500, 1520, 1480, 1530], [None, 1, 2, 3], width=400, height=100)
    assert chart is not None
    assert chart.games == 3 and chart.markers
    assert (chart.low, chart.high) == (1480, 1530)
    ys = [float(p.y) for p in chart.points]
    xs = [float(p.x) for p in chart.points]
    assert ys[2] == float(chart.bottom) and ys[3] == float(chart.top)
    assert xs[0] == float(chart.left) and xs[-1] == float(chart.right)
    assert chart.last.rating == 1530 and chart.last.game_id == 3
    assert chart.polyline == " ".join(f"{p.x},{p.y}" for p in chart.points)


def test_a_flat_history_sits_in_the_middle() -> None:
    chart = rating_chart([1500, 1500])
    assert chart is not None
    assert (chart.low_label, chart.high_label) == (1490, 1510)
    middle = (float(chart.top) + float(chart.bottom)) / 2
    assert [float(p.y) for p in chart.points] == pytest.approx([middle, middle])


def test_long_histories_drop_the_markers_but_keep_every_point() -> None:
    values = [1500 + (i % 7) * 3 for i in range(MAX_MARKERS + 10)]
    chart = rating_chart(values)
    assert chart is not None and not chart.markers
    assert len(chart.polyline.split()) == len(values)


def test_game_ids_must_match_the_ratings() -> None:
    with pytest.raises(ValueError, match="game ids"):
        rating_chart([1500, 1510], [None])


def test_coordinates_stay_numbers_in_every_language() -> None:
    chart = rating_chart([1500.0, 1512.345, 1498.7], [None, 1, 2])
    with translation.override("de"):
        html = render_to_string(
            "tournaments/ratings/_chart.html", {"chart": chart, "label": "Keltis", "kind": "k"}
        )
    svg = ET.fromstring(re.search(r"<svg\b.*?</svg>", html, flags=re.S).group(0))  # type: ignore[union-attr]
    line = svg.find(f"{SVG}polyline")
    assert line is not None
    for pair in line.get("points", "").split():
        assert re.fullmatch(r"\d+(\.\d)?,\d+(\.\d)?", pair), pair
