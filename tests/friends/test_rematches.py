"""Rematches (friends.rematches): offered by a player of a finished game, accepted by every
person of its table, then one new game with the seats rotated, the bots and the options kept;
refused for strangers, unfinished or cancelled games and tables that cannot sit together."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from django.urls import reverse

from accounts import blocks
from friends import rematches
from friends.models import Rematch, RematchStatus
from friends.rematches import (
    NoRematchOffered,
    NotAtTheTable,
    RematchClosed,
    RematchNotPossible,
)
from games.models import Game, GameStatus
from games.services import game_create_seated

pytestmark = pytest.mark.django_db


def finished(seats: list[Any], **kwargs: Any) -> Game:
    """A game of ``seats`` (users or bot levels) that has ended."""
    game = game_create_seated(kind="keltis", seats=seats, **kwargs)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    game.refresh_from_db()
    return game


@pytest.fixture
def trio(make_user: Any) -> list[Any]:
    names = {"anna": "Anna", "bela": "Béla", "cecil": "Cecil"}
    return [make_user(username, display_name=name) for username, name in names.items()]


def test_every_acceptance_then_one_new_game_rotated_with_bots_and_options_kept(
    trio: list[Any],
) -> None:
    anna, bela, cecil = trio
    game = finished(
        [anna, "strong", bela, cecil],
        options={"no_redraw_own_discard": True},
        days_per_move=5,
        bank_increment_hours=12,
        bank_cap_hours=48,
    )
    rematch = rematches.rematch_offer(game_id=game.pk, user=bela)
    assert rematch.status == RematchStatus.OFFERED and rematch.offered_by == bela
    assert list(rematch.accepted.all()) == [bela]  # the offerer counts as accepted

    state = rematches.rematch_state(game, cecil)
    assert state.offered_by == "Béla" and state.accepted == ["Béla"]
    assert state.waiting == ["Anna", "Cecil"] and state.may_answer and not state.may_offer
    assert not rematches.rematch_state(game, bela).may_answer

    rematches.rematch_accept(game_id=game.pk, user=anna)
    assert Rematch.objects.get(game=game).new_game is None  # Cecil has not answered
    rematch = rematches.rematch_reply(game_id=game.pk, user=cecil)  # a yes by reply accepts
    assert rematch.status == RematchStatus.STARTED
    new = Game.objects.get(pk=rematch.new_game_id)
    assert new.status == GameStatus.RUNNING and new.kind == "keltis"
    seats = list(new.seats.order_by("index"))
    assert [(s.user, s.bot) for s in seats] == [
        (None, "strong"), (bela, ""), (cecil, ""), (anna, ""),
    ]  # fmt: skip
    assert new.options == {"no_redraw_own_discard": True}
    assert (new.days_per_move, new.bank_increment_hours, new.bank_cap_hours) == (5, 12, 48)
    state = rematches.rematch_state(game, anna)
    assert state.new_game_id == new.pk and state.waiting == [] and not state.may_answer


def test_rated_and_private_are_kept(make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    for rated, private in [(True, True), (False, False)]:
        game = finished([anna, bela], rated=rated, private=private)
        assert game.rated is rated
        rematches.rematch_offer(game_id=game.pk, user=anna)
        new = rematches.rematch_accept(game_id=game.pk, user=bela).new_game
        assert new is not None and (new.rated, new.private) == (rated, private)
        assert [s.user for s in new.seats.order_by("index")] == [bela, anna]


def test_a_table_of_one_person_and_bots_starts_at_the_offer(make_user: Any) -> None:
    anna = make_user("anna")
    game = finished([anna, "easy", "normal"])
    rematch = rematches.rematch_offer(game_id=game.pk, user=anna)
    assert rematch.status == RematchStatus.STARTED
    assert [(s.user, s.bot) for s in rematch.new_game.seats.order_by("index")] == [
        (None, "easy"), (None, "normal"), (anna, ""),
    ]  # fmt: skip


def test_a_second_offer_accepts_and_a_repeated_yes_changes_nothing(trio: list[Any]) -> None:
    anna, bela, cecil = trio
    game = finished([anna, bela, cecil])
    rematches.rematch_offer(game_id=game.pk, user=anna)
    rematches.rematch_offer(game_id=game.pk, user=anna)
    rematch = rematches.rematch_offer(game_id=game.pk, user=bela)
    assert Rematch.objects.count() == 1 and rematch.offered_by == anna
    assert set(rematch.accepted.all()) == {anna, bela}
    assert rematch.status == RematchStatus.OFFERED


def test_a_decline_closes_it_for_everyone(trio: list[Any]) -> None:
    anna, bela, cecil = trio
    game = finished([anna, bela, cecil])
    with pytest.raises(NoRematchOffered):
        rematches.rematch_accept(game_id=game.pk, user=bela)
    with pytest.raises(NoRematchOffered):
        rematches.rematch_decline(game_id=game.pk, user=bela)
    rematches.rematch_offer(game_id=game.pk, user=anna)
    rematch = rematches.rematch_decline(game_id=game.pk, user=bela)
    assert rematch.status == RematchStatus.DECLINED and rematch.declined_by == bela
    state = rematches.rematch_state(game, cecil)
    assert state.declined_by == "Béla" and not state.may_answer and not state.may_offer
    for answer in (rematches.rematch_accept, rematches.rematch_reply, rematches.rematch_decline):
        with pytest.raises(RematchClosed) as raised:
            answer(game_id=game.pk, user=cecil)
        assert "Béla" in str(raised.value)
    assert Game.objects.count() == 1


def test_refused_for_strangers_unfinished_and_cancelled_games(trio: list[Any]) -> None:
    anna, bela, cecil = trio
    game = finished([anna, bela])
    with pytest.raises(NotAtTheTable):
        rematches.rematch_offer(game_id=game.pk, user=cecil)
    assert not rematches.rematch_state(game, cecil).may_offer
    assert rematches.rematch_state(game, anna).may_offer
    for status in (GameStatus.RUNNING, GameStatus.CANCELLED):
        Game.objects.filter(pk=game.pk).update(status=status)
        with pytest.raises(RematchNotPossible) as raised:
            rematches.rematch_offer(game_id=game.pk, user=anna)
        assert str(raised.value)
    assert not Rematch.objects.exists()


def test_refused_across_a_block_or_a_closed_account(trio: list[Any]) -> None:
    anna, bela, cecil = trio
    game = finished([anna, bela, cecil])
    blocks.block(blocker=cecil, blocked=bela)  # not the offerer's block: anyone's at the table
    with pytest.raises(RematchNotPossible):
        rematches.rematch_offer(game_id=game.pk, user=anna)
    assert not rematches.rematch_state(game, anna).may_offer
    blocks.unblock(blocker=cecil, blocked=bela)
    rematches.rematch_offer(game_id=game.pk, user=anna)
    cecil.is_active = False
    cecil.save()
    with pytest.raises(RematchNotPossible):  # checked at each answer too
        rematches.rematch_accept(game_id=game.pk, user=bela)
    assert Game.objects.count() == 1


def test_two_last_acceptances_make_one_game(trio: list[Any]) -> None:
    """Sequentially here (SQLite): the second "last" yes finds the rematch started, under the
    old game's lock, and makes no second game."""
    anna, bela, _ = trio
    game = finished([anna, bela])
    rematches.rematch_offer(game_id=game.pk, user=anna)
    first = rematches.rematch_accept(game_id=game.pk, user=bela)
    assert first.new_game_id is not None
    for user in (bela, anna):  # a retried or racing yes: the same game, no second one
        again = rematches.rematch_reply(game_id=game.pk, user=user)
        assert again.new_game_id == first.new_game_id
    assert Game.objects.count() == 2
    with pytest.raises(RematchClosed):  # nobody can decline a game that started
        rematches.rematch_decline(game_id=game.pk, user=anna)


def test_the_game_page_offers_and_answers(client: Any, trio: list[Any]) -> None:
    anna, bela, cecil = trio
    game = finished([anna, bela])
    page = reverse("game_detail", args=[game.pk])
    client.force_login(cecil)  # a watcher: no button
    assert "Offer a rematch" not in client.get(page).content.decode()
    assert client.get(reverse("rematch_offer", args=[game.pk])).status_code == 405
    response = client.post(reverse("rematch_offer", args=[game.pk]), follow=True)
    assert "Only the players of this game" in response.content.decode()
    client.force_login(anna)
    assert "Offer a rematch" in client.get(page).content.decode()
    response = client.post(reverse("rematch_offer", args=[game.pk]))
    assert response.status_code == 303 and response["Location"] == page
    client.force_login(bela)
    html = client.get(page).content.decode()
    assert "Anna offered a rematch: accepted by Anna; waiting for Béla." in html
    assert reverse("rematch_accept", args=[game.pk]) in html
    response = client.post(reverse("rematch_accept", args=[game.pk]), follow=True)
    new_game = Rematch.objects.get(game=game).new_game
    assert new_game is not None
    html = response.content.decode()
    assert "the rematch has started" in html
    assert reverse("game_detail", args=[new_game.pk]) in html


def test_the_decline_button_and_a_logged_out_post(client: Any, trio: list[Any]) -> None:
    anna, bela, _ = trio
    game = finished([anna, bela])
    response = client.post(reverse("rematch_offer", args=[game.pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not Rematch.objects.exists()
    rematches.rematch_offer(game_id=game.pk, user=anna)
    client.force_login(bela)
    response = client.post(reverse("rematch_decline", args=[game.pk]), follow=True)
    assert "You declined the rematch." in response.content.decode()
    client.force_login(anna)
    assert "Béla declined the rematch." in client.get(f"/games/{game.pk}/").content.decode()
    assert client.post(reverse("rematch_accept", args=[999999])).status_code == 404


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks are PostgreSQL's (CI's second run): on SQLite the sequential test stands in",
)
def test_racing_acceptances_make_one_game_on_postgresql(trio: list[Any]) -> None:
    """Two players' last yes at the same moment, each in its own connection: the old game's row
    lock makes them take turns, so exactly one new game starts (and none is lost)."""
    anna, bela, cecil = trio
    game = finished([anna, bela, cecil])
    rematches.rematch_offer(game_id=game.pk, user=anna)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def accept(user: Any) -> None:
        try:
            barrier.wait()
            rematches.rematch_accept(game_id=game.pk, user=user)
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=accept, args=(user,)) for user in (bela, cecil)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    rematch = Rematch.objects.get(game=game)
    assert rematch.status == RematchStatus.STARTED and rematch.new_game_id is not None
    assert Game.objects.count() == 2
