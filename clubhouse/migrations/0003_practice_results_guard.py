"""PostgreSQL keeps practice out of the statistics and seasons (docs/design.md "Engine contract").

clubhouse_handresult BEFORE INSERT: a row of a hand played at a practice table is not written (the
trigger that fills results when a hand finishes then adds nothing to the weeks either, which sum only
the rows written).
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION clubhouse_result_not_practice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM games_hand h JOIN games_table t ON t.id = h.table_id
                WHERE h.id = NEW.hand_id AND t.practice) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER clubhouse_result_not_practice BEFORE INSERT ON clubhouse_handresult
    FOR EACH ROW EXECUTE FUNCTION clubhouse_result_not_practice();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS clubhouse_result_not_practice ON clubhouse_handresult;
DROP FUNCTION IF EXISTS clubhouse_result_not_practice();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("clubhouse", "0002_week_results"),
        ("games", "0012_practice_tables"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
