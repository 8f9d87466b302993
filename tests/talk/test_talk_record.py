"""The table talk in a finished game's downloaded record: only when every author of a message
not hidden by staff agreed (User.talk_in_records); hidden ones never; no record before the end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from api import tokens
from api.models import Scope
from games.engine.records import read_record
from games.models import Game, GameStatus
from games.services import game_create_seated
from talk import services
from talk.models import Message
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db


def finished_with_talk(make_user: Any) -> tuple[Game, Any, Any]:
    anna = make_user("anna", display_name="Anna", talk_in_records=True)
    bela = make_user("bela", display_name="Béla", talk_in_records=True)
    game = game_create_seated(kind="keltis", seats=[anna, bela])
    services.message_post(game_id=game.pk, user=anna, text="Good luck!")
    services.message_post(game_id=game.pk, user=bela, text="You too")
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    game.refresh_from_db()
    return game, anna, bela


def downloaded(game: Game, user: Any) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("game_export", args=[game.pk]))
    assert response.status_code == 200
    return json.loads(response.content)


def test_every_author_agreed_the_record_holds_the_talk(make_user: Any) -> None:
    game, anna, _bela = finished_with_talk(make_user)
    record = downloaded(game, anna)
    assert [(t["author"], t["text"], t["seq"]) for t in record["talk"]] == [
        ("Anna", "Good luck!", 0), ("Béla", "You too", 0),
    ]  # fmt: skip
    assert set(record["talk"][0]) == {"seq", "author", "created_at", "text"}
    read_record(record)  # still a record the engine replays
    secret = tokens.token_create(user=anna, name="t", scopes=[Scope.READ]).secret
    assert (
        ApiClient(secret).get(f"/api/v1/games/{game.pk}/record/").json()["talk"] == (record["talk"])
    )


def test_one_author_who_did_not_agree_leaves_the_talk_out(make_user: Any) -> None:
    game, anna, bela = finished_with_talk(make_user)
    bela.talk_in_records = False
    bela.save()
    assert "talk" not in downloaded(game, anna)
    secret = tokens.token_create(user=anna, name="t", scopes=[Scope.READ]).secret
    assert "talk" not in ApiClient(secret).get(f"/api/v1/games/{game.pk}/record/").json()


def test_a_hidden_message_is_never_in_it_nor_counts_its_author(make_user: Any) -> None:
    game, anna, bela = finished_with_talk(make_user)
    carl = make_user("carl", talk_in_records=False)
    game.seats.filter(user=bela).update(user=carl)  # carl wrote, then was hidden
    hidden = Message.objects.create(game=game, author=carl, seq=game.seq, text="nasty")
    services.message_hide(message_id=hidden.pk, staff=make_user("staff", is_staff=True))
    talk = downloaded(game, anna)["talk"]
    assert "nasty" not in json.dumps(talk) and len(talk) == 2


def test_no_record_while_the_game_runs(make_user: Any) -> None:
    anna = make_user("anna", talk_in_records=True)
    game = game_create_seated(kind="keltis", seats=[anna, "easy"])
    services.message_post(game_id=game.pk, user=anna, text="hi")
    client = Client()
    client.force_login(anna)
    assert client.get(reverse("game_export", args=[game.pk])).status_code == 403
