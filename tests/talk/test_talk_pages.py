"""Table talk on the game page and its history: the panel, writing, refusals, escaping, links
only for old accounts, reports, mute, who reads it, hidden messages and blocked authors."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import blocks
from games.models import Game
from games.services import game_create_seated
from talk import services
from talk.models import Message, Mute, Report

pytestmark = pytest.mark.django_db


def table(make_user: Any, *, private: bool = False) -> tuple[Game, Any, Any]:
    anna, bela = make_user("anna", display_name="Anna"), make_user("bela", display_name="Béla")
    game = game_create_seated(kind="keltis", seats=[anna, bela], private=private)
    return game, anna, bela


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(client: Client, game: Game) -> str:
    response = client.get(reverse("game_detail", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def post(client: Client, game: Game, text: str) -> Any:
    return client.post(reverse("talk_post", args=[game.pk]), {"text": text})


def test_a_player_writes_and_the_other_reads_it_with_its_move(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    html = page(client_of(anna), game)
    assert 'id="talk"' in html and 'name="text"' in html and 'maxlength="500"' in html
    response = post(client_of(anna), game, "Good luck!\nHave fun")
    assert response.status_code == 303
    assert response["Location"] == reverse("game_detail", args=[game.pk]) + "#talk"
    [message] = Message.objects.all()
    assert (message.author, message.via, message.seq) == (anna, "page", game.seq)
    html = page(client_of(bela), game)
    assert "Good luck!<br>Have fun" in html and "Anna" in html
    assert f"after move {game.seq}" in html or "before the first move" in html
    assert reverse("talk_report", args=[message.pk]) in html  # another's message
    assert reverse("block_player", args=["anna"]) in html
    mine = page(client_of(anna), game)
    assert reverse("talk_report", args=[message.pk]) not in mine  # not one's own


def test_the_time_is_in_the_readers_time_zone(make_user: Any) -> None:
    game, anna, _bela = table(make_user)
    reader = make_user("tokyo", time_zone="Asia/Tokyo")
    services.message_post(game_id=game.pk, user=anna, text="hi")
    html = page(client_of(reader), game)
    assert "+09:00" in html  # the <time datetime> of the message, in the reader's zone


def test_a_refused_message_says_why_and_comes_back_to_its_box(make_user: Any) -> None:
    game, anna, _bela = table(make_user)
    client = client_of(anna)
    response = post(client, game, "bad\u202etext")
    assert response.status_code == 303 and not Message.objects.exists()
    html = page(client, game)
    assert "direction of the text" in html
    assert "bad\u202etext</textarea>" in html
    assert "bad\u202etext</textarea>" not in page(client, game)  # once only


def test_errors_are_in_the_players_language(make_user: Any) -> None:
    game, anna, _bela = table(make_user)
    anna.language = "de"
    anna.save()
    client = client_of(anna)
    post(client, game, "   ")
    html = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert "Schreib zuerst etwas." in html and "Write something first." not in html


def test_html_is_escaped_and_links_only_for_old_accounts(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    services.message_post(
        game_id=game.pk, user=anna, text="<script>alert(1)</script> https://example.org/x"
    )
    html = page(client_of(bela), game)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="https://example.org/x"' not in html  # a new account: plain text
    anna.date_joined = timezone.now() - timedelta(days=30)
    anna.save()
    html = page(client_of(bela), game)
    assert '<a href="https://example.org/x" rel="nofollow ugc noopener">' in html
    assert "&lt;script&gt;" in html


def test_report_once_with_a_reason(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    message = services.message_post(game_id=game.pk, user=anna, text="rude")
    client = client_of(bela)
    url = reverse("talk_report", args=[message.pk])
    assert client.get(url).status_code == 405
    response = client.post(url, {"reason": "insults"})
    assert response.status_code == 303 and response["Location"].endswith("#talk")
    client.post(url, {"reason": "again"})
    [report] = Report.objects.all()
    assert (report.reporter, report.reason) == (bela, "insults")
    client_of(anna).post(url)  # not one's own
    assert Report.objects.count() == 1


def test_mute_folds_the_panel_and_unmute_unfolds_it(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    services.message_post(game_id=game.pk, user=anna, text="chatty")
    client = client_of(bela)
    client.post(reverse("talk_mute", args=[game.pk]), {"muted": "1"})
    assert Mute.objects.filter(user=bela, game=game).exists()
    html = page(client, game)
    assert "You muted this table" in html and "chatty" not in html
    client.post(reverse("talk_mute", args=[game.pk]), {"muted": "0"})
    assert "chatty" in page(client, game)


def test_spectators_of_a_public_game_read_but_cannot_write(make_user: Any) -> None:
    game, anna, _bela = table(make_user)
    services.message_post(game_id=game.pk, user=anna, text="hello all")
    watcher = make_user("watcher")
    html = page(client_of(watcher), game)
    assert "hello all" in html and 'name="text"' not in html
    assert "Only the players of this table can write here." in html
    assert post(client_of(watcher), game, "me too").status_code == 303
    assert Message.objects.count() == 1
    assert "hello all" in page(Client(), game)  # a visitor too


def test_a_private_tables_talk_is_its_players_only(make_user: Any) -> None:
    game, anna, _bela = table(make_user, private=True)
    services.message_post(game_id=game.pk, user=anna, text="secret plan")
    stranger = client_of(make_user("stranger"))
    assert stranger.get(reverse("game_detail", args=[game.pk])).status_code == 404
    assert post(stranger, game, "let me in").status_code == 404
    history = stranger.get(reverse("game_history", args=[game.pk]))
    assert history.status_code == 404
    assert Message.objects.count() == 1


def test_hidden_by_staff_and_blocked_authors(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    staff = make_user("staff", is_staff=True)
    hidden = services.message_post(game_id=game.pk, user=anna, text="something nasty")
    services.message_post(game_id=game.pk, user=anna, text="sorry")
    services.message_hide(message_id=hidden.pk, staff=staff)
    html = page(client_of(bela), game)
    assert "hidden by staff" in html and "something nasty" not in html and "sorry" in html
    blocks.block(blocker=bela, blocked=anna)
    html = page(client_of(bela), game)
    assert "sorry" not in html


def test_a_closed_talk_has_no_box(make_user: Any) -> None:
    game, anna, _bela = table(make_user)
    Game.objects.filter(pk=game.pk).update(
        status="finished", finished_at=timezone.now() - timedelta(days=60)
    )
    html = page(client_of(anna), game)
    assert 'name="text"' not in html and "The talk at this table is closed." in html


def test_the_panel_shows_the_newest_hundred_and_links_the_history(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    Message.objects.bulk_create(
        Message(game=game, author=anna, seq=0, text=f"line {n:03d}") for n in range(105)
    )
    html = page(client_of(bela), game)
    assert "line 104" in html and "line 005" in html and "line 004" not in html
    assert "Older messages are in the history." in html


def test_the_history_shows_messages_at_their_place(make_user: Any) -> None:
    game, anna, bela = table(make_user)
    Message.objects.create(game=game, author=anna, seq=0, text="before anything")
    Message.objects.create(game=game, author=bela, seq=game.seq, text="<b>now</b>")
    html = client_of(bela).get(reverse("game_history", args=[game.pk])).content.decode()
    assert "before anything" in html and "&lt;b&gt;now&lt;/b&gt;" in html
    assert html.index("before anything") < html.index("&lt;b&gt;now")
    assert 'class="talk-row"' in html


def test_the_game_page_loads_talk_through_its_tag_only() -> None:
    """games must not import talk: the page loads the tag library, nothing more."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    game_html = (root / "templates" / "games" / "game.html").read_text()
    assert game_html.count("{% load talk_tags %}") == 1
    assert game_html.count("{% table_talk game %}") == 1
    for path in (root / "games").rglob("*.py"):
        assert "import talk" not in path.read_text() and "from talk" not in path.read_text()
