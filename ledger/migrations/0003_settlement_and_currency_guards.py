"""PostgreSQL guards for settlements and the club currency.

- ledger_settlement BEFORE UPDATE OR DELETE: a settlement is never deleted; a
  decided one (confirmed or declined) never changes; a pending one changes only
  by being decided (status, who decided, when), never in what was paid.
- accounts_club BEFORE UPDATE OF currency: refused once the club has a journal
  entry (every amount in its books is in the currency it was posted in).
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_settlement_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'settlements are never deleted; decline a pending one'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status <> 'pending' THEN
        RAISE EXCEPTION 'settlement % is already %; a decided settlement never changes', OLD.id, OLD.status
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.club_id <> OLD.club_id OR NEW.payer_id <> OLD.payer_id OR NEW.payee_id <> OLD.payee_id
       OR NEW.amount <> OLD.amount OR NEW.paid_on <> OLD.paid_on OR NEW.note <> OLD.note
       OR NEW.recorded_by_id <> OLD.recorded_by_id OR NEW.recorded_at <> OLD.recorded_at THEN
        RAISE EXCEPTION 'a pending settlement can only be confirmed or declined'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_settlement_guard BEFORE UPDATE OR DELETE ON ledger_settlement
    FOR EACH ROW EXECUTE FUNCTION ledger_settlement_guard();

CREATE FUNCTION ledger_club_currency_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.currency <> OLD.currency
       AND EXISTS (SELECT 1 FROM ledger_journalentry WHERE club_id = OLD.id) THEN
        RAISE EXCEPTION 'club % has ledger entries in %; its currency never changes', OLD.id, OLD.currency
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_club_currency_guard BEFORE UPDATE OF currency ON accounts_club
    FOR EACH ROW EXECUTE FUNCTION ledger_club_currency_guard();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_club_currency_guard ON accounts_club;
DROP TRIGGER IF EXISTS ledger_settlement_guard ON ledger_settlement;
DROP FUNCTION IF EXISTS ledger_club_currency_guard();
DROP FUNCTION IF EXISTS ledger_settlement_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_guards"), ("accounts", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
