"""Every page renders in every shipped language with no message left in English.

The check: for each page and language, none of the site's English messages whose translation
differs from the English appears in the page. A message marked for translation but missing
from a catalogue (or a catalogue not compiled) shows in English, and fails here.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from functools import cache
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts.models import User
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create
from games.state import engine_state
from tests.i18n.catalogues import PLACEHOLDER, SHIPPED, TAG, live_entries
from tournaments import leagues, rounds

pytestmark = pytest.mark.django_db


@cache
def english_leftovers(language: str) -> tuple[str, ...]:
    """English messages that must not appear on a page in ``language``: whole sentences or
    phrases (two words or more) without placeholders, whose translation is different."""
    found = []
    for entry in live_entries(language):
        text = entry.msgid
        if entry.msgid_plural or PLACEHOLDER.search(text) or TAG.search(text) or "\n" in text:
            continue
        if len(text) < 12 or " " not in text or entry.msgstr.strip() == text:
            continue
        found.append(text)
    return tuple(found)


def page_text(content: bytes) -> str:
    """The text a reader sees and the attribute values (titles, labels), unescaped."""
    page = content.decode()
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    attributes = " ".join(re.findall(r'(?:title|aria-label|placeholder|alt|value)="([^"]*)"', page))
    text = re.sub(r"<[^>]+>", " ", page)
    return html.unescape(" ".join((text + " " + attributes).split()))


def play_some(game: Game, users: dict[int, User], actions: int) -> None:
    bot = RandomBot(3)
    for _ in range(actions):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            return
        seat = game.to_move
        action_submit(
            game_id=game.pk, seat=seat, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users.get(seat),
        )


@pytest.fixture
def site(db: None) -> dict[str, Any]:
    """A player with a running board game and card game against bots, a finished game, a
    league and a tournament: enough for every page to show its texts."""
    player = User.objects.create_user(
        username="jatekos", email="p@example.test", password="a long pass phrase",
        display_name="Jatekos",
    )
    board = game_create(creator=player, kind="keltis", player_count=3, bots=["greedy", "random"])
    cards = game_create(creator=player, kind="keltis-cards", player_count=2, bots=["greedy"])
    play_some(board, {0: player}, 12)
    play_some(cards, {0: player}, 12)
    finished = game_create(creator=player, kind="keltis-cards", player_count=2, bots=["random"])
    play_some(finished, {0: player}, 2000)
    finished.refresh_from_db()
    assert finished.status == GameStatus.FINISHED
    game_create(creator=player, kind="keltis", player_count=4)  # open, waiting in the lobby
    league = leagues.league_create(name="Liga", kind="keltis")
    tournament = rounds.tournament_create(
        creator=player, name="Turniej", kind="keltis", format="swiss",
        signup_until=timezone.now() + dt.timedelta(days=3),
    )
    return {
        "player": player, "board": board, "cards": cards, "finished": finished,
        "league": league, "tournament": tournament,
    }


def pages(site: dict[str, Any]) -> list[str]:
    board, cards, finished = site["board"], site["cards"], site["finished"]
    return [
        "/",
        "/games/",
        "/games/new/",
        "/games/mine/",
        f"/games/{board.pk}/",
        f"/games/{cards.pk}/",
        f"/games/{finished.pk}/",
        f"/games/{board.pk}/history/",
        f"/games/{finished.pk}/history/",
        f"/players/{site['player'].username}/",
        "/accounts/settings/",
        "/settings/email/",
        "/settings/feeds/",
        "/accounts/api/",
        "/leagues/",
        f"/leagues/{site['league'].pk}/",
        "/tournaments/",
        "/tournaments/new/",
        f"/tournaments/{site['tournament'].pk}/",
        "/ratings/keltis/",
        "/ratings/keltis-cards/",
        "/rules/",
        "/rules/keltis/",
        "/rules/keltis-cards/",
    ]


ANONYMOUS_PAGES = ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]


def assert_translated(response: Any, language: str, path: str) -> None:
    assert response.status_code == 200, path
    assert f'<html lang="{language}">' in response.content.decode(), path
    text = page_text(response.content)
    left = [message for message in english_leftovers(language) if message in text]
    assert not left, f"{path} in {language} shows English: {left}"


@pytest.mark.parametrize("language", SHIPPED)
def test_every_page_of_a_player_is_in_their_language(
    client: Client, site: dict[str, Any], language: str
) -> None:
    player = site["player"]
    player.language = language
    player.save(update_fields=["language"])
    client.force_login(player)
    for path in pages(site):
        assert_translated(client.get(path), language, path)


@pytest.mark.parametrize("language", SHIPPED)
def test_pages_for_visitors_follow_the_browser(client: Client, db: None, language: str) -> None:
    for path in ANONYMOUS_PAGES:
        response = client.get(path, headers={"accept-language": f"{language},en;q=0.5"})
        assert_translated(response, language, path)


@pytest.mark.parametrize("language", SHIPPED)
def test_the_allauth_pages_use_allauths_translations(
    client: Client, db: None, language: str
) -> None:
    """The password pages are allauth's, worded by its own catalogues; the login page speaks
    the site's words (its "Log in", not allauth's "Sign In": issue 32)."""
    response = client.get("/accounts/password/reset/", headers={"accept-language": language})
    with translation.override(language):
        reset, sign_in, log_in = (
            translation.gettext(text) for text in ("Password Reset", "Sign In", "Log in")
        )
    assert reset != "Password Reset"
    text = page_text(response.content)
    assert reset in text and "Password Reset" not in text

    login = client.get("/accounts/login/", headers={"accept-language": language}).content
    heading = re.search(rb"<h1[^>]*>(.*?)</h1>", login, flags=re.S)
    assert heading and page_text(heading.group(1)).strip() == log_in != "Log in"
    assert sign_in == log_in or sign_in not in page_text(login).replace(log_in, "")
    assert "Sign In" not in page_text(login)
