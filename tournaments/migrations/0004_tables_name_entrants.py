"""Copy the tables of existing rounds over: a game's entrants in seat order, a bye's entrant."""

from django.db import migrations


def forwards(apps, schema_editor):
    TournamentGame = apps.get_model("tournaments", "TournamentGame")
    TournamentPlayer = apps.get_model("tournaments", "TournamentPlayer")
    Seat = apps.get_model("games", "Seat")
    for table in TournamentGame.objects.select_related("round").iterator():
        entry = dict(
            TournamentPlayer.objects.filter(tournament_id=table.round.tournament_id).values_list(
                "user_id", "pk"
            )
        )
        if table.game_id is not None:
            users = Seat.objects.filter(game_id=table.game_id).order_by("index")
            table.entries = [entry[u] for u in users.values_list("user_id", flat=True)]
        else:
            table.bye_entry_id = entry[table.bye_id]
        table.save(update_fields=["entries", "bye_entry"])


def backwards(apps, schema_editor):
    """Back to byes of users: bot entrants had no place before, so they are deleted (and their
    byes with them)."""
    TournamentGame = apps.get_model("tournaments", "TournamentGame")
    TournamentPlayer = apps.get_model("tournaments", "TournamentPlayer")
    TournamentPlayer.objects.filter(user__isnull=True).delete()
    for table in TournamentGame.objects.filter(bye_entry__isnull=False).select_related(
        "bye_entry"
    ):
        table.bye_id = table.bye_entry.user_id
        table.save(update_fields=["bye"])


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0003_bot_entrants"),
        ("games", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
