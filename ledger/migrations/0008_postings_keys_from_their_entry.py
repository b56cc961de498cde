"""A posting's club and table are its entry's: checked once, on the entry, not again on each posting.

The posting trigger (``ledger_posting_stamp``, 0002 and 0007) sets a posting's ``club_id`` and ``table_id`` from its
entry, whatever the inserter sent, and a posting is never updated (0002, and the web's role may not). The entry's
own foreign keys to the club and the table are checked at the commit; the posting's were the same check again, two
more at the commit for every posting (four a chip event). They go; the columns stay, filled by the trigger.
tests/security/test_books_hold_against_the_web_role.py sends another club's and a missing table's ids with a
posting and finds the entry's stored.

The entry's index on ``club_id`` alone goes too: ``ledger_entry_club_id`` (club, id) serves every read by club and
the club's own foreign key check, and each entry wrote both.
"""

from django.db import migrations, models

FORWARD = r"""
ALTER TABLE ledger_posting DROP CONSTRAINT IF EXISTS ledger_posting_club_id_53ecc4b5_fk_accounts_club_id;
ALTER TABLE ledger_posting DROP CONSTRAINT IF EXISTS ledger_posting_table_id_18280306_fk_games_table_id;
DROP INDEX IF EXISTS ledger_journalentry_club_id_8fa73584;
"""

# As Django's 0001 made them (deferred to the commit, as every foreign key of the site).
BACKWARD = r"""
ALTER TABLE ledger_posting DROP CONSTRAINT IF EXISTS ledger_posting_club_id_53ecc4b5_fk_accounts_club_id;
ALTER TABLE ledger_posting ADD CONSTRAINT ledger_posting_club_id_53ecc4b5_fk_accounts_club_id
    FOREIGN KEY (club_id) REFERENCES accounts_club(id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE ledger_posting DROP CONSTRAINT IF EXISTS ledger_posting_table_id_18280306_fk_games_table_id;
ALTER TABLE ledger_posting ADD CONSTRAINT ledger_posting_table_id_18280306_fk_games_table_id
    FOREIGN KEY (table_id) REFERENCES games_table(id) DEFERRABLE INITIALLY DEFERRED;
CREATE INDEX IF NOT EXISTS ledger_journalentry_club_id_8fa73584 ON ledger_journalentry (club_id);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0007_postings_in_their_entrys_transaction")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AlterField(
                    model_name="posting",
                    name="club",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        editable=False,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="+",
                        to="accounts.club",
                    ),
                ),
                migrations.AlterField(
                    model_name="posting",
                    name="table",
                    field=models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        db_index=False,
                        editable=False,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="+",
                        to="games.table",
                    ),
                ),
                migrations.AlterField(
                    model_name="journalentry",
                    name="club",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="journal_entries",
                        to="accounts.club",
                    ),
                ),
            ],
        ),
    ]
