"""A partial index for the bot sweep: running games whose seat to move has no deadline.

``bot_play.games_waiting_for_bots`` (beat, every minute) read the whole game table without it
(bench/scale.py: a sequential scan of 100,000 games). Another branch adds 0005_event_hash_chain;
the two are renumbered when merged.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_event_hash_chain'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='game',
            index=models.Index(condition=models.Q(('deadline__isnull', True), ('status', 'running'), ('to_move__isnull', False)), fields=['id'], name='game_waiting_for_bots'),
        ),
    ]
