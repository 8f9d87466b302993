"""The engine's refusals reach the player in their language, parameters included."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from games.engine.errors import MESSAGES
from games.error_messages import ENGINE_TEXTS, engine_error_text
from games.models import Event
from games.services import game_create, game_join
from tests.i18n.catalogues import SHIPPED


def test_every_engine_message_id_has_site_wording() -> None:
    assert set(ENGINE_TEXTS) == set(MESSAGES)


@pytest.mark.parametrize("language", SHIPPED)
def test_parameters_are_worded_too(language: str) -> None:
    params = {"colour": "red", "value": 3, "last": 7}
    with translation.override(language):
        text = engine_error_text("column_ascending", params)
        red = translation.gettext("red")
    assert red != "red" and red in text and "red" not in text.split()
    assert "3" in text and "7" in text
    with translation.override(language):
        card = engine_error_text("card_not_in_hand", {"card": "g5"})
        green = translation.gettext("green")
    assert green in card and "g5" not in card


def test_an_unknown_message_id_falls_back_to_the_engines_english() -> None:
    assert engine_error_text("no_such_id", {}) == "no_such_id"


@pytest.mark.django_db
@pytest.mark.parametrize("language", SHIPPED)
def test_an_illegal_move_on_the_page_is_refused_in_the_players_language(
    client: Client, language: str
) -> None:
    anna = User.objects.create_user(
        username="anna", email="anna@example.test", password="a long pass phrase",
        language=language,
    )
    bela = User.objects.create_user(
        username="bela", email="bela@example.test", password="a long pass phrase"
    )
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    client.force_login(anna)
    response = client.post(f"/games/{game.pk}/act/", {"action": "draw deck", "seq": "0"},
                           follow=True)
    [message] = [str(m) for m in response.context["messages"]]
    with translation.override(language):
        expected = str(ENGINE_TEXTS["must_play"])
    assert message == expected != MESSAGES["must_play"]
    assert not Event.objects.filter(game=game).exists()
