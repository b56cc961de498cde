"""The private marks' help names where they are worked out now: games/services/marks.py (the services write
them; the live wing only reads them)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0018_hand_signed_table_guard"),
    ]

    operations = [
        migrations.AlterField(
            model_name="hand",
            name="private_marks",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Per seat dealt in: the version at which that seat's own part of the live table last changed (games/services/marks.py); a seat missing changed at the deal.",
            ),
        ),
    ]
