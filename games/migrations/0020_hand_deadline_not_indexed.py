"""The hand's deadline is no longer indexed. The step sets it at nearly every action, so each version of the row
wrote an entry in every index of games_hand; a version that changes no indexed column (and fits on its page) is
written HOT, with no index entry. The sweeps that look for running hands by their deadline read them from the
partial index on unfinished hands (one a table)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0019_hand_private_marks_help'),
    ]

    operations = [
        migrations.AlterField(
            model_name='hand',
            name='deadline',
            field=models.DateTimeField(blank=True, help_text='The earliest clock of the awaited seats (games/timing/turn_clock.py).', null=True),
        ),
    ]
