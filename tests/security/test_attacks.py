"""What a player could try against the site: acting for another seat, acting in a finished
game, replaying or forging an emailed link, sending actions that are not legal or not well
formed, and reading another player's hand. Each is refused and stores nothing."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse

from games import presenters
from games.models import Event, Game, GameStatus
from games.state import engine_state
from notifications import links
from tests.games.test_play_pages import (
    act_url,
    cards_markup,
    detail_url,
    hand_section,
    play,
    two_player_game,
)

pytestmark = pytest.mark.django_db


def events(game: Game) -> int:
    return Event.objects.filter(game=game).count()


def link_path(game: Game, action: str | None = None) -> str:
    """A genuine emailed link for the seat to move's next step."""
    game.refresh_from_db()
    action = action or engine_state(game).legal()[0]
    return links.ActionLink(game.pk, game.to_move, game.turn_seq, game.seq, action).path()


def token_of(path: str) -> str:
    return path.split("/")[2]


def reencode(token: str, change: dict[int, Any]) -> str:
    """The token with payload fields changed, re-encoded without the key: the old signature."""
    payload, rest = token.split(":", 1)
    compressed = payload.startswith(".")
    raw = signing.b64_decode(payload.lstrip(".").encode())
    values = json.loads(zlib.decompress(raw) if compressed else raw)
    for index, value in change.items():
        values[index] = value
    data = json.dumps(values, separators=(",", ":")).encode()
    data = zlib.compress(data) if compressed else data
    encoded = signing.b64_encode(data).decode()
    return f"{'.' if compressed else ''}{encoded}:{rest}"


# -- acting for another seat ----------------------------------------------------------------
def test_acting_for_another_seat_on_the_game_page_is_refused(
    client: Client, make_user: Any
) -> None:
    game, _, bela = two_player_game(make_user)
    assert game.to_move == 0
    action = engine_state(game).legal()[0]
    client.force_login(bela)  # seat 1, sending seat 0's move (and naming seat 0, ignored)
    for extra in ({}, {"seat": "0"}, {"seat": "0", "user": str(game.created_by_id)}):
        response = client.post(act_url(game), {"action": action, "seq": "0", **extra})
        assert response.status_code in (303, 400, 403)
    assert events(game) == 0
    game.refresh_from_db()
    assert game.seq == 0


def test_an_email_link_for_the_seat_to_move_does_not_act_for_the_other(make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    action = engine_state(game).legal()[0]
    forged = links.ActionLink(game.pk, 1, game.turn_seq, game.seq, action).token()
    genuine = token_of(link_path(game, action))
    # the seat of a genuine token changed without the key
    for token in (reencode(genuine, {1: 1}), forged):
        response = Client().post(reverse("email_action", args=[token]))
        assert response.status_code in (400, 410)
    assert events(game) == 0


# -- a finished game ------------------------------------------------------------------------
def test_acting_in_a_finished_game_is_refused(client: Client, make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    game = play(game, [anna, bela])
    assert game.status == GameStatus.FINISHED
    before = events(game)
    for user in (anna, bela):
        client.force_login(user)
        for action in ("draw deck", "discard r1", "pass"):
            client.post(act_url(game), {"action": action, "seq": str(game.seq)})
    path = links.ActionLink(game.pk, game.to_move or 0, game.turn_seq, game.seq, "pass").path()
    assert Client().post(path).status_code == 410
    assert events(game) == before


# -- emailed links ---------------------------------------------------------------------------
def test_replaying_a_used_link_is_refused(make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    path = link_path(game)
    assert Client().post(path).status_code == 200
    assert events(game) == 1
    for _ in range(3):
        assert Client().post(path).status_code == 410
    assert events(game) == 1


def test_a_tampered_signature_is_refused(make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    token = token_of(link_path(game))
    payload, stamp, signature = token.rsplit(":", 2)
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    for bad in (
        f"{payload}:{stamp}:{flipped}",
        f"{payload}:{stamp}:",
        f"{payload}:{stamp}",
        f"{payload}:{signing.b62_encode(signing.b62_decode(stamp) + 1)}:{signature}",
        links.sign(links.UNSUBSCRIBE, [game.pk, 0, 0, 0, "pass"]),  # another purpose's key
    ):
        for method in ("get", "post"):
            response = getattr(Client(), method)(reverse("email_action", args=[bad]))
            assert response.status_code == 400
    assert events(game) == 0


def test_a_changed_sequence_number_is_refused(make_user: Any) -> None:
    game, anna, bela = two_player_game(make_user)
    old = token_of(link_path(game))  # made at seq 0
    assert reencode(old, {}) == old  # the re-encoding itself is faithful
    play(game, [anna, bela], actions=1)
    game.refresh_from_db()
    # the old link moved to the present step (seq, and turn_seq too) without the key
    for change in ({3: game.seq}, {2: game.turn_seq, 3: game.seq}):
        response = Client().post(reverse("email_action", args=[reencode(old, change)]))
        assert response.status_code == 400
    assert events(game) == 1


# -- actions that are not legal or not well formed ------------------------------------------
BAD_ACTIONS = [
    "draw deck",  # not legal before playing a card
    "discard zz9",
    "play r1 r2",
    "lay",
    "x" * 5000,
    "discard r1\x00",
    "<script>alert(1)</script>",
    "discard r1; draw deck",
    "\u202ediscard",
]


def test_illegal_or_malformed_actions_on_the_game_page_store_nothing(
    client: Client, make_user: Any
) -> None:
    game, anna, _ = two_player_game(make_user)
    client.force_login(anna)
    for action in BAD_ACTIONS:
        response = client.post(act_url(game), {"action": action, "seq": "0"})
        assert response.status_code in (303, 400)
    for seq in ("-1", "99", "0x0", "1e3", " "):
        client.post(act_url(game), {"action": engine_state(game).legal()[0], "seq": seq})
    response = client.post(act_url(game), {"action": ["draw deck", "pass"], "seq": ["0", "1"]})
    assert response.status_code in (303, 400)
    assert events(game) == 0
    # and the rejected text is never echoed as markup
    html = client.get(detail_url(game)).content.decode()
    assert "<script>alert(1)</script>" not in html


def test_illegal_actions_in_signed_links_store_nothing(make_user: Any) -> None:
    game, _, _ = two_player_game(make_user)
    for action in BAD_ACTIONS:
        response = Client().post(link_path(game, action))
        assert response.status_code == 400
    # well signed but not of the link's shape
    for payload in ([game.pk, 0, 0, 0], [game.pk, "0", 0, 0, "pass"], [game.pk, 0, 0, 0, 1], {}):
        token = links.sign(links.ACTION, payload)  # type: ignore[arg-type]
        assert Client().post(reverse("email_action", args=[token])).status_code == 400
    assert events(game) == 0


# -- another player's hand --------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_another_players_hand_is_on_no_page(client: Client, make_user: Any, kind: str) -> None:
    game, anna, bela = two_player_game(make_user, kind)
    game = play(game, [anna, bela], actions=5)
    assert game.status == GameStatus.RUNNING
    hands = [p["hand"] for p in engine_state(game).view(None)["players"]]
    for seat, user in enumerate([anna, bela]):
        other = hands[1 - seat]
        client.force_login(user)
        own_page = client.get(detail_url(game)).content.decode()
        own = hand_section(own_page, seat)
        assert own is not None and cards_markup(hands[seat]) in own  # the check sees real markup
        names = [presenters.card_name(card) for card in other]
        pages = {
            "game": own_page,
            "history": client.get(reverse("game_history", args=[game.pk])).content.decode(),
        }
        steps = range(0, game.seq + 1)
        for step in steps:
            url = reverse("game_history", args=[game.pk]) + f"?step={step}"
            pages[f"history step {step}"] = client.get(url).content.decode()
        export = client.get(reverse("game_export", args=[game.pk]))
        assert export.status_code == 403
        pages["export"] = export.content.decode()
        for url in (
            "/admin/",
            "/admin/games/game/",
            f"/admin/games/game/{game.pk}/change/",
            "/admin/games/event/",
            "/admin/games/snapshot/",
        ):
            response = client.get(url)
            assert response.status_code in (302, 403, 404), url
            if response.status_code == 302:
                assert response["Location"].startswith("/admin/login/")
            pages[url] = response.content.decode()
        for where, html in pages.items():
            assert cards_markup(other) not in html, where
            assert " ".join(other) not in html, where
            assert json.dumps(other) not in html, where
            assert ", ".join(names) not in html, where
            assert "".join(names) not in html, where
            assert f'data-hand-seat="{1 - seat}"' not in html, where
