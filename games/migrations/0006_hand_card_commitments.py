import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_table_stopped_and_next_game'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='hand',
            name='salts',
            field=models.JSONField(blank=True, default=list, help_text='One 128-bit salt per deck position; each opened only by right.'),
        ),
        # Hands dealt before this migration used the whole-deck commitment: they say so.
        migrations.AddField(
            model_name='hand',
            name='scheme',
            field=models.CharField(choices=[('deck-sha256', 'One commitment of the whole deck'), ('merkle-sha256-v1', 'One commitment per card (Merkle root)')], default='deck-sha256', max_length=20),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name='hand',
            name='scheme',
            field=models.CharField(choices=[('deck-sha256', 'One commitment of the whole deck'), ('merkle-sha256-v1', 'One commitment per card (Merkle root)')], default='merkle-sha256-v1', max_length=20),
        ),
        migrations.AlterField(
            model_name='hand',
            name='commitment',
            field=models.CharField(help_text="Published at the deal: the Merkle root of the deck's salted leaves (older hands: SHA-256 of the deck order and salt).", max_length=64),
        ),
        migrations.AlterField(
            model_name='hand',
            name='salt',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.CreateModel(
            name='HandDispute',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('hand', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='dispute', to='games.hand')),
                ('ruled_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('reason', ''), _negated=True), name='hand_dispute_has_reason')],
            },
        ),
    ]
