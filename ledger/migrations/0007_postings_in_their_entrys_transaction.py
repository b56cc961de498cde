"""A journal entry's postings are all made in the transaction that made the entry (PostgreSQL, not only Python).

Before, a posting could be added to an entry of an earlier transaction as long as the entry still balanced at
the commit: a balanced pair added to last year's ante moved money under an old date (the posting copies its
entry's time), which no reversing entry shows. Now:

- ledger_journalentry BEFORE INSERT (``ledger_entry_stamp``, in place of 0005's ``ledger_entry_not_practice``,
  whose check it keeps, each table read by its key): stamps the entry with the transaction that makes it, its id
  and its start (``xact_id``, ``xact_start``: columns of the database's own, not the model's; the web's role
  cannot write them, the trigger sets them at every insert and the books are never updated). The id alone would
  do within one cluster; its start too keeps a backup restored into a new cluster (whose transaction ids start
  again) from letting a later transaction with an old entry's id post to it.
- ledger_posting BEFORE INSERT (``ledger_posting_stamp``, 0002): refuses a posting whose entry another
  transaction made (entries made before this migration have no stamp: no posting is added to them).

The commit's checks stay as 0002 made them, one a posting (its entry balances) and one an entry (two postings
at least): one check an entry instead would let a posting added after the web's role ran the checks early
(``SET CONSTRAINTS ALL IMMEDIATE``) go unchecked, and would save about 0.3 ms of PostgreSQL's time at a hand's
end (bench/hand_end.py ``--compare``). tests/security/test_books_hold_against_the_web_role.py attacks both.
"""

import importlib
import re

from django.db import migrations

_0002 = importlib.import_module("ledger.migrations.0002_guards").FORWARD
_0005 = importlib.import_module("ledger.migrations.0005_practice_books_guard").FORWARD


def _function(source: str, name: str) -> str:
    """The ``CREATE FUNCTION name()`` statement of a migration's SQL, as CREATE OR REPLACE."""
    found = re.search(rf"CREATE FUNCTION {name}\(\).*?END \$\$;\n", source, re.S)
    assert found is not None, name
    return found.group(0).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


COLUMNS = r"""
ALTER TABLE ledger_journalentry ADD COLUMN xact_id xid8, ADD COLUMN xact_start timestamptz;
COMMENT ON COLUMN ledger_journalentry.xact_id IS 'The transaction that made the entry (trigger ledger_entry_stamp).';
COMMENT ON COLUMN ledger_journalentry.xact_start IS 'When that transaction began (trigger ledger_entry_stamp).';
"""

# The triggers apart from the columns, each way, so that bench/hand_end.py --compare can put either in place.
TRIGGERS = r"""
CREATE OR REPLACE FUNCTION ledger_entry_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT practice FROM games_table WHERE id = NEW.table_id)
       OR (SELECT t.practice FROM games_hand h JOIN games_table t ON t.id = h.table_id WHERE h.id = NEW.hand_id) THEN
        RAISE EXCEPTION 'practice never touches the books (table %, hand %)', NEW.table_id, NEW.hand_id
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.xact_id := pg_current_xact_id();
    NEW.xact_start := transaction_timestamp();
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS ledger_entry_not_practice ON ledger_journalentry;
DROP FUNCTION IF EXISTS ledger_entry_not_practice();
DROP TRIGGER IF EXISTS ledger_entry_stamp ON ledger_journalentry;
CREATE TRIGGER ledger_entry_stamp BEFORE INSERT ON ledger_journalentry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_stamp();

CREATE OR REPLACE FUNCTION ledger_posting_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
    a record;
BEGIN
    SELECT club_id, created_at, kind, table_id, game, xact_id, xact_start INTO e
      FROM ledger_journalentry WHERE id = NEW.entry_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'posting to a missing journal entry %', NEW.entry_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF e.xact_id IS DISTINCT FROM pg_current_xact_id() OR e.xact_start IS DISTINCT FROM transaction_timestamp() THEN
        RAISE EXCEPTION 'journal entry % was made in another transaction; its postings are made with it', NEW.entry_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    UPDATE ledger_account
       SET balance = balance + NEW.amount, last_seq = last_seq + 1
     WHERE id = NEW.account_id
    RETURNING club_id, balance, last_seq INTO a;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'posting to a missing account %', NEW.account_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF a.club_id <> e.club_id THEN
        RAISE EXCEPTION 'posting of entry % to account % of another club', NEW.entry_id, NEW.account_id
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.seq := a.last_seq;
    NEW.balance_after := a.balance;
    NEW.club_id := e.club_id;
    NEW.created_at := e.created_at;
    NEW.kind := e.kind;
    NEW.table_id := e.table_id;
    NEW.game := e.game;
    RETURN NEW;
END $$;
"""

TRIGGERS_BEFORE = (
    _function(_0002, "ledger_posting_stamp")
    + _function(_0005, "ledger_entry_not_practice")
    + r"""
DROP TRIGGER IF EXISTS ledger_entry_stamp ON ledger_journalentry;
DROP FUNCTION IF EXISTS ledger_entry_stamp();
DROP TRIGGER IF EXISTS ledger_entry_not_practice ON ledger_journalentry;
CREATE TRIGGER ledger_entry_not_practice BEFORE INSERT ON ledger_journalentry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_not_practice();
"""
)
FORWARD = COLUMNS + TRIGGERS
BACKWARD = TRIGGERS_BEFORE + "ALTER TABLE ledger_journalentry DROP COLUMN xact_id, DROP COLUMN xact_start;\n"


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0006_posting_sitting_index"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
