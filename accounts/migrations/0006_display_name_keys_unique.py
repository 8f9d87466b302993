"""No two players' display names read alike: each of the name's keys is unique (filled by the
migration before; empty, for a player without a display name, is never a duplicate)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_display_name_keys"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                fields=("display_name_skeleton",),
                condition=~models.Q(display_name_skeleton=""),
                name="user_display_name_skeleton_unique",
                violation_error_message="This name is too similar to another player's name.",
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                fields=("display_name_folded_skeleton",),
                condition=~models.Q(display_name_folded_skeleton=""),
                name="user_display_name_folded_skeleton_unique",
                violation_error_message="This name is too similar to another player's name.",
            ),
        ),
    ]
