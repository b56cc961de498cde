"""PostgreSQL guards the deal's commitment (not only Python).

- games_hand BEFORE UPDATE: once a hand's commitment is published, its deck, salts, salt, scheme
  and commitment never change (the root is set in the deal's own transaction, from empty).
- games_handdispute BEFORE UPDATE OR DELETE: refused. A ruling that opened a hand stays on record.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION games_hand_commitment_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.commitment <> '' AND (NEW.commitment, NEW.scheme, NEW.salt, NEW.salts, NEW.deck)
            IS DISTINCT FROM (OLD.commitment, OLD.scheme, OLD.salt, OLD.salts, OLD.deck) THEN
        RAISE EXCEPTION 'the deal of hand % is committed and never changes', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER games_hand_commitment_fixed BEFORE UPDATE ON games_hand
    FOR EACH ROW EXECUTE FUNCTION games_hand_commitment_fixed();

CREATE FUNCTION games_handdispute_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a ruling that opened a hand is never changed or removed'
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER games_handdispute_insert_only BEFORE UPDATE OR DELETE ON games_handdispute
    FOR EACH ROW EXECUTE FUNCTION games_handdispute_insert_only();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS games_handdispute_insert_only ON games_handdispute;
DROP FUNCTION IF EXISTS games_handdispute_insert_only();
DROP TRIGGER IF EXISTS games_hand_commitment_fixed ON games_hand;
DROP FUNCTION IF EXISTS games_hand_commitment_fixed();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0006_hand_card_commitments"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
