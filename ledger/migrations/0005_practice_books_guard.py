"""PostgreSQL keeps practice out of the books (not only Python; docs/design.md "Engine contract").

- ledger_journalentry BEFORE INSERT: no entry of a practice table or of a hand played at one.
- ledger_account BEFORE INSERT: no account, so no balance, of a computer player.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_entry_not_practice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM games_table t WHERE t.practice AND (t.id = NEW.table_id
               OR t.id = (SELECT h.table_id FROM games_hand h WHERE h.id = NEW.hand_id))) THEN
        RAISE EXCEPTION 'practice never touches the books (table %, hand %)', NEW.table_id, NEW.hand_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_entry_not_practice BEFORE INSERT ON ledger_journalentry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_not_practice();

CREATE FUNCTION ledger_account_not_computer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM games_computerplayer c WHERE c.user_id = NEW.user_id) THEN
        RAISE EXCEPTION 'a computer player has no account in the books' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_account_not_computer BEFORE INSERT ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_not_computer();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_account_not_computer ON ledger_account;
DROP FUNCTION IF EXISTS ledger_account_not_computer();
DROP TRIGGER IF EXISTS ledger_entry_not_practice ON ledger_journalentry;
DROP FUNCTION IF EXISTS ledger_entry_not_practice();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_practice_tables"),
        ("ledger", "0004_table_closing"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
