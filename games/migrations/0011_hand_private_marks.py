from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0010_hand_closed_leaves"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="private_marks",
            field=models.JSONField(blank=True, default=dict, help_text=(
                "Per seat dealt in: the version at which that seat's own part of the live table last changed "
                "(games/live/marks.py); a seat missing changed at the deal.")),
        ),
    ]
