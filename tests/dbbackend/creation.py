"""The test database of each pytest-xdist worker, cloned from one migrated template of the run.

Every worker used to create its database and run all the migrations itself: three workers ran the same
migrations three times, at the same moment, on two cores. Now the first worker to come creates and
migrates a template database for the whole run (under a PostgreSQL advisory lock the others wait on),
and each worker's database is a copy of it (CREATE DATABASE ... TEMPLATE: the tables, rows and the
application role's grants, all of them made by the migrations). The xdist controller drops the template
when the run ends (`drop_run_template`, from tests/conftest.py). A run without xdist migrates its one
database as Django does.
"""

from __future__ import annotations

import os
from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import creation
from psycopg import sql

RUN = "PYTEST_XDIST_TESTRUNUID"


def template_name(run: str) -> str:
    return f"test_club_run_{run[:16]}"


class DatabaseCreation(creation.DatabaseCreation):
    def create_test_db(
        self, verbosity: int = 1, autoclobber: bool = False, serialize: bool = True, keepdb: bool = False
    ) -> str:
        run = os.environ.get(RUN)
        if not run or keepdb:
            return str(super().create_test_db(verbosity, autoclobber, serialize, keepdb))
        name = self._get_test_db_name()
        template = template_name(run)
        quote = self._quote_name
        with self._nodb_cursor() as cursor:
            # No statement timeout here: the lock waits for the first worker's migrations, and a copy on a
            # loaded machine may take longer than the tests' few seconds.
            cursor.execute("SET statement_timeout = 0")
            cursor.execute("SELECT pg_advisory_lock(%s)", [int(run[:15], 16)])  # released with this connection
            if not self._database_exists(cursor, template):
                self._create_template(template, verbosity, autoclobber)
            if verbosity >= 1:
                self.log(f"Copying the run's migrated database {template} for alias {self.connection.alias}...")
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
            cursor.execute(f"CREATE DATABASE {quote(name)} WITH TEMPLATE {quote(template)}")
        from django.core.management import call_command

        self.connection.close()
        settings.DATABASES[self.connection.alias]["NAME"] = name
        self.connection.settings_dict["NAME"] = name
        if serialize:
            self.connection._test_serialized_contents = self.serialize_db_to_string()  # type: ignore[attr-defined]
        call_command("createcachetable", database=self.connection.alias)
        self.connection.ensure_connection()
        return name

    def _create_template(self, template: str, verbosity: int, autoclobber: bool) -> None:
        """Create and migrate the template as Django creates a test database, then let go of it: a database
        can be copied only while nobody is connected to it."""
        test_settings: dict[str, Any] = self.connection.settings_dict["TEST"]
        wanted = test_settings.get("NAME")
        test_settings["NAME"] = template
        try:
            super().create_test_db(verbosity, autoclobber, serialize=False, keepdb=False)
        finally:
            test_settings["NAME"] = wanted
            self.connection.close()
            self.connection.close_pool()

    def _destroy_test_db(self, test_database_name: str, verbosity: int) -> None:
        # Without the tests' statement timeout: on a loaded machine dropping a database can take longer, and a
        # drop cancelled half way leaves the database behind.
        self.connection.close_pool()
        with self._nodb_cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
            cursor.execute(f"DROP DATABASE IF EXISTS {self._quote_name(test_database_name)}")


def drop_run_template(run: str) -> None:
    """Drop the run's template (the xdist controller, once every worker is done; it has no Django connection
    of its own to use: the database is blocked outside tests)."""
    owner = settings.DATABASES.get("owner") or settings.DATABASES["default"]
    params = {
        "dbname": "postgres",
        "user": owner.get("USER") or None,
        "password": owner.get("PASSWORD") or None,
        "host": owner.get("HOST") or None,
        "port": owner.get("PORT") or None,
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v is not None}, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(template_name(run))))
