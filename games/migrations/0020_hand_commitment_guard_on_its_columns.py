"""The deal's guard (0007, 0010, 0013, 0018) fires only for an UPDATE that names one of the columns it keeps fixed
(``BEFORE UPDATE OF``), not at every step of a hand, whose UPDATE names none of them: the guard compared the deal's
columns old with new at every action, the salts read from their TOAST table twice (about 30 us of PostgreSQL's
time an action; bench/hand_end.py ``--compare``).

The guarantee is the same. PostgreSQL fires a column trigger for every UPDATE (and every INSERT ... ON CONFLICT DO
UPDATE, every MERGE) whose SET list names one of its columns, whatever the values; a column's value can change
without that only through another BEFORE UPDATE trigger on the table, and games_hand has none (the web's role can
make none: it owns no table). The trigger's columns are exactly those the function compares; a migration that
guards one more column names it in both (tests/security/test_committed_deal_stays_fixed.py checks they agree).
"""

from django.db import migrations

GUARDED = ["commitment", "scheme", "salt", "salts", "deck", "closed_leaves", "cuts", "signed_table"]

FORWARD = f"""
DROP TRIGGER IF EXISTS games_hand_commitment_fixed ON games_hand;
CREATE TRIGGER games_hand_commitment_fixed BEFORE UPDATE OF {", ".join(GUARDED)} ON games_hand
    FOR EACH ROW EXECUTE FUNCTION games_hand_commitment_fixed();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_hand_commitment_fixed ON games_hand;
CREATE TRIGGER games_hand_commitment_fixed BEFORE UPDATE ON games_hand
    FOR EACH ROW EXECUTE FUNCTION games_hand_commitment_fixed();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_hand_private_marks_help"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
