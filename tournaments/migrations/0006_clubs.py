"""Clubs: a league may be private, made by a player (``created_by``) and run by organisers.
Existing leagues stay public, with no creator and no organisers (staff run them)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_bye_is_an_entrant"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="league",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="created_leagues",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="league",
            name="organisers",
            field=models.ManyToManyField(
                blank=True, related_name="organised_leagues", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddField(
            model_name="league",
            name="private",
            field=models.BooleanField(default=False, verbose_name="private club"),
        ),
    ]
