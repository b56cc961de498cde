"""Club names become one line of printable text (they go into mail subjects): names stored before
that rule have their line breaks, tabs and invisible control characters turned into single spaces."""

import unicodedata

from django.db import migrations


def one_line(apps, schema_editor):
    Club = apps.get_model("accounts", "Club")
    clubs = Club.objects.using(schema_editor.connection.alias)  # the migrating role's connection
    for club in clubs.only("pk", "name").iterator():
        cleaned = "".join(" " if unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp"} else c for c in club.name)
        cleaned = " ".join(cleaned.split()) or "Club"
        if cleaned != club.name:
            clubs.filter(pk=club.pk).update(name=cleaned)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_async_play")]

    operations = [migrations.RunPython(one_line, migrations.RunPython.noop)]
