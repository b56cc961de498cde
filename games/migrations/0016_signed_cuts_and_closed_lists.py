"""The cut, version 2 (docs/fairness.md): cuts signed by the members' device keys, lists that close in public,
the members' complaints, and PostgreSQL's guards over them, which hold against the web's own role:

- games_deckahead: ``created_at`` is the database's clock at the INSERT (a device cuts only decks committed after
  it); a deck's scheme and that moment never change. Decks committed before this migration keep version 1.
- games_devicecut BEFORE INSERT: the device is the member's own, active and registered before the deck; the
  RSASSA-PKCS1-v1_5/SHA-256 signature verifies (modular arithmetic on numeric) over the message rebuilt from the
  deck's scheme, table, deal and root; the value is SHA-256(signature)[:16]; the list is still open. Never
  updated or deleted.
- games_cutlist BEFORE INSERT: the closed list is written by the database from the deal's cuts, sorted by value;
  never updated or deleted (a cut after it is refused above).
- games_hand BEFORE INSERT: a hand of scheme "merkle-sha256-cut-v2" is dealt from its deal's deck through exactly
  its closed list; a deal that was cut is never dealt under another scheme.
- games_cutcomplaint: insert only, dated by the database.
"""


import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


FORWARD = r"""
UPDATE games_deckahead SET scheme = 'merkle-sha256-cut-v1';

CREATE FUNCTION games_hex_numeric(h text) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    r numeric := 0;
    i int := 1;
    chunk text;
BEGIN
    WHILE i <= length(h) LOOP
        chunk := substr(h, i, 7);
        r := r * (1::bigint << (4 * length(chunk))) + ('x' || lpad(chunk, 8, '0'))::bit(32)::int;
        i := i + 7;
    END LOOP;
    RETURN r;
END $$;

CREATE FUNCTION games_modpow(b numeric, e int, m numeric) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    r numeric := 1;
    x numeric := mod(b, m);
    k int := e;
BEGIN
    WHILE k > 0 LOOP
        IF k % 2 = 1 THEN
            r := mod(r * x, m);
        END IF;
        x := mod(x * x, m);
        k := k / 2;
    END LOOP;
    RETURN r;
END $$;

-- RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 8.2.2) for a 2048-bit key with exponent 65537.
CREATE FUNCTION games_rsa_signature_holds(n text, e int, message bytea, sig text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    modulus numeric;
    s numeric;
BEGIN
    IF n IS NULL OR sig IS NULL OR length(n) <> 512 OR n !~ '^[89a-f][0-9a-f]*$' OR e <> 65537
            OR length(sig) <> 512 OR sig !~ '^[0-9a-f]*$' THEN
        RETURN false;
    END IF;
    modulus := games_hex_numeric(n);
    s := games_hex_numeric(sig);
    IF s >= modulus THEN
        RETURN false;
    END IF;
    RETURN games_modpow(s, e, modulus) = games_hex_numeric('0001' || repeat('ff', 202) || '00'
        || '3031300d060960864801650304020105000420' || encode(sha256(message), 'hex'));
END $$;

CREATE FUNCTION games_deckahead_clock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.created_at := clock_timestamp();
    ELSIF (NEW.scheme, NEW.created_at) IS DISTINCT FROM (OLD.scheme, OLD.created_at) THEN
        RAISE EXCEPTION 'the deck committed for deal % of table % never changes', OLD.number, OLD.table_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_deckahead_clock BEFORE INSERT OR UPDATE ON games_deckahead
    FOR EACH ROW EXECUTE FUNCTION games_deckahead_clock();

CREATE FUNCTION games_devicecut_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d games_deckahead%ROWTYPE;
    k accounts_devicekey%ROWTYPE;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'a cut is kept as received' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT * INTO d FROM games_deckahead WHERE id = NEW.deck_id FOR UPDATE;
    NEW.received_at := clock_timestamp();
    IF d.dealt_at IS NOT NULL OR EXISTS (SELECT 1 FROM games_cutlist WHERE deck_id = d.id) THEN
        RAISE EXCEPTION 'the cuts of deal % closed already', d.number USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF d.scheme <> 'merkle-sha256-cut-v2' THEN
        RAISE EXCEPTION 'deal % is not cut by signed cuts', d.number USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT * INTO k FROM accounts_devicekey WHERE id = NEW.device_id;
    IF k.user_id IS DISTINCT FROM NEW.user_id OR k.retired_at IS NOT NULL THEN
        RAISE EXCEPTION 'a cut is signed by one of its member''s own active devices'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF k.registered_at >= d.created_at THEN
        RAISE EXCEPTION 'device % was registered after the deck of deal % was committed', left(k.fingerprint, 16), d.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NOT games_rsa_signature_holds(k.n, k.e, convert_to('home-club/cut-v2' || E'\n' || d.scheme || E'\n'
            || d.table_id::text || E'\n' || d.number::text || E'\n' || d.root, 'UTF8'), NEW.signature) THEN
        RAISE EXCEPTION 'the cut''s signature does not verify under device %', left(k.fingerprint, 16)
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.value IS DISTINCT FROM left(encode(sha256(decode(NEW.signature, 'hex')), 'hex'), 32) THEN
        RAISE EXCEPTION 'a cut is the SHA-256 of its signature' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_devicecut_guard BEFORE INSERT OR UPDATE OR DELETE ON games_devicecut
    FOR EACH ROW EXECUTE FUNCTION games_devicecut_guard();

CREATE FUNCTION games_cutlist_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'a closed list of cuts never changes' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    PERFORM 1 FROM games_deckahead WHERE id = NEW.deck_id FOR UPDATE;
    NEW.closed_at := clock_timestamp();
    NEW.cuts := COALESCE((
        SELECT jsonb_agg(jsonb_build_object('cut', c.value, 'device', k.fingerprint, 'member_id', c.user_id,
                                            'signature', c.signature) ORDER BY c.value COLLATE "C")
        FROM games_devicecut c JOIN accounts_devicekey k ON k.id = c.device_id WHERE c.deck_id = NEW.deck_id
    ), '[]'::jsonb);
    RETURN NEW;
END $$;
CREATE TRIGGER games_cutlist_guard BEFORE INSERT OR UPDATE OR DELETE ON games_cutlist
    FOR EACH ROW EXECUTE FUNCTION games_cutlist_guard();

CREATE FUNCTION games_hand_dealt_through_list() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d games_deckahead%ROWTYPE;
BEGIN
    IF NEW.closed_leaves <> '{}'::jsonb THEN
        RETURN NEW;  -- read from a club export: its deal was checked where it was dealt
    END IF;
    SELECT * INTO d FROM games_deckahead WHERE table_id = NEW.table_id AND number = NEW.number;
    IF NEW.scheme = 'merkle-sha256-cut-v2' THEN
        IF d.id IS NULL OR (d.hand_id, d.root, d.deck, d.salts, d.scheme)
                IS DISTINCT FROM (NEW.id, NEW.commitment, NEW.deck, NEW.salts, NEW.scheme) THEN
            RAISE EXCEPTION 'hand % is not dealt from the deck committed for its deal', NEW.id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.cuts IS DISTINCT FROM (SELECT cuts FROM games_cutlist WHERE deck_id = d.id) THEN
            RAISE EXCEPTION 'hand % is not dealt through the closed list of its deal''s cuts', NEW.id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    ELSIF d.id IS NOT NULL AND EXISTS (SELECT 1 FROM games_devicecut WHERE deck_id = d.id) THEN
        RAISE EXCEPTION 'deal % of table % was cut: it is dealt through its cuts', NEW.number, NEW.table_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_hand_dealt_through_list BEFORE INSERT ON games_hand
    FOR EACH ROW EXECUTE FUNCTION games_hand_dealt_through_list();

CREATE FUNCTION games_cutcomplaint_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'a complaint stays on record' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    NEW.created_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE TRIGGER games_cutcomplaint_guard BEFORE INSERT OR UPDATE OR DELETE ON games_cutcomplaint
    FOR EACH ROW EXECUTE FUNCTION games_cutcomplaint_guard();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS games_cutcomplaint_guard ON games_cutcomplaint;
DROP FUNCTION IF EXISTS games_cutcomplaint_guard();
DROP TRIGGER IF EXISTS games_hand_dealt_through_list ON games_hand;
DROP FUNCTION IF EXISTS games_hand_dealt_through_list();
DROP TRIGGER IF EXISTS games_cutlist_guard ON games_cutlist;
DROP FUNCTION IF EXISTS games_cutlist_guard();
DROP TRIGGER IF EXISTS games_devicecut_guard ON games_devicecut;
DROP FUNCTION IF EXISTS games_devicecut_guard();
DROP TRIGGER IF EXISTS games_deckahead_clock ON games_deckahead;
DROP FUNCTION IF EXISTS games_deckahead_clock();
DROP FUNCTION IF EXISTS games_rsa_signature_holds(text, int, bytea, text);
DROP FUNCTION IF EXISTS games_modpow(numeric, int, numeric);
DROP FUNCTION IF EXISTS games_hex_numeric(text);
"""


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0007_device_keys'),
        ('games', '0015_notice_models_moved'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='deckahead',
            name='scheme',
            field=models.CharField(default='merkle-sha256-cut-v2', help_text='The scheme its leaves and cuts follow (decks committed before version 2 keep version 1).', max_length=20),
        ),
        migrations.AlterField(
            model_name='hand',
            name='scheme',
            field=models.CharField(choices=[('deck-sha256', 'One commitment of the whole deck'), ('merkle-sha256-v1', 'One commitment per card (Merkle root)'), ('merkle-sha256-cut-v1', "Committed ahead, dealt through the players' cuts"), ('merkle-sha256-cut-v2', "Committed ahead, dealt through cuts signed by the members' devices")], default='merkle-sha256-v1', max_length=20),
        ),
        migrations.CreateModel(
            name='CutList',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('closed_at', models.DateTimeField(auto_now_add=True)),
                ('closed_by', models.CharField(help_text='The public moment it closed: previous-deal or own-deal.', max_length=40)),
                ('cuts', models.JSONField(default=list, help_text='[{cut, device, member_id, signature}] sorted by cut.')),
                ('deck', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='cut_list', to='games.deckahead')),
            ],
        ),
        migrations.CreateModel(
            name='CutComplaint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('deal', models.PositiveIntegerField()),
                ('kind', models.CharField(choices=[('missing', "My acknowledged cut is missing from the deal's cuts"), ('unknown-device', 'A cut in my name came from a device my browsers do not know'), ('other-root', 'The deal used another deck or scheme than the one I cut'), ('refused', 'My cut was refused')], max_length=20)),
                ('evidence', models.JSONField(default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='cut_complaints', to='games.table')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['table', 'deal'], name='cut_complaint_deal')],
            },
        ),
        migrations.CreateModel(
            name='DeviceCut',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('signature', models.CharField(max_length=512)),
                ('value', models.CharField(max_length=32)),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('deck', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='device_cuts', to='games.deckahead')),
                ('device', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='cuts', to='accounts.devicekey')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('deck', 'user'), name='device_cut_one_per_member'), models.UniqueConstraint(fields=('deck', 'value'), name='device_cut_value_once')],
            },
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
