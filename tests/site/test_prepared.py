"""keltis_site.prepared: the action's reads compiled once give what their querysets give."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.forms.models import model_to_dict

from games.models import Game, Seat
from games.services import _GAME_LOCKED, _SEATS_WITH_USERS, game_create, game_join
from keltis_site.prepared import Prepared

pytestmark = pytest.mark.django_db


def started_game(make_user: Any) -> Game:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=3, bots=["random"])
    game_join(game_id=game.pk, user=bela)
    return Game.objects.get(pk=game.pk)


def test_the_locked_game_comes_with_its_snapshot_as_the_queryset_gives_it(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    game = started_game(make_user)
    with transaction.atomic():
        with django_assert_num_queries(1):
            [prepared] = _GAME_LOCKED.run(game.pk)
            snapshot = prepared.snapshot  # attached: no query of its own
        expected = Game.objects.select_related("snapshot").get(pk=game.pk)
    assert model_to_dict(prepared) == model_to_dict(expected)
    assert (prepared.created_at, prepared.chain_head) == (expected.created_at, expected.chain_head)
    assert (snapshot.seq, snapshot.data) == (expected.snapshot.seq, expected.snapshot.data)
    assert not prepared._state.adding
    with transaction.atomic():
        assert _GAME_LOCKED.run(999_999) == []


def test_the_seats_come_in_order_with_their_users(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    game = started_game(make_user)
    with django_assert_num_queries(1):
        seats = _SEATS_WITH_USERS.run(game.pk)
        users = [seat.user for seat in seats]  # attached, None for the bot's seat
    expected = list(Seat.objects.filter(game=game).select_related("user"))
    assert [model_to_dict(s) for s in seats] == [model_to_dict(s) for s in expected]
    assert [u and u.email for u in users] == [s.user and s.user.email for s in expected]
    assert users[1] is None  # the bot


def test_a_query_whose_value_is_not_one_parameter_is_refused(make_user: Any) -> None:
    """The value must be exactly one parameter of the SQL: here it is two."""
    with pytest.raises(ValueError):
        Prepared(lambda pk: Game.objects.filter(pk=pk, created_by_id=pk)).run(1)


def test_a_values_list_gives_its_rows(make_user: Any) -> None:
    game = started_game(make_user)
    prepared = Prepared(
        lambda pk: Seat.objects.filter(game_id=pk).order_by("index").values_list("index", "bot")
    )
    assert prepared.rows(game.pk) == [(0, ""), (1, "random"), (2, "")]
    with pytest.raises(ValueError):
        prepared.run(game.pk)


def test_the_prepared_writes_store_what_the_orm_would(make_user: Any) -> None:
    """The action's writes with their SQL written once: an event inserted as Event.save would
    (its id set, its hash chained), the snapshot moved on only where its seq is the one given,
    the game's columns set (a JSON document and an aware datetime included)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Event, Snapshot
    from keltis_site.prepared import PreparedUpdate

    game = started_game(make_user)
    head = game.chain_head
    event = Event(game=game, seq=game.seq + 1, seat=game.to_move, action="draw deck")
    event.save(prev_hash=head)
    assert event.pk is not None and not event._state.adding
    stored = Event.objects.get(pk=event.pk)
    assert model_to_dict(stored) == model_to_dict(event)
    assert (stored.prev_hash, stored.created_at) == (head, event.created_at)
    snapshot = PreparedUpdate(Snapshot, ["seq", "data"], where=["game", "seq"])
    assert snapshot.run([event.seq, {"moved": [1, "two"]}], [game.pk, game.seq + 5]) == 0
    assert snapshot.run([event.seq, {"moved": [1, "two"]}], [game.pk, game.seq]) == 1
    assert Snapshot.objects.get(game=game).data == {"moved": [1, "two"]}
    later = timezone.now() + timedelta(days=3)
    columns = PreparedUpdate(Game, ["seq", "deadline", "chain_head"], where=["id"])
    assert columns.run([event.seq, later, event.hash], [game.pk]) == 1
    game.refresh_from_db()
    assert (game.seq, game.deadline, game.chain_head) == (event.seq, later, event.hash)


def test_a_model_whose_database_makes_a_value_is_refused() -> None:
    """An insert of every column would overwrite what the database makes (here a default of
    the database's own): such a model keeps Model.save."""
    from accounts.models import User
    from keltis_site.prepared import PreparedInsert

    with pytest.raises(ValueError):
        PreparedInsert(User)


def test_a_query_of_two_values_takes_each_in_its_place(make_user: Any) -> None:
    game = started_game(make_user)
    prepared = Prepared(
        lambda pk, index: Seat.objects.filter(game_id=pk, index=index).values_list("index", "bot")
    )
    assert prepared.rows(game.pk, 1) == [(1, "random")]
    assert prepared.rows(game.pk, 2) == [(2, "")]
    with pytest.raises(ValueError):
        prepared.rows(game.pk)  # a value short


def test_annotations_are_set_on_the_objects_as_the_queryset_sets_them(make_user: Any) -> None:
    from django.db.models import Count, F, Window

    started_game(make_user)
    started_game(make_user)

    def build() -> Any:
        return (
            Game.objects.annotate(
                seated=Count("seats"),
                newest=Window(Count("pk"), partition_by=[F("kind")]),
            )
            .select_related("created_by")
            .order_by("-pk")
        )

    prepared = Prepared(build).run()
    expected = list(build())
    assert [(g.pk, g.seated, g.newest) for g in prepared] == [
        (g.pk, g.seated, g.newest) for g in expected
    ]
    assert [g.created_by.username for g in prepared] == [g.created_by.username for g in expected]


def test_a_prepared_count_counts_what_the_queryset_counts(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    from django.db.models import F, Window
    from django.db.models.functions import RowNumber

    from keltis_site.prepared import PreparedCount

    def first_of_each_creator() -> Any:  # a filter on a window: Django wraps it in a subquery
        rank = Window(RowNumber(), partition_by=[F("created_by")], order_by=F("pk").desc())
        return Game.objects.annotate(rank=rank).filter(rank=1).order_by("-pk")

    counted = PreparedCount(first_of_each_creator)
    assert counted.run() == 0
    anna = make_user()
    for _ in range(3):
        game_create(creator=anna, kind="keltis", player_count=2)
    game_create(creator=make_user(), kind="keltis", player_count=2)
    expected = first_of_each_creator().count()
    with django_assert_num_queries(1):
        assert counted.run() == expected == 2
    assert PreparedCount(lambda: Game.objects.all()).run() == 4
