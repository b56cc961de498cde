"""Practice tables and computer players, and PostgreSQL's guards for them (not only Python).

- games_table BEFORE UPDATE: a table's ``practice`` never changes once it is opened.
- games_seat BEFORE INSERT OR UPDATE: a computer player sits only at a practice table, and a practice table
  seats one member at most (the table row is locked first, so two members sitting down at once cannot both
  pass).
- games_turnnotice BEFORE INSERT: no "your turn" notice of a practice hand.
The books and the statistics guard themselves in their own apps' migrations (ledger 0005, clubhouse 0003).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FORWARD = r"""
CREATE FUNCTION games_table_practice_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.practice IS DISTINCT FROM OLD.practice THEN
        RAISE EXCEPTION 'table % is a practice table or a money table for good', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER games_table_practice_fixed BEFORE UPDATE ON games_table
    FOR EACH ROW EXECUTE FUNCTION games_table_practice_fixed();

CREATE FUNCTION games_seat_practice_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    is_practice boolean;
    is_computer boolean;
BEGIN
    IF NEW.left_at IS NOT NULL THEN
        RETURN NEW;
    END IF;
    SELECT practice INTO is_practice FROM games_table WHERE id = NEW.table_id FOR UPDATE;
    is_computer := EXISTS (SELECT 1 FROM games_computerplayer c WHERE c.user_id = NEW.user_id);
    IF is_computer AND NOT is_practice THEN
        RAISE EXCEPTION 'a computer player sits only at a practice table (table %)', NEW.table_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF is_practice AND NOT is_computer AND EXISTS (
            SELECT 1 FROM games_seat s
             WHERE s.table_id = NEW.table_id AND s.left_at IS NULL AND s.id <> NEW.id
               AND NOT EXISTS (SELECT 1 FROM games_computerplayer c WHERE c.user_id = s.user_id)) THEN
        RAISE EXCEPTION 'a practice table seats one member (table %)', NEW.table_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER games_seat_practice_guard BEFORE INSERT OR UPDATE ON games_seat
    FOR EACH ROW EXECUTE FUNCTION games_seat_practice_guard();

CREATE FUNCTION games_turnnotice_not_practice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM games_hand h JOIN games_table t ON t.id = h.table_id
                WHERE h.id = NEW.hand_id AND t.practice) THEN
        RAISE EXCEPTION 'no notice is sent for a practice hand (hand %)', NEW.hand_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER games_turnnotice_not_practice BEFORE INSERT ON games_turnnotice
    FOR EACH ROW EXECUTE FUNCTION games_turnnotice_not_practice();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS games_turnnotice_not_practice ON games_turnnotice;
DROP FUNCTION IF EXISTS games_turnnotice_not_practice();
DROP TRIGGER IF EXISTS games_seat_practice_guard ON games_seat;
DROP FUNCTION IF EXISTS games_seat_practice_guard();
DROP TRIGGER IF EXISTS games_table_practice_fixed ON games_table;
DROP FUNCTION IF EXISTS games_table_practice_fixed();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_hand_private_marks"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="practice",
            field=models.BooleanField(default=False, help_text="One member against computer players; no money moves."),
        ),
        migrations.CreateModel(
            name="ComputerPlayer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("strength", models.CharField(max_length=10)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name="computer",
                                              to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
