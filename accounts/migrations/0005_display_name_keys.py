"""User.display_name_skeleton and display_name_folded_skeleton: the keys under which display
names are unique (accounts.display_names), filled for the players there are. Names stored
before the rules are tidied (no invisible or direction characters, single spaces), and of two
that read alike the newer is numbered ("Alice 2"); the next migration makes the keys unique."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from accounts.display_names import settle

    User = apps.get_model("accounts", "User")
    users = {user.pk: user for user in User.objects.order_by("pk").only("pk", "display_name")}
    for pk, name, keys in settle((pk, user.display_name) for pk, user in users.items()):
        user = users[pk]
        user.display_name = name
        user.display_name_skeleton, user.display_name_folded_skeleton = keys
    User.objects.bulk_update(
        users.values(),
        ["display_name", "display_name_skeleton", "display_name_folded_skeleton"],
        batch_size=500,
    )


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
