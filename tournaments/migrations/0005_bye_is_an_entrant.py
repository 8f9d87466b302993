"""A bye names its entrant (a person or a bot), no longer a user; entrants are a person or a
bot."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0004_tables_name_entrants"),
    ]

    operations = [
        migrations.RemoveField(model_name="tournamentgame", name="bye"),
        migrations.RenameField(model_name="tournamentgame", old_name="bye_entry", new_name="bye"),
        migrations.AlterField(
            model_name="tournamentgame",
            name="bye",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                related_name="byes", to="tournaments.tournamentplayer",
            ),
        ),
        migrations.AddConstraint(
            model_name="tournamentgame",
            constraint=models.CheckConstraint(
                condition=models.Q(("game__isnull", False), ("bye__isnull", False), _connector="OR"),
                name="table_game_or_bye",
            ),
        ),
        migrations.AddConstraint(
            model_name="tournamentplayer",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("user__isnull", False), ("bot", "")),
                    models.Q(
                        ("user__isnull", True), models.Q(("bot", ""), _negated=True),
                        ("bot_number__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="tournament_entry_person_or_bot",
            ),
        ),
    ]
