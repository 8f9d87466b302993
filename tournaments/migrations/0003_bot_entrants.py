"""Bot seats in leagues and tournaments (issue 17): a league's bot level for short tables,
bot entrants of tournaments, and a round's tables naming their entrants (a bye, a game's seats
in order) instead of users. Three steps: add, copy the old tables over, drop the user bye."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

BOT_LEVELS = [("easy", "easy bot"), ("normal", "normal bot"), ("strong", "strong bot")]


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0002_ordering_by_column"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # added again at the end of 0005, once every bye names its entrant (and, going back,
        # at the end of this migration's reversal, once every bye names its user again)
        migrations.RemoveConstraint(model_name="tournamentgame", name="table_game_or_bye"),
        migrations.AddField(
            model_name="league",
            name="bot_level",
            field=models.CharField(
                blank=True, choices=BOT_LEVELS, default="", max_length=10,
                verbose_name="bots at short tables",
            ),
        ),
        migrations.AlterField(
            model_name="tournamentplayer",
            name="user",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                related_name="tournament_entries", to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="tournamentplayer",
            name="bot",
            field=models.CharField(blank=True, choices=BOT_LEVELS, default="", max_length=10),
        ),
        migrations.AddField(
            model_name="tournamentplayer",
            name="bot_number",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="tournamentgame",
            name="entries",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="tournamentgame",
            name="bye_entry",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                related_name="+", to="tournaments.tournamentplayer",
            ),
        ),
    ]
