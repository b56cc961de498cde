"""Members' device keys (docs/fairness.md "Protocol" 1-3), kept by PostgreSQL:

- BEFORE INSERT: ``registered_at`` is the database's own clock (a device cuts only decks committed after it,
  so the web's role must not date one back); n is exactly 2048 bits of lowercase hex, e is 65537, the
  fingerprint is SHA-256 of "home-club/device-v1\n" + n + "\n" + e, and a member has at most 5 active.
- BEFORE UPDATE: only the retired mark may be set, once; BEFORE DELETE: refused. A device is never removed.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


FORWARD = r"""
CREATE FUNCTION accounts_devicekey_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'a device key is never removed (it may be marked retired)'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.id, NEW.user_id, NEW.n, NEW.e, NEW.fingerprint, NEW.label, NEW.registered_at)
                IS DISTINCT FROM (OLD.id, OLD.user_id, OLD.n, OLD.e, OLD.fingerprint, OLD.label, OLD.registered_at)
           OR (OLD.retired_at IS NOT NULL AND NEW.retired_at IS DISTINCT FROM OLD.retired_at) THEN
            RAISE EXCEPTION 'a device key is kept as registered; only its retired mark is set, once'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    NEW.registered_at := clock_timestamp();
    NEW.retired_at := NULL;
    IF length(NEW.n) <> 512 OR NEW.n !~ '^[89a-f][0-9a-f]*$' OR NEW.e <> 65537 THEN
        RAISE EXCEPTION 'a device key is an RSA key of exactly 2048 bits with exponent 65537'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.fingerprint <> encode(sha256(convert_to('home-club/device-v1' || E'\n' || NEW.n || E'\n' || NEW.e::text,
            'UTF8')), 'hex') THEN
        RAISE EXCEPTION 'a device fingerprint is the SHA-256 of its key' USING ERRCODE = 'check_violation';
    END IF;
    PERFORM 1 FROM accounts_user WHERE id = NEW.user_id FOR UPDATE;  -- one registration a member at a time
    IF (SELECT count(*) FROM accounts_devicekey WHERE user_id = NEW.user_id AND retired_at IS NULL) >= 5 THEN
        RAISE EXCEPTION 'a member has at most 5 active devices' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER accounts_devicekey_guard BEFORE INSERT OR UPDATE OR DELETE ON accounts_devicekey
    FOR EACH ROW EXECUTE FUNCTION accounts_devicekey_guard();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS accounts_devicekey_guard ON accounts_devicekey;
DROP FUNCTION IF EXISTS accounts_devicekey_guard();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_user_time_zone_without_choices'),
    ]

    operations = [
        migrations.CreateModel(
            name='DeviceKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('n', models.CharField(help_text='The RSA modulus, 2048 bits, lowercase hex.', max_length=512)),
                ('e', models.PositiveIntegerField(default=65537)),
                ('fingerprint', models.CharField(help_text='SHA-256 of the public key, hex.', max_length=64, unique=True)),
                ('label', models.CharField(blank=True, max_length=60)),
                ('registered_at', models.DateTimeField(auto_now_add=True)),
                ('retired_at', models.DateTimeField(blank=True, null=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='device_keys', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['user', 'registered_at'], name='device_key_user_time')],
            },
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
