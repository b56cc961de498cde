"""PostgreSQL guards the books (not only Python).

- ledger_posting BEFORE INSERT: adds the amount to the account's balance with
  `UPDATE ... SET balance = balance + amount` (row-locked: no lost update under
  parallel connections), stamps the posting with the account's next sequence
  number and the balance after it, copies the entry's club/time/kind/table/game,
  and refuses a posting to an account of another club.
- ledger_account BEFORE UPDATE: the balance and sequence change only through a
  posting (the trigger above, pg_trigger_depth() > 1); the owner never changes.
- ledger_posting, ledger_journalentry, ledger_ruling BEFORE UPDATE OR DELETE:
  refused. Corrections are reversing entries.
- Deferred constraint triggers, checked at commit: every entry's postings sum to
  zero, and every entry has at least two postings.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_posting_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e record;
    a record;
BEGIN
    SELECT club_id, created_at, kind, table_id, game INTO e
      FROM ledger_journalentry WHERE id = NEW.entry_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'posting to a missing journal entry %', NEW.entry_id
            USING ERRCODE = 'foreign_key_violation';
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

CREATE TRIGGER ledger_posting_stamp BEFORE INSERT ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION ledger_posting_stamp();

CREATE FUNCTION ledger_account_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.club_id <> OLD.club_id OR NEW.kind <> OLD.kind
       OR NEW.user_id IS DISTINCT FROM OLD.user_id OR NEW.table_id IS DISTINCT FROM OLD.table_id THEN
        RAISE EXCEPTION 'a ledger account never changes owner' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.balance <> OLD.balance OR NEW.last_seq <> OLD.last_seq) AND pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'a ledger balance changes only through a posting'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_account_guard BEFORE UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_guard();

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows of the ledger are never updated or deleted; post a reversing entry', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER ledger_posting_insert_only BEFORE UPDATE OR DELETE ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_entry_insert_only BEFORE UPDATE OR DELETE ON ledger_journalentry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_ruling_insert_only BEFORE UPDATE OR DELETE ON ledger_ruling
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_posting WHERE entry_id = NEW.entry_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'journal entry % does not balance: its postings sum to %', NEW.entry_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_entry_balanced AFTER INSERT ON ledger_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();

CREATE FUNCTION ledger_check_entry_has_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM ledger_posting WHERE entry_id = NEW.id) < 2 THEN
        RAISE EXCEPTION 'journal entry % needs at least two postings', NEW.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_entry_has_postings AFTER INSERT ON ledger_journalentry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_has_postings();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_entry_has_postings ON ledger_journalentry;
DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_ruling_insert_only ON ledger_ruling;
DROP TRIGGER IF EXISTS ledger_entry_insert_only ON ledger_journalentry;
DROP TRIGGER IF EXISTS ledger_posting_insert_only ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_account_guard ON ledger_account;
DROP TRIGGER IF EXISTS ledger_posting_stamp ON ledger_posting;
DROP FUNCTION IF EXISTS ledger_check_entry_has_postings();
DROP FUNCTION IF EXISTS ledger_check_entry_balanced();
DROP FUNCTION IF EXISTS ledger_refuse_change();
DROP FUNCTION IF EXISTS ledger_account_guard();
DROP FUNCTION IF EXISTS ledger_posting_stamp();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
