"""The notice models (TurnNotice, PushSubscription, PushChoice) moved to the notices app: they leave games'
state only. Their tables stay as they are, under the same names (notices/migrations/0001_moved_from_games.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0014_hand_timeouts")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="TurnNotice"),
                migrations.DeleteModel(name="PushSubscription"),
                migrations.DeleteModel(name="PushChoice"),
            ],
            database_operations=[],
        )
    ]
