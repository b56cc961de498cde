"""The cut (docs/design.md "Engine contract"): decks committed ahead of their deals, the members' cuts, and
PostgreSQL's guards over them.

- games_deckahead BEFORE UPDATE: a published root stays bound to its table, deal number, reserved hand id,
  deck and salts; ``dealt_at`` is set once (the cuts close) and never cleared.
- games_dealcut BEFORE INSERT: refused once its deck is dealt. BEFORE UPDATE: refused (a cut is as received).
- games_hand BEFORE INSERT: a hand of scheme "merkle-sha256-cut-v1" dealt here (not read from an export, which
  has closed leaves) must be dealt from its table's deck for that deal number, with that deck's root, cards and
  salts. The deal's guard (0007, 0010) keeps ``cuts`` fixed like the rest of the commitment.
"""

import importlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The deal's guard of 0010 over one more column; its text is that migration's own.
_hand_guard = importlib.import_module("games.migrations.0010_hand_closed_leaves")._guard
_HAND_COLUMNS = ["commitment", "scheme", "salt", "salts", "deck", "closed_leaves"]

FORWARD = _hand_guard([*_HAND_COLUMNS, "cuts"]) + r"""
CREATE FUNCTION games_deckahead_bound() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.table_id, NEW.number, NEW.hand_id, NEW.root, NEW.deck, NEW.salts)
            IS DISTINCT FROM (OLD.table_id, OLD.number, OLD.hand_id, OLD.root, OLD.deck, OLD.salts)
       OR (OLD.dealt_at IS NOT NULL AND NEW.dealt_at IS DISTINCT FROM OLD.dealt_at) THEN
        RAISE EXCEPTION 'the deck committed for deal % of table % never changes', OLD.number, OLD.table_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_deckahead_bound BEFORE UPDATE ON games_deckahead
    FOR EACH ROW EXECUTE FUNCTION games_deckahead_bound();

CREATE FUNCTION games_dealcut_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'a cut is kept as received' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF EXISTS (SELECT 1 FROM games_deckahead WHERE id = NEW.deck_id AND dealt_at IS NOT NULL) THEN
        RAISE EXCEPTION 'the cuts of that deal closed when it was dealt'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_dealcut_guard BEFORE INSERT OR UPDATE ON games_dealcut
    FOR EACH ROW EXECUTE FUNCTION games_dealcut_guard();

CREATE FUNCTION games_hand_dealt_from_ahead() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.scheme = 'merkle-sha256-cut-v1' AND NEW.closed_leaves = '{}'::jsonb AND NOT EXISTS (
            SELECT 1 FROM games_deckahead d WHERE d.hand_id = NEW.id AND d.table_id = NEW.table_id
            AND d.number = NEW.number AND d.root = NEW.commitment AND d.deck = NEW.deck AND d.salts = NEW.salts) THEN
        RAISE EXCEPTION 'hand % is not dealt from the deck committed for its deal', NEW.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_hand_dealt_from_ahead BEFORE INSERT ON games_hand
    FOR EACH ROW EXECUTE FUNCTION games_hand_dealt_from_ahead();
"""

BACKWARD = _hand_guard(_HAND_COLUMNS) + r"""
DROP TRIGGER IF EXISTS games_hand_dealt_from_ahead ON games_hand;
DROP FUNCTION IF EXISTS games_hand_dealt_from_ahead();
DROP TRIGGER IF EXISTS games_dealcut_guard ON games_dealcut;
DROP FUNCTION IF EXISTS games_dealcut_guard();
DROP TRIGGER IF EXISTS games_deckahead_bound ON games_deckahead;
DROP FUNCTION IF EXISTS games_deckahead_bound();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0012_practice_tables'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='hand',
            name='cuts',
            field=models.JSONField(blank=True, default=list, help_text='The cuts this hand was dealt through.'),
        ),
        migrations.AlterField(
            model_name='hand',
            name='scheme',
            field=models.CharField(choices=[('deck-sha256', 'One commitment of the whole deck'), ('merkle-sha256-v1', 'One commitment per card (Merkle root)'), ('merkle-sha256-cut-v1', "Committed ahead, dealt through the players' cuts")], default='merkle-sha256-v1', max_length=20),
        ),
        migrations.CreateModel(
            name='DeckAhead',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField(help_text='The deal number at the table this deck is for.')),
                ('hand_id', models.BigIntegerField(help_text='The id the hand dealt from this deck takes.', unique=True)),
                ('deck', models.JSONField(help_text='The committed order; never shown before its hand ends.')),
                ('salts', models.JSONField(help_text='One 128-bit salt per position; opened only by right.')),
                ('root', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('dealt_at', models.DateTimeField(blank=True, help_text='Cuts close when the deck is dealt.', null=True)),
                ('wait_until', models.DateTimeField(blank=True, help_text='House rule cut_required: this deal waits for a cut until then, and is then dealt without one.', null=True)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decks_ahead', to='games.table')),
            ],
        ),
        migrations.CreateModel(
            name='DealCut',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('value', models.CharField(max_length=32)),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('deck', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='cuts', to='games.deckahead')),
            ],
        ),
        migrations.AddConstraint(
            model_name='deckahead',
            constraint=models.UniqueConstraint(fields=('table', 'number'), name='deck_ahead_one_per_deal'),
        ),
        migrations.AddConstraint(
            model_name='dealcut',
            constraint=models.UniqueConstraint(fields=('deck', 'user', 'value'), name='deal_cut_once'),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
