"""The application role's rights, granted by the owner after every migration.

The site, the workers and the tests connect as the application role (DATABASE_URL). It owns no
table, so it can't ALTER a table, drop or disable a trigger, or TRUNCATE (which skips the row
triggers of migration 0002); and it is refused UPDATE and DELETE on the books themselves, so the
insert-only rule does not rest on the triggers alone. Everything else it gets: read and write on
the other tables, and the sequences.

`grant_application_role` runs at the end of each `migrate` made by the owner (a post_migrate
handler, ledger/apps.py), so a new table is granted in the same run that creates it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

#: insert-only tables: the application role may read and add rows, never change or remove one
INSERT_ONLY_TABLES = ("ledger_journalentry", "ledger_posting", "ledger_ruling")
#: rows the application updates under a guard (balances by the posting trigger, a pending
#: settlement's decision) but never deletes
NEVER_DELETED_TABLES = ("ledger_account", "ledger_settlement")
#: written by migrations only
MIGRATION_TABLES = ("django_migrations",)


def _owns_books(connection: BaseDatabaseWrapper) -> bool:
    """True when the connected role owns the ledger's posting table (that is, it is the owner)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE oid = to_regclass('ledger_posting')"
        )
        row = cursor.fetchone()
    return bool(row and row[0])


def grant_application_role(*, using: str, role: str) -> bool:
    """Give `role` the application's rights on every table of the database behind `using`.

    Returns False (and changes nothing) when `using` is not connected as the owner of the books or
    `role` is that same role: a single-role set-up keeps working as it did.
    """
    connection = connections[using]
    if connection.vendor != "postgresql" or not role or not _owns_books(connection):
        return False
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        row = cursor.fetchone()
        if row is None or row[0] == role:
            return False
    grantee = quote(role)
    statements = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {grantee}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {grantee}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {grantee}",
        f"REVOKE UPDATE, DELETE ON {', '.join(INSERT_ONLY_TABLES)} FROM {grantee}",
        f"REVOKE DELETE ON {', '.join(NEVER_DELETED_TABLES)} FROM {grantee}",
        f"REVOKE INSERT, UPDATE, DELETE ON {', '.join(MIGRATION_TABLES)} FROM {grantee}",
    ]
    with transaction.atomic(using=using), connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
    return True


def grant_after_migrate(*, using: str = "default", **kwargs: Any) -> None:
    """post_migrate handler: grant the application role (DATABASE_URL's user) its rights."""
    grant_application_role(using=using, role=settings.DATABASE_APP_ROLE)
