"""The sitting index: a seat's money at a table (ledger.selectors.seat_money_join) sums the member's postings
at that table since they sat from this index alone, instead of visiting every posting of the member's history
(docs/live.md "Machinery")."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0005_practice_books_guard"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="posting",
            index=models.Index(
                fields=["account", "table", "created_at"], include=("amount",), name="ledger_posting_sitting"
            ),
        ),
    ]
