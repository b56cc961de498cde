"""A hand read from a club export keeps only the leaf hashes of its closed cards (``Hand.closed_leaves``);
the deal's guard (0007) keeps them fixed like the rest of the commitment."""

from django.db import migrations, models

GUARD = r"""
CREATE OR REPLACE FUNCTION games_hand_commitment_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.commitment <> '' AND (NEW.{cols}) IS DISTINCT FROM (OLD.{old_cols}) THEN
        RAISE EXCEPTION 'the deal of hand % is committed and never changes', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
"""


def _guard(columns: list[str]) -> str:
    """The deal's guard (0007) over ``columns``."""
    return GUARD.format(cols=", NEW.".join(columns), old_cols=", OLD.".join(columns))


COLUMNS = ["commitment", "scheme", "salt", "salts", "deck"]
FORWARD = _guard([*COLUMNS, "closed_leaves"])
BACKWARD = _guard(COLUMNS)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_push_subscriptions_and_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="closed_leaves",
            field=models.JSONField(blank=True, default=dict,
                                   help_text="Deck position -> leaf hash of a card this site does not hold."),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
