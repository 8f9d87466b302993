"""User.display_name_skeleton and display_name_folded_skeleton: the keys under which display
names are unique (accounts.display_names), filled for the players there are. Names stored
before the rules are tidied (no invisible or direction characters, single spaces), and of two
that read alike the newer is numbered ("Alice 2"); the next migration makes the keys unique."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from accounts.services import display_name_keys_refresh

    display_name_keys_refresh(user_model=apps.get_model("accounts", "User"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_vacations_end"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_name_folded_skeleton",
            field=models.TextField(blank=True, db_default="", default="", editable=False),
        ),
        migrations.AddField(
            model_name="user",
            name="display_name_skeleton",
            field=models.TextField(blank=True, db_default="", default="", editable=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
