"""The deal's guard (0007, 0010, 0013) over one more column: the table a signed-cut hand read from a club export
was dealt at (``signed_table``, 0017) never changes once the hand is committed, like the rest of what its proof
rests on."""

import importlib

from django.db import migrations

_hand_guard = importlib.import_module("games.migrations.0010_hand_closed_leaves")._guard
_COLUMNS = ["commitment", "scheme", "salt", "salts", "deck", "closed_leaves", "cuts"]


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0017_hand_signed_table"),
    ]

    operations = [migrations.RunSQL(_hand_guard([*_COLUMNS, "signed_table"]), _hand_guard(_COLUMNS))]
