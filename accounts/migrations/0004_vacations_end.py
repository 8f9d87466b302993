"""User.vacations_end: the end of the player's latest vacation, filled from the vacations."""

from django.db import migrations, models


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    Vacation = apps.get_model("accounts", "Vacation")
    latest = Vacation.objects.filter(user_id=models.OuterRef("pk")).order_by("-ends_at")
    User.objects.filter(pk__in=Vacation.objects.values("user_id")).update(
        vacations_end=models.Subquery(latest.values("ends_at")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_time_control_and_notifications"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="vacations_end",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
