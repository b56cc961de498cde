"""The project's PostgreSQL backend (config/database), except that flushing the tables runs as the owner role
(mostly by DELETE: tests/dbbackend/flush.py) and each xdist worker's test database is a copy of one migrated
for the run (tests/dbbackend/creation.py).

The tests connect as the application role (docs/settings-and-security.md, "The two database roles"), which may not
TRUNCATE. Django's transactional test cases empty the tables between tests; that flush goes over a short
connection of the owner (the `owner` database of the settings) to the same test database. Everything a test
does runs as the application role.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import operations

from config.database import base
from tests.dbbackend import flush
from tests.dbbackend.creation import DatabaseCreation


def owner_connect(settings_dict: dict[str, Any]) -> psycopg.Connection[Any]:
    """A new connection as the owner role to the database of `settings_dict` (the test database)."""
    owner: dict[str, Any] = settings.DATABASES["owner"]
    params = {
        "dbname": settings_dict["NAME"],
        "user": owner["USER"],
        "password": owner.get("PASSWORD") or None,
        "host": settings_dict.get("HOST") or None,
        "port": settings_dict.get("PORT") or None,
    }
    return psycopg.connect(**{k: v for k, v in params.items() if v is not None})


class DatabaseOperations(operations.DatabaseOperations):
    def execute_sql_flush(self, sql_list: list[str]) -> None:
        owner: dict[str, Any] | None = settings.DATABASES.get("owner")
        if not owner or owner.get("USER") == self.connection.settings_dict.get("USER"):
            super().execute_sql_flush(sql_list)
            return
        from games.live.publish import announce_flush  # (the backend loads before the apps)

        announce_flush()  # a version's frames still being read after the test would hold locks TRUNCATE waits for
        tables = flush.tables_of(sql_list)
        for attempt in range(3):
            try:
                with owner_connect(self.connection.settings_dict) as conn, conn.cursor() as cur:
                    if tables is not None:
                        try:
                            with conn.transaction():
                                flush.empty(cur, tables)
                            return
                        except psycopg.errors.DeadlockDetected:
                            raise
                        except psycopg.Error:  # a foreign key that cannot wait for the commit: Django's TRUNCATE
                            pass
                    for sql in sql_list:
                        cur.execute(sql)  # committed when the block ends
                return
            except psycopg.errors.DeadlockDetected:  # a connection the test left behind finishing: empty again
                if attempt == 2:
                    raise
                time.sleep(0.5)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    creation_class = DatabaseCreation
