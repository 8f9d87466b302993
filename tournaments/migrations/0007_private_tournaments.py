"""Private tournaments (issue 28): not listed, seen by their entrants, organiser and staff, and
signed up for by a secret link. Existing tournaments stay public, with no link."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_clubs"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="join_secret",
            field=models.CharField(blank=True, default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="tournament",
            name="private",
            field=models.BooleanField(default=False, verbose_name="private tournament"),
        ),
    ]
