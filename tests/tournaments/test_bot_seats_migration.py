"""The migrations of issue 17 carry existing tournaments over: every table of a round names its
entrants (a game's seats in order, a bye's entrant), and migrating back restores the user bye."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("tournaments", "0002_ordering_by_column")]
AFTER = [("tournaments", "0005_bye_is_an_entrant")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    """Migrate tournaments to ``targets``; the models as they are then (other apps: latest,
    but for those built on tournaments, such as friends, whose migrations need a later one)."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    loader = MigrationExecutor(connection).loader
    graph = loader.graph
    nodes = [
        node
        for node in graph.leaf_nodes()
        if node[0] != "tournaments"
        and not any(
            app == "tournaments" and (app, name) not in graph.forwards_plan(targets[0])
            for app, name in graph.forwards_plan(node)
        )
    ]
    return loader.project_state([*nodes, *targets]).apps


@pytest.fixture
def latest_schema_afterwards() -> Iterator[None]:
    """Every app migrated to its latest again, whatever the test left: the tests after it use
    the same database (friends and later tournaments migrations were taken back with 0002)."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("latest_schema_afterwards")
def test_old_tables_name_their_entrants_after_the_migration() -> None:
    apps = migrate(BEFORE)
    User = apps.get_model("accounts", "User")
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    Tournament = apps.get_model("tournaments", "Tournament")
    TournamentPlayer = apps.get_model("tournaments", "TournamentPlayer")
    Round = apps.get_model("tournaments", "Round")
    TournamentGame = apps.get_model("tournaments", "TournamentGame")
    now = timezone.now()
    anna, bela, cili = (
        User.objects.create(username=name, email=f"{name}@example.test") for name in "abc"
    )
    tournament = Tournament.objects.create(
        name="Old cup", kind="keltis", format="swiss", signup_until=now, status="running"
    )
    entries = {
        user.pk: TournamentPlayer.objects.create(tournament=tournament, user=user).pk
        for user in (anna, bela, cili)
    }
    round_ = Round.objects.create(tournament=tournament, number=1, deadline=now)
    game = Game.objects.create(kind="keltis", player_count=2, setup={}, status="running")
    Seat.objects.create(game=game, index=0, user=bela)
    Seat.objects.create(game=game, index=1, user=anna)
    table = TournamentGame.objects.create(round=round_, game=game)
    bye = TournamentGame.objects.create(round=round_, bye=cili)

    apps = migrate(AFTER)
    TournamentGame = apps.get_model("tournaments", "TournamentGame")
    assert TournamentGame.objects.get(pk=table.pk).entries == [entries[bela.pk], entries[anna.pk]]
    assert TournamentGame.objects.get(pk=bye.pk).bye_id == entries[cili.pk]

    apps = migrate(BEFORE)  # and back: the bye is the user again
    TournamentGame = apps.get_model("tournaments", "TournamentGame")
    assert TournamentGame.objects.get(pk=bye.pk).bye_id == cili.pk
